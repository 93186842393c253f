// Idiom: the most up-voted copy of `isConnectedToNetwork()` builds the zero
// address with `sockaddr_in`'s memberwise initialiser, every field named,
// `sin_len` first (Darwin's struct has the field; Swift imports the C struct
// with an initialiser taking all of them). Imports SystemConfiguration alone.

import SystemConfiguration

enum MemberwiseConnectivity {
    static func isConnectedToNetwork() -> Bool {
        var zeroAddress = sockaddr_in(sin_len: 0, sin_family: 0, sin_port: 0,
                                      sin_addr: in_addr(s_addr: 0), sin_zero: (0, 0, 0, 0, 0, 0, 0, 0))
        zeroAddress.sin_len = UInt8(MemoryLayout.size(ofValue: zeroAddress))
        zeroAddress.sin_family = sa_family_t(AF_INET)
        guard let defaultRouteReachability = withUnsafePointer(to: &zeroAddress, {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { SCNetworkReachabilityCreateWithAddress(nil, $0) }
        }) else {
            return false
        }
        var flags: SCNetworkReachabilityFlags = []
        if !SCNetworkReachabilityGetFlags(defaultRouteReachability, &flags) {
            return false
        }
        return flags.contains(.reachable) && !flags.contains(.connectionRequired)
    }
}
