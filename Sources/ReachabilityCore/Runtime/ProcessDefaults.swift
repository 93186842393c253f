// The process's own settings, the state every evaluator, monitor and compat
// module created without its own follows: the policy (what an iOS user sets
// in Settings) and the radio technology of each WWAN link (what the modem
// driver says). Both are read once from the environment and change under a
// lock; their observers are told outside it. The decisions they feed are
// pure (ReachabilityModel); the state lives here.

#if canImport(Glibc)
internal import Glibc
#endif
#if !REACH_NO_MODEM_FACTS
internal import Synchronization
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
/// driver sets it (the kernel does not know it), and as a modem daemon
/// reports it (`ModemFacts`: ModemManager, through the
/// `ReachabilityModemManager` product). Where both name an interface, the
/// application's setting wins (`origin(for:)` says which one answered).
/// Shared by an evaluator and the monitors that use it; safe from any thread.
public final class RadioSource: Sendable {
    private struct State {
        /// The application's own settings (`set(_:for:)`, `REACH_RADIO`).
        var technologies: [String: RadioTechnology]
        #if !REACH_NO_MODEM_FACTS
        /// What a modem daemon reports.
        var modem: ModemFacts?
        #endif
        /// Running monitors that use this source: told of every change.
        var observers = Observers<(afterCaches: Bool, call: @Sendable () -> Void)>()
        /// Changes so far, counted before any observer is told: a monitor
        /// whose answers are of an older count is stale at once, however the
        /// observers' calls and deliveries interleave.
        var changes: UInt64 = 0
    }
    private let state: Locked<State>
    #if !REACH_NO_MODEM_FACTS
    /// Whether `state.modem` holds any interface: read without the lock by
    /// every kind lookup of an evaluation (`isModemInterface`), which then
    /// costs one load where no modem daemon is followed.
    private let modemInterfacesKnown = Atomic<Bool>(false)
    #endif

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

    /// Every interface's technology: the modem daemon's, with the
    /// application's settings over them.
    public var technologies: [String: RadioTechnology] {
        #if REACH_NO_MODEM_FACTS
        state.withLock { $0.technologies }
        #else
        state.withLock { state in
            state.technologies.merging(state.modem?.technologies ?? [:]) { application, _ in application }
        }
        #endif
    }

    /// Whether a modem daemon says a modem owns `interface` (`ModemFacts.interfaces`).
    /// A firmware build (`REACH_NO_MODEM_FACTS`, Tools/Footprint/firmware.flags)
    /// follows no modem daemon: there, never.
    @inline(__always)
    public func isModemInterface(_ interface: String) -> Bool {
        #if REACH_NO_MODEM_FACTS
        return false
        #else
        guard modemInterfacesKnown.load(ordering: .acquiring) else { return false }
        return modemOwns(interface)
        #endif
    }

    #if !REACH_NO_MODEM_FACTS
    @inline(never)
    private func modemOwns(_ interface: String) -> Bool {
        state.withLock { $0.modem?.interfaces.contains(interface) ?? false }
    }
    #endif

    /// Sets (or, with nil, forgets) the technology of `interface`. A running
    /// monitor that uses this source evaluates again at once, and reports the
    /// targets whose mask changed (4G → 3G), as SLReachability posts its
    /// mask-changed notification.
    public func set(_ technology: RadioTechnology?, for interface: String) {
        let observers = state.withLock { state -> [@Sendable () -> Void] in
            guard state.technologies[interface] != technology else { return [] }
            state.technologies[interface] = technology
            state.changes &+= 1
            return state.observers.inOrder
        }
        for observer in observers { observer() }
    }

    /// The technology of `interface`: the application's setting, else the
    /// modem daemon's; nil when neither names one, and the mask then says
    /// `ReachabilityMask.wwanUnknownGeneration`.
    public func technology(for interface: String) -> RadioTechnology? {
        #if REACH_NO_MODEM_FACTS
        state.withLock { $0.technologies[interface] }
        #else
        state.withLock { $0.technologies[interface] ?? $0.modem?.technologies[interface] }
        #endif
    }

    /// How many changes there were (for a monitor: whether its answers are of the latest).
    package var changeCount: UInt64 { state.withLock { $0.changes } }

    /// Calls `observer` (outside the lock) after every change; for monitors
    /// and the compat modules. Those `afterCaches` are called after all the
    /// others: an observer that tells the application (CoreTelephony's
    /// notifications, which may be read at once on another thread) runs once
    /// every evaluator has forgotten its kinds and every monitor knows it has
    /// answers to redo, whatever order they were added in.
    package func addObserver(afterCaches: Bool = false, _ observer: @escaping @Sendable () -> Void) -> UInt64 {
        state.withLock { $0.observers.add((afterCaches, observer)) }
    }

    package func removeObserver(_ id: UInt64) {
        let removed = state.withLock { $0.observers.remove(id) }
        _ = removed   // released outside the lock
    }
}

#if !REACH_NO_MODEM_FACTS
// A modem daemon's layer (not in a firmware build: a program without the
// ReachabilityModemManager product pays nothing for it, issue 42).
extension RadioSource {
    /// What a modem daemon says about the interfaces its modems own.
    public struct ModemFacts: Hashable, Sendable {
        /// Who says it, for messages and `reach` (`"ModemManager"`).
        public var provider: String
        /// The technology in use behind each interface a modem owns (a modem
        /// that reports none: absent).
        public var technologies: [String: RadioTechnology]
        /// Every network interface a modem owns, with or without a
        /// technology: WWAN whatever its driver or name (an Ethernet-mode
        /// modem's `usb0`), unless an interface kind rule of the application
        /// says otherwise.
        public var interfaces: Set<String>

        /// Facts of `provider`: technologies and interfaces by name.
        public init(provider: String, technologies: [String: RadioTechnology], interfaces: Set<String>) {
            self.provider = provider
            self.technologies = technologies
            self.interfaces = interfaces
        }
    }

    /// Where an interface's technology came from.
    public enum Origin: Hashable, Sendable {
        /// The application (`set(_:for:)`, `REACH_RADIO`, `reach --radio IF=TECH`).
        case application
        /// A modem daemon (`ModemFacts.provider`).
        case modem(provider: String)
    }

    /// The modem daemon's facts, as last given (nil: none follows the modems).
    public var modemFacts: ModemFacts? { state.withLock { $0.modem } }

    /// Replaces the modem daemon's facts (nil: none, as when the daemon went
    /// away). A running monitor that uses this source evaluates again when
    /// they changed, as for `set(_:for:)`.
    public func setModemFacts(_ facts: ModemFacts?) {
        let observers = state.withLock { state -> [@Sendable () -> Void] in
            guard state.modem != facts else { return [] }
            state.modem = facts
            state.changes &+= 1
            modemInterfacesKnown.store(!(facts?.interfaces.isEmpty ?? true), ordering: .releasing)
            return state.observers.inOrder
        }
        for observer in observers { observer() }
    }

    /// Who set `interface`'s technology: the application, whose setting wins,
    /// or the modem daemon; nil when neither did.
    public func origin(for interface: String) -> Origin? {
        state.withLock { state in
            if state.technologies[interface] != nil { return .application }
            guard let modem = state.modem, modem.technologies[interface] != nil else { return nil }
            return .modem(provider: modem.provider)
        }
    }
}
#endif

extension Observers where Entry == (afterCaches: Bool, call: @Sendable () -> Void) {
    /// The calls, those `afterCaches` last.
    var inOrder: [@Sendable () -> Void] {
        entries.filter { !$0.entry.afterCaches }.map(\.entry.call) + entries.filter { $0.entry.afterCaches }.map(\.entry.call)
    }
}
