internal import CReachability
#if canImport(Glibc)
internal import Glibc
#endif

/// Where a monitor's notifications come from: its NETLINK_ROUTE socket
/// (joined to the link, address, route, rule and nexthop groups), the
/// buffer it is read into, and what it has learnt of links and addresses
/// (`EventFilter`). It drains a burst, says which targets it may have
/// changed (`Burst`), and opens the socket again after a failure. It
/// decides nothing about targets: that is `MonitorLoop`'s.
///
/// Owned by the monitor's event thread (built by `start()` before the
/// thread exists, then handed over), hence `@unchecked Sendable`.
final class EventSource: @unchecked Sendable {
    /// What one burst may have changed, and what it lost.
    struct Burst {
        var dirty = MonitorLoop.Dirty()
        /// Datagrams read that classified as notifications.
        var messages: UInt64 = 0
        var overflows: UInt64 = 0
        var unreadable: UInt64 = 0
        var malformed: UInt64 = 0
        var foreign: UInt64 = 0
        var ignored: UInt64 = 0
        /// Links deleted in the burst (whose cached kinds must go)...
        var deletedLinks: [Int32] = []
        /// ...or forget every cached kind (too many deletions, or events lost).
        var forgetAllLinks = false
        /// The socket failed and was opened again (or will be at `reopenAt`).
        var failed = false
    }

    private var socket: creach_nl
    private let buffer: UnsafeMutableRawPointer
    private let bufferSize = Int(CREACH_DUMP_BUFSIZ)
    private var filter = EventFilter()
    private let evaluator: ReachabilityEvaluator
    private let configuration: ReachabilityMonitor.Configuration
    /// The socket is closed after a failure and opened again at this time (monotonic ns).
    private(set) var reopenAt: UInt64?
    #if REACH_NO_SIMULATION
    /// None in a firmware build: every use below is dead code.
    var subscriber: SimulationSubscriber? { nil }
    #else
    /// In a simulated namespace: the simulation's ring instead of a socket.
    let subscriber: SimulationSubscriber?
    #endif

    /// Opens the event socket (subscribed before the first evaluation, so
    /// that nothing that happens in between is missed); in a simulated
    /// namespace, subscribes to the simulation as `owner`.
    init(evaluator: ReachabilityEvaluator, configuration: ReachabilityMonitor.Configuration,
         owner: @autoclosure () -> String) throws(ReachabilityError) {
        self.evaluator = evaluator
        self.configuration = configuration
        #if REACH_NO_SIMULATION
        socket = try EventSource.open(evaluator: evaluator, configuration: configuration)
        #else
        if let simulation = evaluator.handle.simulation {
            subscriber = try SimulationSubscriber(owner: owner(), simulation: simulation)
            socket = creach_nl()
            socket.fd = -1
        } else {
            subscriber = nil
            socket = try EventSource.open(evaluator: evaluator, configuration: configuration)
        }
        #endif
        // Subscribed: from now on, a throw route added is read here (`drainBurst`).
        evaluator.remembersThrowRoutes(true)
        buffer = UnsafeMutableRawPointer.allocate(byteCount: Int(CREACH_DUMP_BUFSIZ), alignment: 8)
    }

    private static func open(evaluator: ReachabilityEvaluator,
                             configuration: ReachabilityMonitor.Configuration) throws(ReachabilityError) -> creach_nl {
        var socket = creach_nl()
        guard creach_nl_open(&socket, creach_monitor_groups, evaluator.namespaceFD) == 0 else {
            throw .openingSocket("open NETLINK_ROUTE event socket", in: evaluator.namespace, errno: .current)
        }
        if let size = configuration.receiveBufferSize {
            guard creach_nl_set_rcvbuf(&socket, Int32(clamping: size)) >= 0 else {
                let error = SystemErrno.current
                creach_nl_close(&socket)
                throw .system(operation: "SO_RCVBUF \(size)", errno: error)
            }
        }
        return socket
    }

    /// Closes the socket and frees the buffer: the end of the run.
    func close() {
        evaluator.remembersThrowRoutes(false)
        if let subscriber { subscriber.close() } else { creach_nl_close(&socket) }
        buffer.deallocate()
    }

    /// The socket's descriptor; -1 while it waits to be opened again. In a
    /// simulation, the simulation's eventfd.
    var fd: Int32 { subscriber?.fd ?? socket.fd }

    var portID: UInt32? { socket.fd >= 0 ? socket.portid : nil }

    /// The socket's effective receive buffer, for `counters`.
    var receiveBufferSize: Int {
        guard subscriber == nil else { return 0 }
        var socket = socket
        return Int(max(0, creach_nl_rcvbuf(&socket)))
    }

    // MARK: Reading

    /// Drains what is queued, then keeps draining while more arrives within
    /// the settle time (bounded by `maximumSettleTime`), so one burst gives
    /// one evaluation.
    ///
    /// A drain that read a link's own state change calls `leadingEdge` right
    /// after it, whether the change opens the burst or comes in the middle of
    /// one (route churn that never goes quiet): the RTM_NEWLINK already
    /// carries the new state, so a link going down or up is reported without
    /// waiting for the burst to go quiet. So does a drain that read route
    /// messages (issue 41): in a burst that changed a link they are its
    /// consequences (the flush of a link set down), in any other a route
    /// added, replaced or removed; `MonitorLoop.evaluate(_:edge:)` decides
    /// what each kind of edge may publish.
    func drainBurst(leadingEdge: (MonitorLoop.LeadingEdge) -> Void) -> Burst {
        if let subscriber { return Self.simulatedBurst(subscriber) }
        var burst = Burst()
        var events = creach_events()
        var verdict = EventFilter.Verdict()
        let start = monotonicNanoseconds()
        let settle = configuration.settleTime.clampedNanoseconds
        let limit = configuration.maximumSettleTime.clampedNanoseconds
        while true {
            let linksBefore = verdict.link, routesBefore = events.route4 &+ events.route6
            let throwsBefore = events.throw_added, malformedBefore = events.malformed
            let lostBefore = burst.overflows &+ burst.unreadable
            drainQueued(&events, verdict: &verdict, into: &burst, stopAtLink: verdict.link == 0)
            // Before any evaluation of this burst: a throw route added, or
            // events lost, and the families without one must be read again.
            if events.throw_added != throwsBefore || events.malformed != malformedBefore
                || burst.overflows &+ burst.unreadable != lostBefore {
                evaluator.forgetThrowRoutes()
            }
            // A failure ends the burst: what the new socket reads belongs to
            // the next one, after `MonitorLoop.record` has counted the recovery.
            // (Only a failure closes the socket here.)
            guard !burst.failed else { break }
            let routesRead = events.route4 &+ events.route6 != routesBefore
            if settle > 0 && (verdict.link > linksBefore || routesRead) && events.deleted_count == 0
                && events.malformed == 0 && burst.overflows == 0 && burst.unreadable == 0 {
                let edge: MonitorLoop.LeadingEdge = verdict.link > 0 ? .link : .route
                leadingEdge(edge)
                #if !REACH_NO_SIMULATION
                Self.edgeHook?(edge)
                #endif
            }
            let elapsed = monotonicNanoseconds() &- start
            guard settle > 0, elapsed < limit else { break }
            let ready = waitForEvents(socket.fd, wake: -1, timeoutNanoseconds: Int64(min(settle, limit - elapsed)))
            guard ready.raw > 0 else { break }
        }
        // Links and addresses count only when they changed something (`verdict`);
        // routes, rules and nexthops always do. A nexthop object may carry routes of either family.
        burst.malformed = UInt64(events.malformed)
        let lost = events.malformed > 0 || burst.overflows > 0 || burst.unreadable > 0
        if lost { filter.forgetAll() }
        if verdict.link > 0 || events.nexthop > 0 || lost { burst.dirty.markAll() }
        if verdict.addr4 > 0 || events.route4 > 0 || events.rule4 > 0 { burst.dirty.v4 = true }
        if verdict.addr6 > 0 || events.route6 > 0 || events.rule6 > 0 { burst.dirty.v6 = true }
        if verdict.link > 0 || verdict.addr4 > 0 || verdict.addr6 > 0 || events.rule4 > 0 || events.rule6 > 0 || lost {
            burst.dirty.network = true
        }
        // Links change the interfaces that can carry packets (NWPath's availableInterfaces).
        if verdict.link > 0 || lost { burst.dirty.links = true }
        // A deleted link's cached kind must not be reused for a new link. After
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

    /// Reads every datagram queued now, at most a bounded number (datagrams
    /// of other senders included), so a flood cannot keep the targets from
    /// being evaluated nor the thread from seeing a stop.
    /// Reads the queued datagrams into the counts. With `stopAtLink`, returns
    /// after the first datagram that changed a link, so that its leading edge
    /// is evaluated before the rest of the queue is read (Architecture.md,
    /// "Leading edge": the kernel's tables answer, not the messages, and an
    /// answer a flush may still change is held back).
    private func drainQueued(_ events: inout creach_events, verdict: inout EventFilter.Verdict, into burst: inout Burst,
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
                    fail(&burst)
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

    /// A simulation's ring: facts changed (every target, the links, host
    /// names; every cached kind goes, as after lost events), or only the clock moved.
    private static func simulatedBurst(_ subscriber: SimulationSubscriber) -> Burst {
        var burst = Burst()
        guard subscriber.takeFactsChanged() else { return burst }
        burst.dirty.markAll()
        burst.dirty.network = true
        burst.dirty.links = true
        burst.forgetAllLinks = true
        burst.messages = 1
        return burst
    }

    // MARK: Failure and recovery

    /// The socket failed in a way reading cannot fix: close it and open a new
    /// one (now, or at `reopenAt`); every target is evaluated again, and every
    /// cached interface kind goes (an RTM_DELLINK may have been lost with the
    /// closed socket, and the index reused by a link of another kind).
    func fail(_ burst: inout Burst) {
        burst.foreign += socket.dropped_foreign
        creach_nl_close(&socket)
        // No socket listens until `reopen` opens one.
        evaluator.remembersThrowRoutes(false)
        burst.dirty.markAll()
        burst.dirty.network = true
        burst.dirty.links = true
        burst.forgetAllLinks = true
        burst.failed = true
        #if !REACH_NO_SIMULATION
        Self.testHook?(.closed)
        #endif
        reopen()
        #if !REACH_NO_SIMULATION
        Self.testHook?(.reopened)
        #endif
    }

    #if !REACH_NO_SIMULATION
    /// Where `fail` is (tests).
    package enum FailureStep: Sendable { case closed, reopened }
    /// Test seam: called on the event thread while `fail` runs, with no socket
    /// open (`.closed`: what happens now is lost) and after the new one is open
    /// (`.reopened`: what happens now waits in the new socket). Set only
    /// while no monitor runs, or before the failure that calls it is injected.
    package nonisolated(unsafe) static var testHook: (@Sendable (FailureStep) -> Void)?
    /// Test seam: called on the event thread after each leading edge's
    /// evaluation, before the burst reads on (what happens now is read in a
    /// drain of its own). Set only while no monitor runs but the test's.
    package nonisolated(unsafe) static var edgeHook: (@Sendable (MonitorLoop.LeadingEdge) -> Void)?
    /// Test seam: called on the event thread right after a round read the
    /// path facts, before it asks for the targets (a link may change between
    /// the two). Set only while no monitor runs but the test's.
    package nonisolated(unsafe) static var pathFactsHook: (@Sendable () -> Void)?
    #endif

    /// Opens the socket again when `reopenAt` has come; true when it did.
    func reopenIfDue(now: UInt64) -> Bool {
        guard let reopenAt, reopenAt <= now else { return false }
        reopen()
        return socket.fd >= 0
    }

    /// Opens a new socket, or schedules another try. What the filter
    /// remembered may be stale now: a link that changed while no socket
    /// listened, and came back to the remembered state, must count as a change.
    private func reopen() {
        filter.forgetAll()
        do {
            socket = try EventSource.open(evaluator: evaluator, configuration: configuration)
            evaluator.remembersThrowRoutes(true)
            reopenAt = nil
        } catch {
            socket.fd = -1
            reopenAt = monotonicNanoseconds() &+ configuration.retryInterval.clampedNanoseconds
        }
    }
}
