#if canImport(Glibc)
internal import Glibc
#endif

/// A long-lived library thread — a monitor's event thread, an uplink
/// tracker's round thread — and the one implementation of its lifecycle:
///
/// - `start`: the thread runs its body with an eventfd that wakes it;
/// - `stop` from any thread: the stop is requested, the thread woken and
///   joined, and the owner's clean-up runs before the worker is idle again;
/// - `stop` from a callback running on the thread itself: it cannot join
///   itself, so it detaches and returns at once; the thread ends once the
///   callback returns, and marks the worker idle as it leaves;
/// - `stop` while another stop is under way: waits for it (on a condition
///   variable), except on the thread itself;
/// - work other threads queue for it (`enqueue`: callbacks delivered on
///   `.monitorThread`, liveness pings), run between its turns (`runQueued`).
///
/// Its lock is a leaf: nothing here calls out while holding it, so an owner
/// may call in with its own lock held (the monitor queues callbacks while
/// publishing). No queued closure, which may hold the last reference to a
/// user's object, is released while the lock is held.
package final class WorkerThread: Sendable {
    private enum Phase {
        case idle
        case running(pthread_t)
        /// A stop has begun; the thread is finishing.
        case stopping
    }

    private struct State {
        var phase: Phase = .idle
        var stopRequested = false
        /// Wakes the thread; -1 when no thread exists. Only the thread closes
        /// it, as it leaves, under the lock: no signal reaches a recycled fd number.
        var wakeFD: Int32 = -1
        /// `stop()` ran on the thread itself, which marks the worker idle as it leaves.
        var selfDetached = false
        /// Work for the thread, in the order it was queued.
        var queued: [@Sendable () -> Void] = []
        /// While above zero, queued work waits (an owner is delivering
        /// something on its caller's thread that must come first).
        var holds = 0
        /// The thread is in work that a wake-up would cancel (a tracker's
        /// probes watch the wake-up fd): queued work does not wake it, it runs
        /// when that work ends.
        var busy = false
        /// Under a simulated namespace: told of every wake-up, so that the
        /// simulation's `settled()` waits for the turn it causes.
        var subscriber: SimulationSubscriber?

        var threadExists: Bool { wakeFD >= 0 }

        /// Wakes the thread for queued work, unless it must not be disturbed now.
        func wakeForWork() {
            if !busy, holds == 0, wakeFD >= 0 { Wakeup.signal(wakeFD) }
        }
    }

    /// What `stop()` did.
    package enum StopOutcome: Equatable {
        /// Nothing ran.
        case wasIdle
        /// The thread was woken and joined: it is gone.
        case joined
        /// Called on the thread itself: it ends once the current callback returns.
        case stoppingItself
        /// Another thread was stopping it; that stop is complete (or, on the
        /// thread itself, will be once the callback returns).
        case stoppedByOther
    }

    private let state = Locked(State(), waitable: true)
    /// What `start` throws about while a stop is finishing ("monitor", "tracker").
    private let owner: String
    /// Whether work still queued when the thread ends runs (a tracker's
    /// initial event handed over just before a stop) or is dropped (a
    /// stopped monitor delivers nothing more).
    private let runsQueuedWorkAtEnd: Bool

    package init(owner: String, runsQueuedWorkAtEnd: Bool) {
        self.owner = owner
        self.runsQueuedWorkAtEnd = runsQueuedWorkAtEnd
    }

    // MARK: Start and stop

    /// Starts the thread, which runs `body` with its wake-up fd; returns false
    /// (starting nothing) when it runs already. The thread is created under
    /// the lock, so a concurrent `stop()` joins it or runs before it exists.
    /// `subscriber` (a simulated namespace's listener of this run) is told of
    /// the thread's wake-ups from then on; a start that starts nothing leaves
    /// the running or finishing thread's own in place.
    /// - Throws: `.system(EBUSY)` while a stop is still finishing (one called
    ///   from a callback on the thread, until that callback returns), or when
    ///   no eventfd or thread can be had.
    package func start(_ role: ThreadRole, subscriber: SimulationSubscriber? = nil,
               _ body: @escaping @Sendable (_ wakeFD: Int32) -> Void) throws(ReachabilityError) -> Bool {
        try state.withLock { (state) throws(ReachabilityError) -> Bool in
            switch state.phase {
            case .running: return false
            case .stopping: throw .system(operation: "start a \(owner) that is stopping", errno: SystemErrno(rawValue: EBUSY))
            case .idle: break
            }
            let wakeFD = Wakeup.open()
            guard wakeFD >= 0 else { throw .system(operation: "eventfd", errno: .current) }
            do throws(ReachabilityError) {
                let thread = try startJoinableThread(role) { [self] in
                    pthread_setspecific(WorkerThread.currentKey, Unmanaged.passUnretained(self).toOpaque())
                    body(wakeFD)
                    threadEnds()
                }
                state.phase = .running(thread)
                state.subscriber = subscriber
                state.wakeFD = wakeFD
                state.stopRequested = false
                state.busy = false
                return true
            } catch {
                close(wakeFD)
                throw error
            }
        }
    }

    /// Stops the thread; idempotent, from any thread. `requested` runs once
    /// the stop is requested (to cancel what the thread may block on besides
    /// its wake-up fd); `stopped` runs once the thread is gone (or, stopping
    /// itself, at once) and before the worker is idle, so a concurrent
    /// `start()` cannot begin a run that `stopped` would clean up. On an idle
    /// worker only `stopped` runs (an owner's clean-up of what it holds
    /// between runs, such as observers that a stop drops).
    @discardableResult
    package func stop(requested: () -> Void = {}, stopped: () -> Void = {}) -> StopOutcome {
        enum Action { case none, join(pthread_t), detachSelf, waitForOther }
        let action = state.withLock { state -> Action in
            switch state.phase {
            case .idle: return .none
            case .stopping: return .waitForOther
            case let .running(thread):
                state.phase = .stopping
                state.stopRequested = true
                if state.wakeFD >= 0 { Wakeup.signal(state.wakeFD) }
                guard pthread_equal(thread, pthread_self()) == 0 else {
                    state.selfDetached = true
                    return .detachSelf
                }
                return .join(thread)
            }
        }
        switch action {
        case .none:
            stopped()
            return .wasIdle
        case let .join(thread):
            requested()
            pthread_join(thread, nil)
            stopped()
            state.withLock { $0.phase = .idle }
            state.broadcast()
            return .joined
        case .detachSelf:
            // Nobody will join this thread: it ends once the callback that
            // called stop() returns, and marks the worker idle as it leaves.
            requested()
            pthread_detach(pthread_self())
            stopped()
            return .stoppingItself
        case .waitForOther:
            // The thread cannot wait for its own end.
            if !isCurrent {
                state.wait { state in if case .stopping = state.phase { false } else { true } }
            }
            return .stoppedByOther
        }
    }

    package var isRunning: Bool {
        state.withLock { if case .running = $0.phase { true } else { false } }
    }

    /// The thread's question, once per turn.
    package var stopRequested: Bool { state.withLock { $0.stopRequested } }

    /// The wake-up fd; -1 when no thread exists (for tests).
    var wakeFileDescriptor: Int32 { state.withLock { $0.wakeFD } }

    /// The simulation listener of the thread's run (given to `start`), nil for a kernel.
    var simulationSubscriber: SimulationSubscriber? { state.withLock { $0.subscriber } }

    /// Wakes the thread (an answer for it arrived); harmless when none runs.
    package func wake() {
        state.withLock { state in
            state.subscriber?.markBusy()
            if state.wakeFD >= 0 { Wakeup.signal(state.wakeFD) }
        }
    }

    // MARK: Queued work

    /// Queues `work` for the thread's next turn and wakes it. Work queued
    /// while no thread exists waits for the next start, unless
    /// `onlyWhileRunning`: then nothing is queued and false is returned.
    @discardableResult
    func enqueue(onlyWhileRunning: Bool = false, _ work: @escaping @Sendable () -> Void) -> Bool {
        state.withLock { state in
            if onlyWhileRunning {
                guard case .running = state.phase, state.threadExists else { return false }
            }
            state.queued.append(work)
            state.subscriber?.markBusy()
            if state.queued.count == 1 { state.wakeForWork() }
            return true
        }
    }

    /// On the thread: runs the queued work, in order and outside the lock,
    /// until none is left (or it is held, or a stop was requested and what
    /// is left is to be dropped).
    func runQueued() {
        while true {
            let work = state.withLock { state -> [@Sendable () -> Void] in
                // Empty: nothing to hand out. Returning the (empty) array would
                // share its buffer, and `removeAll(keepingCapacity:)` would then
                // allocate a new one on every turn.
                guard state.holds == 0, !state.queued.isEmpty, runsQueuedWorkAtEnd || !state.stopRequested else { return [] }
                defer { state.queued.removeAll(keepingCapacity: true) }
                return state.queued
            }
            if work.isEmpty { return }
            for item in work { item() }
        }
    }

    /// Queued work waits until the matching `release()`.
    func hold() { state.withLock { $0.holds += 1 } }

    func release() {
        state.withLock { state in
            state.holds -= 1
            if state.holds == 0 && !state.queued.isEmpty { state.wakeForWork() }
        }
    }

    /// Whether a `.monitorThread` delivery can be handed to the thread (one
    /// exists) rather than made on the caller's thread.
    var threadExists: Bool { state.withLock { $0.threadExists } }

    // MARK: Turns (a thread whose work can be cancelled by a wake-up)

    enum Turn: Equatable {
        case stop
        /// Queued work is waiting: run it first.
        case runQueued
        /// Wait on the wake-up fd this long (nanoseconds).
        case wait(Int64)
        /// The thread's own work may begin: the worker is busy (queued work
        /// does not wake it) and a stale wake-up was cleared.
        case begin
    }

    /// The thread's next step when its own work is due at `due` (monotonic
    /// ns, or a simulation's test clock: `now`).
    func nextTurn(due: UInt64, now: UInt64 = monotonicNanoseconds()) -> Turn {
        state.withLock { state in
            if state.stopRequested { return .stop }
            if !state.queued.isEmpty && state.holds == 0 { return .runQueued }
            let wait = Int64(clamping: due) - Int64(clamping: now)
            if wait > 0 { return .wait(wait) }
            // A stale wake-up (for queued work) must not cancel this work; a
            // stop was checked above, under this lock.
            Wakeup.clear(state.wakeFD)
            state.busy = true
            return .begin
        }
    }

    /// The thread's own work ended; returns false when a stop was requested
    /// meanwhile. Work queued while it was busy wakes the thread now (a
    /// simulation's subscriber was rung for it and waits for that turn).
    func end() -> Bool {
        state.withLock { state in
            state.busy = false
            if !state.queued.isEmpty { state.wakeForWork() }
            return !state.stopRequested
        }
    }

    // MARK: The thread

    /// Set on the worker's thread while it runs: tells `stop()` apart.
    private static let currentKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// Whether the caller runs on this worker's thread.
    package var isCurrent: Bool {
        pthread_getspecific(WorkerThread.currentKey) == Unmanaged.passUnretained(self).toOpaque()
    }

    /// The thread's last act: the queued work runs or is dropped, then the
    /// wake-up fd is closed under the lock, and a thread that stopped itself
    /// marks the worker idle.
    private func threadEnds() {
        while runsQueuedWorkAtEnd {
            runQueued()
            let done = state.withLock { $0.queued.isEmpty || $0.holds > 0 }
            if done { break }
        }
        let dropped = state.withLock { state -> [@Sendable () -> Void] in
            if state.wakeFD >= 0 { close(state.wakeFD) }
            state.wakeFD = -1
            state.busy = false
            if state.selfDetached {
                state.selfDetached = false
                state.phase = .idle
            }
            defer { state.queued = [] }
            return state.queued
        }
        state.broadcast()
        pthread_setspecific(WorkerThread.currentKey, nil)
        _ = dropped   // released here, outside the lock
    }
}
