// What the application allows, and how it treats its interfaces: the policy
// half of the flags (connectionOnDemand / connectionOnTraffic) and of the
// NWPath-style `isExpensive` and unsatisfied reason. Pure.

/// What the application allows and how it treats its interfaces: the WWAN
/// switch, interfaces that connect on demand or on traffic, metered and
/// constrained interfaces, and modems the kernel cannot name as such.
public struct ReachabilityPolicy: Hashable, Sendable {
    /// Whether WWAN (cellular) may be used at all.
    public var allowsWWAN: Bool
    /// Interfaces (globs) brought up on demand, e.g. a dial-up modem: a route
    /// over one whose link is down gets ``ReachabilityFlags/connectionOnDemand``.
    public var onDemandInterfaces: [String]
    /// Interfaces (globs) brought up by traffic (dial on traffic):
    /// ``ReachabilityFlags/connectionOnTraffic``.
    public var onTrafficInterfaces: [String]
    /// Interfaces (globs) that cost money per byte, besides every WWAN link.
    public var meteredInterfaces: [String]

    /// Device paths or globs of modems the kernel cannot name as such
    /// (`/dev/ttyACM0`, a modem behind a generic USB serial driver): a PPP link
    /// is WWAN when a modem is present and no PPPoE/L2TP session exists
    /// (``InterfaceKind``, "PPP links").
    public var modemDevices: [String]
    /// Interfaces (globs) the application should use sparingly, like Low Data
    /// Mode: NWPath's `isConstrained`.
    public var constrainedInterfaces: [String]

    /// A policy from its parts. The defaults allow WWAN and list no interface
    /// and no modem, so the kernel's answer stands as it is.
    ///
    /// - Parameters:
    ///   - allowsWWAN: Whether WWAN (cellular) may be used at all.
    ///   - onDemandInterfaces: Interfaces (globs) brought up on demand.
    ///   - onTrafficInterfaces: Interfaces (globs) brought up by traffic.
    ///   - meteredInterfaces: Interfaces (globs) that cost money per byte, besides every WWAN link.
    ///   - modemDevices: Device paths or globs of modems the kernel cannot name as such.
    ///   - constrainedInterfaces: Interfaces (globs) the application should use sparingly.
    public init(allowsWWAN: Bool = true, onDemandInterfaces: [String] = [], onTrafficInterfaces: [String] = [],
                meteredInterfaces: [String] = [], modemDevices: [String] = [], constrainedInterfaces: [String] = []) {
        self.allowsWWAN = allowsWWAN
        self.onDemandInterfaces = onDemandInterfaces
        self.onTrafficInterfaces = onTrafficInterfaces
        self.meteredInterfaces = meteredInterfaces
        self.modemDevices = modemDevices
        self.constrainedInterfaces = constrainedInterfaces
    }

    /// Whether `name` matches one of `patterns` (shell globs, `Glob`).
    package static func matches(_ patterns: [String], _ name: String?) -> Bool {
        guard let name else { return false }
        return patterns.contains { Glob.matches($0, name) }
    }

    /// The flags with the policy's part added:
    /// ``ReachabilityFlags/connectionOnDemand`` or
    /// ``ReachabilityFlags/connectionOnTraffic`` when a connection is required
    /// over an interface configured so (Architecture.md, "Kernel state → flags").
    ///
    /// - Parameters:
    ///   - flags: The kernel's flags for a destination.
    ///   - interface: The name of the output interface, nil when there is none.
    /// - Returns: `flags` with the policy's bits added; `flags` unchanged when
    ///   it lacks ``ReachabilityFlags/connectionRequired``.
    public func flags(_ flags: ReachabilityFlags, interface: String?) -> ReachabilityFlags {
        guard flags.contains(.connectionRequired) else { return flags }
        var result = flags
        if Self.matches(onDemandInterfaces, interface) { result.insert(.connectionOnDemand) }
        if Self.matches(onTrafficInterfaces, interface) { result.insert(.connectionOnTraffic) }
        return result
    }

    /// NWPath's `isConstrained`: over an interface marked constrained.
    ///
    /// - Parameter interface: The name of the output interface, nil when there is none.
    /// - Returns: Whether `interface` matches one of ``constrainedInterfaces``.
    public func isConstrained(interface: String?) -> Bool { Self.matches(constrainedInterfaces, interface) }

    /// NWPath's `isExpensive`: over WWAN, or over an interface marked metered.
    ///
    /// - Parameters:
    ///   - flags: The destination's flags.
    ///   - kind: The output interface's kind, nil when there is none.
    ///   - interface: The name of the output interface, nil when there is none.
    /// - Returns: Whether `flags` has ``ReachabilityFlags/isWWAN``, `kind` is
    ///   ``InterfaceKind/wwan``, or `interface` matches one of ``meteredInterfaces``.
    public func isExpensive(flags: ReachabilityFlags, kind: InterfaceKind?, interface: String?) -> Bool {
        flags.contains(.isWWAN) || kind == .wwan || Self.matches(meteredInterfaces, interface)
    }
}

/// Why a path is not satisfied, NWPath style.
public enum UnsatisfiedReason: String, Hashable, Sendable, CaseIterable {
    /// No usable route: none, unreachable, blackhole, or the link is down.
    case notAvailable
    /// A prohibit route or rule for this uid or mark.
    case prohibited
    /// Only WWAN leads there, and the policy refuses it.
    case wwanRefused
    /// The link needs authentication or a captive portal's consent: a routed
    /// path with `interventionRequired`, whatever its source (a dormant link,
    /// a captive portal found by validation; see ``PathStatus``).
    case interventionRequired

    /// Why a path is not satisfied; nil when it is satisfied (or can be,
    /// automatically): exactly when ``PathStatus`` is not
    /// ``PathStatus/unsatisfied``.
    ///
    /// - Parameters:
    ///   - verdict: What the FIB said about the destination, nil when it is not known.
    ///   - flags: The destination's flags.
    ///   - allowsWWAN: Whether the policy allows WWAN.
    public init?(verdict: RouteVerdict?, flags: ReachabilityFlags, allowsWWAN: Bool) {
        if verdict == .prohibit {
            self = .prohibited
        } else if flags.isNetworkReachable && flags.contains(.isWWAN) && !allowsWWAN {
            self = .wwanRefused
        } else if flags.contains(.reachable) && flags.contains(.interventionRequired) {
            self = .interventionRequired
        } else if flags.isNetworkReachable {
            return nil
        } else {
            self = .notAvailable
        }
    }
}

/// The case's name (its raw value), as reflection printed it: also in a
/// build without reflection metadata (Tools/Footprint/firmware-minimal.flags).
extension UnsatisfiedReason: CustomStringConvertible {
    public var description: String { rawValue }
}
