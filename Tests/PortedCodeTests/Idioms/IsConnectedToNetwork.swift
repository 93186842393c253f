// Idiom: the `isConnectedToNetwork()` snippet every iOS code base has a copy
// of, in its most copied shape: a class function, the zero address rebound
// to `sockaddr` inside `withUnsafePointer`, `sin_len` set as the BSD socket
// API wants it, and "reachable and no connection needed" as the answer.
// The original imports Foundation and SystemConfiguration; so does this file.

import Foundation
import SystemConfiguration

final class NetworkConnectivity {
    class func isConnectedToNetwork() -> Bool {
        var zeroAddress = sockaddr_in()
        zeroAddress.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        zeroAddress.sin_family = sa_family_t(AF_INET)

        guard let defaultRouteReachability = withUnsafePointer(to: &zeroAddress, {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { zeroSockAddress in
                SCNetworkReachabilityCreateWithAddress(nil, zeroSockAddress)
            }
        }) else {
            return false
        }

        var flags: SCNetworkReachabilityFlags = SCNetworkReachabilityFlags(rawValue: 0)
        if SCNetworkReachabilityGetFlags(defaultRouteReachability, &flags) == false {
            return false
        }

        let isReachable = flags.contains(.reachable)
        let needsConnection = flags.contains(.connectionRequired)
        return isReachable && !needsConnection
    }
}
