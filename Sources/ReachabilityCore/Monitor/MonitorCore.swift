internal import CReachability
#if canImport(Glibc)
import Glibc
#endif

/// The state a monitor shares between its event thread, the threads that
/// call it, and its resolver threads: observers, the latest state of each
/// target, counters, and the run phase. Everything is behind one lock; the
/// event thread's own state (socket, buffers, per-target bookkeeping) lives
/// in `MonitorLoop` and is touched by that thread alone.
final class MonitorCore: Sendable {
    /// An observer: where its changes wait (one per target at most) and how
    /// it learns that some are waiting: a stream's doorbell (a buffer of one
    /// element), or a drain queued on its delivery queue (at most one at a time).
    enum Sink: Sendable {
        case changes(PendingChanges<ReachabilityChange>, doorbell: Doorbell)
        case statusChanges(PendingChanges<StatusChange>, doorbell: Doorbell)
        case callback(DeliveryQueue, PendingChanges<ReachabilityChange>, @Sendable (ReachabilityChange) -> Void)
        case statusCallback(DeliveryQueue, reachable: Bool, PendingChanges<StatusChange>, @Sendable (StatusChange) -> Void)
    }

    enum Phase {
        case idle
        case running(thread: pthread_t)
        /// `stop()` has begun; the thread is finishing.
        case stopping
    }

    /// A resolver thread's answer, handed to the event thread.
    struct Resolution: Sendable {
        let generation: UInt64
        let targetIndex: Int
        let result: Result<[IPAddress], ReachabilityError>
    }

    /// A validation thread's answer, handed to the event thread.
    struct ValidationAnswer: Sendable {
        let generation: UInt64
        let targetIndex: Int
        /// The output interface the probe was bound to.
        let interfaceIndex: Int32
        let verdict: ProbeVerdict
        /// nil when no probe could be sent (its host did not resolve).
        let result: ProbeResult?
    }

    struct Shared {
        var phase: Phase = .idle
        /// Bumped by every start: answers of an earlier run are ignored.
        var generation: UInt64 = 0
        var stopRequested = false
        /// Signals the event thread; -1 when no thread runs.
        var wakeFD: Int32 = -1
        var eventPortID: UInt32?
        var observers: [UInt64: Sink] = [:]
        var nextObserverID: UInt64 = 0
        /// Latest emitted state per target index; nil until its initial state is known.
        var latest: [ReachabilityChange?]
        /// Callbacks waiting to run on the monitor thread, in order.
        var inline: [@Sendable () -> Void] = []
        var resolutions: [Resolution] = []
        var validations: [ValidationAnswer] = []
        /// The policy or the radio source changed: every target is evaluated again.
        var reevaluationRequested = false
        /// This run's registration with the radio source.
        var radioObserver: UInt64?
        /// Signalled at stop: validation probes still waiting give up.
        var cancelProbes: WakeSignal?
        var counters = MonitorCounters()
        /// The public handle is gone: stop once nothing observes.
        var handleReleased = false
        /// `stop()` was called on the event thread, which then marks the monitor idle itself.
        var selfDetached = false
    }

    let targets: [Target]
    let options: LookupOptions
    let evaluator: ReachabilityEvaluator
    /// Sends validation probes in the monitor's namespace; nil without validation.
    let probe: ValidationProbe.Send?
    let configuration: ReachabilityMonitor.Configuration
    let shared: Locked<Shared>

    init(targets: [Target], options: LookupOptions, evaluator: ReachabilityEvaluator, probe: ValidationProbe.Send?,
         configuration: ReachabilityMonitor.Configuration) {
        self.targets = targets
        self.options = options
        self.evaluator = evaluator
        self.probe = probe
        self.configuration = configuration
        shared = Locked(Shared(latest: Array(repeating: nil, count: targets.count)))
    }

    // MARK: Start and stop

    var isRunning: Bool {
        shared.withLock { if case .running = $0.phase { return true } else { return false } }
    }

    var eventPortID: UInt32? { shared.withLock { $0.eventPortID } }

    func start() throws(ReachabilityError) {
        try shared.withLock { (shared) throws(ReachabilityError) in
            switch shared.phase {
            case .running: return
            case .stopping: throw .system(operation: "start a monitor that is stopping", errno: Errno(rawValue: EBUSY))
            case .idle: break
            }
            // Subscribe before the first evaluation, so that nothing that
            // happens in between is missed.
            var socket = try MonitorLoop.openEventSocket(evaluator: evaluator, configuration: configuration)
            let wakeFD = creach_wakeup_open()
            guard wakeFD >= 0 else {
                let error = Errno.current
                creach_nl_close(&socket)
                throw .system(operation: "eventfd", errno: error)
            }
            let cancelProbes = configuration.validation == nil ? nil : try WakeSignal()
            shared.counters.receiveBufferSize = MonitorLoop.receiveBufferSize(socket)
            shared.generation &+= 1
            shared.stopRequested = false
            shared.reevaluationRequested = false
            shared.cancelProbes = cancelProbes
            shared.radioObserver = evaluator.radio.addObserver { [weak self] in self?.requestReevaluation() }
            shared.wakeFD = wakeFD
            shared.eventPortID = socket.portid
            shared.latest = Array(repeating: nil, count: targets.count)
            let loop = MonitorLoop(core: self, socket: socket, wakeFD: wakeFD, generation: shared.generation)
            do throws(ReachabilityError) {
                let thread = try startJoinableThread(.monitor) { loop.run() }
                shared.phase = .running(thread: thread)
            } catch {
                loop.release()
                shared.wakeFD = -1
                shared.eventPortID = nil
                if let id = shared.radioObserver { evaluator.radio.removeObserver(id) }
                shared.radioObserver = nil
                throw error
            }
        }
    }

    func stop() {
        enum Action { case none, join(pthread_t), detachSelf, waitForOther }
        let action = shared.withLock { shared -> Action in
            switch shared.phase {
            case .idle: return .none
            case .stopping: return .waitForOther
            case let .running(thread):
                shared.phase = .stopping
                shared.stopRequested = true
                if shared.wakeFD >= 0 { _ = creach_wakeup_signal(shared.wakeFD) }
                shared.cancelProbes?.signal()
                return pthread_equal(thread, pthread_self()) != 0 ? .detachSelf : .join(thread)
            }
        }
        switch action {
        case .none:
            return
        case let .join(thread):
            pthread_join(thread, nil)
            finishObservers()
        case .detachSelf:
            // Called from a callback on the event thread: it ends once the
            // callback returns, and marks the monitor idle itself.
            pthread_detach(pthread_self())
            shared.withLock { $0.selfDetached = true }
            finishObservers()
        case .waitForOther:
            // Another thread is stopping the monitor: return once it is done,
            // unless this is the event thread itself (it cannot wait for itself).
            while shared.withLock({ if case .stopping = $0.phase { return true } else { return false } }) {
                if onEventThread { return }
                var pause = timespec(tv_sec: 0, tv_nsec: 1_000_000)
                nanosleep(&pause, nil)
            }
        }
    }

    /// Set by the event thread while it runs: lets `stop()` tell it apart.
    private static let eventThreadKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    private var onEventThread: Bool {
        pthread_getspecific(MonitorCore.eventThreadKey) == Unmanaged.passUnretained(self).toOpaque()
    }

    func markEventThread() {
        pthread_setspecific(MonitorCore.eventThreadKey, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Called by the event thread as it leaves: closes the wake-up fd under
    /// the lock (so no signal can reach a recycled fd number).
    func eventThreadFinished() {
        shared.withLock { shared in
            if shared.wakeFD >= 0 { close(shared.wakeFD) }
            shared.wakeFD = -1
            shared.eventPortID = nil
            shared.inline.removeAll()
            shared.resolutions.removeAll()
            shared.validations.removeAll()
            shared.cancelProbes = nil
            if let id = shared.radioObserver { evaluator.radio.removeObserver(id) }
            shared.radioObserver = nil
            if shared.selfDetached {
                shared.selfDetached = false
                shared.phase = .idle
            }
        }
        pthread_setspecific(MonitorCore.eventThreadKey, nil)
    }

    /// Ends streams and drops callbacks once the thread is gone.
    private func finishObservers() {
        let sinks = shared.withLock { shared -> [Sink] in
            if case .stopping = shared.phase, !onEventThread { shared.phase = .idle }
            defer { shared.observers.removeAll() }
            return Array(shared.observers.values)
        }
        // Outside the lock: finishing a stream runs its termination handler.
        // A stream still hands out what is pending, then ends.
        for sink in sinks {
            switch sink {
            case let .changes(_, doorbell): doorbell.finish()
            case let .statusChanges(_, doorbell): doorbell.finish()
            case .callback, .statusCallback: MonitorCore.discardCallbacks(of: sink)
            }
        }
    }

    /// A callback observer that is gone gets nothing more, not even what was pending.
    private static func discardCallbacks(of sink: Sink) {
        switch sink {
        case let .callback(_, pending, _): pending.discard()
        case let .statusCallback(_, _, pending, _): pending.discard()
        case .changes, .statusChanges: break
        }
    }

    /// The event thread's question, once per round.
    var stopRequested: Bool { shared.withLock { $0.stopRequested } }

    // MARK: Observers

    func addObserver(_ sink: Sink) -> UInt64 {
        shared.withLock { shared in
            let id = shared.nextObserverID
            shared.nextObserverID += 1
            shared.observers[id] = sink
            // The states known so far, as this observer's initial ones.
            for (index, latest) in shared.latest.enumerated() {
                guard let change = latest else { continue }
                MonitorCore.deliver(change.asInitial(), status: MonitorCore.initialStatus(change), target: index, to: sink,
                                    in: &shared)
            }
            return id
        }
    }

    func removeObserver(_ id: UInt64) {
        let stopNow = shared.withLock { shared -> Bool in
            if let sink = shared.observers.removeValue(forKey: id) { MonitorCore.discardCallbacks(of: sink) }
            return shared.handleReleased && shared.observers.isEmpty
        }
        if stopNow { stop() }
    }

    /// The handle's deinit: keep running while observed, else stop.
    func handleReleased() {
        let stopNow = shared.withLock { shared -> Bool in
            shared.handleReleased = true
            return shared.observers.isEmpty
        }
        if stopNow { stop() }
    }

    // MARK: Publishing (event thread)

    /// Records new states and hands them to every observer, in order.
    func publish(_ changes: [(index: Int, change: ReachabilityChange)], generation: UInt64) {
        shared.withLock { shared in
            guard shared.generation == generation, !shared.stopRequested else { return }
            for (index, change) in changes {
                let previousStatus = shared.latest[index]?.status
                shared.latest[index] = change
                if !change.isInitial { shared.counters.changes += 1 }
                let status: StatusChange?
                if change.isInitial {
                    status = MonitorCore.initialStatus(change)
                } else if previousStatus != change.status {
                    status = StatusChange(target: change.target, status: change.status, previousStatus: previousStatus,
                                          isInitial: false, timeNanoseconds: change.timeNanoseconds)
                } else {
                    status = nil
                }
                for sink in shared.observers.values {
                    MonitorCore.deliver(change, status: status, target: index, to: sink, in: &shared)
                }
            }
        }
    }

    /// Keeps a target's latest state current without telling observers: the
    /// answer is the same, only a detail (the last validation probe) is newer.
    func refresh(_ index: Int, evaluation: TargetEvaluation, generation: UInt64) {
        shared.withLock { shared in
            guard shared.generation == generation, let latest = shared.latest[index] else { return }
            shared.latest[index] = ReachabilityChange(target: latest.target, evaluation: evaluation, previous: latest.previous,
                                                      isInitial: latest.isInitial, timeNanoseconds: latest.timeNanoseconds)
        }
    }

    private static func initialStatus(_ change: ReachabilityChange) -> StatusChange {
        StatusChange(target: change.target, status: change.status, previousStatus: nil, isInitial: true,
                     timeNanoseconds: change.timeNanoseconds)
    }

    /// Called with the lock held: streams and enqueue functions do not block.
    /// The change waits in the observer's pending slot of its target (replacing
    /// one not taken yet); the observer is told once, not once per change.
    private static func deliver(_ change: ReachabilityChange, status: StatusChange?, target index: Int, to sink: Sink,
                                in shared: inout Shared) {
        switch sink {
        case let .changes(pending, doorbell):
            if pending.put(change, target: index) { shared.counters.coalesced += 1 }
            doorbell.ring()
        case let .statusChanges(pending, doorbell):
            guard let status else { return }
            if pending.put(status, target: index) { shared.counters.coalesced += 1 }
            doorbell.ring()
        case let .callback(queue, pending, handler):
            if pending.put(change, target: index) { shared.counters.coalesced += 1 }
            if pending.claimDrain() { schedule(drain(pending, into: handler), on: queue, in: &shared) }
        case let .statusCallback(queue, reachable, pending, handler):
            guard let status, status.isReachable == reachable else { return }
            if pending.put(status, target: index) { shared.counters.coalesced += 1 }
            if pending.claimDrain() { schedule(drain(pending, into: handler), on: queue, in: &shared) }
        }
    }

    /// The work queued for a callback observer: hand it everything pending, in order.
    private static func drain<Change: Sendable>(_ pending: PendingChanges<Change>,
                                                into handler: @escaping @Sendable (Change) -> Void) -> @Sendable () -> Void {
        { while let change = pending.takeOrEndDrain() { handler(change) } }
    }

    private static func schedule(_ work: @escaping @Sendable () -> Void, on queue: DeliveryQueue, in shared: inout Shared) {
        switch queue.kind {
        case .monitorThread:
            shared.inline.append(work)
            if shared.inline.count == 1 && shared.wakeFD >= 0 { _ = creach_wakeup_signal(shared.wakeFD) }
        case let .enqueue(enqueue):
            enqueue(work)
        }
    }

    /// Runs `body` on the event thread at its next turn (between two rounds),
    /// waking it; false when no thread runs. A liveness check: `body` runs
    /// only when the thread is making progress.
    func ping(_ body: @escaping @Sendable () -> Void) -> Bool {
        shared.withLock { shared in
            guard case .running = shared.phase, shared.wakeFD >= 0 else { return false }
            shared.inline.append(body)
            _ = creach_wakeup_signal(shared.wakeFD)
            return true
        }
    }

    /// Runs the callbacks queued for the monitor thread, outside the lock.
    func runInlineCallbacks() {
        while true {
            let work = shared.withLock { shared -> [@Sendable () -> Void] in
                // Empty: nothing to hand out. Returning the (empty) array would
                // share its buffer, and `removeAll(keepingCapacity:)` would then
                // allocate a new one on every pass of the loop.
                guard !shared.inline.isEmpty else { return [] }
                defer { shared.inline.removeAll(keepingCapacity: true) }
                return shared.inline
            }
            if work.isEmpty { return }
            for item in work { item() }
        }
    }

    // MARK: Resolver threads

    func post(_ resolution: Resolution) {
        deliver(generation: resolution.generation) { $0.resolutions.append(resolution) }
    }

    func takeResolutions() -> [Resolution] { shared.withLock { Self.take(&$0.resolutions) } }

    // MARK: Validation threads

    func post(_ answer: ValidationAnswer) {
        deliver(generation: answer.generation) { $0.validations.append(answer) }
    }

    func takeValidations() -> [ValidationAnswer] { shared.withLock { Self.take(&$0.validations) } }

    /// Hands a helper thread's answer to the event thread (`enqueue` puts it
    /// in its queue; dropped when it belongs to an earlier run, or the monitor
    /// stopped) and wakes it. A closure here and `inout` in `take`, not key
    /// paths: the runtime builds and walks a key path, and the event thread
    /// takes both queues every round.
    private func deliver(generation: UInt64, _ enqueue: (inout Shared) -> Void) {
        shared.withLock { shared in
            guard shared.generation == generation, shared.wakeFD >= 0 else { return }
            enqueue(&shared)
            _ = creach_wakeup_signal(shared.wakeFD)
        }
    }

    /// What `queue` holds, leaving it empty with its storage kept.
    private static func take<Answer>(_ queue: inout [Answer]) -> [Answer] {
        defer { queue.removeAll(keepingCapacity: true) }
        return queue
    }

    /// The signal a validation probe of this run waits on besides its socket.
    var probeCancelSignal: WakeSignal? { shared.withLock { $0.cancelProbes } }

    // MARK: Policy and radio

    /// Asks the event thread to evaluate every target again (the policy or the
    /// radio source changed); harmless when the monitor is not running.
    func requestReevaluation() {
        shared.withLock { shared in
            guard shared.wakeFD >= 0 else { return }
            shared.reevaluationRequested = true
            _ = creach_wakeup_signal(shared.wakeFD)
        }
    }

    func takeReevaluationRequest() -> Bool {
        shared.withLock { shared in
            defer { shared.reevaluationRequested = false }
            return shared.reevaluationRequested
        }
    }

    // MARK: Reading

    var currentEvaluations: [TargetEvaluation] {
        shared.withLock { shared in
            shared.latest.indices.map { shared.latest[$0]?.evaluation ?? .unknown(targets[$0]) }
        }
    }

    var counters: MonitorCounters {
        var counters = shared.withLock { $0.counters }
        counters.droppedForeign += evaluator.droppedMessages.foreignSender
        return counters
    }

    func updateCounters(_ update: (inout MonitorCounters) -> Void) {
        shared.withLock { update(&$0.counters) }
    }
}

/// An eventfd that a waiting probe watches besides its socket, owned by
/// whoever holds it: the fd is closed only when the last holder (the monitor
/// run, or a probe thread still waiting) lets go, so a signal never reaches a
/// recycled fd number.
final class WakeSignal: Sendable {
    let fd: Int32

    init() throws(ReachabilityError) {
        fd = creach_wakeup_open()
        guard fd >= 0 else { throw .system(operation: "eventfd", errno: .current) }
    }

    func signal() { _ = creach_wakeup_signal(fd) }

    deinit { close(fd) }
}
