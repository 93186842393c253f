/// The observers of a monitor or a tracker, kept in its locked state: each
/// with the id its `MonitorObservation` cancels, in the order they came.
///
/// Removing one hands it back instead of dropping it: its handler may hold
/// the last reference to the monitor or tracker, whose deinit takes the
/// same lock, so the caller releases it once the lock is no longer held.
struct Observers<Entry> {
    private(set) var entries: [(id: UInt64, entry: Entry)] = []
    private var nextID: UInt64 = 0

    var isEmpty: Bool { entries.isEmpty }

    /// Adds `entry`; returns its id.
    mutating func add(_ entry: Entry) -> UInt64 {
        let id = nextID
        nextID += 1
        entries.append((id, entry))
        return id
    }

    /// The entry of `id`, removed (to be released outside the lock); nil when gone already.
    mutating func remove(_ id: UInt64) -> Entry? {
        guard let at = entries.firstIndex(where: { $0.id == id }) else { return nil }
        return entries.remove(at: at).entry
    }

    /// Every entry, removed (to be released outside the lock).
    mutating func removeAll() -> [Entry] {
        defer { entries.removeAll() }
        return entries.map(\.entry)
    }
}
