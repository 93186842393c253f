/// The event thread's timers, at most one of each kind per target (the
/// path facts' retry is one for all, at index 0): one place to ask what
/// comes next, and what is due. A linear scan, as a monitor watches a few
/// targets; no allocation after `init`.
struct Deadlines {
    enum Kind: Int {
        /// A host-name lookup is overdue: the target is reported unresolved.
        case resolveTimeout
        /// A lookup put off by `minimumResolveInterval` may start.
        case resolveStart
        /// Asking the kernel failed: evaluate the target again.
        case retry
        /// An answer held while a down link's routes are flushed: look again.
        case recheck
        /// Validate the target again.
        case validate
        /// Reading the path facts failed: read them again.
        case pathFacts
    }

    /// How many kinds there are.
    private static let kinds = Kind.pathFacts.rawValue + 1
    /// Monotonic ns, 0 for none; `target * kinds + kind`.
    private var times: [UInt64]

    init(targets: Int) {
        times = Array(repeating: 0, count: max(targets, 1) * Self.kinds)
    }

    subscript(kind: Kind, target: Int) -> UInt64? {
        get {
            let time = times[target * Self.kinds + kind.rawValue]
            return time == 0 ? nil : time
        }
        set { times[target * Self.kinds + kind.rawValue] = newValue.map { max($0, 1) } ?? 0 }
    }

    mutating func clear(_ kind: Kind, _ target: Int) { self[kind, target] = nil }

    /// The earliest deadline.
    var next: UInt64? {
        var next: UInt64?
        for time in times where time != 0 && next.map({ time < $0 }) ?? true { next = time }
        return next
    }

    /// One deadline that has come by `now`, cleared; nil when none has.
    mutating func takeDue(now: UInt64) -> (kind: Kind, target: Int)? {
        for slot in times.indices where times[slot] != 0 && times[slot] <= now {
            times[slot] = 0
            return (Kind(rawValue: slot % Self.kinds)!, slot / Self.kinds)
        }
        return nil
    }
}
