internal import CReachability
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Tracks whether one uplink actually carries traffic, in the manner of
/// OpenWrt's mwan3track: every round probes the track hosts through the
/// interface, and a `TrackerScore` turns good and failed rounds into
/// online / disconnecting / offline / connecting with hysteresis.
///
/// Rounds run on a thread of the tracker's own, from `start()` until
/// `stop()` (the thread holds the tracker, so dropping the last reference
/// does not stop it). Each round probes the hosts
/// in order, each up to `count` times, and stops as soon as `reliability`
/// hosts answered; the round succeeds when they did. Rounds start on a fixed
/// cadence (start to start), so a dead uplink whose probes time out is still
/// probed every interval: with interval 0.5 s, down 3 and a timeout of 0.4 s
/// it is offline at most 0.5 + 2 × 0.5 + 0.4 = 1.9 s after it died.
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
        /// Between round starts while disconnecting (`failure_interval`); nil: `interval`.
        public var failureInterval: Duration?
        /// Between round starts while connecting (`recovery_interval`); nil: `interval`.
        public var recoveryInterval: Duration?
        /// Use `failureInterval` while offline too (`keep_failure_interval`).
        public var keepFailureInterval: Bool
        /// Failed rounds in a row that take an online uplink offline (`down`).
        public var down: Int
        /// Good rounds in a row that bring an offline uplink online (`up`).
        public var up: Int
        /// The state before the first round, `.online` or `.offline` (`initial_state`).
        public var initialState: UplinkState
        /// Source address and firewall mark of the probes (mwan3 probes from the interface's address).
        public var source: IPAddress?
        public var mark: UInt32?

        public init(interface: String, hosts: [IPAddress], method: ProbeMethod = .icmp, reliability: Int = 1,
                    count: Int = 1, timeout: Duration? = nil, interval: Duration = .seconds(10),
                    failureInterval: Duration? = nil, recoveryInterval: Duration? = nil,
                    keepFailureInterval: Bool = false, down: Int = 5, up: Int = 5,
                    initialState: UplinkState = .online, source: IPAddress? = nil, mark: UInt32? = nil) {
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
        }

        /// The probe timeout in effect.
        public var effectiveTimeout: Duration { timeout ?? min(interval, .seconds(4)) }

        /// The pause between round starts in `state`, as mwan3track chooses it.
        public func interval(in state: UplinkState) -> Duration {
            switch state {
            case .online: return interval
            case .disconnecting: return failureInterval ?? interval
            case .offline: return keepFailureInterval ? (failureInterval ?? interval) : interval
            case .connecting: return recoveryInterval ?? interval
            }
        }

        /// Throws `.invalidConfiguration` (or `.invalidInterfaceName`) for values mwan3 would not run with.
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
        }

        var probeOptions: ProbeOptions {
            ProbeOptions(interface: interface, source: source, mark: mark, timeout: effectiveTimeout)
        }
    }

    public let configuration: Configuration
    private let prober: Prober
    private let shared: Mutex<Shared>

    private struct Observer {
        let id: UInt64
        let queue: DeliveryQueue
        let body: @Sendable (TrackerEvent) -> Void
    }

    private struct Shared {
        var score: TrackerScore
        var thread: pthread_t?
        var wakeFD: Int32 = -1
        var stopping = false
        var round = 0
        var observers: [Observer] = []
        var nextObserverID: UInt64 = 0
        var last: TrackerEvent?
    }

    /// A tracker of `configuration.interface` in `namespace`; `start()` begins the rounds.
    public init(configuration: Configuration, namespace: NetworkNamespace = .current) throws(ReachabilityError) {
        try configuration.validate()
        self.configuration = configuration
        self.prober = try Prober(namespace: namespace)
        self.shared = Mutex(Shared(score: TrackerScore(down: configuration.down, up: configuration.up,
                                                       initial: configuration.initialState)))
    }

    deinit { stop() }

    /// The current state.
    public var state: UplinkState { shared.withLock { $0.score.state } }

    /// Starts the rounds on the tracker's thread; the first round starts at
    /// once. Observers get the initial state first. No-op while running.
    public func start() throws(ReachabilityError) {
        let wakeFD = creach_wakeup_open()
        guard wakeFD >= 0 else { throw .system(operation: "eventfd", errno: .current) }
        // The thread is created under the lock, so a concurrent `stop()` sees
        // it (and joins it) or runs before it exists; never in between.
        let started: Bool
        do {
            started = try shared.withLock { (shared) throws(ReachabilityError) -> Bool in
                guard shared.thread == nil else { return false }
                shared.thread = try startJoinableThread(.tracker) { [self] in run(wakeFD: wakeFD) }
                shared.wakeFD = wakeFD
                shared.stopping = false
                return true
            }
        } catch {
            close(wakeFD)
            throw error
        }
        if !started { close(wakeFD) }
    }

    /// Stops the rounds: a probe in flight is cancelled, the thread joined.
    /// Idempotent; must not be called from an observer on the tracker's thread.
    public func stop() {
        let (thread, wakeFD): (pthread_t?, Int32) = shared.withLock { shared in
            shared.stopping = true
            if shared.wakeFD >= 0 { _ = creach_wakeup_signal(shared.wakeFD) }
            defer { shared.thread = nil; shared.wakeFD = -1 }
            return (shared.thread, shared.wakeFD)
        }
        if let thread { pthread_join(thread, nil) }
        if wakeFD >= 0 { close(wakeFD) }
    }

    /// Calls `body` with the current state (`isInitial`), then with every
    /// state change, on `queue` (`.monitorThread` means the tracker's thread).
    @discardableResult
    public func onEvent(on queue: DeliveryQueue = .monitorThread,
                        _ body: @escaping @Sendable (TrackerEvent) -> Void) -> MonitorObservation {
        let (id, initial): (UInt64, TrackerEvent) = shared.withLock { shared in
            let id = shared.nextObserverID
            shared.nextObserverID += 1
            shared.observers.append(Observer(id: id, queue: queue, body: body))
            let initial = shared.last.map { $0.asInitial() }
                ?? TrackerEvent(interface: configuration.interface, state: shared.score.state, previous: nil,
                                score: shared.score.score, round: shared.round, results: [], error: nil,
                                timeNanoseconds: creach_monotonic_ns())
            return (id, initial)
        }
        deliver(initial, on: queue, body)
        return MonitorObservation { [weak self] in
            self?.shared.withLock { $0.observers.removeAll { $0.id == id } }
        }
    }

    /// The initial state, then every state change, as an async sequence.
    public func events() -> AsyncStream<TrackerEvent> {
        AsyncStream { continuation in
            let observation = onEvent { continuation.yield($0) }
            continuation.onTermination = { _ in observation.cancel() }
        }
    }

    // MARK: The tracker's thread

    private func run(wakeFD: Int32) {
        var nextStart = creach_monotonic_ns()
        while true {
            let wait = Int64(clamping: nextStart) - Int64(clamping: creach_monotonic_ns())
            if wait > 0 { _ = creach_wait(-1, wakeFD, wait) }
            if shared.withLock({ $0.stopping }) { return }
            let started = creach_monotonic_ns()
            let (succeeded, results, error) = runRound(wakeFD: wakeFD)
            if shared.withLock({ $0.stopping }) { return }
            let (event, observers, state): (TrackerEvent?, [Observer], UplinkState) = shared.withLock { shared in
                shared.round += 1
                let previous = shared.score.state
                guard shared.score.record(roundSucceeded: succeeded) != nil else {
                    return (nil, [], shared.score.state)
                }
                let event = TrackerEvent(interface: configuration.interface, state: shared.score.state,
                                         previous: previous, score: shared.score.score, round: shared.round,
                                         results: results, error: error, timeNanoseconds: creach_monotonic_ns())
                shared.last = event
                return (event, shared.observers, shared.score.state)
            }
            if let event {
                for observer in observers { deliver(event, on: observer.queue, observer.body) }
            }
            // Start to start; a round that overran starts the next one at once.
            nextStart = max(started + nanoseconds(configuration.interval(in: state)), creach_monotonic_ns())
        }
    }

    /// Probes hosts in order until `reliability` of them answered.
    private func runRound(wakeFD: Int32) -> (Bool, [ProbeResult], ReachabilityError?) {
        var answered = 0
        var results: [ProbeResult] = []
        var error: ReachabilityError?
        let options = configuration.probeOptions
        for host in configuration.hosts where answered < configuration.reliability {
            for _ in 0..<configuration.count {
                let result: ProbeResult
                do {
                    result = try prober.probe(host, method: configuration.method, options: options, wakeFD: wakeFD)
                } catch let failure {
                    error = failure
                    break
                }
                results.append(result)
                if result.outcome == .canceled { return (false, results, error) }
                if result.verdict == .answered { answered += 1; break }
            }
        }
        return (answered >= configuration.reliability, results, error)
    }

    private func deliver(_ event: TrackerEvent, on queue: DeliveryQueue, _ body: @escaping @Sendable (TrackerEvent) -> Void) {
        switch queue.kind {
        case .monitorThread: body(event)
        case let .enqueue(enqueue): enqueue { body(event) }
        }
    }
}

/// A state of a tracked uplink: the initial one, or a change.
public struct TrackerEvent: Hashable, Sendable {
    public let interface: String
    public let state: UplinkState
    /// The state before; nil for the initial state.
    public let previous: UplinkState?
    /// The score after the round (0 ... down + up).
    public let score: Int
    /// Rounds run so far.
    public let round: Int
    /// The probes of the round that changed the state.
    public let results: [ProbeResult]
    /// Why a probe of that round could not be sent at all (the interface is
    /// gone, the source address was removed ...); the round then failed.
    public let error: ReachabilityError?
    /// `CLOCK_MONOTONIC` in nanoseconds.
    public let timeNanoseconds: UInt64

    public var isInitial: Bool { previous == nil }

    func asInitial() -> TrackerEvent {
        TrackerEvent(interface: interface, state: state, previous: nil, score: score, round: round, results: results,
                     error: error, timeNanoseconds: timeNanoseconds)
    }
}
