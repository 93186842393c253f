// SystemConfiguration's reachability flags: the same bits as the engine's
// ReachabilityFlags (which were made Apple's bits on purpose), under Apple's
// Swift names.

import Reachability

/// The flags of `SCNetworkReachabilityGetFlags` and of the callback, with the
/// bit values of Apple's `SCNetworkReachabilityFlags` (`kSCNetworkReachabilityFlags…`).
///
/// On Linux each bit is a kernel fact: README, "Porting from iOS", and the
/// engine's `ReachabilityFlags` say which. `isWWAN` is set when the route
/// leaves by a link classified WWAN (on Apple it is iOS-only; on a gateway
/// with an LTE modem it is the point).
public struct SCNetworkReachabilityFlags: OptionSet, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let transientConnection = SCNetworkReachabilityFlags(ReachabilityFlags.transientConnection)
    public static let reachable = SCNetworkReachabilityFlags(ReachabilityFlags.reachable)
    public static let connectionRequired = SCNetworkReachabilityFlags(ReachabilityFlags.connectionRequired)
    public static let connectionOnTraffic = SCNetworkReachabilityFlags(ReachabilityFlags.connectionOnTraffic)
    public static let interventionRequired = SCNetworkReachabilityFlags(ReachabilityFlags.interventionRequired)
    public static let connectionOnDemand = SCNetworkReachabilityFlags(ReachabilityFlags.connectionOnDemand)
    public static let isLocalAddress = SCNetworkReachabilityFlags(ReachabilityFlags.isLocalAddress)
    public static let isDirect = SCNetworkReachabilityFlags(ReachabilityFlags.isDirect)
    public static let isWWAN = SCNetworkReachabilityFlags(ReachabilityFlags.isWWAN)
    /// Apple's alias of `connectionOnTraffic`.
    public static let connectionAutomatic = connectionOnTraffic

    /// The engine's flags as SystemConfiguration's (the same bits).
    public init(_ flags: ReachabilityFlags) { rawValue = flags.rawValue }

    /// SystemConfiguration's flags as the engine's.
    public var reachabilityFlags: ReachabilityFlags { ReachabilityFlags(rawValue: rawValue) }

    /// The names of the set flags (`reachable,isWWAN`), or `0` when none is set.
    public var description: String {
        let names = ReachabilityFlags(rawValue: rawValue).names
        return names.isEmpty ? "0" : names.joined(separator: ",")
    }
}
