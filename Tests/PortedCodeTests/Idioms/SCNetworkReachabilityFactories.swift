// Idiom: an extension of SCNetworkReachability that hides the pointer
// dance behind factory functions (the zero address, a host, any IPv4
// address as a `sockaddr_in`) and reads the flags as an optional property.
// Imports SystemConfiguration alone, as such extensions do.

import SystemConfiguration

extension SCNetworkReachability {
    static func forInternetConnection() -> SCNetworkReachability? {
        var zeroAddress = sockaddr_in()
        zeroAddress.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        zeroAddress.sin_family = sa_family_t(AF_INET)
        return forAddress(zeroAddress)
    }

    static func forAddress(_ address: sockaddr_in) -> SCNetworkReachability? {
        var address = address
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                SCNetworkReachabilityCreateWithAddress(nil, $0)
            }
        }
    }

    static func forHost(_ host: String) -> SCNetworkReachability? {
        SCNetworkReachabilityCreateWithName(nil, host)
    }

    var flags: SCNetworkReachabilityFlags? {
        var flags = SCNetworkReachabilityFlags()
        return SCNetworkReachabilityGetFlags(self, &flags) ? flags : nil
    }
}

extension SCNetworkReachabilityFlags {
    /// Reachable now, or through a connection the system makes by itself.
    var isReachableWithoutUser: Bool {
        guard contains(.reachable) else { return false }
        let automatic = contains(.connectionOnDemand) || contains(.connectionOnTraffic)
        return !contains(.connectionRequired) || (automatic && !contains(.interventionRequired))
    }
}

/// What a status label shows for the internet right now.
enum InternetStatusText {
    static func current() -> String {
        guard let flags = SCNetworkReachability.forInternetConnection()?.flags else { return "unknown" }
        guard flags.isReachableWithoutUser else { return "offline" }
        return flags.contains(.isWWAN) ? "cellular" : "wifi"
    }

    static func current(host: String) -> String {
        guard let flags = SCNetworkReachability.forHost(host)?.flags else { return "unknown" }
        return flags.isReachableWithoutUser ? "reachable" : "offline"
    }
}
