// SystemConfiguration's reachability flags: the same bits as the engine's
// ReachabilityFlags (which were made Apple's bits on purpose), under Apple's
// Swift names.

import LinuxReachability

/// The flags of ``SCNetworkReachabilityGetFlags(_:_:)`` and of the callback, with the
/// bit values of Apple's `SCNetworkReachabilityFlags` (`kSCNetworkReachabilityFlags…`).
///
/// On Linux each bit is a kernel fact: README, "Porting from iOS", and the
/// engine's `ReachabilityFlags` say which. `isWWAN` is set when the route
/// leaves by a link classified WWAN (on Apple it is iOS-only; on a gateway
/// with an LTE modem it is the point).
///
/// The conformances are Apple's imported option set's (`OptionSet`,
/// `Sendable`): not `Hashable`, not `CustomStringConvertible`, as iOS apps
/// declare those themselves (`extension SCNetworkReachabilityFlags:
/// CustomStringConvertible`), which must stay no redundant conformance here.
public struct SCNetworkReachabilityFlags: OptionSet, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// The target is reached through a connection that may come and go. On
    /// Linux: the route's output link is point-to-point (`IFF_POINTOPOINT`:
    /// ppp, tun, a raw-IP modem).
    public static let transientConnection = SCNetworkReachabilityFlags(ReachabilityFlags.transientConnection)
    /// The target can be reached with the current configuration. On Linux: the
    /// kernel's route lookup returns a usable route whose link is
    /// administratively up; cleared for a WWAN-only path when the process's
    /// cellular-data switch is off.
    public static let reachable = SCNetworkReachabilityFlags(ReachabilityFlags.reachable)
    /// A connection has to come up before traffic can flow. On Linux: a route
    /// exists but its link is not operational (no carrier, operstate down,
    /// lower layer down, or dormant).
    public static let connectionRequired = SCNetworkReachabilityFlags(ReachabilityFlags.connectionRequired)
    /// Sending traffic would bring the needed connection up. On Linux no kernel
    /// fact stands for it: it is set with `connectionRequired` for the
    /// interfaces `ReachabilityPolicy.onTrafficInterfaces` names.
    public static let connectionOnTraffic = SCNetworkReachabilityFlags(ReachabilityFlags.connectionOnTraffic)
    /// The user must act before the connection works. On Linux: the link is
    /// dormant (waiting for authentication), or validation found a captive
    /// portal.
    public static let interventionRequired = SCNetworkReachabilityFlags(ReachabilityFlags.interventionRequired)
    /// The needed connection would come up when a program asks for it. On Linux
    /// no kernel fact stands for it: it is set with `connectionRequired` for
    /// the interfaces `ReachabilityPolicy.onDemandInterfaces` names.
    public static let connectionOnDemand = SCNetworkReachabilityFlags(ReachabilityFlags.connectionOnDemand)
    /// The target is one of this host's own addresses. On Linux: the kernel's
    /// route for it is of type `local`.
    public static let isLocalAddress = SCNetworkReachabilityFlags(ReachabilityFlags.isLocalAddress)
    /// The target is on a directly attached network, with no router in between.
    /// On Linux: the route has no gateway.
    public static let isDirect = SCNetworkReachabilityFlags(ReachabilityFlags.isDirect)
    /// The path leaves by a cellular link (iOS only on Apple's platforms). On
    /// Linux: the output interface is classified WWAN; it stays set when the
    /// process's switch clears `reachable`, to say why.
    public static let isWWAN = SCNetworkReachabilityFlags(ReachabilityFlags.isWWAN)
    /// Apple's alias of `connectionOnTraffic`.
    public static let connectionAutomatic = connectionOnTraffic

    /// The engine's flags as SystemConfiguration's (the same bits).
    ///
    /// - Parameter flags: The engine's flags.
    public init(_ flags: ReachabilityFlags) { rawValue = flags.rawValue }

    /// SystemConfiguration's flags as the engine's.
    public var reachabilityFlags: ReachabilityFlags { ReachabilityFlags(rawValue: rawValue) }

    /// The names of the set flags (`reachable,isWWAN`), or `0` when none is
    /// set: for this package's own texts. Not a `description`, whose name an
    /// app's own conformance takes.
    package var names: String {
        let names = ReachabilityFlags(rawValue: rawValue).names
        return names.isEmpty ? "0" : names.joined(separator: ",")
    }
}

// MARK: - SCNetwork.h's flag constants

// The older spelling of the flags (SCNetwork.h, deprecated in favour of
// SCNetworkReachabilityFlags), as Swift imports them: `Int` constants that
// older code tests with `flags.rawValue & UInt32(kSCNetworkFlagsReachable)`.

/// `kSCNetworkReachabilityFlagsTransientConnection`'s older name.
public let kSCNetworkFlagsTransientConnection: Int = 1 << 0
/// `kSCNetworkReachabilityFlagsReachable`'s older name.
public let kSCNetworkFlagsReachable: Int = 1 << 1
/// `kSCNetworkReachabilityFlagsConnectionRequired`'s older name.
public let kSCNetworkFlagsConnectionRequired: Int = 1 << 2
/// `kSCNetworkReachabilityFlagsConnectionAutomatic`'s older name.
public let kSCNetworkFlagsConnectionAutomatic: Int = 1 << 3
/// `kSCNetworkReachabilityFlagsInterventionRequired`'s older name.
public let kSCNetworkFlagsInterventionRequired: Int = 1 << 4
/// `kSCNetworkReachabilityFlagsIsLocalAddress`'s older name.
public let kSCNetworkFlagsIsLocalAddress: Int = 1 << 16
/// `kSCNetworkReachabilityFlagsIsDirect`'s older name.
public let kSCNetworkFlagsIsDirect: Int = 1 << 17
