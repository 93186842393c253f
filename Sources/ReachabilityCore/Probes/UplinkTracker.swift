#if canImport(Glibc)
internal import Glibc
#endif

/// Tracks whether one uplink actually carries traffic, in the manner of
/// OpenWrt's mwan3track: every round probes the track hosts through the
/// interface, and a `TrackerScore` turns good and failed rounds into
/// online / disconnecting / offline / connecting with hysteresis.
///
/// Rounds run on a thread of the tracker's own, from ``start()`` until
/// ``stop()`` (the thread holds the tracker, so dropping the last reference
/// does not stop it). Each round probes all hosts at once, each up to
/// `count` times until it answers; the round succeeds when `reliability`
/// hosts answered. A round lasts at most `count` × timeout, whatever the
/// number of hosts. Rounds start on a fixed cadence (start to start), so a
/// dead uplink whose probes time out is still probed every interval (when
/// `count` × timeout ≤ interval): it is offline at most
/// interval + (down − 1) × interval + count × timeout after it died — with
/// interval 0.5 s, down 3, count 1 and a timeout of 0.4 s, 1.9 s, for one
/// host or eight.
public final class UplinkTracker: Sendable {
    /// The tracker's parameters; each maps to the mwan3 option of the same role
    /// (README, "Uplink tracking", has the table).
    public struct Configuration: Hashable, Sendable {
        /// The interface to probe through (`SO_BINDTODEVICE`; mwan3's interface's device).
        public var interface: String
        /// The hosts to probe (`track_ip`).
        public var hosts: [IPAddress]
        /// How to probe them (`track_method`: ping → `.icmp`, httping → `.http`, nping-tcp → `.tcp`).
        public var method: ProbeMethod
        /// Hosts that must answer for a round to succeed (`reliability`).
        public var reliability: Int
        /// Probes per host per round; the host answered when any did (`count`).
        public var count: Int
        /// How long each probe waits (`timeout`); nil: the interval, at most 4 s.
        public var timeout: Duration?
        /// Between round starts while online (`interval`).
        public var interval: Duration
        /// Between round starts while disconnecting (`failure_interval`); nil: `interval`, at most 5 s.
        public var failureInterval: Duration?
        /// Between round starts while connecting (`recovery_interval`); nil: `interval`, at most 5 s.
        public var recoveryInterval: Duration?
        /// Use `failureInterval` while offline too (`keep_failure_interval`).
        public var keepFailureInterval: Bool
        /// Failed rounds in a row that take an online uplink offline (`down`).
        public var down: Int
        /// Good rounds in a row that bring an offline uplink online (`up`).
        public var up: Int
        /// The state before the first round, `.online` or `.offline` (`initial_state`).
        public var initialState: UplinkState
        /// The source address of the probes; nil lets the kernel choose (mwan3 probes from the
        /// interface's address).
        public var source: IPAddress?
        /// The firewall mark of the probes (`SO_MARK`, needs `CAP_NET_ADMIN`), to select policy routes;
        /// nil sets none.
        public var mark: UInt32?
        /// Loss and latency thresholds over the probes of the rounds; nil: the
        /// verdict never says degraded or unusable.
        public var quality: UplinkQuality?
        /// What to check beyond the rounds (DNS, a captive portal, ports, the
        /// other family, the path MTU); nil: nothing.
        public var checks: UplinkChecks?
        /// Failovers within ``flapWindow`` that hold the uplink at
        /// `UplinkVerdict.flapping` (0: no damping).
        public var flapLimit: Int
        /// The window failovers are counted in, and the quiet time that ends a hold.
        public var flapWindow: Duration
        /// Follow the interface's carrier and its next hop's neighbour entry
        /// through netlink (free: no probe bytes). Carrier lost or the
        /// neighbour failed takes the uplink offline at once.
        public var followsKernel: Bool

        /// A configuration with the defaults of "Uplinks that fail dirty" (LinuxReachability's documentation): ICMP, reliability 1, count 1,
        /// a round every 50 s while online and every 5 s while disconnecting or connecting, down 3, up 3,
        /// initially online, a timeout of 4 s, the default quality thresholds, no checks, damping after
        /// 3 failovers in 60 s, and the kernel's carrier and neighbour facts followed. One IPv4 host costs
        /// 1,728 echoes, 290 KB a day, and two hosts with every check stay under 1 MB; mwan3track's own defaults (interval 10 s, down 5, up 5) are
        /// ``mwan3(interface:hosts:)``. The tracker validates it (``validate()``).
        ///
        /// - Parameters:
        ///   - interface: The interface to probe through (``interface``).
        ///   - hosts: The hosts to probe (``hosts``).
        ///   - method: How to probe them (``method``).
        ///   - reliability: Hosts that must answer for a round to succeed (``reliability``).
        ///   - count: Probes per host per round (``count``).
        ///   - timeout: How long each probe waits (``timeout``); nil: the interval, at most 4 s.
        ///   - interval: Between round starts while online (``interval``).
        ///   - failureInterval: Between round starts while disconnecting (``failureInterval``).
        ///   - recoveryInterval: Between round starts while connecting (``recoveryInterval``).
        ///   - keepFailureInterval: Whether `failureInterval` holds while offline too
        ///     (``keepFailureInterval``).
        ///   - down: Failed rounds in a row that take an online uplink offline (``down``).
        ///   - up: Good rounds in a row that bring an offline uplink online (``up``).
        ///   - initialState: The state before the first round (``initialState``).
        ///   - source: The source address of the probes (``source``).
        ///   - mark: The firewall mark of the probes (``mark``).
        ///   - quality: Loss and latency thresholds (``quality``).
        ///   - checks: What to check beyond the rounds (``checks``).
        ///   - flapLimit: Failovers that hold the uplink (``flapLimit``).
        ///   - flapWindow: The window they are counted in (``flapWindow``).
        ///   - followsKernel: Whether carrier and the neighbour entry are followed (``followsKernel``).
        public init(interface: String, hosts: [IPAddress], method: ProbeMethod = .icmp, reliability: Int = 1,
                    count: Int = 1, timeout: Duration? = nil, interval: Duration = .seconds(50),
                    failureInterval: Duration? = nil, recoveryInterval: Duration? = nil,
                    keepFailureInterval: Bool = false, down: Int = 3, up: Int = 3,
                    initialState: UplinkState = .online, source: IPAddress? = nil, mark: UInt32? = nil,
                    quality: UplinkQuality? = UplinkQuality(), checks: UplinkChecks? = nil,
                    flapLimit: Int = 3, flapWindow: Duration = .seconds(60), followsKernel: Bool = true) {
            self.interface = interface
            self.hosts = hosts
            self.method = method
            self.reliability = reliability
            self.count = count
            self.timeout = timeout
            self.interval = interval
            self.failureInterval = failureInterval
            self.recoveryInterval = recoveryInterval
            self.keepFailureInterval = keepFailureInterval
            self.down = down
            self.up = up
            self.initialState = initialState
            self.source = source
            self.mark = mark
            self.quality = quality
            self.checks = checks
            self.flapLimit = flapLimit
            self.flapWindow = flapWindow
            self.followsKernel = followsKernel
        }

        /// mwan3track's defaults as its script reads them (`config_get ... interval 10`, `down 5`, `up 5`,
        /// `timeout 4`, `count 1`, `reliability 1`), with `check_quality`'s thresholds
        /// (`UplinkQuality.mwan3`), no checks, no damping and no kernel facts: 8,640 echoes a host a
        /// day, 1.45 MB for one IPv4 host.
        public static func mwan3(interface: String, hosts: [IPAddress]) -> Configuration {
            Configuration(interface: interface, hosts: hosts, timeout: .seconds(4), interval: .seconds(10),
                          failureInterval: .seconds(10), recoveryInterval: .seconds(10), down: 5, up: 5, quality: .mwan3,
                          flapLimit: 0, followsKernel: false)
        }

        /// The fast profile: a round every 0.5 s, a timeout of 0.7 s, down 3, up 3, checks every 10 s.
        /// A dead upstream is offline within 0.5 + 3 × 0.7 = 2.6 s (a failed round overruns the interval,
        /// so the next starts at once);
        /// each IPv4 host costs 172,800 echoes, 29 MB a day, and two hosts keep a link with 5 % loss from
        /// failing three rounds in a row by chance ("Uplinks that fail dirty" (LinuxReachability's documentation)).
        public static func fast(interface: String, hosts: [IPAddress], checks: UplinkChecks? = nil) -> Configuration {
            var checks = checks
            checks?.interval = .seconds(10)
            return Configuration(interface: interface, hosts: hosts, timeout: .milliseconds(700),
                                 interval: .milliseconds(500), failureInterval: nil, recoveryInterval: nil,
                                 down: 3, up: 3, checks: checks)
        }

        /// The probe timeout in effect.
        public var effectiveTimeout: Duration { timeout ?? min(interval, .seconds(4)) }

        /// The failure and recovery intervals where they are nil: the interval, at most 5 s.
        private var quickInterval: Duration { min(interval, .seconds(5)) }

        /// The pause between round starts in `state`, as mwan3track chooses it.
        ///
        /// - Parameter state: The uplink's state.
        /// - Returns: ``failureInterval`` while disconnecting (and while
        ///   offline with ``keepFailureInterval``), ``recoveryInterval`` while
        ///   connecting, and ``interval`` otherwise; where those are nil, the
        ///   interval, at most 5 s (mwan3's would be the interval itself: a
        ///   50 s interval would then take 154 s to notice a dead upstream).
        public func interval(in state: UplinkState) -> Duration {
            switch state {
            case .online: return interval
            case .disconnecting: return failureInterval ?? quickInterval
            case .offline: return keepFailureInterval ? (failureInterval ?? quickInterval) : interval
            case .connecting: return recoveryInterval ?? quickInterval
            }
        }

        /// Checks the values against what mwan3 would run with.
        ///
        /// - Throws: `ReachabilityError.invalidInterfaceName(_:reason:)` for an
        ///   interface name Linux cannot have; `.invalidConfiguration(_:reason:)`
        ///   for no hosts, a reliability above the number of hosts, a count,
        ///   down or up out of range, an initial state other than online or
        ///   offline, an interval out of range, a source of another family
        ///   than a host, or probe options out of range; `.invalidProbe(_:reason:)`
        ///   for a method that parsing would have refused.
        public func validate() throws(ReachabilityError) {
            try LookupOptions.validateInterfaceName(interface)
            guard !hosts.isEmpty else { throw .invalidConfiguration("track hosts", reason: "at least one host is needed") }
            guard (1...hosts.count).contains(reliability) else {
                throw .invalidConfiguration("reliability", reason: "must be 1...\(hosts.count) (the number of hosts)")
            }
            guard (1...100).contains(count) else { throw .invalidConfiguration("count", reason: "must be 1...100") }
            guard (1...1000).contains(down) else { throw .invalidConfiguration("down", reason: "must be 1...1000") }
            guard (1...1000).contains(up) else { throw .invalidConfiguration("up", reason: "must be 1...1000") }
            guard initialState == .online || initialState == .offline else {
                throw .invalidConfiguration("initial state", reason: "must be online or offline")
            }
            let limit = Duration.seconds(86_400)
            for (name, value) in [("interval", interval), ("failure interval", failureInterval ?? interval),
                                  ("recovery interval", recoveryInterval ?? interval)] {
                guard value >= .milliseconds(10), value <= limit else {
                    throw .invalidConfiguration(name, reason: "must be 0.01 s ... 1 day")
                }
            }
            if let source, hosts.contains(where: { $0.family != source.family }) {
                throw .invalidConfiguration("source", reason: "\(source) is of another family than a track host")
            }
            try probeOptions.validate()
            try method.validate()
            if let problem = quality?.problem { throw .invalidConfiguration(problem.name, reason: problem.reason) }
            try checks?.validate()
            guard (0...100).contains(flapLimit) else { throw .invalidConfiguration("flap limit", reason: "must be 0...100") }
            guard flapWindow >= .seconds(1), flapWindow <= limit else {
                throw .invalidConfiguration("flap window", reason: "must be 1 s ... 1 day")
            }
        }

        var probeOptions: ProbeOptions {
            ProbeOptions(interface: interface, source: source, mark: mark, timeout: effectiveTimeout)
        }
    }

    /// The parameters the tracker was created with, as validated then.
    public let configuration: Configuration
    private let prober: Prober
    /// CLOCK_MONOTONIC, or a simulated namespace's test clock.
    private let clock: RuntimeClock
    /// A simulated namespace's engine half (delivery counting), chosen once here; nil for a real one.
    private let simulation: (any EngineSimulation)?
    private let shared: Locked<Shared>

    fileprivate struct Observer {
        let queue: DeliveryQueue
        let body: @Sendable (TrackerEvent) -> Void
        /// Cleared when the observation is cancelled: an event already
        /// scheduled on its queue is then dropped, as the monitor's
        /// `PendingChanges` drops what a removed observer has not taken.
        let active: Locked<Bool>
    }

    fileprivate struct Shared {
        var score: TrackerScore
        /// One window per host (mwan3's check_quality is per host, too).
        var quality: [QualityTracker]?
        var reliability = 1
        var health: UplinkHealth
        var findings = UplinkFindings()
        var carrier = true
        var neighbourFailed = false
        var round = 0
        var observers = Observers<Observer>()
        /// `onRound` observers: called on the round thread after every round.
        var roundObservers: [@Sendable (TrackerEvent) -> Void] = []
        var last: TrackerEvent?
        /// Test hook: `onEvent` calls it once the observer is registered, before it returns.
        var afterObserverAdded: (@Sendable () -> Void)?
    }

    /// The round thread. Callbacks queued for it while it probes wait for
    /// the probe to end (a wake-up would cancel it); work still queued when
    /// it ends runs (an initial event handed over just before a stop).
    private let worker = WorkerThread(owner: "tracker", runsQueuedWorkAtEnd: true)

    /// A tracker of `configuration.interface` in `namespace`; ``start()`` begins the rounds.
    ///
    /// - Parameters:
    ///   - configuration: The tracker's parameters, validated here (``Configuration/validate()``).
    ///   - namespace: The network namespace to probe from; the process's own by default.
    /// - Throws: What ``Configuration/validate()`` throws, or what
    ///   ``Prober/init(namespace:)`` throws when the namespace cannot be opened.
    public init(configuration: Configuration, namespace: NetworkNamespace = .current) throws(ReachabilityError) {
        try configuration.validate()
        self.configuration = configuration
        self.prober = try Prober(namespace: namespace)
        self.clock = RuntimeClock(simulation: namespace.simulation)
        self.simulation = namespace.engineSimulation
        let initial: UplinkVerdict = configuration.initialState.isUsable ? .healthy : .down
        self.shared = Locked(Shared(score: TrackerScore(down: configuration.down, up: configuration.up,
                                                       initial: configuration.initialState),
                                    quality: configuration.quality.map { thresholds in
                                        configuration.hosts.map { _ in
                                            QualityTracker(thresholds: thresholds, down: configuration.down,
                                                           up: configuration.up)
                                        }
                                    },
                                    reliability: configuration.reliability,
                                    health: UplinkHealth(flapLimit: configuration.flapLimit,
                                                         flapWindow: configuration.flapWindow, initial: initial)))
    }

    /// The current verdict ("Uplinks that fail dirty" (LinuxReachability's documentation)).
    public var verdict: UplinkVerdict { shared.withLock { $0.health.verdict } }

    deinit { stop() }

    /// The current state.
    public var state: UplinkState { shared.withLock { $0.score.state } }

    /// Whether the rounds run: from ``start()`` until ``stop()``.
    public var isRunning: Bool { worker.isRunning }

    /// Starts the rounds on the tracker's thread; the first round starts at
    /// once. Observers get the initial state first. Does nothing while running.
    ///
    /// - Throws: `ReachabilityError.system(operation:errno:)` with `EBUSY`
    ///   while a ``stop()`` called on the tracker's thread is still finishing
    ///   (until the callback that called it has returned), or when no eventfd
    ///   or thread can be created.
    public func start() throws(ReachabilityError) {
        // In a simulated namespace the rounds follow its test clock, and
        // `settled()` waits for them: subscribed before the thread exists.
        let subscriber = try simulation.map { (simulation) throws(ReachabilityError) in
            try SimulationSubscriber(owner: "tracker of \(configuration.interface)", simulation: simulation)
        }
        do throws(ReachabilityError) {
            let started = try worker.start(.tracker, subscriber: subscriber) { [self] wakeFD in
                run(wakeFD: wakeFD, subscriber: subscriber)
                subscriber?.close()
            }
            if !started { subscriber?.close() }
        } catch {
            subscriber?.close()
            throw error
        }
    }

    /// Stops the rounds: a probe in flight is cancelled, the thread joined.
    /// Idempotent. Called from an observer on the tracker's thread, it
    /// returns at once: the thread ends once the callback returns, and then
    /// the tracker is idle (``start()`` works again).
    public func stop() { worker.stop() }

    /// Calls `body` on the tracker's thread after every round, whether or not
    /// the state changed. For metrics; a state machine wants
    /// ``onEvent(on:_:)``. Observers stay for the tracker's life.
    ///
    /// - Parameter body: Called with the round's ``TrackerEvent``: its probe
    ///   results (outcome, round trip), the score, and the state before
    ///   (``TrackerEvent/previous``) and after it.
    public func onRound(_ body: @escaping @Sendable (TrackerEvent) -> Void) {
        shared.withLock { $0.roundObservers.append(body) }
    }

    /// Calls `body` with the current state (``TrackerEvent/isInitial``), then
    /// with every state change. Calls to one observer never overlap.
    ///
    /// - Parameters:
    ///   - queue: Where `body` runs. ``DeliveryQueue/monitorThread``, the
    ///     default, means the tracker's thread; while no thread runs, the
    ///     initial state comes on the caller's thread before this returns.
    ///   - body: Called with the initial ``TrackerEvent`` and each change.
    /// - Returns: The observation; ``MonitorObservation/cancel()`` ends it.
    @discardableResult
    public func onEvent(on queue: DeliveryQueue = .monitorThread,
                        _ body: @escaping @Sendable (TrackerEvent) -> Void) -> MonitorObservation {
        // The initial event is handed over under the lock, as the observer is
        // added: a round's change published later is queued behind it.
        let (id, deliverHere, hook): (UInt64, TrackerEvent?, (@Sendable () -> Void)?) = shared.withLock { shared in
            let active = Locked(true)
            let id = shared.observers.add(Observer(queue: queue, body: body, active: active))
            let initial = shared.last.map { $0.asInitial() }
                ?? shared.event(configuration.interface, previous: nil, previousVerdict: nil, results: [], error: nil,
                                time: clock.instant)
            let hook = shared.afterObserverAdded
            shared.afterObserverAdded = nil
            switch queue.kind {
            case .enqueue:
                queue.schedule({ if active.withLock({ $0 }) { body(initial) } }, simulation: simulation) { _ in }
                return (id, nil, hook)
            case .monitorThread where worker.threadExists:
                worker.enqueue { if active.withLock({ $0 }) { body(initial) } }
                return (id, nil, hook)
            case .monitorThread:
                // No thread to run it: this caller does, and a thread started
                // meanwhile runs nothing queued until it is done (a round's
                // event is queued under this lock, so after the hold).
                worker.hold()
                return (id, initial, hook)
            }
        }
        hook?()
        if let deliverHere {
            body(deliverHere)
            worker.release()
        }
        return MonitorObservation { [weak self] in
            let removed = self?.shared.withLock { shared -> Observer? in
                shared.observers.remove(id)
            }
            removed?.active.withLock { $0 = false }
            // Released here, outside the lock: its body may hold the last
            // reference to the tracker, whose deinit stops it.
            _ = removed
        }
    }

    // MARK: Testing

    /// Test hook: the next `onEvent` calls `hook` on its caller's thread once
    /// the observer is registered (its initial event handed over), before it returns.
    func setAfterObserverAddedHook(_ hook: (@Sendable () -> Void)?) {
        shared.withLock { $0.afterObserverAdded = hook }
    }

    /// The round thread's wake-up fd; -1 when no thread runs.
    var wakeFileDescriptor: Int32 { worker.wakeFileDescriptor }

    // MARK: The tracker's thread

    private func run(wakeFD: Int32, subscriber: SimulationSubscriber?) {
        var nextStart = clock.now()
        // The kernel's free facts: a real namespace only (a simulated one has no netlink).
        let watch: UplinkKernelWatch? = configuration.followsKernel && subscriber == nil
            ? try? UplinkKernelWatch(in: prober.namespaceHandle, interface: configuration.interface,
                                     host: configuration.hosts[0],
                                     options: LookupOptions(mark: configuration.mark, interface: configuration.interface,
                                                            source: configuration.source))
            : nil
        if let watch { kernelFacts(watch) }
        var checksDue = configuration.checks != nil
        var nextCheck = clock.now()
        while true {
            worker.runQueued()
            switch worker.nextTurn(due: nextStart, now: clock.now()) {
            case .stop:
                return
            case .runQueued:
                continue
            case let .wait(nanoseconds):
                // Woken by `stop()`, by callbacks queued for this thread, the
                // kernel's link and neighbour messages, or the time (a
                // simulation's clock rings its subscriber when it moves).
                subscriber?.aboutToWait(busy: false, next: nextStart, timers: [])
                let ready = waitForEvents(subscriber?.fd ?? watch?.fd ?? -1, wake: wakeFD,
                                          timeoutNanoseconds: subscriber == nil ? nanoseconds : -1)
                subscriber?.beginTurn()
                if ready.wasWoken { Wakeup.clear(wakeFD) }
                if ready.isReadable {
                    _ = subscriber?.takeFactsChanged()
                    if let watch, watch.read() {
                        // Carrier back: probe now rather than at the next interval.
                        if kernelFacts(watch) { nextStart = clock.now() }
                    }
                }
                continue
            case .begin:
                break
            }
            let started = clock.now()
            let (succeeded, results, error) = runRound(wakeFD: wakeFD)
            // The worker stays busy until the checks after the round are done
            // too: work queued meanwhile must not wake the thread, which would
            // cancel their probes.
            if worker.stopRequested { _ = worker.end(); return }   // the round counts for nothing
            if let watch, watch.read() { _ = kernelFacts(watch) }
            var state: UplinkState = shared.withLock { shared in
                shared.round += 1
                let previous = shared.score.state
                let previousVerdict = shared.health.verdict
                var changed = false
                if shared.carrier && !shared.neighbourFailed {
                    changed = shared.score.record(roundSucceeded: succeeded) != nil
                }
                if changed && shared.score.state == .online { checksDue = configuration.checks != nil }
                if shared.score.state == .offline {
                    shared.clearQuality()
                } else if var quality = shared.quality {
                    for result in results where result.outcome != .canceled {
                        guard let host = configuration.hosts.firstIndex(of: result.address) else { continue }
                        quality[host].record(roundTrip: result.verdict == .answered ? result.roundTrip ?? .zero : nil)
                    }
                    for host in quality.indices { quality[host].evaluate() }
                    shared.quality = quality
                }
                publish(&shared, previous: previous, previousVerdict: previousVerdict, results: results, error: error,
                        roundEnded: true)
                return shared.score.state
            }
            if let checks = configuration.checks, state.isUsable, checksDue || clock.now() >= nextCheck {
                worker.runQueued()   // the round's events first
                let found = runChecks(checks, wakeFD: wakeFD)
                if worker.stopRequested { _ = worker.end(); return }
                nextCheck = clock.now() &+ checks.interval.clampedNanoseconds
                checksDue = false
                state = shared.withLock { shared in
                    let previous = shared.score.state
                    let previousVerdict = shared.health.verdict
                    shared.findings = found
                    publish(&shared, previous: previous, previousVerdict: previousVerdict, results: [], error: nil,
                            roundEnded: false)
                    return shared.score.state
                }
            }
            guard worker.end() else { return }
            // Start to start; a round that overran starts the next one at once.
            nextStart = max(started + configuration.interval(in: state).clampedNanoseconds, clock.now())
        }
    }

    /// Takes the watch's carrier and neighbour facts: either lost takes the
    /// uplink offline at once. Returns whether carrier came back.
    @discardableResult
    private func kernelFacts(_ watch: UplinkKernelWatch) -> Bool {
        shared.withLock { shared in
            let cameBack = !shared.carrier && watch.carrier
            guard shared.carrier != watch.carrier || shared.neighbourFailed != watch.neighbourFailed else { return false }
            let previous = shared.score.state
            let previousVerdict = shared.health.verdict
            shared.carrier = watch.carrier
            shared.neighbourFailed = watch.neighbourFailed
            if !watch.carrier || watch.neighbourFailed {
                shared.score.forceOffline()
                shared.clearQuality()
            }
            publish(&shared, previous: previous, previousVerdict: previousVerdict, results: [], error: nil,
                    roundEnded: false)
            return cameBack
        }
    }

    /// Decides the verdict from the facts now and hands the event to the
    /// observers: round observers after every round, `onEvent` observers when
    /// the state or the verdict changed. Under the lock.
    @discardableResult
    private func publish(_ shared: inout Shared, previous: UplinkState, previousVerdict: UplinkVerdict,
                         results: [ProbeResult], error: ReachabilityError?, roundEnded: Bool) -> Bool {
        let facts = UplinkFacts(carrier: shared.carrier, neighbourFailed: shared.neighbourFailed,
                                state: shared.score.state, quality: shared.uplinkQuality?.level ?? .good,
                                findings: shared.findings)
        shared.health.update(facts, now: clock.instant)
        let changed = shared.score.state != previous || shared.health.verdict != previousVerdict
        guard changed || (roundEnded && !shared.roundObservers.isEmpty) else { return false }
        let event = shared.event(configuration.interface, previous: previous, previousVerdict: previousVerdict,
                                 results: results, error: error, time: clock.instant)
        if roundEnded { for body in shared.roundObservers { worker.enqueue { body(event) } } }
        guard changed else { return false }
        shared.last = event
        for (_, observer) in shared.observers.entries {
            let (body, active) = (observer.body, observer.active)
            observer.queue.schedule({ if active.withLock({ $0 }) { body(event) } },
                                    simulation: simulation) { worker.enqueue($0) }
        }
        return true
    }

    /// One run of the checks, each probe through the uplink as the rounds' are.
    private func runChecks(_ checks: UplinkChecks, wakeFD: Int32) -> UplinkFindings {
        let base = configuration.probeOptions
        let salt = clock.now() ^ UInt64(truncatingIfNeeded: shared.withLock { $0.round })
        return checks.run(nameServers: { prober.namespace.nameServers() }, salt: salt) { address, method, payload in
            guard !worker.stopRequested else { return nil }
            var options = base
            if let source = options.source, source.family != address.family { options.source = nil }
            if let payload {
                options.payloadSize = payload
                options.dontFragment = true
            }
            return try? prober.probe(address, method: method, options: options, wakeFD: wakeFD)
        }
    }

    /// Probes every host at once (as mwan3track pings all its track IPs),
    /// each up to `count` times until it answers; the round succeeds when
    /// `reliability` hosts answered. The first host is probed on the round
    /// thread, the others each on a probe thread of its own, so a round lasts
    /// at most `count` × timeout whatever the number of hosts. Every probe
    /// has its own socket (raw ICMP replies are matched by identifier and
    /// sequence), and the round waits for all of them: none outlives it.
    private func runRound(wakeFD: Int32) -> (Bool, [ProbeResult], ReachabilityError?) {
        worker.runQueued()
        if worker.stopRequested { return (false, [], nil) }   // one called stop()
        let hosts = configuration.hosts
        let round = RoundAnswers(hosts: hosts.count)
        for index in hosts.indices.dropFirst() {
            do {
                try startThread(.probe) { [self] in
                    round.post(index, probeHost(hosts[index], wakeFD: wakeFD))
                }
            } catch {
                round.post(index, ([], error))
            }
        }
        round.post(0, probeHost(hosts[0], wakeFD: wakeFD))
        // Callbacks queued meanwhile (a new observer's initial event) wait at
        // most for one probe, not for the whole round.
        worker.runQueued()
        let answers = round.waitForAll()
        let results = answers.flatMap(\.results)
        let answered = answers.filter { $0.results.contains { $0.verdict == .answered } }.count
        let error = answers.lazy.compactMap(\.error).first
        return (answered >= configuration.reliability, results, error)
    }

    /// One host's probes: up to `count`, until one is answered or canceled.
    private func probeHost(_ host: IPAddress, wakeFD: Int32) -> (results: [ProbeResult], error: ReachabilityError?) {
        var results: [ProbeResult] = []
        for _ in 0..<configuration.count {
            let result: ProbeResult
            do {
                result = try prober.probe(host, method: configuration.method, options: configuration.probeOptions,
                                          wakeFD: wakeFD)
            } catch {
                return (results, error)
            }
            results.append(result)
            if result.outcome == .canceled || result.verdict == .answered { break }
        }
        return (results, nil)
    }
}

extension UplinkTracker.Shared {
    /// The uplink's quality: its reliability-th best host's.
    var uplinkQuality: (level: QualityLevel, summary: QualitySummary)? {
        quality.flatMap { QualityTracker.uplink($0, reliability: reliability) }
    }

    mutating func clearQuality() {
        guard var quality else { return }
        for host in quality.indices { quality[host].clearSamples() }
        self.quality = quality
    }

    func event(_ interface: String, previous: UplinkState?, previousVerdict: UplinkVerdict?, results: [ProbeResult],
               error: ReachabilityError?, time: MonotonicInstant) -> TrackerEvent {
        let verdict = health.verdict
        var detail: String?
        switch verdict {
        case .healthy: detail = nil
        case .down where !carrier: detail = "carrier lost"
        case .down where neighbourFailed: detail = "next hop's neighbour entry failed"
        case .down where score.state == .connecting: detail = "connecting: score \(score.score) of \(score.up) to come back"
        case .down: detail = "probes unanswered"
        case .flapping: detail = "\(health.flapLimit) failovers within \(health.flapWindow)"
        case .degraded, .unusable:
            let summary = uplinkQuality?.summary
            detail = "loss \(summary?.lossPercent.map { "\($0) %" } ?? "n/a"), median \(summary?.medianLatency.map { "\($0.clampedNanoseconds / 1_000_000) ms" } ?? "n/a")"
        default: detail = findings.detail
        }
        return TrackerEvent(interface: interface, state: score.state, previous: previous, score: score.score,
                            round: round, results: results, error: error, time: time, verdict: verdict,
                            previousVerdict: previousVerdict, quality: uplinkQuality?.summary, detail: detail,
                            failovers: health.failoverCount)
    }
}

/// The answers of one round's hosts, posted by their probe threads; the
/// round thread waits on an eventfd until every host has posted.
private final class RoundAnswers: Sendable {
    typealias Answer = (results: [ProbeResult], error: ReachabilityError?)
    private let answers: Locked<(list: [Answer?], missing: Int)>
    private let done: WakeSignal?

    init(hosts: Int) {
        answers = Locked((Array(repeating: nil, count: hosts), hosts))
        done = hosts > 1 ? try? WakeSignal() : nil
    }

    func post(_ index: Int, _ answer: Answer) {
        let last = answers.withLock { state -> Bool in
            state.list[index] = answer
            state.missing -= 1
            return state.missing == 0
        }
        if last { done?.signal() }
    }

    /// Every host's answer, in host order.
    func waitForAll() -> [Answer] {
        while true {
            let list = answers.withLock { $0.missing == 0 ? $0.list.compactMap { $0 } : nil }
            if let list { return list }
            if let done {
                _ = waitForEvents(-1, wake: done.fd, timeoutNanoseconds: -1)
                Wakeup.clear(done.fd)
            } else {
                var pause = timespec(tv_sec: 0, tv_nsec: 1_000_000)   // no eventfd could be had: poll
                nanosleep(&pause, nil)
            }
        }
    }
}
