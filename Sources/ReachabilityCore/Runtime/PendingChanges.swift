/// One observer's changes that it has not taken yet: at most one per target,
/// the latest, in the order they became pending. A consumer that stops
/// reading (a stream not iterated, a blocked callback queue) costs one slot
/// per target, never the whole history: a newer change of the same target
/// replaces the pending one (`coalesced`), keeping what the consumer last
/// saw as its `previous`, so once it reads it sees the current state.
package final class PendingChanges<Change: Sendable>: Sendable {
    private struct State {
        var slots: [Change?]
        /// Target indexes with a pending change, oldest first (at most one each).
        var order: [Int] = []
        /// A drain is queued for a callback observer (see `claimDrain`).
        var drainQueued = false
        var discarded = false

        mutating func takeOldest() -> Change? {
            guard !order.isEmpty else { return nil }
            let index = order.removeFirst()
            defer { slots[index] = nil }
            return slots[index]
        }
    }

    private let state: Locked<State>
    /// The pending change and a newer one of the same target as one change;
    /// nil when together they change nothing (the target went back to what
    /// the consumer last saw).
    private let merge: @Sendable (_ pending: Change, _ newer: Change) -> Change?

    package init(targets: Int, merge: @escaping @Sendable (_ pending: Change, _ newer: Change) -> Change?) {
        state = Locked(State(slots: Array(repeating: nil, count: targets)))
        self.merge = merge
    }

    /// Adds `change` of target `index`; returns whether it replaced a pending one.
    func put(_ change: Change, target index: Int) -> Bool {
        state.withLock { state in
            guard !state.discarded else { return false }
            guard let pending = state.slots[index] else {
                state.slots[index] = change
                state.order.append(index)
                return false
            }
            if let merged = merge(pending, change) {
                state.slots[index] = merged
            } else {
                state.slots[index] = nil
                state.order.removeAll { $0 == index }
            }
            return true
        }
    }

    /// How many changes wait (one per target at most).
    package var count: Int { state.withLock { $0.order.count } }

    /// The oldest pending change, or nil.
    package func take() -> Change? {
        state.withLock { $0.takeOldest() }
    }

    /// For a callback observer: true when no drain is queued yet, and marks
    /// one as queued (the caller then queues it).
    func claimDrain() -> Bool {
        state.withLock { state in
            defer { state.drainQueued = true }
            return !state.drainQueued && !state.discarded
        }
    }

    /// The drain's step: the oldest pending change, or nil, which also ends
    /// the queued drain (the next change queues a new one).
    func takeOrEndDrain() -> Change? {
        state.withLock { state in
            let next = state.takeOldest()
            if next == nil { state.drainQueued = false }
            return next
        }
    }

    /// The observer is gone: drop what is pending and accept nothing more.
    func discard() {
        state.withLock { state in
            state.discarded = true
            state.slots = state.slots.map { _ in nil }
            state.order.removeAll()
        }
    }
}

extension ReachabilityChange {
    /// `self` pending, `newer` after it: one change from what the consumer last saw to now.
    package static func coalesced(_ pending: ReachabilityChange, _ newer: ReachabilityChange) -> ReachabilityChange? {
        if !pending.isInitial, let previous = pending.previous, ResultKey(previous) == ResultKey(newer.evaluation),
           previous.availableInterfaces == newer.evaluation.availableInterfaces,
           previous.supportsDNS == newer.evaluation.supportsDNS {
            return nil
        }
        return ReachabilityChange(target: newer.target, evaluation: newer.evaluation, previous: pending.previous,
                                  isInitial: pending.isInitial, time: newer.time)
    }
}

extension StatusChange {
    package static func coalesced(_ pending: StatusChange, _ newer: StatusChange) -> StatusChange? {
        if !pending.isInitial, pending.previousStatus == newer.status { return nil }
        return StatusChange(target: newer.target, status: newer.status, previousStatus: pending.previousStatus,
                            isInitial: pending.isInitial, time: newer.time)
    }
}
