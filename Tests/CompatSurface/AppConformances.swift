// typecheck: warnings are errors
// Conformances iOS apps declare themselves on Apple's types, because Apple's
// have none: here too they must be no redundant conformance (a warning, and
// our text instead of the app's), so the compat types must not have them.

import Network
import SystemConfiguration

extension SCNetworkReachabilityFlags: @retroactive CustomStringConvertible {
    public var description: String {
        (contains(.isWWAN) ? "W" : "-") + (contains(.reachable) ? "R" : "-")
    }
}

extension SCNetworkReachabilityFlags: @retroactive Hashable {}

extension NWInterface.InterfaceType: @retroactive CaseIterable {
    public static var allCases: [NWInterface.InterfaceType] { [.wifi, .cellular, .wiredEthernet, .loopback, .other] }
}

func appConformancesAreTheApps(_ flags: SCNetworkReachabilityFlags) -> (String, Int, Int) {
    ("\(flags)", Set([flags]).count, NWInterface.InterfaceType.allCases.count)
}
