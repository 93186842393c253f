import ReachabilityModel
internal import CReachability
#if canImport(Glibc)
internal import Glibc
#endif

/// The netlink event socket of one namespace: a NETLINK_ROUTE socket joined
/// to the link, address, route, rule and nexthop groups, the buffer it is
/// read into, and what it has learnt of links and addresses
/// (`EventFilter`). It drains a burst, says what the burst changed in the
/// kernel's terms (`KernelEventBurst`), and opens the socket again after a
/// failure. It knows nothing of targets or monitors.
///
/// Owned by the monitor's event thread (built before the thread exists,
/// then handed over), hence `@unchecked Sendable`.
package final class NetlinkEventSocket: KernelEvents, @unchecked Sendable {
    private var socket: creach_nl
    private let buffer: UnsafeMutableRawPointer
    private let bufferSize = Int(CREACH_DUMP_BUFSIZ)
    private var filter = EventFilter()
    /// The namespace (for errors) and its fd (-1: the current one).
    private let namespace: NetworkNamespace
    private let namespaceFD: Int32
    /// `SO_RCVBUF` to ask for, nil for the system's default.
    private let receiveBuffer: Int?
    /// How long to wait before opening a failed socket again.
    private let retryNanoseconds: UInt64
    /// The socket is closed after a failure and opened again at this time (monotonic ns).
    package private(set) var reopenAt: UInt64?

    /// Opens the event socket in the namespace `handle` holds open. Open it
    /// before the first evaluation, so that nothing that happens in between
    /// is missed.
    /// - Parameters:
    ///   - handle: The namespace to listen in.
    ///   - receiveBuffer: `SO_RCVBUF` in bytes, nil for the system's default.
    ///   - retryInterval: How long to wait before opening a failed socket again.
    /// - Throws: ``ReachabilityError/permissionDenied(operation:needs:)`` or
    ///   ``ReachabilityError/system(operation:errno:)`` when the socket cannot be opened.
    package init(in handle: NamespaceHandle, receiveBuffer: Int?, retryInterval: Duration) throws(ReachabilityError) {
        namespace = handle.namespace
        namespaceFD = handle.fd
        self.receiveBuffer = receiveBuffer
        retryNanoseconds = retryInterval.clampedNanoseconds
        socket = try Self.open(namespace: namespace, fd: namespaceFD, receiveBuffer: receiveBuffer)
        buffer = UnsafeMutableRawPointer.allocate(byteCount: Int(CREACH_DUMP_BUFSIZ), alignment: 8)
    }

    private static func open(namespace: NetworkNamespace, fd: Int32, receiveBuffer: Int?) throws(ReachabilityError) -> creach_nl {
        var socket = creach_nl()
        guard creach_nl_open(&socket, creach_monitor_groups, fd) == 0 else {
            throw .openingSocket("open NETLINK_ROUTE event socket", in: namespace, errno: .current)
        }
        if let size = receiveBuffer {
            guard creach_nl_set_rcvbuf(&socket, Int32(clamping: size)) >= 0 else {
                let error = SystemErrno.current
                creach_nl_close(&socket)
                throw .system(operation: "SO_RCVBUF \(size)", errno: error)
            }
        }
        return socket
    }

    /// Closes the socket and frees the buffer: the end of the run.
    package func close() {
        creach_nl_close(&socket)
        buffer.deallocate()
    }

    /// The socket's descriptor; -1 while it waits to be opened again.
    package var fd: Int32 { socket.fd }

    package var portID: UInt32? { socket.fd >= 0 ? socket.portid : nil }

    /// The socket's effective receive buffer, for a monitor's counters.
    package var receiveBufferSize: Int {
        var socket = socket
        return Int(max(0, creach_nl_rcvbuf(&socket)))
    }

    // MARK: Reading

    /// Drains what is queued, then keeps draining while more arrives within
    /// `settle` (bounded by `limit` in all), so one burst gives one evaluation.
    ///
    /// A drain that read a link's own state change notifies `.linkChanged`
    /// right after it, whether the change opens the burst or comes in the
    /// middle of one (route churn that never goes quiet): the RTM_NEWLINK
    /// already carries the new state. So does a drain that read route
    /// messages (`.routesChanged`). What each may publish is the monitor's
    /// to decide (Architecture.md, "Leading edge").
    package func drainBurst(settle: UInt64, limit: UInt64, notify: (KernelEventNotice) -> Void) -> KernelEventBurst {
        var burst = KernelEventBurst()
        var events = creach_events()
        var verdict = EventFilter.Verdict()
        let start = monotonicNanoseconds()
        while true {
            let linksBefore = verdict.link, routesBefore = events.route4 &+ events.route6
            let throwsBefore = events.throw_added, malformedBefore = events.malformed
            let lostBefore = burst.overflows &+ burst.unreadable
            drainQueued(&events, verdict: &verdict, into: &burst, notify: notify, stopAtLink: verdict.link == 0)
            // Before anything of this burst is evaluated: a throw route added,
            // or events lost, and the families without one must be read again.
            if events.throw_added != throwsBefore || events.malformed != malformedBefore
                || burst.overflows &+ burst.unreadable != lostBefore {
                notify(.throwRoutesMayHaveChanged)
            }
            // A failure ends the burst: what the new socket reads belongs to
            // the next one. (Only a failure closes the socket here.)
            guard !burst.failed else { break }
            let routesRead = events.route4 &+ events.route6 != routesBefore
            if settle > 0 && (verdict.link > linksBefore || routesRead) && events.deleted_count == 0
                && events.malformed == 0 && burst.overflows == 0 && burst.unreadable == 0 {
                notify(verdict.link > 0 ? .linkChanged : .routesChanged)
            }
            let elapsed = monotonicNanoseconds() &- start
            guard settle > 0, elapsed < limit else { break }
            let ready = waitForEvents(socket.fd, wake: -1, timeoutNanoseconds: Int64(min(settle, limit - elapsed)))
            guard ready.raw > 0 else { break }
        }
        // Links and addresses count only when they changed something (`verdict`);
        // routes, rules and nexthops always do.
        burst.malformed = UInt64(events.malformed)
        let lost = events.malformed > 0 || burst.overflows > 0 || burst.unreadable > 0
        if lost { filter.forgetAll() }
        burst.eventsLost = burst.eventsLost || lost
        burst.linksChanged = verdict.link > 0
        burst.addressesChanged4 = verdict.addr4 > 0
        burst.addressesChanged6 = verdict.addr6 > 0
        burst.routesChanged4 = events.route4 > 0
        burst.routesChanged6 = events.route6 > 0
        burst.rulesChanged4 = events.rule4 > 0
        burst.rulesChanged6 = events.rule6 > 0
        burst.nexthopsChanged = events.nexthop > 0
        // A deleted link's cached facts must not be reused for a new link. After
        // lost or unreadable events an RTM_DELLINK may be among them: forget all.
        if events.deleted_count > UInt32(CREACH_EVENTS_MAX_DELETED) || lost {
            burst.forgetAllLinks = true
        } else if events.deleted_count > 0 {
            burst.deletedLinks = withUnsafeBytes(of: events.deleted) {
                Array($0.bindMemory(to: Int32.self).prefix(Int(events.deleted_count)))
            }
        }
        burst.messages = UInt64(events.messages)
        burst.ignored = UInt64(verdict.ignored)
        burst.foreign += socket.dropped_foreign
        socket.dropped_foreign = 0
        return burst
    }

    /// Reads the datagrams queued now into the counts, at most a bounded
    /// number (datagrams of other senders included), so a flood cannot keep
    /// the targets from being evaluated nor the thread from seeing a stop.
    /// With `stopAtLink`, returns after the first datagram that changed a
    /// link, so that its leading edge is evaluated before the rest of the
    /// queue is read (Architecture.md, "Leading edge").
    private func drainQueued(_ events: inout creach_events, verdict: inout EventFilter.Verdict,
                             into burst: inout KernelEventBurst, notify: (KernelEventNotice) -> Void,
                             stopAtLink: Bool = false) {
        for _ in 0..<4096 {
            let n = creach_nl_recv_event(&socket, buffer, bufferSize)
            if n == 0 { return }
            if n < 0 {
                switch SystemErrno.current.rawValue {
                case ENOBUFS: burst.overflows += 1           // events were lost: everything is evaluated again
                case ENOSPC, EBADMSG: burst.unreadable += 1  // this datagram is lost
                case ENOMSG: break                           // another sender's, dropped (counted by the socket)
                default:
                    fail(&burst, notify: notify)
                    return
                }
                continue
            }
            // A broken datagram is counted in events.malformed by the classifier.
            _ = creach_events_classify(buffer, n, &events)
            let linksBefore = verdict.link
            filter.apply(datagram: buffer, length: n, to: &verdict)
            if stopAtLink && verdict.link > linksBefore { return }
        }
    }

    // MARK: Failure and recovery

    /// The socket failed in a way reading cannot fix: close it and open a new
    /// one (now, or at `reopenAt`). Every cached link fact goes (an
    /// RTM_DELLINK may have been lost with the closed socket, and the index
    /// reused by a link of another kind), and the burst counts as lost events.
    package func fail(_ burst: inout KernelEventBurst, notify: (KernelEventNotice) -> Void) {
        burst.foreign += socket.dropped_foreign
        creach_nl_close(&socket)
        notify(.listening(false))
        burst.eventsLost = true
        burst.forgetAllLinks = true
        burst.failed = true
        Self.testHook?(.closed)
        if reopen() { notify(.listening(true)) }
        Self.testHook?(.reopened)
    }

    /// Where `fail` is (tests).
    package enum FailureStep: Sendable { case closed, reopened }
    /// Test seam: called on the event thread while `fail` runs, with no socket
    /// open (`.closed`: what happens now is lost) and after the new one is open
    /// (`.reopened`: what happens now waits in the new socket). Set only
    /// while no monitor runs, or before the failure that calls it is injected.
    package nonisolated(unsafe) static var testHook: (@Sendable (FailureStep) -> Void)?

    /// Opens the socket again when `reopenAt` has come; true when it did.
    package func reopenIfDue(now: UInt64) -> Bool {
        guard let reopenAt, reopenAt <= now else { return false }
        return reopen()
    }

    /// Opens a new socket, or schedules another try; true when one is open.
    /// What the filter remembered may be stale now: a link that changed while
    /// no socket listened, and came back to the remembered state, must count as a change.
    private func reopen() -> Bool {
        filter.forgetAll()
        do {
            socket = try Self.open(namespace: namespace, fd: namespaceFD, receiveBuffer: receiveBuffer)
            reopenAt = nil
            return true
        } catch {
            socket.fd = -1
            reopenAt = monotonicNanoseconds() &+ retryNanoseconds
            return false
        }
    }
}
