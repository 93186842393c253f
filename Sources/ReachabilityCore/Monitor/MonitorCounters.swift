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
    /// ``ReachabilityMonitor/Configuration/minimumResolveInterval`` ago (a flapping link asks again and again).
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
    /// reports it: double what was asked). ``ReachabilityMonitor/Configuration/receiveBufferSize``
    /// is granted past `net.core.rmem_max` only with `CAP_NET_ADMIN`
    /// (SO_RCVBUFFORCE); without it the kernel caps it, and this shows by how much.
    public internal(set) var receiveBufferSize: Int = 0

    /// Every counter zero. Only a monitor counts, so a value made here stays zero (for comparisons
    /// and placeholders).
    public init() {}
}
