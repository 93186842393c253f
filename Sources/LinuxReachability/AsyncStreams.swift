import ReachabilityCore

extension ReachabilityMonitor {
    /// Every change of every target, after each target's initial state. Each
    /// call is a new observer; the stream ends when the monitor stops, and
    /// keeps the monitor alive while it is iterated.
    ///
    /// A consumer that falls behind misses no current state and costs bounded
    /// memory: at most one change per target waits, the latest, with
    /// `ReachabilityChange.previous` being what the consumer saw last
    /// (`MonitorCounters.coalesced` counts the replaced ones).
    ///
    /// - Returns: A new stream of the monitor's changes.
    public func changes() -> AsyncStream<ReachabilityChange> {
        stream({ addObserver(changes: $0, doorbell: $1) }, merge: { ReachabilityChange.coalesced($0, $1) })
    }

    /// Status changes only (and each target's initial status), coalesced as
    /// ``changes()``.
    ///
    /// - Returns: A new stream of the monitor's status changes.
    public func statusChanges() -> AsyncStream<StatusChange> {
        stream({ addObserver(statusChanges: $0, doorbell: $1) }, merge: { StatusChange.coalesced($0, $1) })
    }

    /// A stream over an observer's pending changes: a doorbell (buffer of one)
    /// says that some wait, and the stream takes them oldest first. Dropping
    /// or cancelling the stream ends the doorbell, which removes the observer.
    private func stream<Change: Sendable>(_ add: (PendingChanges<Change>, Doorbell) -> UInt64,
                                          merge: @escaping @Sendable (Change, Change) -> Change?) -> AsyncStream<Change> {
        let pending = PendingChanges<Change>(targets: targets.count, merge: merge)
        let (doorbell, ring) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = add(pending, Doorbell(ring: { ring.yield() }, finish: { ring.finish() }))
        ring.onTermination = { _ in self.removeObserver(id) }
        let listener = DoorbellListener(doorbell.makeAsyncIterator())
        return AsyncStream {
            while true {
                if let change = pending.take() { return change }
                guard await listener.next() else { return pending.take() }
            }
        }
    }
}

/// The iterator of a stream's doorbell, used by one consumer at a time (an
/// `AsyncStream` is iterated by one task), hence `@unchecked Sendable`.
private final class DoorbellListener: @unchecked Sendable {
    private var iterator: AsyncStream<Void>.Iterator
    init(_ iterator: AsyncStream<Void>.Iterator) { self.iterator = iterator }

    /// Waits for a ring; false when the doorbell ended (the monitor stopped,
    /// or the consuming task was cancelled).
    func next() async -> Bool { await iterator.next() != nil }
}

extension UplinkTracker {
    /// The initial state, then every state change, as an async sequence.
    ///
    /// - Returns: A new stream of the tracker's events.
    public func events() -> AsyncStream<TrackerEvent> {
        AsyncStream { continuation in
            let observation = onEvent { continuation.yield($0) }
            continuation.onTermination = { _ in observation.cancel() }
        }
    }
}
