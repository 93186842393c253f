import ReachabilityModel
#if canImport(Glibc)
internal import Glibc
#endif

/// One listener of a simulation: a monitor's event thread or a tracker's
/// round thread. The simulation rings it (an eventfd the thread polls, as it
/// polls a netlink socket) when facts changed or its clock moved; the thread
/// says when it has done everything that caused, so `settled()` can return.
package final class SimulationSubscriber: Sendable {
    package struct State: Sendable {
        /// Facts changed since the thread last took them.
        package var factsChanged = false
        /// Rung (facts, the clock, work queued for the thread) since its turn began.
        package var rung = false
        /// The thread has nothing left to do: no notification, no helper
        /// thread working for it, no timer due.
        package var idle = false
        /// One-shot timers it holds (for `finish()`), as text.
        package var timers: [String] = []
        /// Its earliest timer on the test clock, nil for none (`advance(by:)` stops there).
        package var nextDeadline: UInt64?
    }

    /// What it is, for `finish()`'s report: "monitor of internet", "tracker of wan0".
    package let owner: String
    /// The eventfd the thread polls.
    package let fd: Int32
    private let state: Locked<State>
    private let simulation: any EngineSimulation
    /// What its observers have not taken yet, as text (for `finish()`); set by its monitor.
    package let undelivered = Locked<(@Sendable () -> [String])?>(nil)

    package init(owner: String, simulation: any EngineSimulation) throws(ReachabilityError) {
        self.owner = owner
        self.simulation = simulation
        let fd = Wakeup.open()
        guard fd >= 0 else { throw .system(operation: "eventfd", errno: .current) }
        self.fd = fd
        state = Locked(State())
        simulation.attach(self)
    }

    /// Stops listening (the thread's end).
    package func close() {
        simulation.detach(self)
        _ = Glibc.close(fd)
    }

    /// Facts changed: the thread takes them at its next turn.
    package func factsChanged() {
        state.withLock { $0.factsChanged = true; $0.rung = true; $0.idle = false }
        Wakeup.signal(fd)
    }

    /// The clock moved: the thread looks at its timers.
    package func clockMoved() {
        markBusy()
        Wakeup.signal(fd)
    }

    /// Work was queued for the thread, or it was asked to evaluate again (its
    /// own wake-up fd rings it): not idle until it has had its turn.
    package func markBusy() {
        state.withLock { $0.rung = true; $0.idle = false }
    }

    /// The thread's wait ended: what rang it before now is handled in this turn.
    package func beginTurn() {
        state.withLock { $0.rung = false }
    }

    /// Whether it is idle, and the timers it holds.
    package var snapshot: State { state.withLock { $0 } }

    /// Changes its observers have not taken, as text.
    package func undeliveredChanges() -> [String] { undelivered.withLock { $0 }?() ?? [] }

    /// The thread's turn begins: whether facts changed since the last one.
    package func takeFactsChanged() -> Bool {
        Wakeup.clear(fd)
        return state.withLock { state in
            defer { state.factsChanged = false }
            return state.factsChanged
        }
    }

    /// The thread is about to wait: idle unless `busy` or something rang
    /// meanwhile; `next` is its earliest timer.
    package func aboutToWait(busy: Bool, next: UInt64?, timers: @autoclosure () -> [String]) {
        // A timer already due is work this turn has not done yet.
        let busy = busy || next.map { $0 <= simulation.nanoseconds } ?? false
        let timers = busy ? [] : timers()
        let wentIdle = state.withLock { state -> Bool in
            state.nextDeadline = next
            guard !busy, !state.factsChanged, !state.rung else { state.idle = false; return false }
            state.idle = true
            state.timers = timers
            return true
        }
        if wentIdle { simulation.subscriberWentIdle() }
    }

    /// The timeout of a wait for `deadline` on the test clock: none left,
    /// or until the clock moves (nil deadline, or one still ahead).
    package func timeout(until deadline: UInt64?) -> Int64 {
        guard let deadline else { return -1 }
        return deadline <= simulation.nanoseconds ? 0 : -1
    }
}
