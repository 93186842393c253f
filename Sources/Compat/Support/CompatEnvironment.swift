// What the three compat modules (SystemConfiguration, CoreTelephony, Network)
// share: the network namespace they answer for and how they classify links,
// one evaluator for both, and monitors made the same way. Foundation is
// allowed here, as in the modules themselves; ReachabilityCore and
// Reachability stay without it.

import LinuxReachability
import ReachabilityModemManager
import Synchronization
import Dispatch

#if canImport(Glibc)
import Glibc
#endif

/// Where and how the compat modules read the kernel. iOS code cannot pass a
/// namespace or name its links' kinds (its APIs have no such arguments), so
/// both are process-wide. The policy (WWAN switch) and the radio technologies
/// are the engine's own process defaults: `ReachabilityPolicy.processDefault`
/// and `RadioSource.processDefault`.
public enum CompatEnvironment {
    private struct State {
        var namespace: NetworkNamespace = .current
        var kindOverrides: [InterfaceKindOverride] = CompatEnvironment.overridesFromEnvironment()
        /// The evaluator of the current settings, made on first use.
        var evaluator: ReachabilityEvaluator?
        /// The modem daemon to follow, and the one followed now (from the first use on).
        var modemManager: ModemManagerRadio? = CompatEnvironment.modemManagerFromEnvironment()
        var followed: ModemManagerRadio?
        /// Bumped by every change of `followed`: see `settle(_:)`.
        var followChanges: UInt64 = 0
        var beforeFollowing: (@Sendable () -> Void)?
    }
    /// How long the first use waits for the modems to be read (ModemManager
    /// answers in a few milliseconds; an absent bus or service at once):
    /// 500 ms, or `REACH_FIRST_MODEM_ANSWER_MS` (a gateway whose ModemManager
    /// is slow to answer at boot; a test that waits for the answer itself).
    static let firstModemAnswer: Duration = firstModemAnswerFromEnvironment()

    package static func firstModemAnswerFromEnvironment() -> Duration {
        guard let text = getenv("REACH_FIRST_MODEM_ANSWER_MS").map({ String(cString: $0) }) else { return .milliseconds(500) }
        guard let milliseconds = Int64(text), milliseconds >= 0, milliseconds <= 3_600_000 else {
            warnAboutEnvironment("REACH_FIRST_MODEM_ANSWER_MS", text, expected: "0 to 3600000 milliseconds")
            return .milliseconds(500)
        }
        return .milliseconds(milliseconds)
    }
    private static let state = Mutex(State())

    /// The namespace every object created from now on reads: the one the
    /// process runs in (`ip netns exec NAME program` chooses it), unless a
    /// program or a test sets another.
    public static var namespace: NetworkNamespace {
        get { state.withLock { $0.namespace } }
        set { state.withLock { if $0.namespace != newValue { $0.namespace = newValue; $0.evaluator = nil } } }
    }

    /// Kinds for links the kernel does not name as such (`wlan*=wifi`,
    /// `usb0=wwan`), as `reach --kind` takes them. First from the
    /// environment: `REACH_INTERFACE_KINDS="usb0=wwan,wg*=tunnel"`; an entry it
    /// cannot read is ignored, with one line on standard error.
    public static var kindOverrides: [InterfaceKindOverride] {
        get { state.withLock { $0.kindOverrides } }
        set { state.withLock { if $0.kindOverrides != newValue { $0.kindOverrides = newValue; $0.evaluator = nil } } }
    }

    /// The evaluator of the current namespace and kinds, shared by every
    /// object of the compat modules (its calls are serialised; it follows the
    /// process's default policy and radio source).
    ///
    /// - Returns: The shared evaluator, made on first use and again after
    ///   ``namespace`` or ``kindOverrides`` changed.
    /// - Throws: `ReachabilityError.unknownNamespace(_:)`,
    ///   `ReachabilityError.permissionDenied(operation:needs:)` when the
    ///   process may not enter the namespace, or
    ///   `ReachabilityError.system(operation:errno:)` when its sockets cannot
    ///   be opened.
    public static func evaluator() throws(ReachabilityError) -> ReachabilityEvaluator {
        followModems()
        return try state.withLock { (state: inout State) throws(ReachabilityError) -> ReachabilityEvaluator in
            if let evaluator = state.evaluator { return evaluator }
            let evaluator = try ReachabilityEvaluator(namespace: state.namespace, kindOverrides: state.kindOverrides)
            state.evaluator = evaluator
            return evaluator
        }
    }

    /// A monitor under the current settings, following the process's default
    /// policy and radio source; not started.
    ///
    /// - Parameters:
    ///   - targets: The targets to watch.
    ///   - options: The selectors of every route lookup (uid, firewall mark,
    ///     interface, source).
    ///   - configuration: The monitor's settings.
    /// - Returns: A monitor of `targets` in ``namespace``, with ``kindOverrides``.
    /// - Throws: `ReachabilityError` as the monitor's initialiser throws it:
    ///   an unknown namespace, an invalid interface name or configuration, or
    ///   sockets that cannot be opened.
    public static func makeMonitor(_ targets: [Target], options: LookupOptions = LookupOptions(),
                                   configuration: ReachabilityMonitor.Configuration = .init()) throws(ReachabilityError) -> ReachabilityMonitor {
        followModems()
        let (namespace, kinds) = state.withLock { ($0.namespace, $0.kindOverrides) }
        return try ReachabilityMonitor(targets: targets, options: options, namespace: namespace, kindOverrides: kinds,
                                       configuration: configuration)
    }

    /// The process's cellular-data switch, `ReachabilityPolicy.processDefault.allowsWWAN`,
    /// for code that does not import the engine (its module is named
    /// `Reachability`, as the class of two of the libraries' modules is).
    public static var allowsWWAN: Bool {
        get { ReachabilityPolicy.processDefault.allowsWWAN }
        set { ReachabilityPolicy.updateProcessDefault { $0.allowsWWAN = newValue } }
    }

    /// Sets or forgets the radio technology of a WWAN link in
    /// `RadioSource.processDefault`.
    ///
    /// - Parameters:
    ///   - name: The technology's name as a modem prints it (`lte`,
    ///     `nr5g-nsa`); nil forgets the link's technology.
    ///   - interface: The WWAN link's interface name.
    /// - Returns: `false` when `name` is no technology (nothing is changed),
    ///   `true` otherwise.
    @discardableResult
    public static func setRadioTechnology(_ name: String?, for interface: String) -> Bool {
        guard let name else {
            RadioSource.processDefault.set(nil, for: interface)
            return true
        }
        guard let technology = RadioTechnology(parsing: name) else { return false }
        RadioSource.processDefault.set(technology, for: interface)
        return true
    }

    /// The modem daemon the compat modules follow, as iOS's frameworks follow
    /// the modem without being asked: by default `ModemManagerRadio.shared`
    /// (ModemManager on the system bus, `DBUS_SYSTEM_BUS_ADDRESS` if set),
    /// feeding `RadioSource.processDefault`. CoreTelephony's technologies,
    /// SLReachability's 2G/3G/4G mask and the WWAN kind of a modem's links
    /// (`usb0` of a modem in Ethernet mode) then come from the modem, and
    /// the application's own settings still win. Following starts at the
    /// first object or call of a compat module, which waits at most half a
    /// second for the modems to be read; without a bus or the service that
    /// answer comes at once, and the radio picks the service up when it
    /// appears. nil follows nothing, as does `REACH_MODEMMANAGER=off` in the
    /// environment. Setting another stops feeding the process's radio source
    /// from the previous one.
    public static var modemManager: ModemManagerRadio? {
        get { state.withLock { $0.modemManager } }
        set {
            let previous = state.withLock { state -> ModemManagerRadio? in
                defer {
                    state.modemManager = newValue
                    state.followed = nil
                    state.followChanges &+= 1
                }
                return state.followed
            }
            if let previous { settle(previous) }
        }
    }

    /// A test's hook, run once: after the first use decided to follow
    /// `modemManager` and before it follows it (nil outside tests).
    package static var beforeFollowing: (@Sendable () -> Void)? {
        get { state.withLock { $0.beforeFollowing } }
        set { state.withLock { $0.beforeFollowing = newValue } }
    }

    /// Follows `modemManager` from now on, once; the first call waits for its first answer.
    package static func followModems() {
        let radio = state.withLock { state -> ModemManagerRadio? in
            guard let radio = state.modemManager, state.followed !== radio else { return nil }
            state.followed = radio
            state.followChanges &+= 1
            return radio
        }
        guard let radio, settle(radio) else { return }
        _ = radio.waitForFirstAnswer(timeout: firstModemAnswer)
    }

    /// Makes `radio` feed the process's radio source, or not, as `followed`
    /// says. Following happens outside the lock (it starts a thread), so the
    /// setter can come between what was read and what is done; whoever
    /// changes `followed` settles after it, and a settling that sees it
    /// changed meanwhile settles again: the last done is what the latest
    /// says. Returns whether `radio` is followed.
    @discardableResult
    private static func settle(_ radio: ModemManagerRadio) -> Bool {
        while true {
            let (wanted, changes, hook) = state.withLock { state in
                defer { state.beforeFollowing = nil }
                return (state.followed === radio, state.followChanges, state.beforeFollowing)
            }
            hook?()
            if wanted {
                do {
                    try radio.follow(into: .processDefault)
                } catch {
                    let line = "reachability: not following ModemManager: \(error)\n"
                    _ = line.withCString { write(2, $0, strlen($0)) }
                    return false
                }
            } else {
                radio.unfollow(.processDefault)
            }
            if state.withLock({ $0.followChanges == changes }) { return wanted }
        }
    }

    static func modemManagerFromEnvironment() -> ModemManagerRadio? {
        guard let text = getenv("REACH_MODEMMANAGER").map({ String(cString: $0).lowercased() }) else { return .shared }
        return ["off", "0", "no", "false"].contains(text) ? nil : .shared
    }

    static func overridesFromEnvironment() -> [InterfaceKindOverride] {
        guard let text = getenv("REACH_INTERFACE_KINDS").map({ String(cString: $0) }) else { return [] }
        var overrides: [InterfaceKindOverride] = []
        for entry in text.split(separator: ",") {
            do {
                overrides.append(try InterfaceKindOverride(parsing: String(entry)))
            } catch {
                let line = "reachability: ignoring REACH_INTERFACE_KINDS entry \(entry): \(error)\n"
                _ = line.withCString { write(2, $0, strlen($0)) }
            }
        }
        return overrides
    }
}

extension DispatchQueue {
    /// `async(execute:)` for the compat modules' hops to the queues their
    /// originals deliver on. Under a simulated namespace
    /// (`CompatEnvironment.namespace` is ReachabilityTesting's
    /// `SimulatedNetwork.namespace`) the work is counted until it has run, so
    /// that `settled()` returns only once the callback it carries has run.
    package func compatAsync(_ work: @escaping () -> Void) {
        // Apple's blocks are not Sendable: each runs on the one queue it was given, as there.
        nonisolated(unsafe) let work = work
        guard let simulation = CompatEnvironment.namespace.engineSimulation else { return async { work() } }
        simulation.deliveryQueued()
        async { work(); simulation.deliveryRan() }
    }
}
