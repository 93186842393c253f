/// The status-only view: emitted only when a target's ``status``
/// changes (Alamofire-style de-duplication), plus the initial status.
public struct StatusChange: Hashable, Sendable {
    /// The monitored target whose status this is.
    public let target: Target
    /// The target's new status.
    public let status: ReachabilityStatus
    /// nil for the initial status.
    public let previousStatus: ReachabilityStatus?
    /// The status the target had when observation began; never a change.
    public let isInitial: Bool
    /// When the monitor found this status (`CLOCK_MONOTONIC`): the time of the ``ReachabilityChange`` it came with.
    public let time: MonotonicInstant

    /// Whether the new status is reachable.
    public var isReachable: Bool { status.isReachable }
}
