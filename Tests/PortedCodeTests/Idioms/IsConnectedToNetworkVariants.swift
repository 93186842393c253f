// Idiom: the other shapes the `isConnectedToNetwork()` snippet takes in the
// wild, each importing SystemConfiguration alone (it brings the socket types
// and CoreFoundation's `kCFAllocatorDefault` on Apple's platforms):
// `MemoryLayout.size(ofValue:)` for the length, the default allocator spelled
// out, the flags read through `withUnsafeMutablePointer`, and a plain
// `sockaddr` with `sa_len` passed by `&` with no rebinding at all.

import SystemConfiguration

enum ReachabilityCheck {
    static func isConnectedToNetwork() -> Bool {
        var zeroAddress = sockaddr_in()
        zeroAddress.sin_len = UInt8(MemoryLayout.size(ofValue: zeroAddress))
        zeroAddress.sin_family = sa_family_t(AF_INET)

        let defaultRouteReachability = withUnsafePointer(to: &zeroAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                SCNetworkReachabilityCreateWithAddress(kCFAllocatorDefault, $0)
            }
        }
        guard let reachability = defaultRouteReachability else { return false }

        var flags = SCNetworkReachabilityFlags()
        let gotFlags = withUnsafeMutablePointer(to: &flags) {
            SCNetworkReachabilityGetFlags(reachability, $0)
        }
        if !gotFlags { return false }

        let isReachable = flags.contains(.reachable)
        let needsConnection = flags.contains(.connectionRequired)
        return isReachable && !needsConnection
    }

    /// The shortest copy: a bare `sockaddr`, its `sa_len` set, passed with `&`.
    static func hasInternet() -> Bool {
        var address = sockaddr()
        address.sa_len = UInt8(MemoryLayout<sockaddr>.size)
        address.sa_family = sa_family_t(AF_INET)
        guard let target = SCNetworkReachabilityCreateWithAddress(nil, &address) else { return false }
        var flags = SCNetworkReachabilityFlags()
        SCNetworkReachabilityGetFlags(target, &flags)
        return flags.contains(.reachable) && !flags.contains(.connectionRequired)
    }
}
