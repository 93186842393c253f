// The status decision tables: pure functions from flags to the answers that
// iOS code expects. They are the hot path, so each one is a constant table
// indexed by the five flag bits the rule reads (no branches on the flags, no
// allocation). The tables and the initialisers are @inlinable, so a caller in
// another module gets the lookup inlined rather than a call per answer. Tests
// check every table over all 512 combinations of the nine
// flag bits against a reference written independently.

/// Index into the tables: bit 0 reachable, 1 connectionRequired,
/// 2 connectionOnTraffic, 3 interventionRequired, 4 connectionOnDemand —
/// exactly flag bits 1...5.
@inlinable @inline(__always)
func ruleIndex(_ flags: ReachabilityFlags) -> UInt32 { (flags.rawValue >> 1) & 0x1F }

/// Bit i set when index i is "network reachable" by the AFNetworking rule:
/// reachable && (!connectionRequired || ((onTraffic || onDemand) && !interventionRequired)).
@usableFromInline let networkReachableTable: UInt32 = 0x22AA_22A2

/// `ReachabilityFlags.isWWAN` as a plain constant: inlined code in another
/// module would otherwise reach the static through its lazy accessor.
@usableFromInline let wwanFlagBit: UInt32 = 1 << 18

/// Two bits per index: 0 satisfied, 1 unsatisfied, 2 requiresConnection.
@usableFromInline let pathStatusTable: UInt64 = 0x5555_9191_5555_9151

extension ReachabilityFlags {
    /// The AFNetworking / Apple rule: reachable, and either no connection is
    /// required or it can be made automatically (on demand or on traffic)
    /// without intervention.
    @inlinable @inline(__always)
    public var isNetworkReachable: Bool { (networkReachableTable >> ruleIndex(self)) & 1 == 1 }
}

/// Reachability of a target as Reachability / AFNetworking / Alamofire report it,
/// with the kind of link when reachable.
public enum ReachabilityStatus: Hashable, Sendable, CustomStringConvertible {
    /// Not evaluated yet.
    case unknown
    /// The flags fail the AFNetworking rule (no usable route, a link that is
    /// administratively down, a connection that needs the user), or the only
    /// way out is WWAN and the policy refuses it.
    case notReachable
    /// Reachable over a link of this kind (``InterfaceKind/wwan`` whenever
    /// ``ReachabilityFlags/isWWAN`` is set).
    case reachable(InterfaceKind)

    /// The status for these flags.
    ///
    /// - Parameters:
    ///   - flags: The destination's flags.
    ///   - kind: The output interface's kind, used when the flags say reachable
    ///     but not WWAN.
    @inlinable @inline(__always)
    public init(flags: ReachabilityFlags, kind: InterfaceKind) {
        guard flags.isNetworkReachable else { self = .notReachable; return }
        self = .reachable(flags.rawValue & wwanFlagBit != 0 ? .wwan : kind)
    }

    /// Whether the status is ``ReachabilityStatus/reachable(_:)``, over any kind of link.
    public var isReachable: Bool { if case .reachable = self { return true } else { return false } }

    /// `unknown`, `notReachable`, or `reachable.KIND` (e.g. `reachable.wifi`).
    public var description: String {
        switch self {
        case .unknown: return "unknown"
        case .notReachable: return "notReachable"
        case let .reachable(kind): return "reachable.\(kind.rawValue)"
        }
    }
}

/// The three states of Apple's Reachability sample (and of the seeds that
/// copied it). As there, ``reachableViaWiFi`` means any link that is not WWAN.
public enum NetworkStatus: String, Hashable, Sendable {
    /// The flags fail the AFNetworking rule: no usable route, a link that is
    /// administratively down, or a connection that needs the user.
    case notReachable
    /// Reachable over any link that is not WWAN: Wi-Fi, wired, tunnel, loopback or other.
    case reachableViaWiFi
    /// Reachable with ``ReachabilityFlags/isWWAN`` set; kept when the policy refuses WWAN, as the
    /// kernel still routes there.
    case reachableViaWWAN

    /// The state for these flags: reachable by the AFNetworking rule
    /// (``ReachabilityFlags/isNetworkReachable``), then WWAN or not by
    /// ``ReachabilityFlags/isWWAN``.
    ///
    /// - Parameter flags: The destination's flags.
    @inlinable @inline(__always)
    public init(flags: ReachabilityFlags) {
        guard flags.isNetworkReachable else { self = .notReachable; return }
        self = flags.rawValue & wwanFlagBit != 0 ? .reachableViaWWAN : .reachableViaWiFi
    }
}

/// The NWPath-style view, after Apple's `NWPath.Status`:
/// - ``satisfied``: reachable, no connection required, no intervention required;
/// - ``requiresConnection`` ("establishing a new connection may activate the
///   path"): the route exists and its link comes up by itself, on demand or
///   on traffic (``ReachabilityFlags/connectionRequired`` with
///   ``ReachabilityFlags/connectionOnDemand`` or
///   ``ReachabilityFlags/connectionOnTraffic``), with no intervention required;
/// - ``unsatisfied`` otherwise. Intervention required is always `unsatisfied`,
///   whatever its source — a dormant link (`connectionRequired` too) or a
///   captive portal found by validation (a routed path): no new connection
///   activates it, the user must act. ``UnsatisfiedReason`` says
///   ``UnsatisfiedReason/interventionRequired`` for both. (``ReachabilityStatus`` keeps the
///   published flag rule, in which intervention matters only when a
///   connection is required: a captive portal's path is reachable there.)
public enum PathStatus: String, Hashable, Sendable {
    /// Reachable, with no connection and no intervention required: packets can leave now.
    case satisfied
    /// No usable path, or one that waits for the user (a dormant link, a
    /// captive portal); ``UnsatisfiedReason`` says which.
    case unsatisfied
    /// The route exists and its link is down, but it comes up by itself:
    /// `connectionRequired` with `connectionOnDemand` or `connectionOnTraffic`.
    case requiresConnection

    /// The path status for these flags, by the rule above (the WWAN switch is
    /// applied by the evaluator, not here).
    ///
    /// - Parameter flags: The destination's flags.
    @inlinable @inline(__always)
    public init(flags: ReachabilityFlags) {
        switch (pathStatusTable >> (2 * UInt64(ruleIndex(flags)))) & 3 {
        case 0: self = .satisfied
        case 2: self = .requiresConnection
        default: self = .unsatisfied
        }
    }
}

/// The case's name (its raw value), as reflection printed it: also in a
/// build without reflection metadata (Tools/Footprint/firmware-minimal.flags).
extension NetworkStatus: CustomStringConvertible {
    public var description: String { rawValue }
}

/// The case's name (its raw value), as reflection printed it: also in a
/// build without reflection metadata (Tools/Footprint/firmware-minimal.flags).
extension PathStatus: CustomStringConvertible {
    public var description: String { rawValue }
}
