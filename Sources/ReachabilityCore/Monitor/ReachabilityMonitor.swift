/// Watches targets and reports each real change of their reachability.
///
/// One NETLINK_ROUTE socket joins the link, address, route and rule groups of
/// the namespace. Notifications only *trigger* work: a burst is drained and
/// coalesced, the affected targets are evaluated again exactly as
/// ``ReachabilityEvaluator`` would, and a change is emitted only when a
/// target's answer (see ``ReachabilityChange``) or the path's facts differ. No copy of the routing table
/// is kept, so memory does not grow with it, and a socket overflow
/// (`ENOBUFS`) is recovered by evaluating every target again.
///
/// Every observer first receives each target's current state once, marked
/// ``ReachabilityChange/isInitial``, then its changes. Host names are resolved on threads of their
/// own (never the event thread or the caller's), with a timeout, and again
/// after a link, address or rule change, or when some result changed (at most
/// once per ``Configuration/minimumResolveInterval``). Notifications that change nothing the
/// answers read (a statistics update, a wireless scan, a bridge's per-port
/// message, an IPv6 lifetime refresh) neither evaluate nor resolve again:
/// ``MonitorCounters/ignoredEvents`` counts them.
///
/// Lifetime: ``stop()`` ends every observation and releases the socket and the
/// thread. A monitor that is still observed keeps running even when the last
/// reference to it is dropped; once it is neither referenced nor observed it
/// stops by itself.
public final class ReachabilityMonitor: Sendable {
    /// The watched targets in the order given, duplicates removed; ``currentEvaluations`` follows this order.
    public let targets: [Target]
    /// The selectors of every FIB lookup (uid, firewall mark, interface, source), as `ip route get` takes them.
    public let options: LookupOptions
    /// The network namespace whose notifications are watched and whose kernel is asked.
    public let namespace: NetworkNamespace
    /// The settings the monitor was created with, as validated then.
    public let configuration: Configuration
    let core: MonitorCore

    /// Prepares a monitor of `targets` in `namespace`; nothing is watched
    /// until ``start()``.
    ///
    /// Without `policy` the monitor follows ``ReachabilityModel/ReachabilityPolicy/processDefault``:
    /// a change of that evaluates every target again at once, as setting
    /// ``policy`` does.
    ///
    /// - Parameters:
    ///   - targets: What to watch; a target given twice is watched once.
    ///   - options: The selectors of every FIB lookup (uid, firewall mark,
    ///     interface, source); none by default.
    ///   - namespace: The network namespace to watch; the process's own by default.
    ///   - kindOverrides: Rules that set interfaces' kinds by name; the first
    ///     that matches wins over the kernel's facts.
    ///   - policy: What the application allows and how it treats its
    ///     interfaces; nil follows the process's default as it changes.
    ///   - radio: The radio technology of WWAN links; ``RadioSource/processDefault``
    ///     by default.
    ///   - configuration: How the monitor waits, resolves, retries and validates.
    /// - Throws: `ReachabilityError.invalidUID(_:)` or
    ///   `.invalidInterfaceName(_:reason:)` for `options` no lookup can take;
    ///   `.invalidConfiguration(_:reason:)` or `.invalidProbe(_:reason:)` for
    ///   a `configuration` out of range; `.unknownNamespace(_:)`,
    ///   `.invalidNamespace(_:reason:)`, `.permissionDenied(operation:needs:)`
    ///   or `.system(operation:errno:)` when the namespace or its socket
    ///   cannot be opened.
    public init(targets: [Target], options: LookupOptions = LookupOptions(), namespace: NetworkNamespace = .current,
                kindOverrides: [InterfaceKindOverride] = [], policy: ReachabilityPolicy? = nil,
                radio: RadioSource = .processDefault, configuration: Configuration = Configuration()) throws(ReachabilityError) {
        var unique: [Target] = []
        for target in targets where !unique.contains(target) { unique.append(target) }
        try options.validate()
        try configuration.validate(for: unique)
        self.targets = unique
        self.options = options
        self.namespace = namespace
        self.configuration = configuration
        let evaluator = try ReachabilityEvaluator(namespace: namespace, kindOverrides: kindOverrides, policy: policy,
                                                  radio: radio)
        let probe = try configuration.validationProbe?.makeProbe(namespace)
        core = MonitorCore(targets: unique, options: options, evaluator: evaluator, probe: probe,
                           configuration: configuration)
    }

    deinit { core.handleReleased() }

    /// Joins the notification groups, then evaluates every target and
    /// delivers the initial states. Does nothing when already running.
    ///
    /// - Throws: `ReachabilityError.permissionDenied(operation:needs:)` or
    ///   `.system(operation:errno:)` when the event socket, an eventfd or the
    ///   thread cannot be created; `.system` with `EBUSY` while a ``stop()``
    ///   called from a callback on the monitor's thread is still finishing
    ///   (until that callback returns).
    public func start() throws(ReachabilityError) { try core.start() }

    /// Stops watching: ends every stream, drops every callback, closes the
    /// event socket and ends the thread (it is gone when this returns, unless
    /// called from a callback on the monitor's own thread). Idempotent, safe
    /// from any thread; ``start()`` may be called again afterwards.
    public func stop() { core.stop() }

    /// Whether the event thread (`reach.monitor`) runs: from ``start()`` until ``stop()``, or until the
    /// monitor stops by itself, neither referenced nor observed.
    public var isRunning: Bool { core.isRunning }

    /// For the streams (`changes()`, `statusChanges()` in the Reachability
    /// module): an observer whose pending changes are announced by `doorbell`.
    package func addObserver(changes pending: PendingChanges<ReachabilityChange>, doorbell: Doorbell) -> UInt64 {
        core.addObserver(.changes(pending, doorbell: doorbell))
    }

    package func addObserver(statusChanges pending: PendingChanges<StatusChange>, doorbell: Doorbell) -> UInt64 {
        core.addObserver(.statusChanges(pending, doorbell: doorbell))
    }

    package func removeObserver(_ id: UInt64) { core.removeObserver(id) }

    /// Calls `handler` with each target's initial state and every change.
    ///
    /// A handler that falls behind (a blocked queue) gets the latest change
    /// of each target once it runs again, as `changes()` does.
    ///
    /// - Parameters:
    ///   - queue: Where `handler` runs; the monitor's own thread by default.
    ///   - handler: Called with each ``ReachabilityChange``.
    /// - Returns: The observation; ``MonitorObservation/cancel()`` ends it,
    ///   and so does ``stop()``.
    @discardableResult
    public func onChange(on queue: DeliveryQueue = .monitorThread,
                         _ handler: @escaping @Sendable (ReachabilityChange) -> Void) -> MonitorObservation {
        let pending = PendingChanges<ReachabilityChange>(targets: targets.count) { ReachabilityChange.coalesced($0, $1) }
        return observation(core.addObserver(.callback(queue, pending, handler)))
    }

    /// Calls `handler` when a target's status becomes reachable (and with the
    /// initial status when it is reachable), like Reachability's `whenReachable`.
    ///
    /// - Parameters:
    ///   - queue: Where `handler` runs; the monitor's own thread by default.
    ///   - handler: Called with each ``StatusChange`` to a reachable status.
    /// - Returns: The observation; ``MonitorObservation/cancel()`` ends it,
    ///   and so does ``stop()``.
    @discardableResult
    public func whenReachable(on queue: DeliveryQueue = .monitorThread,
                              _ handler: @escaping @Sendable (StatusChange) -> Void) -> MonitorObservation {
        statusObservation(on: queue, reachable: true, handler)
    }

    /// Calls `handler` when a target's status becomes not reachable (and with
    /// the initial status when it is not reachable).
    ///
    /// - Parameters:
    ///   - queue: Where `handler` runs; the monitor's own thread by default.
    ///   - handler: Called with each ``StatusChange`` to a status that is not reachable.
    /// - Returns: The observation; ``MonitorObservation/cancel()`` ends it,
    ///   and so does ``stop()``.
    @discardableResult
    public func whenUnreachable(on queue: DeliveryQueue = .monitorThread,
                                _ handler: @escaping @Sendable (StatusChange) -> Void) -> MonitorObservation {
        statusObservation(on: queue, reachable: false, handler)
    }

    /// The latest state of each target, one per target in the order of
    /// ``targets``; a target's ``TargetEvaluation/status`` is `unknown` until
    /// its first answer.
    public var currentEvaluations: [TargetEvaluation] { core.currentEvaluations }

    /// Whether the policy or the radio source changed and `currentEvaluations`
    /// does not hold the answers of that change yet: a caller that must
    /// answer now evaluates for itself (SystemConfiguration's `GetFlags`).
    package var reevaluationPending: Bool { core.reevaluationPending }

    /// What the application allows and how it treats its interfaces. Setting
    /// it evaluates every target again at once and reports each target whose
    /// answer changed (the WWAN switch turning a WWAN-only target not
    /// reachable, or reachable again), as SLReachability posts its
    /// WWAN-changed notification.
    public var policy: ReachabilityPolicy {
        get { core.evaluator.policy }
        set {
            core.evaluator.policy = newValue
            core.requestReevaluation()
        }
    }

    /// The radio source of the mask's 2G ... 5G bits: `radio.set(.umts, for: "wwan0")`
    /// makes a running monitor evaluate again at once.
    public var radio: RadioSource { core.evaluator.radio }

    /// Runs `body` on the monitor's event thread at its next turn, waking it.
    ///
    /// For liveness checks (the exporter's systemd watchdog): `body` runs
    /// only while the thread is not stuck.
    ///
    /// - Parameter body: The work to run on the event thread; it must return quickly.
    /// - Returns: Whether the monitor is running and `body` was handed to its
    ///   thread; false when it is not running.
    public func pingEventThread(_ body: @escaping @Sendable () -> Void) -> Bool { core.ping(body) }

    /// Calls `body` on the event thread after every burst of kernel
    /// notifications the monitor evaluated (links, addresses, routes, rules;
    /// not the ones `EventFilter` ignores), whether or not an answer changed:
    /// for views with facts of their own beyond the targets' answers (the
    /// compat modules: a WWAN link created down, a rule for one interface).
    /// `body` must return quickly. nil removes it.
    package func observeKernelChanges(_ body: (@Sendable () -> Void)?) {
        core.shared.withLock { $0.kernelChangeObserver = body }
    }

    /// A snapshot of the counters since the monitor was created (they survive a stop and a start),
    /// taken under the monitor's lock; safe from any thread.
    public var counters: MonitorCounters { core.counters }

    /// The event socket's netlink port id while running (for tests that send to it).
    var eventPortID: UInt32? { core.eventPortID }

    private func statusObservation(on queue: DeliveryQueue, reachable: Bool,
                                   _ handler: @escaping @Sendable (StatusChange) -> Void) -> MonitorObservation {
        let pending = PendingChanges<StatusChange>(targets: targets.count) { StatusChange.coalesced($0, $1) }
        return observation(core.addObserver(.statusCallback(queue, reachable: reachable, pending, handler)))
    }

    private func observation(_ id: UInt64) -> MonitorObservation {
        let core = self.core
        return MonitorObservation { core.removeObserver(id) }
    }
}

/// How a stream observer learns that changes wait (`ring`, which must only
/// enqueue) and that the monitor stopped (`finish`). The streams in the
/// LinuxReachability module ring an `AsyncStream<Void>` of one element.
package struct Doorbell: Sendable {
    let ring: @Sendable () -> Void
    let finish: @Sendable () -> Void

    package init(ring: @escaping @Sendable () -> Void, finish: @escaping @Sendable () -> Void) {
        self.ring = ring
        self.finish = finish
    }
}
