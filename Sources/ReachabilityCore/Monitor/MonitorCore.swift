#if canImport(Glibc)
internal import Glibc
#endif

/// The state a monitor shares between its event thread, the threads that
/// call it, and its resolver threads: observers, the latest state of each
/// target, counters. Everything is behind one lock; the
/// event thread's own state (socket, buffers, per-target bookkeeping) lives
/// in `MonitorLoop` and is touched by that thread alone. The thread's
/// lifecycle (start, stop from anywhere or from a callback, callbacks queued
/// for it) is a `WorkerThread`'s, whose lock is taken inside this one.
///
/// No user value (an observer's handler, which may hold the last reference
/// to the monitor) is released while the lock is held: its release can run
/// the handle's `deinit`, which takes the lock again.
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
        /// Bumped by every start: answers of an earlier run are ignored.
        var generation: UInt64 = 0
        var eventPortID: UInt32?
        var observers = Observers<Sink>()
        /// Latest emitted state per target index; nil until its initial state is known.
        var latest: [ReachabilityChange?]
        var resolutions: [Resolution] = []
        var validations: [ValidationAnswer] = []
        /// The policy or the radio source changed: every target is evaluated
        /// again. Requests counted, taken by the event thread, and applied
        /// (in `latest`): a request not yet applied makes `latest` stale.
        var reevaluationRequests: UInt64 = 0
        var reevaluationsTaken: UInt64 = 0
        var reevaluationsApplied: UInt64 = 0
        /// The radio source's change count `latest` is of (its answers are
        /// stale from the moment it moves, before this monitor is told).
        var radioChangesApplied: UInt64 = 0
        var radioChangesTaken: UInt64 = 0
        /// This run's registration with the radio source.
        var radioObserver: UInt64?
        /// This run's registration with the process's default policy (when the evaluator follows it).
        var policyObserver: UInt64?
        /// Told after each burst of kernel notifications that was evaluated
        /// (`ReachabilityMonitor.observeKernelChanges`), on the event thread.
        var kernelChangeObserver: (@Sendable () -> Void)?
        /// Signalled at stop: validation probes still waiting give up.
        var cancelProbes: WakeSignal?
        var counters = MonitorCounters()
        /// The public handle is gone: stop once nothing observes.
        var handleReleased = false
    }

    let targets: [Target]
    let options: LookupOptions
    let evaluator: ReachabilityEvaluator
    /// Sends validation probes in the monitor's namespace; nil without validation.
    let probe: ValidationProbe.Send?
    let configuration: ReachabilityMonitor.Configuration
    let shared: Locked<Shared>
    /// The event thread.
    let worker = WorkerThread(owner: "monitor", runsQueuedWorkAtEnd: false)
    /// A simulated namespace's engine half (delivery counting), chosen once here; nil for a real one.
    let simulation: (any EngineSimulation)?

    init(targets: [Target], options: LookupOptions, evaluator: ReachabilityEvaluator, probe: ValidationProbe.Send?,
         configuration: ReachabilityMonitor.Configuration) {
        self.targets = targets
        self.options = options
        self.evaluator = evaluator
        self.probe = probe
        self.configuration = configuration
        simulation = evaluator.namespace.engineSimulation
        shared = Locked(Shared(latest: Array(repeating: nil, count: targets.count)))
    }

    // MARK: Start and stop

    var isRunning: Bool { worker.isRunning }

    var eventPortID: UInt32? { shared.withLock { $0.eventPortID } }

    func start() throws(ReachabilityError) {
        try shared.withLock { (shared) throws(ReachabilityError) in
            // Starts are serialised by this lock, and only a start makes the worker run.
            guard !worker.isRunning else { return }
            // Subscribe before the first evaluation, so that nothing that
            // happens in between is missed.
            let source = try MonitorLoop.openEvents(for: self)
            let cancelProbes: WakeSignal?
            do throws(ReachabilityError) {
                cancelProbes = configuration.validation == nil ? nil : try WakeSignal()
            } catch {
                MonitorLoop.closeEvents(source, of: evaluator)
                throw error
            }
            let subscriber = MonitorLoop.subscriber(of: source)
            subscriber?.undelivered.withLock { $0 = { [weak self] in self?.undeliveredChanges() ?? [] } }
            let generation = shared.generation &+ 1
            let loop = MonitorLoop(core: self, source: source, generation: generation)
            do throws(ReachabilityError) {
                // The thread takes this lock before it publishes: it sees everything set below.
                // The subscriber is the worker's only once its thread starts: a
                // start refused while a stop finishes must not take the wake-ups
                // of the thread still finishing (`settled()` would return early).
                guard try worker.start(.monitor, subscriber: subscriber, { wakeFD in loop.run(wakeFD: wakeFD) }) else {
                    loop.release()
                    return
                }
            } catch {
                loop.release()
                throw error
            }
            shared.counters.receiveBufferSize = source.receiveBufferSize
            shared.generation = generation
            shared.reevaluationsTaken = shared.reevaluationRequests
            shared.reevaluationsApplied = shared.reevaluationRequests
            shared.radioChangesTaken = evaluator.radio.changeCount
            shared.radioChangesApplied = shared.radioChangesTaken
            shared.cancelProbes = cancelProbes
            shared.radioObserver = evaluator.radio.addObserver { [weak self] in self?.requestReevaluation() }
            if evaluator.followsProcessDefaultPolicy {
                shared.policyObserver = ProcessDefaultPolicy.shared.addObserver { [weak self] in
                    guard let self, self.evaluator.followsProcessDefaultPolicy else { return }
                    // Declared modems decide PPP links' kinds.
                    self.evaluator.invalidateInterfaceCache()
                    self.requestReevaluation()
                }
            }
            shared.eventPortID = source.portID
            shared.latest = Array(repeating: nil, count: targets.count)
        }
    }

    /// Stops the event thread (see `WorkerThread.stop`): validation probes
    /// still waiting give up, and once the thread is gone streams end and
    /// callbacks are dropped. On a monitor that never ran (or has stopped
    /// already) it does the same at once (`WorkerThread.stop` runs `stopped`
    /// when idle too): `stop()` promises it, and a facade that stops before
    /// it started would otherwise keep its callback.
    func stop() {
        worker.stop(requested: { shared.withLock { $0.cancelProbes?.signal() } },
                    stopped: { finishObservers() })
    }

    /// Called by the event thread as it leaves.
    func eventThreadFinished() {
        shared.withLock { shared in
            shared.eventPortID = nil
            shared.resolutions.removeAll()
            shared.validations.removeAll()
            shared.cancelProbes = nil
            if let id = shared.radioObserver { evaluator.radio.removeObserver(id) }
            shared.radioObserver = nil
            if let id = shared.policyObserver { ProcessDefaultPolicy.shared.removeObserver(id) }
            shared.policyObserver = nil
        }
    }

    /// Ends streams and drops callbacks once the thread is gone. Not inlined:
    /// `WorkerThread.stop` calls its `stopped` from two places (the firmware budget).
    @inline(never)
    private func finishObservers() {
        let sinks = shared.withLock { shared -> [Sink] in
            shared.observers.removeAll()
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
    var stopRequested: Bool { worker.stopRequested }

    // MARK: Observers

    /// Changes a stream observer has not taken yet, as text (a simulation's `finish()`).
    private func undeliveredChanges() -> [String] {
        let sinks = shared.withLock { $0.observers.entries.map { $0.entry } }
        var lines: [String] = []
        for sink in sinks {
            switch sink {
            case let .changes(pending, _) where pending.count > 0:
                lines.append("\(pending.count) change(s) waiting in a changes() stream")
            case let .statusChanges(pending, _) where pending.count > 0:
                lines.append("\(pending.count) change(s) waiting in a statusChanges() stream")
            default: break
            }
        }
        return lines
    }

    func addObserver(_ sink: Sink) -> UInt64 {
        shared.withLock { shared in
            let id = shared.observers.add(sink)
            // The states known so far, as this observer's initial ones.
            for (index, latest) in shared.latest.enumerated() {
                guard let change = latest else { continue }
                deliver(change.asInitial(), status: MonitorCore.initialStatus(change), target: index, to: sink,
                                    in: &shared)
            }
            return id
        }
    }

    func removeObserver(_ id: UInt64) {
        let (removed, stopNow) = shared.withLock { shared -> (Sink?, Bool) in
            (shared.observers.remove(id), shared.handleReleased && shared.observers.isEmpty)
        }
        // Released here, outside the lock: the handler may hold the last
        // reference to the monitor, whose deinit takes the lock.
        if let removed { MonitorCore.discardCallbacks(of: removed) }
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
            guard shared.generation == generation, !worker.stopRequested else { return }
            for (index, change) in changes {
                let previousStatus = shared.latest[index]?.status
                shared.latest[index] = change
                if !change.isInitial { shared.counters.changes += 1 }
                let status: StatusChange?
                if change.isInitial {
                    status = MonitorCore.initialStatus(change)
                } else if previousStatus != change.status {
                    status = StatusChange(target: change.target, status: change.status, previousStatus: previousStatus,
                                          isInitial: false, time: change.time)
                } else {
                    status = nil
                }
                for (_, sink) in shared.observers.entries {
                    deliver(change, status: status, target: index, to: sink, in: &shared)
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
                                                      isInitial: latest.isInitial, time: latest.time)
        }
    }

    private static func initialStatus(_ change: ReachabilityChange) -> StatusChange {
        StatusChange(target: change.target, status: change.status, previousStatus: nil, isInitial: true,
                     time: change.time)
    }

    /// Called with the lock held: streams and enqueue functions do not block.
    /// The change waits in the observer's pending slot of its target (replacing
    /// one not taken yet); the observer is told once, not once per change.
    private func deliver(_ change: ReachabilityChange, status: StatusChange?, target index: Int, to sink: Sink,
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
            if pending.claimDrain() { schedule(MonitorCore.drain(pending, into: handler), on: queue) }
        case let .statusCallback(queue, reachable, pending, handler):
            guard let status, status.isReachable == reachable else { return }
            if pending.put(status, target: index) { shared.counters.coalesced += 1 }
            if pending.claimDrain() { schedule(MonitorCore.drain(pending, into: handler), on: queue) }
        }
    }

    /// The work queued for a callback observer: hand it everything pending, in order.
    private static func drain<Change: Sendable>(_ pending: PendingChanges<Change>,
                                                into handler: @escaping @Sendable (Change) -> Void) -> @Sendable () -> Void {
        { while let change = pending.takeOrEndDrain() { handler(change) } }
    }

    private func schedule(_ work: @escaping @Sendable () -> Void, on queue: DeliveryQueue) {
        queue.schedule(work, simulation: simulation) { worker.enqueue($0) }
    }

    /// Runs `body` on the event thread at its next turn (between two rounds),
    /// waking it; false when no thread runs. A liveness check: `body` runs
    /// only when the thread is making progress.
    func ping(_ body: @escaping @Sendable () -> Void) -> Bool { worker.enqueue(onlyWhileRunning: true, body) }

    /// Runs the callbacks queued for the monitor thread, outside the lock.
    func runInlineCallbacks() { worker.runQueued() }

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
        let queued = shared.withLock { shared -> Bool in
            guard shared.generation == generation, worker.threadExists else { return false }
            enqueue(&shared)
            return true
        }
        if queued { worker.wake() }
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
        shared.withLock { $0.reevaluationRequests &+= 1 }
        worker.wake()
    }

    /// After a burst of kernel notifications was evaluated: the compat
    /// modules' facts beyond the targets' answers (a WWAN link created down).
    func kernelChanged() {
        if let observer = shared.withLock({ $0.kernelChangeObserver }) { observer() }
    }

    /// The requests not yet taken (nil: none); give the result to
    /// `reevaluationApplied(_:)` once `latest` holds their answers.
    func takeReevaluationRequest() -> UInt64? {
        shared.withLock { shared in
            guard shared.reevaluationRequests != shared.reevaluationsTaken else { return nil }
            shared.reevaluationsTaken = shared.reevaluationRequests
            shared.radioChangesTaken = evaluator.radio.changeCount
            return shared.reevaluationsTaken
        }
    }

    func reevaluationApplied(_ requests: UInt64) {
        shared.withLock { shared in
            shared.reevaluationsApplied = requests
            shared.radioChangesApplied = shared.radioChangesTaken
        }
    }

    /// Whether a policy or radio change was asked for and its answers are not
    /// in `currentEvaluations` yet (the event thread has them to do).
    var reevaluationPending: Bool {
        let radioChanges = evaluator.radio.changeCount
        return shared.withLock { $0.reevaluationRequests != $0.reevaluationsApplied || $0.radioChangesApplied != radioChanges }
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
