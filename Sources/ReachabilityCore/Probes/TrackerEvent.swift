#if canImport(Glibc)
internal import Glibc
#endif

/// A state of a tracked uplink: the initial one, or a change.
public struct TrackerEvent: Hashable, Sendable {
    /// The tracked interface (``UplinkTracker/Configuration/interface``).
    public let interface: String
    /// The uplink's state after the round; for an initial event, the state when the observer was added.
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
    public let time: MonotonicInstant
    /// What the uplink is good for ("Uplinks that fail dirty" (LinuxReachability's documentation)).
    public let verdict: UplinkVerdict
    /// The verdict before; nil for the initial event.
    public let previousVerdict: UplinkVerdict?
    /// Loss and latency over the quality window; nil without quality thresholds.
    public let quality: QualitySummary?
    /// Why the verdict is what it is, for people: "carrier lost", "port 443 refused" ...; nil when healthy.
    public let detail: String?
    /// Failovers so far (the verdict went from usable to not usable).
    public let failovers: Int

    /// Whether this is the state an observer is handed first (``previous`` is nil), not a change.
    public var isInitial: Bool { previous == nil }

    func asInitial() -> TrackerEvent {
        TrackerEvent(interface: interface, state: state, previous: nil, score: score, round: round, results: results,
                     error: error, time: time, verdict: verdict, previousVerdict: nil, quality: quality, detail: detail,
                     failovers: failovers)
    }
}
