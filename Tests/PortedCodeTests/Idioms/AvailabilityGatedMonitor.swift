// Idiom: a monitor wrapper in code that still builds for platforms without
// Network (`#if canImport(Network)`) and deploys below iOS 12 (`@available`
// on the type, `#available` at the call site). Imports Foundation, and
// Network where it exists, as the original. Swift 5 mode only, as in the
// wild: the handler is `@Sendable` (as Apple declares it) and captures the
// non-Sendable wrapper, which Swift 6 refuses on Apple's platforms too.

import Foundation
#if canImport(Network)
import Network
#endif

#if canImport(Network)
@available(iOS 12.0, macOS 10.14, tvOS 12.0, watchOS 5.0, *)
final class PathMonitorWrapper {
    private let monitor = NWPathMonitor()
    private let queue = DispatchQueue(label: "PathMonitorWrapper", qos: .utility)
    /// Called on the main queue with whether the path is usable, and over Wi-Fi or wire.
    var onChange: ((_ isReachable: Bool, _ isWiFiOrWired: Bool) -> Void)?

    func start() {
        monitor.pathUpdateHandler = { [weak self] path in
            let reachable = path.status == .satisfied
            let local = path.usesInterfaceType(.wifi) || path.usesInterfaceType(.wiredEthernet)
            DispatchQueue.main.async {
                self?.onChange?(reachable, local)
            }
        }
        monitor.start(queue: queue)
    }

    func stop() {
        monitor.cancel()
    }
}
#endif

enum ConnectionWatcherFactory {
    /// A started wrapper where Network exists and the OS is new enough; nil otherwise.
    static func makeWatcher(onChange: @escaping (Bool, Bool) -> Void) -> AnyObject? {
        #if canImport(Network)
        if #available(iOS 12.0, macOS 10.14, tvOS 12.0, watchOS 5.0, *) {
            let wrapper = PathMonitorWrapper()
            wrapper.onChange = onChange
            wrapper.start()
            return wrapper
        }
        #endif
        return nil
    }

    static func stop(_ watcher: AnyObject?) {
        #if canImport(Network)
        if #available(iOS 12.0, macOS 10.14, tvOS 12.0, watchOS 5.0, *) {
            (watcher as? PathMonitorWrapper)?.stop()
        }
        #endif
    }
}
