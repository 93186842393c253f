import ReachabilityModel
internal import CReachability
#if canImport(Glibc)
internal import Glibc
#endif

/// What one burst of kernel notifications changed, in the kernel's terms:
/// which tables and families, which links went away, what was lost. What
/// that means for targets is the monitor's to decide (`MonitorLoop.Dirty`).
package struct KernelEventBurst {
    /// A link changed in a way answers depend on (`EventFilter`): state,
    /// carrier, name, kind, master.
    package var linksChanged = false
    /// An address of the family was added, removed or changed.
    package var addressesChanged4 = false, addressesChanged6 = false
    /// A route of the family was added, replaced or removed.
    package var routesChanged4 = false, routesChanged6 = false
    /// A policy rule of the family was added or removed.
    package var rulesChanged4 = false, rulesChanged6 = false
    /// A nexthop object changed (it may carry routes of either family).
    package var nexthopsChanged = false
    /// Notifications were lost (overflow, unreadable or malformed): anything may have changed.
    package var eventsLost = false
    /// Datagrams read that classified as notifications.
    package var messages: UInt64 = 0
    package var overflows: UInt64 = 0
    package var unreadable: UInt64 = 0
    package var malformed: UInt64 = 0
    package var foreign: UInt64 = 0
    package var ignored: UInt64 = 0
    /// Links deleted in the burst (a cached fact of theirs must go)...
    package var deletedLinks: [Int32] = []
    /// ...or forget every cached link fact (too many deletions, or events lost).
    package var forgetAllLinks = false
    /// The socket failed and was opened again (or will be at `reopenAt`).
    package var failed = false

    package init() {}
}

/// What an event source reports while it drains, before the burst ends.
package enum KernelEventNotice {
    /// A link's own state change was read (the drain stops right after it).
    case linkChanged
    /// Route messages were read.
    case routesChanged
    /// A `throw` route was added, or events were lost: a cached "no throw
    /// route in this family" is stale.
    case throwRoutesMayHaveChanged
    /// The source stopped listening (its socket closed after a failure) or listens again.
    case listening(Bool)
}

/// Where a monitor's kernel notifications come from: the netlink event
/// socket, or a simulation's ring (`SimulatedKernelEvents`). The monitor's
/// event thread polls `fd` and drains a burst when it is readable.
package protocol KernelEvents: AnyObject {
    /// What the thread polls; -1 while the socket waits to be opened again.
    var fd: Int32 { get }
    /// The socket's netlink port id, nil while closed (and in a simulation).
    var portID: UInt32? { get }
    /// The socket's effective receive buffer in bytes (0 in a simulation).
    var receiveBufferSize: Int { get }
    /// When a closed socket is opened again (monotonic ns), nil when open.
    var reopenAt: UInt64? { get }
    /// Drains what is queued, and what arrives within `settle` ns of the
    /// last message (at most `limit` ns in all), into one burst; `notify`
    /// is called on the way (leading edges, throw routes, listening).
    func drainBurst(settle: UInt64, limit: UInt64, notify: (KernelEventNotice) -> Void) -> KernelEventBurst
    /// The socket failed in a way reading cannot fix: closes it, opens a new one (or schedules that).
    func fail(_ burst: inout KernelEventBurst, notify: (KernelEventNotice) -> Void)
    /// Opens the socket again when `reopenAt` has come; true when it did.
    func reopenIfDue(now: UInt64) -> Bool
    /// Stops listening and frees the buffers.
    func close()
}
