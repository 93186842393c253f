// The process's own policy, the one every evaluator, monitor and compat
// module created without its own follows (what an iOS user sets in
// Settings): read once from the environment, changed under a lock, its
// observers told outside it. The decisions it feeds are pure
// (ReachabilityModel); the state lives here. The radio technology of each
// WWAN link, the other process-wide setting, is `RadioSource`.

#if canImport(Glibc)
internal import Glibc
#endif

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
    /// can lose one of the writes; use ``updateProcessDefault(_:)`` for that.
    public static var processDefault: ReachabilityPolicy {
        get { ProcessDefaultPolicy.shared.policy }
        set { ProcessDefaultPolicy.shared.update { $0 = newValue } }
    }

    /// Changes ``processDefault`` in one step under its lock; the monitors
    /// that follow it are told afterwards, outside the lock.
    ///
    /// - Parameter change: Edits the policy in place. It runs with the lock
    ///   held, so it must not read or set ``processDefault`` itself.
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

/// One line on standard error for an environment setting that is ignored
/// (also the compat modules' settings).
package func warnAboutEnvironment(_ name: String, _ value: String, expected: String) {
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
