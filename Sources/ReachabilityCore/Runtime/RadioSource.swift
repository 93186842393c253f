#if canImport(Glibc)
internal import Glibc
#endif
#if !REACH_NO_MODEM_FACTS
internal import Synchronization
#endif

/// The radio technology of each WWAN link, as the application or its modem
/// driver sets it (the kernel does not know it), and as a modem daemon
/// reports it (``ModemFacts``: ModemManager, through the
/// `ReachabilityModemManager` product). Where both name an interface, the
/// application's setting wins (``origin(for:)`` says which one answered).
/// Shared by an evaluator and the monitors that use it; safe from any thread.
public final class RadioSource: Sendable {
    struct State {
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
    let state: Locked<State>  // internal: RadioSource+ModemFacts.swift
    #if !REACH_NO_MODEM_FACTS
    /// Whether `state.modem` holds any interface: read without the lock by
    /// every kind lookup of an evaluation (`isModemInterface`), which then
    /// costs one load where no modem daemon is followed.
    let modemInterfacesKnown = Atomic<Bool>(false)
    #endif

    /// A source with these technologies by interface name; a WWAN link not
    /// named has no generation until one is set.
    ///
    /// - Parameter technologies: The technology of each interface by name,
    ///   e.g. `["wwan0": .lte]`; none by default.
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

    /// Whether a modem daemon says a modem owns `interface` (``ModemFacts/interfaces``).
    /// A firmware build (`REACH_NO_MODEM_FACTS`, Tools/Footprint/firmware.flags)
    /// follows no modem daemon: there, never.
    ///
    /// - Parameter interface: The interface's name.
    /// - Returns: Whether the modem facts list `interface`.
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
    ///
    /// - Parameters:
    ///   - technology: The radio technology in use; nil forgets the application's setting.
    ///   - interface: The WWAN interface's name.
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
    /// modem daemon's.
    ///
    /// - Parameter interface: The interface's name.
    /// - Returns: The technology; nil when neither names one, and the mask
    ///   then says `ReachabilityMask.wwanUnknownGeneration`.
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

extension Observers where Entry == (afterCaches: Bool, call: @Sendable () -> Void) {
    /// The calls, those `afterCaches` last.
    var inOrder: [@Sendable () -> Void] {
        entries.filter { !$0.entry.afterCaches }.map(\.entry.call) + entries.filter { $0.entry.afterCaches }.map(\.entry.call)
    }
}
