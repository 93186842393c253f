/// What the kernel says about reaching one destination, bit for bit the
/// `SCNetworkReachabilityFlags` of Apple's SystemConfiguration, with the
/// Linux meaning of each bit given by Architecture.md ("Kernel state →
/// flags") and decided in ``init(verdict:hasGateway:link:kind:)``, which
/// the core's `init(route:link:kind:)` calls with a route lookup's facts
/// (with the policy applied by ``ReachabilityPolicy/flags(_:interface:)``).
public struct ReachabilityFlags: OptionSet, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// The output link is point-to-point (`IFF_POINTOPOINT`: ppp, tun, raw-IP WWAN).
    /// Corresponds to `kSCNetworkReachabilityFlagsTransientConnection` (1 << 0).
    public static let transientConnection = ReachabilityFlags(rawValue: 1 << 0)
    /// The FIB returns a usable route whose output link is administratively up.
    /// Corresponds to `kSCNetworkReachabilityFlagsReachable` (1 << 1).
    public static let reachable = ReachabilityFlags(rawValue: 1 << 1)
    /// A route exists but its link is not operational (no carrier, operstate down,
    /// lowerlayerdown or dormant). Corresponds to `kSCNetworkReachabilityFlagsConnectionRequired` (1 << 2).
    public static let connectionRequired = ReachabilityFlags(rawValue: 1 << 2)
    /// A connection is required and the interface is configured to dial on traffic.
    /// Corresponds to `kSCNetworkReachabilityFlagsConnectionOnTraffic` (1 << 3).
    public static let connectionOnTraffic = ReachabilityFlags(rawValue: 1 << 3)
    /// The link is dormant (waiting for authentication) or a probe found a captive portal.
    /// Corresponds to `kSCNetworkReachabilityFlagsInterventionRequired` (1 << 4).
    public static let interventionRequired = ReachabilityFlags(rawValue: 1 << 4)
    /// A connection is required and the interface is configured as on-demand.
    /// Corresponds to `kSCNetworkReachabilityFlagsConnectionOnDemand` (1 << 5).
    public static let connectionOnDemand = ReachabilityFlags(rawValue: 1 << 5)
    /// The target is an address of this host (route type `local`).
    /// Corresponds to `kSCNetworkReachabilityFlagsIsLocalAddress` (1 << 16).
    public static let isLocalAddress = ReachabilityFlags(rawValue: 1 << 16)
    /// The route has no gateway: the target is on a directly attached network.
    /// Corresponds to `kSCNetworkReachabilityFlagsIsDirect` (1 << 17).
    public static let isDirect = ReachabilityFlags(rawValue: 1 << 17)
    /// The output interface is classified WWAN/cellular.
    /// Corresponds to `kSCNetworkReachabilityFlagsIsWWAN` (1 << 18).
    public static let isWWAN = ReachabilityFlags(rawValue: 1 << 18)

    /// ``connectionOnTraffic`` under its older SystemConfiguration name (`kSCNetworkReachabilityFlagsConnectionAutomatic`).
    public static let connectionAutomatic = connectionOnTraffic

    /// Every flag with its name, in raw-value order.
    public static let named: [(flag: ReachabilityFlags, name: String)] = [
        (.transientConnection, "transientConnection"),
        (.reachable, "reachable"),
        (.connectionRequired, "connectionRequired"),
        (.connectionOnTraffic, "connectionOnTraffic"),
        (.interventionRequired, "interventionRequired"),
        (.connectionOnDemand, "connectionOnDemand"),
        (.isLocalAddress, "isLocalAddress"),
        (.isDirect, "isDirect"),
        (.isWWAN, "isWWAN"),
    ]

    /// The names of the set flags, in raw-value order.
    public var names: [String] { Self.named.filter { contains($0.flag) }.map(\.name) }

    /// The format of Apple's Reachability sample: `WR tcCiDld`, `-` for a clear
    /// bit; `-R -------` is "reachable" alone.
    public var description: String {
        func c(_ flag: ReachabilityFlags, _ letter: Character) -> Character { contains(flag) ? letter : "-" }
        return String([
            c(.isWWAN, "W"), c(.reachable, "R"), " ",
            c(.transientConnection, "t"), c(.connectionRequired, "c"), c(.connectionOnTraffic, "C"),
            c(.interventionRequired, "i"), c(.connectionOnDemand, "D"), c(.isLocalAddress, "l"),
            c(.isDirect, "d"),
        ])
    }
}
