// Idiom: SCNetworkReachability with a callback, the way hand-rolled
// wrappers do it: a file-level function as the callback (a C function
// pointer on Apple's platforms, so it may capture nothing), the object
// passed through the context's `info` with `Unmanaged.passUnretained`, and
// scheduling with `SCNetworkReachabilitySetDispatchQueue`. Imports Foundation
// and SystemConfiguration, as the original. Swift 5 mode only, as in the
// wild: `queue.async` takes a `@Sendable` block that captures the
// non-Sendable observer, which Swift 6 refuses with Apple's Dispatch too.

import Foundation
import SystemConfiguration

private func reachabilityCallback(_ target: SCNetworkReachability, _ flags: SCNetworkReachabilityFlags,
                                  _ info: UnsafeMutableRawPointer?) {
    guard let info = info else { return }
    let observer = Unmanaged<ReachabilityObserver>.fromOpaque(info).takeUnretainedValue()
    observer.reachabilityChanged(flags)
}

final class ReachabilityObserver {
    enum Status: Equatable {
        case offline, wifi, cellular
    }

    private let target: SCNetworkReachability
    private let queue = DispatchQueue(label: "ReachabilityObserver")
    private(set) var status: Status = .offline
    /// Called on the observer's queue with each new status.
    var statusChanged: ((Status) -> Void)?

    init?() {
        var address = sockaddr_in()
        address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        address.sin_family = sa_family_t(AF_INET)
        guard let target = withUnsafePointer(to: &address, {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { SCNetworkReachabilityCreateWithAddress(nil, $0) }
        }) else { return nil }
        self.target = target
    }

    deinit { stop() }

    @discardableResult
    func start() -> Bool {
        var context = SCNetworkReachabilityContext(version: 0, info: nil, retain: nil, release: nil, copyDescription: nil)
        context.info = Unmanaged.passUnretained(self).toOpaque()
        guard SCNetworkReachabilitySetCallback(target, reachabilityCallback, &context) else { return false }
        guard SCNetworkReachabilitySetDispatchQueue(target, queue) else {
            SCNetworkReachabilitySetCallback(target, nil, nil)
            return false
        }
        // Scheduling brings no callback for the state as it is now.
        queue.async {
            var flags = SCNetworkReachabilityFlags()
            if SCNetworkReachabilityGetFlags(self.target, &flags) {
                self.reachabilityChanged(flags)
            }
        }
        return true
    }

    func stop() {
        SCNetworkReachabilitySetCallback(target, nil, nil)
        SCNetworkReachabilitySetDispatchQueue(target, nil)
    }

    fileprivate func reachabilityChanged(_ flags: SCNetworkReachabilityFlags) {
        let newStatus: Status
        if !flags.contains(.reachable) || flags.contains(.connectionRequired) {
            newStatus = .offline
        } else if flags.contains(.isWWAN) {
            newStatus = .cellular
        } else {
            newStatus = .wifi
        }
        status = newStatus
        statusChanged?(newStatus)
    }
}
