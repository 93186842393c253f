// The process's own settings, the state every evaluator, monitor and compat
// module created without its own follows: the policy (what an iOS user sets
// in Settings) and the radio technology of each WWAN link (what the modem
// driver says). Both are read once from the environment and change under a
// lock; their observers are told outside it. The decisions they feed are
// pure (ReachabilityModel); the state lives here.

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

/// The radio technology of each WWAN link, as the application or its modem
/// driver sets it (the kernel does not know it). Shared by an evaluator and
/// the monitors that use it; safe from any thread.
public final class RadioSource: Sendable {
    private struct State {
        var technologies: [String: RadioTechnology]
        /// Running monitors that use this source: told of every change.
        var observers = Observers<@Sendable () -> Void>()
    }
    private let state: Locked<State>

    /// A source with these technologies by interface name (e.g. `["wwan0": .lte]`); a WWAN link not
    /// named has no generation until one is set.
    public init(_ technologies: [String: RadioTechnology] = [:]) {
        state = Locked(State(technologies: technologies))
    }

    /// The radio source of every evaluator, monitor and compat module
    /// (CoreTelephony's `CTTelephonyNetworkInfo`) created without one: where
    /// the application or its modem driver says what the modem is on,
    ///
    ///     RadioSource.processDefault.set(.lte, for: "wwan0")
    ///
    /// Its first contents come from the environment: `REACH_RADIO=wwan0=lte,wwan1=nr`
    /// (technologies as `RadioTechnology(parsing:)` reads them); an entry it
    /// cannot read is ignored, with one line on standard error.
    public static let processDefault = RadioSource(environment: getenv("REACH_RADIO").map { String(cString: $0) })

    /// The technologies of `REACH_RADIO`'s text: `NAME=TECHNOLOGY`, comma-separated.
    convenience init(environment text: String?) {
        self.init(text.map(Self.technologies(environment:)) ?? [:])
    }

    /// One pass over the bytes (an environment variable is ASCII): small in a
    /// firmware build, where generic splitting would be specialised for it.
    @inline(never)
    private static func technologies(environment text: String) -> [String: RadioTechnology] {
        var technologies: [String: RadioTechnology] = [:]
        let bytes = Array(text.utf8), blanks = [UInt8(ascii: " "), UInt8(ascii: "\t")]
        var start = 0
        while start < bytes.count {
            var end = start
            while end < bytes.count && bytes[end] != UInt8(ascii: ",") { end += 1 }
            let entry = String(decoding: bytes[start..<end], as: UTF8.self)
            let fields = entry.asciiFolded(dropping: blanks, lowering: false).utf8
            if let equals = fields.firstIndex(of: UInt8(ascii: "=")), equals != fields.startIndex,
               let technology = RadioTechnology(parsing: String(decoding: fields[fields.index(after: equals)...], as: UTF8.self)) {
                technologies[String(decoding: fields[..<equals], as: UTF8.self)] = technology
            } else if end > start {
                warnAboutEnvironment("REACH_RADIO", entry, expected: "INTERFACE=TECHNOLOGY, e.g. wwan0=lte")
            }
            start = end + 1
        }
        return technologies
    }

    /// Every interface's technology, as last set.
    public var technologies: [String: RadioTechnology] { state.withLock { $0.technologies } }

    /// Sets (or, with nil, forgets) the technology of `interface`. A running
    /// monitor that uses this source evaluates again at once, and reports the
    /// targets whose mask changed (4G → 3G), as SLReachability posts its
    /// mask-changed notification.
    public func set(_ technology: RadioTechnology?, for interface: String) {
        let observers = state.withLock { state -> [@Sendable () -> Void] in
            guard state.technologies[interface] != technology else { return [] }
            state.technologies[interface] = technology
            return state.observers.entries.map(\.entry)
        }
        for observer in observers { observer() }
    }

    /// The technology set for `interface`; nil when none is, and the mask then says
    /// `ReachabilityMask.wwanUnknownGeneration`.
    public func technology(for interface: String) -> RadioTechnology? {
        state.withLock { $0.technologies[interface] }
    }

    /// Calls `observer` (outside the lock) after every change; for monitors
    /// and the compat modules.
    package func addObserver(_ observer: @escaping @Sendable () -> Void) -> UInt64 {
        state.withLock { $0.observers.add(observer) }
    }

    package func removeObserver(_ id: UInt64) {
        let removed = state.withLock { $0.observers.remove(id) }
        _ = removed   // released outside the lock
    }
}
