
/// One new state of a monitored target: the first one (`isInitial`), or one
/// whose answer differs from the previous (its status, flags, interface,
/// route type, mask, accessibility or validation verdict, or per address
/// family whether it is reachable, by which interface and route type), or
/// whose path facts do (`availableInterfaces`, `supportsDNS`), as
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

/// The status-only view: emitted only when a target's `ReachabilityStatus`
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

/// Where a monitor runs an observer's callbacks. Callbacks of one observer
/// run in order when the queue is serial.
public struct DeliveryQueue: Sendable {
    enum Kind: Sendable {
        /// On the monitor's own thread, between two rounds of events.
        case monitorThread
        case enqueue(@Sendable (@escaping @Sendable () -> Void) -> Void)
    }
    let kind: Kind

    /// On the monitor's thread. The callback must return quickly: the monitor
    /// reads no events while it runs. It may call `stop()`.
    public static let monitorThread = DeliveryQueue(kind: .monitorThread)

    /// Through a function that schedules work elsewhere (an event loop, a run
    /// loop). It is called with the monitor's lock held, so it must only
    /// enqueue, never run the work itself or call into the monitor.
    public static func custom(_ enqueue: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) -> DeliveryQueue {
        DeliveryQueue(kind: .enqueue(enqueue))
    }
}

/// What a monitor has seen and done, for logs and health checks. Read-only
/// outside the library: only the monitor counts.
public struct MonitorCounters: Hashable, Sendable {
    /// Netlink notifications received (link, address, route, rule).
    public internal(set) var events: UInt64 = 0
    /// Coalesced re-evaluation rounds: one per burst of events, and one more
    /// on the leading edge of each link state change read in a burst.
    public internal(set) var reevaluations: UInt64 = 0
    /// Changes emitted, initial states not counted.
    public internal(set) var changes: UInt64 = 0
    /// Times the socket overflowed (`ENOBUFS`); each re-evaluated every target.
    public internal(set) var overflows: UInt64 = 0
    /// Datagrams not sent by the kernel (`nl_pid != 0`), on either of the monitor's sockets.
    public internal(set) var droppedForeign: UInt64 = 0
    /// Notifications that could not be read (truncated, malformed); each re-evaluated every target.
    public internal(set) var droppedMalformed: UInt64 = 0
    /// Host-name resolutions started.
    public internal(set) var resolutions: UInt64 = 0
    /// Re-resolutions put off because the name was resolved less than
    /// `Configuration.minimumResolveInterval` ago (a flapping link asks again and again).
    public internal(set) var deferredResolutions: UInt64 = 0
    /// Link and address notifications that changed nothing the answers depend
    /// on (a bridge's per-port message, a statistics update or wireless scan,
    /// an IPv6 address lifetime refreshed by a router advertisement): no target
    /// was evaluated again and no name resolved again for them.
    public internal(set) var ignoredEvents: UInt64 = 0
    /// Changes that replaced one an observer had not taken yet (a stream not
    /// iterated, a blocked callback queue): each observer holds at most one
    /// pending change per target, the latest, so memory stays bounded.
    public internal(set) var coalesced: UInt64 = 0
    /// Times the event socket failed and was opened again.
    public internal(set) var recoveries: UInt64 = 0
    /// Validation probes whose verdict was applied.
    public internal(set) var validations: UInt64 = 0
    /// The event socket's effective receive buffer in bytes (as the kernel
    /// reports it: double what was asked). `Configuration.receiveBufferSize`
    /// is granted past `net.core.rmem_max` only with `CAP_NET_ADMIN`
    /// (SO_RCVBUFFORCE); without it the kernel caps it, and this shows by how much.
    public internal(set) var receiveBufferSize: Int = 0

    /// Every counter zero. Only a monitor counts, so a value made here stays zero (for comparisons
    /// and placeholders).
    public init() {}
}

/// A registered callback; `cancel()` removes it (so does `stop()`).
public final class MonitorObservation: Sendable {
    private let cancelAction: @Sendable () -> Void
    init(cancel: @escaping @Sendable () -> Void) { cancelAction = cancel }

    /// Stops delivering to this callback. Safe to call more than once, from any thread.
    public func cancel() { cancelAction() }
}
