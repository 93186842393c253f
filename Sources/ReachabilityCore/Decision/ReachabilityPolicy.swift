// What the application allows, and how it treats its interfaces: the policy
// half of the flags (connectionOnDemand / connectionOnTraffic) and of the
// NWPath-style `isExpensive` and unsatisfied reason. Pure.

#if canImport(Glibc)
import Glibc
#endif

public struct ReachabilityPolicy: Hashable, Sendable {
    /// Whether WWAN (cellular) may be used at all.
    public var allowsWWAN: Bool
    /// Interfaces (globs) brought up on demand, e.g. a dial-up modem: a route
    /// over one whose link is down gets `connectionOnDemand`.
    public var onDemandInterfaces: [String]
    /// Interfaces (globs) brought up by traffic (dial on traffic): `connectionOnTraffic`.
    public var onTrafficInterfaces: [String]
    /// Interfaces (globs) that cost money per byte, besides every WWAN link.
    public var meteredInterfaces: [String]

    /// Device paths or globs of modems the kernel cannot name as such
    /// (`/dev/ttyACM0`, a modem behind a generic USB serial driver): a PPP link
    /// is WWAN when a modem is present and no PPPoE/L2TP session exists
    /// (`InterfaceKind`, "PPP links").
    public var modemDevices: [String]
    /// Interfaces (globs) the application should use sparingly, like Low Data
    /// Mode: NWPath's `isConstrained`.
    public var constrainedInterfaces: [String]

    public init(allowsWWAN: Bool = true, onDemandInterfaces: [String] = [], onTrafficInterfaces: [String] = [],
                meteredInterfaces: [String] = [], modemDevices: [String] = [], constrainedInterfaces: [String] = []) {
        self.allowsWWAN = allowsWWAN
        self.onDemandInterfaces = onDemandInterfaces
        self.onTrafficInterfaces = onTrafficInterfaces
        self.meteredInterfaces = meteredInterfaces
        self.modemDevices = modemDevices
        self.constrainedInterfaces = constrainedInterfaces
    }

    static func matches(_ patterns: [String], _ name: String?) -> Bool {
        guard let name else { return false }
        return patterns.contains { fnmatch($0, name, 0) == 0 }
    }

    /// The flags with the policy's part added: `connectionOnDemand` /
    /// `connectionOnTraffic` when a connection is required over an interface
    /// configured so (DESIGN.md, "Kernel state → flags").
    public func flags(_ flags: ReachabilityFlags, interface: String?) -> ReachabilityFlags {
        guard flags.contains(.connectionRequired) else { return flags }
        var result = flags
        if Self.matches(onDemandInterfaces, interface) { result.insert(.connectionOnDemand) }
        if Self.matches(onTrafficInterfaces, interface) { result.insert(.connectionOnTraffic) }
        return result
    }

    /// NWPath's `isConstrained`: over an interface marked constrained.
    public func isConstrained(interface: String?) -> Bool { Self.matches(constrainedInterfaces, interface) }

    /// NWPath's `isExpensive`: over WWAN, or over an interface marked metered.
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
    case wwanDenied
    /// The link needs authentication or a captive portal's consent: a routed
    /// path with `interventionRequired`, whatever its source (a dormant link,
    /// a captive portal found by validation; see `PathStatus`).
    case interventionRequired

    /// nil when the path is satisfied (or can be, automatically): exactly
    /// when `PathStatus` is not `unsatisfied`.
    public init?(verdict: RouteVerdict?, flags: ReachabilityFlags, allowsWWAN: Bool) {
        if verdict == .prohibit {
            self = .prohibited
        } else if flags.isNetworkReachable && flags.contains(.isWWAN) && !allowsWWAN {
            self = .wwanDenied
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
/// build without reflection metadata (Examples/Footprint/firmware-minimal.flags).
extension UnsatisfiedReason: CustomStringConvertible {
    public var description: String { rawValue }
}

// MARK: The process's own policy

extension ReachabilityPolicy {
    /// The policy of every evaluator, monitor and compat module
    /// (SystemConfiguration, Network, CoreTelephony) created without one: what
    /// an iOS user sets in Settings (the per-app "use cellular data" switch)
    /// and code written for iOS cannot pass as an argument. Safe from any
    /// thread; a change takes effect at once, also in running monitors
    /// (each evaluates every target again and reports what changed):
    ///
    ///     ReachabilityPolicy.processDefault.allowsWWAN = false
    ///
    /// Its first value comes from the environment, for programs that cannot
    /// be changed: `REACH_ALLOW_WWAN=0` (or `false`, `no`, `off`) refuses WWAN,
    /// `1` (`true`, `yes`, `on`) allows it. Another value is ignored, with one
    /// line on standard error. A read-modify-write from two threads at once
    /// can lose one of the writes; use `updateProcessDefault(_:)` for that.
    public static var processDefault: ReachabilityPolicy {
        get { ProcessDefaultPolicy.shared.policy }
        set { ProcessDefaultPolicy.shared.update { $0 = newValue } }
    }

    /// Changes `processDefault` in one step under its lock.
    public static func updateProcessDefault(_ change: (inout ReachabilityPolicy) -> Void) {
        ProcessDefaultPolicy.shared.update(change)
    }

    /// The default policy with the environment's settings (`REACH_ALLOW_WWAN`).
    static func fromEnvironment() -> ReachabilityPolicy {
        var policy = ReachabilityPolicy()
        if let text = getenv("REACH_ALLOW_WWAN").map({ String(cString: $0) }) {
            switch text.asciiFolded(dropping: []) {
            case "0", "false", "no", "off": policy.allowsWWAN = false
            case "1", "true", "yes", "on", "": policy.allowsWWAN = true
            default: warnAboutEnvironment("REACH_ALLOW_WWAN", text, expected: "0 or 1")
            }
        }
        return policy
    }
}

/// One line on standard error for an environment setting that is ignored.
func warnAboutEnvironment(_ name: String, _ value: String, expected: String) {
    let line = "reachability: ignoring \(name)=\(value) (expected \(expected))\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
}

/// `ReachabilityPolicy.processDefault` and who follows it: the monitors whose
/// evaluator was created without a policy, told of every change (outside the lock).
package final class ProcessDefaultPolicy: Sendable {
    package static let shared = ProcessDefaultPolicy()

    private struct State {
        var policy: ReachabilityPolicy
        var observers = Observers<@Sendable () -> Void>()
    }
    private let state: Locked<State>

    private init() { state = Locked(State(policy: .fromEnvironment())) }

    package var policy: ReachabilityPolicy { state.withLock { $0.policy } }

    func update(_ change: (inout ReachabilityPolicy) -> Void) {
        let observers = state.withLock { state -> [@Sendable () -> Void] in
            var policy = state.policy
            change(&policy)
            guard policy != state.policy else { return [] }
            state.policy = policy
            return state.observers.entries.map(\.entry)
        }
        for observer in observers { observer() }
    }

    /// Calls `observer` (outside the lock) after every change.
    package func addObserver(_ observer: @escaping @Sendable () -> Void) -> UInt64 {
        state.withLock { $0.observers.add(observer) }
    }

    package func removeObserver(_ id: UInt64) {
        let removed = state.withLock { $0.observers.remove(id) }
        _ = removed   // released outside the lock
    }
}
