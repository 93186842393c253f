/// One new state of a monitored target: the first one (``isInitial``), or one
/// whose answer differs from the previous (its status, flags, interface,
/// route type, mask, accessibility or validation verdict, or per address
/// family whether it is reachable, by which interface and route type), or
/// whose path facts do (``TargetEvaluation/availableInterfaces``, ``TargetEvaluation/supportsDNS``), as
/// NWPathMonitor gives a new path.
public struct ReachabilityChange: Hashable, Sendable {
    /// The monitored target this state is of.
    public let target: Target
    /// The target's new answer: each address's flags and kernel facts, the path's facts, and what
    /// validation found when the monitor validates.
    public let evaluation: TargetEvaluation
    /// The state this one replaces; nil for the initial state.
    public let previous: TargetEvaluation?
    /// The state the target had when observation began; never a change.
    public let isInitial: Bool
    /// When the monitor found this state (`CLOCK_MONOTONIC`).
    public let time: MonotonicInstant

    /// The status of the new answer (the primary address's, under the policy).
    public var status: ReachabilityStatus { evaluation.status }
    /// The flags of the new answer's primary address.
    public var flags: ReachabilityFlags { evaluation.flags }
    /// Whether the new answer's status is reachable.
    public var isReachable: Bool { evaluation.isReachable }
    /// The output interface of the target's primary address.
    public var interface: String? { evaluation.primary?.link?.name }
    /// The answer changed (always for the initial state); false when only
    /// the path's facts did. `reach watch` prints a line for these.
    package var changesAnswer: Bool {
        guard !isInitial, let previous else { return true }
        return ResultKey(previous) != ResultKey(evaluation)
    }

    /// The same state, as the first thing a new observer sees.
    func asInitial() -> ReachabilityChange {
        ReachabilityChange(target: target, evaluation: evaluation, previous: nil, isInitial: true,
                           time: time)
    }
}
