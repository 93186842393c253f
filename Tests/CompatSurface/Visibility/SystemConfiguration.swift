// What a file that imports only `SystemConfiguration` sees besides the
// module's own declarations (docs/compat-surface/SystemConfiguration.md,
// header). Apple's SCNetworkReachability.h includes <sys/types.h>,
// <sys/socket.h>, <CoreFoundation/CoreFoundation.h> and
// <dispatch/dispatch.h>, and SystemConfiguration.h includes CoreFoundation:
// the socket types and constants (Darwin's), CoreFoundation's names and
// Dispatch are visible to an importer. Here: Glibc, CoreFoundation, Dispatch.
// Foundation is not (no header of the framework includes it).

import SystemConfiguration

func visibility_SystemConfiguration() {
    // <sys/socket.h>, <netinet/in.h>: the classic isConnectedToNetwork() snippet.
    var zeroAddress = sockaddr_in()
    zeroAddress.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
    zeroAddress.sin_family = sa_family_t(AF_INET)
    zeroAddress.sin_port = 0
    zeroAddress.sin_addr = in_addr(s_addr: 0)
    let _: Int32 = AF_INET6
    var six = sockaddr_in6()
    six.sin6_len = UInt8(MemoryLayout<sockaddr_in6>.size)
    six.sin6_family = sa_family_t(AF_INET6)
    var generic = sockaddr()
    generic.sa_len = UInt8(MemoryLayout<sockaddr>.size)
    generic.sa_family = sa_family_t(AF_INET)
    var storage = sockaddr_storage()
    storage.ss_family = sa_family_t(AF_INET)
    let _: socklen_t = socklen_t(MemoryLayout<sockaddr_in>.size)
    let reachability = withUnsafePointer(to: &zeroAddress) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            SCNetworkReachabilityCreateWithAddress(kCFAllocatorDefault, $0)
        }
    }
    var flags: SCNetworkReachabilityFlags = []
    if let reachability, !SCNetworkReachabilityGetFlags(reachability, &flags) { return }

    // <CoreFoundation/CoreFoundation.h>: allocators, run loops, CFIndex.
    let _: CFAllocator? = kCFAllocatorDefault
    let _: CFIndex = 0
    let _: CFRunLoop = CFRunLoopGetCurrent()
    let _: CFRunLoop = CFRunLoopGetMain()

    // <dispatch/dispatch.h>: queues for SCNetworkReachabilitySetDispatchQueue.
    let queue = DispatchQueue(label: "reachability", qos: .utility)
    if let reachability { _ = SCNetworkReachabilitySetDispatchQueue(reachability, queue) }
    DispatchQueue.main.async {}
    let _: DispatchQueue = .global(qos: .background)
}
