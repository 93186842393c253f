/// Watches targets and reports each real change of their reachability.
///
/// One NETLINK_ROUTE socket joins the link, address, route and rule groups of
/// the namespace. Notifications only *trigger* work: a burst is drained and
/// coalesced, the affected targets are evaluated again exactly as
/// `ReachabilityEvaluator` would, and a change is emitted only when a
/// target's answer (see `ReachabilityChange`) or the path's facts differ. No copy of the routing table
/// is kept, so memory does not grow with it, and a socket overflow
/// (`ENOBUFS`) is recovered by evaluating every target again.
///
/// Every observer first receives each target's current state once, marked
/// `isInitial`, then its changes. Host names are resolved on threads of their
/// own (never the event thread or the caller's), with a timeout, and again
/// after a link, address or rule change, or when some result changed (at most
/// once per `minimumResolveInterval`). Notifications that change nothing the
/// answers read (a statistics update, a wireless scan, a bridge's per-port
/// message, an IPv6 lifetime refresh) neither evaluate nor resolve again:
/// `counters.ignoredEvents` counts them (see `EventFilter`).
///
/// Lifetime: `stop()` ends every observation and releases the socket and the
/// thread. A monitor that is still observed keeps running even when the last
/// reference to it is dropped; once it is neither referenced nor observed it
/// stops by itself.
public final class ReachabilityMonitor: Sendable {
    /// How the monitor waits, resolves, retries and validates. The defaults suit a gateway; creating
    /// a monitor with a value out of range throws `.invalidConfiguration`.
    public struct Configuration: Sendable {
        /// How long a host-name lookup may take before the target is reported
        /// as unresolved (the lookup's late answer is still used).
        public var resolveTimeout: Duration = .seconds(5)
        /// A host name is looked up again after a link, address or rule change,
        /// but at most once per this interval (a flapping link or a burst of
        /// changes gives one lookup once it settles; `counters.deferredResolutions`
        /// counts the requests put off). Zero looks up after every change.
        public var minimumResolveInterval: Duration = .seconds(1)
        /// After a notification, wait this long for the burst to go quiet
        /// before evaluating, so one `ip link set down` (which sends several
        /// notifications) gives one change. A link's own state change
        /// (RTM_NEWLINK) is also evaluated as soon as it is read, whether it
        /// opens the burst or comes in the middle of one, and the answers the
        /// rest of the burst cannot change are published then; the evaluation
        /// after the burst publishes only what differs from them. Zero
        /// evaluates every notification at once...
        public var settleTime: Duration = .microseconds(300)
        /// ...but never longer than this in all. It also bounds how long an
        /// answer routed over a link that was set down is held back while the
        /// kernel flushes that link's routes, and how long a change read while
        /// an interface is coming up (carrier, its operstate not yet up: the
        /// kernel sends that a moment later, up to ~16 ms under load) is held
        /// back until it is (`settleTime`, at least 0.1 ms, between two
        /// looks). Past it, what the kernel says is the answer.
        public var maximumSettleTime: Duration = .milliseconds(20)
        /// `SO_RCVBUF` of the event socket; nil keeps the system default.
        public var receiveBufferSize: Int?
        /// When asking the kernel failed, ask again after this long.
        public var retryInterval: Duration = .seconds(1)
        /// Validate reachable targets with an active probe through their output
        /// interface (off by default: nil). See `Validation`.
        public var validation: Validation? {
            get { validationProbe?.validation }
            set { validationProbe = newValue.map(ValidationProbe.init) }
        }
        /// The validation and what sends its probes. Only this setter names the
        /// prober, so a program that never sets `validation` links none of the
        /// probes (Tools/Footprint: 32 KiB of a static build).
        var validationProbe: ValidationProbe?
        /// How often a reachable target is validated again (besides after every
        /// change to reachable).
        public var validationInterval: Duration = .seconds(60)
        /// How long one validation probe may take.
        public var validationTimeout: Duration = .seconds(5)

        /// The defaults: resolve timeout 5 s, a host name looked up again at most once a second, settle
        /// time 300 µs (at most 20 ms in all), retry after 1 s, the system's receive buffer, no validation.
        public init() {}

        func validate() throws(ReachabilityError) {
            if let size = receiveBufferSize, size <= 0 || size > Int(Int32.max) {
                throw .invalidConfiguration("receiveBufferSize \(size)", reason: "must be 1...\(Int32.max) bytes")
            }
            let zero = Duration.zero
            guard resolveTimeout > zero else { throw .invalidConfiguration("resolveTimeout \(resolveTimeout)", reason: "must be positive") }
            guard minimumResolveInterval >= zero, minimumResolveInterval <= .seconds(3600) else {
                throw .invalidConfiguration("minimumResolveInterval \(minimumResolveInterval)", reason: "must be 0...3600 s")
            }
            guard retryInterval > zero else { throw .invalidConfiguration("retryInterval \(retryInterval)", reason: "must be positive") }
            guard settleTime >= zero, maximumSettleTime >= settleTime else {
                throw .invalidConfiguration("settleTime \(settleTime)", reason: "must be 0...maximumSettleTime (\(maximumSettleTime))")
            }
            guard validationInterval >= .milliseconds(100) else {
                throw .invalidConfiguration("validationInterval \(validationInterval)", reason: "must be at least 0.1 s")
            }
            guard validationTimeout > zero, validationTimeout <= .seconds(3600) else {
                throw .invalidConfiguration("validationTimeout \(validationTimeout)", reason: "must be more than 0 and at most 3600 s")
            }
            if let validation { try validation.method.validate() }
        }

        /// A `.dns` validation without a name asks for the target's own name.
        func validate(for targets: [Target]) throws(ReachabilityError) {
            try validate()
            if case .dns(nil, _)? = validation, let target = targets.first(where: { if case .host = $0 { false } else { true } }) {
                throw .invalidConfiguration("validation dns", reason: "needs a name (dns:NAME) to validate \(target), which is not a host name")
            }
        }
    }

    /// The watched targets in the order given, duplicates removed; `currentEvaluations` follows this order.
    public let targets: [Target]
    /// The selectors of every FIB lookup (uid, firewall mark, interface, source), as `ip route get` takes them.
    public let options: LookupOptions
    /// The network namespace whose notifications are watched and whose kernel is asked.
    public let namespace: NetworkNamespace
    /// The settings the monitor was created with, as validated then.
    public let configuration: Configuration
    let core: MonitorCore

    /// Prepares a monitor of `targets` (duplicates are watched once) in
    /// `namespace`; nothing is watched until `start()`. Without `policy` it
    /// follows `ReachabilityPolicy.processDefault`: a change of that evaluates
    /// every target again at once, as setting `policy` does. The default
    /// `radio` is `RadioSource.processDefault`.
    /// - Throws: `.unknownNamespace`, `.invalidInterfaceName`, `.invalidConfiguration`, or `.system`
    ///   when the namespace's sockets cannot be opened.
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
    /// - Throws: `.system` when the event socket or thread cannot be created.
    public func start() throws(ReachabilityError) { try core.start() }

    /// Stops watching: ends every stream, drops every callback, closes the
    /// event socket and ends the thread (it is gone when this returns, unless
    /// called from a callback on the monitor's own thread). Idempotent, safe
    /// from any thread; `start()` may be called again afterwards.
    public func stop() { core.stop() }

    /// Whether the event thread (`reach.monitor`) runs: from `start()` until `stop()`, or until the
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

    /// Calls `handler` with each target's initial state and every change. A
    /// handler that falls behind (a blocked queue) gets the latest change of
    /// each target once it runs again, as `changes()` does.
    @discardableResult
    public func onChange(on queue: DeliveryQueue = .monitorThread,
                         _ handler: @escaping @Sendable (ReachabilityChange) -> Void) -> MonitorObservation {
        let pending = PendingChanges<ReachabilityChange>(targets: targets.count) { ReachabilityChange.coalesced($0, $1) }
        return observation(core.addObserver(.callback(queue, pending, handler)))
    }

    /// Calls `handler` when a target's status becomes reachable (and with the
    /// initial status when it is reachable), like Reachability's `whenReachable`.
    @discardableResult
    public func whenReachable(on queue: DeliveryQueue = .monitorThread,
                              _ handler: @escaping @Sendable (StatusChange) -> Void) -> MonitorObservation {
        statusObservation(on: queue, reachable: true, handler)
    }

    /// Calls `handler` when a target's status becomes not reachable (and with
    /// the initial status when it is not reachable).
    @discardableResult
    public func whenUnreachable(on queue: DeliveryQueue = .monitorThread,
                                _ handler: @escaping @Sendable (StatusChange) -> Void) -> MonitorObservation {
        statusObservation(on: queue, reachable: false, handler)
    }

    /// The latest state of each target, one per target in the order of
    /// `targets`; `status == .unknown` until a target's first answer.
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

    /// Runs `body` on the monitor's event thread at its next turn, waking it;
    /// false when the monitor is not running. For liveness checks (the
    /// exporter's systemd watchdog): `body` runs only while the thread is not stuck.
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
