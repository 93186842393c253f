// What a file that imports only `Network` sees besides the module's own
// declarations (docs/compat-surface/Network.md, header). Apple's
// Network.swiftinterface has `@_exported import Network` (the C module),
// whose headers include <dispatch/dispatch.h> (path_monitor.h,
// connection.h) and <sys/socket.h> with <stdint.h> (endpoint.h): Dispatch and
// the socket types are visible to an importer. Foundation is imported by the
// Swift overlay without `@_exported`, so it is not (`URL`, `Data` need
// `import Foundation` there too).

import Network

func visibility_Network() {
    // <dispatch/dispatch.h>: every NWPathMonitor wrapper in the wild.
    let monitor = NWPathMonitor()
    let queue = DispatchQueue(label: "NetworkMonitor")
    monitor.start(queue: queue)
    monitor.start(queue: DispatchQueue.global(qos: .background))
    let _: DispatchQueue = .main
    let _ = DispatchQueue(label: "monitor", qos: .utility, attributes: .concurrent)
    DispatchQueue.main.async { monitor.cancel() }
    let group = DispatchGroup()
    group.enter()
    group.leave()

    // <sys/socket.h>: the socket address types nw_endpoint_create_address takes.
    var address = sockaddr()
    address.sa_family = sa_family_t(AF_INET)
    let _: Int32 = AF_INET6
    let _: socklen_t = socklen_t(MemoryLayout<sockaddr>.size)
    _ = address
}
