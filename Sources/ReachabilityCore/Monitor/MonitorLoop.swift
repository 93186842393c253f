internal import CReachability
#if canImport(Glibc)
import Glibc
#endif

/// The monitor's event thread: wait for notifications, drain and coalesce a
/// burst, evaluate the affected targets again, emit what changed.
///
/// Everything here belongs to that one thread (the core hands it over in
/// `start()` and never touches it again), hence `@unchecked Sendable`.
final class MonitorLoop: @unchecked Sendable {
    /// Which targets a burst may have changed.
    struct Dirty {
        var v4 = false
        var v6 = false
        /// Targets to evaluate whatever their families (a new resolution, a retry).
        var targets: Set<Int> = []
        /// Something about links, addresses or rules happened, or events were lost:
        /// host names are resolved again.
        var network = false

        /// Every target is evaluated again (a link changed, events were lost).
        mutating func markAll() { v4 = true; v6 = true }
        var isEmpty: Bool { !v4 && !v6 && targets.isEmpty }
    }

    /// Per-target bookkeeping: a class, so the loop changes it in place (and
    /// the binary carries no value witnesses for its many optional fields).
    final class Watched {
        let target: Target
        var addresses: [IPAddress]
        /// The last state emitted, nil before the initial one.
        var emitted: TargetEvaluation?
        var emittedKey: ResultKey?
        // Host names only:
        var resolving = false
        var resolveAgain = false
        /// A lookup is overdue after this (monotonic ns).
        var resolveDeadline: UInt64?
        /// When the last lookup started (monotonic ns): the next waits until
        /// `minimumResolveInterval` has passed, then starts at `resolveAt`.
        var lastResolveStart: UInt64?
        var resolveAt: UInt64?
        /// A first answer (or a timeout) exists: the target can be evaluated.
        var resolutionSettled = false
        var resolutionError: ReachabilityError?
        /// Asking the kernel failed: try again after this (monotonic ns).
        var retryAt: UInt64?
        // Validation (when configured):
        /// The latest verdict and the output interface it was found on.
        var validation: (verdict: ProbeVerdict, result: ProbeResult?, interfaceIndex: Int32)?
        var validating = false
        /// Validate again at this time (monotonic ns), while reachable.
        var validateAt: UInt64?
        /// The answer is held back while the kernel flushes the routes of a
        /// link set down (`holdWhileLinkGoesDown`): since when (monotonic ns)...
        var heldSince: UInt64?
        /// ...and when to look again.
        var recheckAt: UInt64?

        init(target: Target, addresses: [IPAddress]) {
            self.target = target
            self.addresses = addresses
        }
    }

    private let core: MonitorCore
    private var socket: creach_nl
    private let wakeFD: Int32
    private let generation: UInt64
    private let buffer: UnsafeMutableRawPointer
    private let bufferSize = Int(CREACH_DUMP_BUFSIZ)
    private var watched: [Watched]
    /// `evaluateTarget`'s answers, reused from round to round (the steady state allocates nothing).
    private var scratch: [AddressEvaluation] = []
    /// Which link and address notifications changed something (see `EventFilter`).
    private var filter = EventFilter()
    /// The event socket is closed after a failure and opened again at this time.
    private var reopenAt: UInt64?

    init(core: MonitorCore, socket: creach_nl, wakeFD: Int32, generation: UInt64) {
        self.core = core
        self.socket = socket
        self.wakeFD = wakeFD
        self.generation = generation
        buffer = UnsafeMutableRawPointer.allocate(byteCount: Int(CREACH_DUMP_BUFSIZ), alignment: 8)
        watched = core.targets.map { target in
            switch target {
            case let .address(address): return Watched(target: target, addresses: [address])
            case .internet: return Watched(target: target, addresses: Target.internetProbeAddresses)
            case .host: return Watched(target: target, addresses: [])
            }
        }
    }

    /// Frees what `init` took when the thread could not be started.
    func release() {
        creach_nl_close(&socket)
        buffer.deallocate()
        close(wakeFD)
    }

    static func openEventSocket(evaluator: ReachabilityEvaluator,
                                configuration: ReachabilityMonitor.Configuration) throws(ReachabilityError) -> creach_nl {
        var socket = creach_nl()
        guard creach_nl_open(&socket, creach_monitor_groups, evaluator.namespaceFD) == 0 else {
            throw .openingSocket("open NETLINK_ROUTE event socket", in: evaluator.namespace, errno: .current)
        }
        if let size = configuration.receiveBufferSize {
            guard creach_nl_set_rcvbuf(&socket, Int32(clamping: size)) >= 0 else {
                let error = Errno.current
                creach_nl_close(&socket)
                throw .system(operation: "SO_RCVBUF \(size)", errno: error)
            }
        }
        return socket
    }

    /// The event socket's effective receive buffer, for `counters`.
    static func receiveBufferSize(_ socket: creach_nl) -> Int {
        var socket = socket
        return Int(max(0, creach_nl_rcvbuf(&socket)))
    }

    // MARK: The thread

    func run() {
        core.markEventThread()
        defer {
            creach_nl_close(&socket)
            buffer.deallocate()
            core.eventThreadFinished()
        }
        // Initial states: addresses and the internet now, host names when resolved.
        var dirty = Dirty()
        dirty.markAll()
        for index in watched.indices { startResolution(index) }   // host names only
        evaluate(dirty)

        while !core.stopRequested {
            core.runInlineCallbacks()
            if core.stopRequested { break }
            let ready = creach_wait(socket.fd, wakeFD, timeoutUntilNextDeadline())
            dirty = Dirty()
            if ready < 0 {
                failSocket(&dirty)
            }
            if ready > 0 && Int32(ready) & CREACH_WAIT_WAKEUP != 0 {
                creach_wakeup_clear(wakeFD)
            }
            if ready > 0 && Int32(ready) & CREACH_WAIT_NETLINK != 0 {
                drainBurst(into: &dirty)
            }
            if core.takeReevaluationRequest() {
                // The policy or radio changed: new answers, same network.
                core.evaluator.invalidateInterfaceCache()
                dirty.markAll()
            }
            applyResolutions(into: &dirty)
            applyValidations(into: &dirty)
            applyDeadlines(into: &dirty)
            if !dirty.isEmpty {
                let changed = evaluate(dirty)
                if dirty.network || changed {
                    for index in watched.indices { startResolution(index) }   // host names only
                }
            }
        }
    }


    // MARK: Events

    /// Drains what is queued, then keeps draining while more arrives within
    /// the settle time (bounded), so one burst gives one evaluation.
    ///
    /// A burst that opens with a link's own state change is also evaluated on
    /// its leading edge, at once: the RTM_NEWLINK already carries the new
    /// state, so a link going down or up is reported without waiting for the
    /// burst to go quiet (`evaluate(_:leadingEdge:)` holds back any answer
    /// the rest of the burst may still change). The evaluation after the burst
    /// then emits only what differs from that.
    private func drainBurst(into dirty: inout Dirty) {
        var events = creach_events()
        var verdict = EventFilter.Verdict()
        var overflows: UInt64 = 0
        var unreadable: UInt64 = 0
        let start = creach_monotonic_ns()
        let settle = nanoseconds(core.configuration.settleTime)
        let limit = nanoseconds(core.configuration.maximumSettleTime)
        var first = true
        while true {
            drainQueued(&events, verdict: &verdict, overflows: &overflows, unreadable: &unreadable, dirty: &dirty)
            guard socket.fd >= 0 else { break }
            if first && settle > 0 && verdict.link > 0 && events.deleted_count == 0 && events.malformed == 0
                && overflows == 0 && unreadable == 0 {
                var all = Dirty()
                all.markAll()
                evaluate(all, leadingEdge: true)
            }
            first = false
            let elapsed = creach_monotonic_ns() &- start
            guard settle > 0, elapsed < limit else { break }
            let ready = creach_wait(socket.fd, -1, Int64(min(settle, limit - elapsed)))
            guard ready > 0 else { break }
        }
        // Links and addresses count only when they changed something (`verdict`);
        // routes, rules and nexthops always do. A nexthop object may carry routes of either family.
        let lost = events.malformed > 0 || overflows > 0 || unreadable > 0
        if lost { filter.forgetAll() }
        if verdict.link > 0 || events.nexthop > 0 || lost { dirty.markAll() }
        if verdict.addr4 > 0 || events.route4 > 0 || events.rule4 > 0 { dirty.v4 = true }
        if verdict.addr6 > 0 || events.route6 > 0 || events.rule6 > 0 { dirty.v6 = true }
        if verdict.link > 0 || verdict.addr4 > 0 || verdict.addr6 > 0 || events.rule4 > 0 || events.rule6 > 0 || lost {
            dirty.network = true
        }
        // A deleted link's cached kind must not be reused for a new link. After
        // lost or unreadable events an RTM_DELLINK may be among them: forget all.
        if events.deleted_count > UInt32(CREACH_EVENTS_MAX_DELETED) || lost {
            core.evaluator.invalidateInterfaceCache()
        } else if events.deleted_count > 0 {
            let deleted = withUnsafeBytes(of: events.deleted) { Array($0.bindMemory(to: Int32.self).prefix(Int(events.deleted_count))) }
            core.evaluator.forgetInterfaces(deleted)
        }
        let foreign = socket.dropped_foreign
        socket.dropped_foreign = 0
        core.updateCounters { counters in
            counters.events += UInt64(events.messages)
            counters.overflows += overflows
            counters.droppedMalformed += UInt64(events.malformed) + unreadable
            counters.droppedForeign += foreign
            counters.ignoredEvents += UInt64(verdict.ignored)
        }
    }

    /// Reads every datagram queued now (at most a bounded number, so a
    /// flood cannot keep the targets from being evaluated).
    private func drainQueued(_ events: inout creach_events, verdict: inout EventFilter.Verdict, overflows: inout UInt64,
                             unreadable: inout UInt64, dirty: inout Dirty) {
        for _ in 0..<4096 {
            let n = creach_nl_recv_event(&socket, buffer, bufferSize)
            if n == 0 { return }
            if n < 0 {
                switch Errno.current.rawValue {
                case ENOBUFS: overflows += 1          // events were lost: everything is evaluated again
                case ENOSPC, EBADMSG: unreadable += 1 // this datagram is lost
                default:
                    failSocket(&dirty)
                    return
                }
                continue
            }
            // A broken datagram is counted in events.malformed by the classifier.
            _ = creach_events_classify(buffer, n, &events)
            filter.apply(datagram: buffer, length: n, to: &verdict)
        }
    }

    /// The socket failed in a way reading cannot fix: close it, open a new
    /// one (now, or after the retry interval), evaluate everything.
    private func failSocket(_ dirty: inout Dirty) {
        creach_nl_close(&socket)
        dirty.markAll()
        dirty.network = true
        reopenSocket()
    }

    private func reopenSocket() {
        do {
            socket = try MonitorLoop.openEventSocket(evaluator: core.evaluator, configuration: core.configuration)
            reopenAt = nil
            let size = MonitorLoop.receiveBufferSize(socket), port = socket.portid
            core.shared.withLock { shared in
                shared.counters.recoveries += 1
                shared.counters.receiveBufferSize = size
                shared.eventPortID = port
            }
        } catch {
            socket.fd = -1
            core.shared.withLock { $0.eventPortID = nil }
            reopenAt = creach_monotonic_ns() &+ nanoseconds(core.configuration.retryInterval)
        }
    }

    // MARK: Deadlines

    private func timeoutUntilNextDeadline() -> Int64 {
        var next: UInt64?
        func consider(_ deadline: UInt64?) {
            if let deadline, next.map({ deadline < $0 }) ?? true { next = deadline }
        }
        consider(reopenAt)
        for item in watched {
            consider(item.resolveDeadline)
            consider(item.resolveAt)
            consider(item.retryAt)
            consider(item.validateAt)
            consider(item.recheckAt)
        }
        guard let next else { return -1 }
        let now = creach_monotonic_ns()
        return next > now ? Int64(clamping: next - now) : 0
    }

    private func applyDeadlines(into dirty: inout Dirty) {
        let now = creach_monotonic_ns()
        if let reopenAt, reopenAt <= now {
            reopenSocket()
            if socket.fd >= 0 { dirty.markAll(); dirty.network = true }
        }
        for index in watched.indices {
            if let deadline = watched[index].resolveDeadline, deadline <= now {
                watched[index].resolveDeadline = nil
                if !watched[index].resolutionSettled, case let .host(name) = watched[index].target {
                    watched[index].resolutionSettled = true
                    watched[index].resolutionError = .resolutionTimedOut(host: name)
                    dirty.targets.insert(index)
                }
            }
            if let resolveAt = watched[index].resolveAt, resolveAt <= now {
                watched[index].resolveAt = nil
                startResolution(index)
            }
            if let retryAt = watched[index].retryAt, retryAt <= now {
                watched[index].retryAt = nil
                dirty.targets.insert(index)
            }
            if let recheckAt = watched[index].recheckAt, recheckAt <= now {
                watched[index].recheckAt = nil
                dirty.targets.insert(index)
            }
            if let validateAt = watched[index].validateAt, validateAt <= now {
                watched[index].validateAt = nil
                startValidation(index)
            }
        }
    }

    // MARK: Validation

    /// After a round: validate a target that became reachable or moved to
    /// another interface; forget the verdict of one that is not reachable.
    private func scheduleValidations() {
        guard core.configuration.validation != nil else { return }
        for index in watched.indices {
            guard let evaluation = watched[index].emitted, evaluation.isReachable,
                  let interface = evaluation.primary?.link?.index else {
                watched[index].validation = nil
                watched[index].validateAt = nil
                continue
            }
            let validatedHere = watched[index].validation?.interfaceIndex == interface
            if !validatedHere && !watched[index].validating && watched[index].validateAt == nil {
                startValidation(index)
            }
        }
    }

    /// Sends the configured probe for target `index` through its output
    /// interface, on a thread of its own; the answer comes back through the core.
    private func startValidation(_ index: Int) {
        guard let validation = core.configuration.validation, let probe = core.probe, !watched[index].validating,
              let evaluation = watched[index].emitted, evaluation.isReachable,
              let primary = evaluation.primary, let link = primary.link else { return }
        watched[index].validating = true
        let core = self.core, generation = self.generation
        let target = watched[index].target
        let options = ProbeOptions(interface: link.name, timeout: core.configuration.validationTimeout)
        let cancel = core.probeCancelSignal
        let post: @Sendable (ProbeVerdict, ProbeResult?) -> Void = { verdict, result in
            core.post(MonitorCore.ValidationAnswer(generation: generation, targetIndex: index, interfaceIndex: link.index,
                                                   verdict: verdict, result: result))
        }
        do {
            try startThread(.probe) {
                do throws(ReachabilityError) {
                    let address = try MonitorLoop.validationAddress(validation, target: target, primary: primary.address,
                                                                    core: core)
                    var method = validation.method
                    if case .dns(nil, _) = validation, case let .host(name) = target { method = .dns(name: name, type: .a) }
                    let result = try probe(address, method, options, cancel?.fd ?? -1)
                    post(result.verdict, result)
                } catch {
                    post(.failed, nil)
                }
                _ = cancel   // held until the probe is done
            }
        } catch {
            post(.failed, nil)
        }
    }

    /// Where a validation probe goes: the host it names (resolved in the
    /// namespace), the namespace's name server for DNS, or the target itself.
    private static func validationAddress(_ validation: Validation, target: Target, primary: IPAddress,
                                          core: MonitorCore) throws(ReachabilityError) -> IPAddress {
        let host: String?
        switch validation {
        case let .http(url): host = url.host.map { $0.hasPrefix("[") ? String($0.dropFirst().dropLast()) : $0 }
        case let .dns(_, server):
            if let server { return server }
            guard let first = core.evaluator.namespace.nameServers().first else {
                throw .invalidConfiguration("validation dns", reason: "no nameserver in \(core.evaluator.namespace.resolvConfPath)")
            }
            return first
        case let .icmp(name), let .tcp(name, _): host = name
        }
        guard let host else { return primary }
        if let address = IPAddress(host) { return address }
        guard let address = try HostResolver.lookUp(host, in: core.evaluator.namespaceHandle).first else {
            throw .resolutionFailed(host: host, reason: "no address")
        }
        return address
    }

    private func applyValidations(into dirty: inout Dirty) {
        let now = creach_monotonic_ns()
        for answer in core.takeValidations() where answer.generation == generation {
            let index = answer.targetIndex
            watched[index].validating = false
            // Meanwhile the target may have moved or gone: a verdict about another
            // interface is dropped (the next round validates the new one).
            guard watched[index].emitted?.primary?.link?.index == answer.interfaceIndex else { continue }
            watched[index].validation = (answer.verdict, answer.result, answer.interfaceIndex)
            watched[index].validateAt = now &+ nanoseconds(core.configuration.validationInterval)
            core.updateCounters { $0.validations += 1 }
            dirty.targets.insert(index)
        }
    }

    // MARK: Host names

    private func startResolution(_ index: Int) {
        guard case let .host(name) = watched[index].target else { return }
        guard !watched[index].resolving else {
            watched[index].resolveAgain = true
            return
        }
        // A name is looked up at most once per minimumResolveInterval: a link
        // that flaps asks again and again, and one lookup after it settles answers them all.
        let now = creach_monotonic_ns()
        let interval = nanoseconds(core.configuration.minimumResolveInterval)
        if let last = watched[index].lastResolveStart, now &- last < interval {
            if watched[index].resolveAt == nil { watched[index].resolveAt = last &+ interval }
            core.updateCounters { $0.deferredResolutions += 1 }
            return
        }
        watched[index].resolveAt = nil
        watched[index].lastResolveStart = now
        watched[index].resolving = true
        watched[index].resolveAgain = false
        watched[index].resolveDeadline = now &+ nanoseconds(core.configuration.resolveTimeout)
        core.updateCounters { $0.resolutions += 1 }
        let core = self.core, generation = self.generation
        do {
            // The thread holds the namespace handle, so the namespace it enters stays open until it is done.
            try HostResolver.startLookUp(name, in: core.evaluator.namespaceHandle) { result in
                core.post(MonitorCore.Resolution(generation: generation, targetIndex: index, result: result))
            }
        } catch {
            core.post(MonitorCore.Resolution(generation: generation, targetIndex: index, result: .failure(error)))
        }
    }

    private func applyResolutions(into dirty: inout Dirty) {
        for resolution in core.takeResolutions() where resolution.generation == generation {
            let index = resolution.targetIndex
            watched[index].resolving = false
            watched[index].resolveDeadline = nil
            watched[index].resolutionSettled = true
            switch resolution.result {
            case let .success(addresses):
                watched[index].addresses = addresses
                watched[index].resolutionError = nil
            case let .failure(error):
                // A name that resolved before keeps its addresses: their
                // routes are still facts, and a resolver that fails while the
                // network changes should not hide them.
                if watched[index].addresses.isEmpty { watched[index].resolutionError = error }
            }
            dirty.targets.insert(index)
            if watched[index].resolveAgain { startResolution(index) }
        }
    }

    // MARK: Evaluation

    /// Evaluates the dirty targets and publishes those whose result differs.
    /// Returns whether anything changed.
    ///
    /// The steady state (a notification that changes no answer) reads only
    /// what the flags need: the namespace's interfaces and name servers
    /// (`pathFacts`, two dumps) are read once a round, and only when a
    /// target's answer is published.
    ///
    /// The kernel sends a link's RTM_NEWLINK before it acts on the change: an
    /// interface set down keeps its routes until the NETDEV_DOWN notifiers
    /// flush them, and a tun device loses IFF_LOWER_UP a millisecond before
    /// its operstate follows. An answer read in between is a moment of that
    /// sequence, not a state, so:
    /// - on a burst's leading edge (`leadingEdge`), an answer is published
    ///   only when no address is routed over a link that cannot carry packets
    ///   now; the others wait for the evaluation after the burst. Nothing is
    ///   published there while an interface is coming up (carrier, operstate
    ///   not yet): `availableInterfaces` may be about to gain it;
    /// - an answer with a route over a link that is administratively down
    ///   (which the kernel is about to flush) is held back and read again
    ///   shortly, for at most `maximumSettleTime`.
    @discardableResult
    private func evaluate(_ dirty: Dirty, leadingEdge: Bool = false) -> Bool {
        var changes: [(index: Int, change: ReachabilityChange)] = []
        var pathFacts: ReachabilityEvaluator.PathFacts?
        /// The evaluation with the round's path facts; nil on the leading edge
        /// while an interface is coming up (it may be about to join
        /// `availableInterfaces`): the evaluation after the burst publishes.
        /// Called before anything of a target is changed, so giving up leaves nothing half done.
        func withPathFacts(_ evaluation: TargetEvaluation) -> TargetEvaluation? {
            if pathFacts == nil { pathFacts = (try? core.evaluator.pathFacts()) ?? .init(interfaces: [], supportsDNS: false) }
            if leadingEdge && pathFacts!.isSettling { return nil }
            return TargetEvaluation(target: evaluation.target, addresses: evaluation.addresses, error: evaluation.error,
                                    pathFacts: pathFacts!, validation: evaluation.validation)
        }
        targets: for index in watched.indices {
            let item = watched[index]
            if case .host = item.target, !item.resolutionSettled { continue }
            let touched = dirty.targets.contains(index) || item.emitted == nil
                || item.addresses.contains { $0.family == .v4 ? dirty.v4 : dirty.v6 }
            guard touched else { continue }
            let evaluation = evaluateTarget(index)
            if leadingEdge && !evaluation.isFinalOnLeadingEdge { continue }
            if holdWhileLinkGoesDown(index, evaluation) { continue }
            let key = ResultKey(evaluation)
            guard key != item.emittedKey else {
                // The same answer with a newer probe result: current, but no change.
                if evaluation.validation != item.emitted?.validation {
                    guard let current = withPathFacts(evaluation) else { break targets }
                    watched[index].emitted = current
                    core.refresh(index, evaluation: current, generation: generation)
                }
                continue
            }
            guard let current = withPathFacts(evaluation) else { break targets }
            let change = ReachabilityChange(target: item.target, evaluation: current, previous: item.emitted,
                                            isInitial: item.emitted == nil, timeNanoseconds: creach_monotonic_ns())
            watched[index].emitted = current
            watched[index].emittedKey = key
            changes.append((index, change))
        }
        core.updateCounters { $0.reevaluations += 1 }
        if !changes.isEmpty { core.publish(changes, generation: generation) }
        scheduleValidations()
        return changes.contains { !$0.change.isInitial }
    }

    /// Whether to hold back target `index`'s answer because it routes an
    /// address over a link that is down (see `evaluate`); if so, it is read
    /// again after the settle time.
    private func holdWhileLinkGoesDown(_ index: Int, _ evaluation: TargetEvaluation) -> Bool {
        guard evaluation.awaitsRouteFlush else {
            watched[index].heldSince = nil
            return false
        }
        let now = creach_monotonic_ns()
        let since = watched[index].heldSince ?? now
        // The kernel keeps such a route after all: it is the answer.
        guard now &- since < nanoseconds(core.configuration.maximumSettleTime) else { return false }
        watched[index].heldSince = since
        watched[index].recheckAt = now &+ max(nanoseconds(core.configuration.settleTime), 100_000)
        return true
    }

    /// The target's answer without path facts (`evaluate` adds them when it publishes).
    private func evaluateTarget(_ index: Int) -> TargetEvaluation {
        let item = watched[index]
        guard !item.addresses.isEmpty else {
            return TargetEvaluation(target: item.target, addresses: [], error: item.resolutionError)
        }
        // The answers go to a buffer kept between rounds: when nothing changed,
        // the evaluation built on it is dropped and the buffer is free again.
        var results = scratch
        scratch = []
        defer { scratch = results }
        results.removeAll(keepingCapacity: true)
        do {
            for address in item.addresses {
                results.append(try core.evaluator.evaluate(address, options: core.options))
            }
        } catch {
            if case .system = error {
                watched[index].retryAt = creach_monotonic_ns() &+ nanoseconds(core.configuration.retryInterval)
            }
            return TargetEvaluation(target: item.target, addresses: [], error: error)
        }
        // A validation verdict about the primary's output interface joins its answer.
        var validation: ProbeResult?
        let unvalidated = TargetEvaluation(target: item.target, addresses: results)
        if let verdict = item.validation, let primary = unvalidated.primary, primary.status.isReachable,
           primary.link?.index == verdict.interfaceIndex, let at = results.firstIndex(of: primary) {
            results[at] = core.evaluator.validated(primary, probe: verdict.verdict)
            validation = verdict.result
        }
        return TargetEvaluation(target: item.target, addresses: results, error: nil, isEvaluated: true,
                                availableInterfaces: [], supportsDNS: nil, validation: validation)
    }
}

extension TargetEvaluation {
    /// No error, and no address routed over a link that cannot carry packets
    /// now (see `MonitorLoop.evaluate(_:leadingEdge:)`).
    var isFinalOnLeadingEdge: Bool {
        error == nil && addresses.allSatisfy { $0.link?.isOperational ?? true }
    }

    /// An address is routed over a link that is administratively down: the
    /// kernel has not yet flushed the link's routes (it refuses new routes
    /// over a down link, and a lookup skips the nexthops it marked dead).
    var awaitsRouteFlush: Bool {
        addresses.contains { $0.link.map { !$0.isAdminUp } ?? false }
    }
}

/// What must differ for a change to be emitted: the status, flags,
/// interface, mask and accessibility of the target's primary address, and for each address family
/// whether it is reachable and by which interface (so the IPv6 half of
/// `internet` going away is a change, while a host name's addresses
/// rotating over the same interface is not).
///
/// The per-address part is compared as a set, straight from the answers the
/// key keeps (no set is built: the monitor's steady state allocates less).
struct ResultKey: Equatable {
    let status: ReachabilityStatus
    let flags: ReachabilityFlags
    let interfaceIndex: Int32?
    let interfaceName: String?
    let mask: ReachabilityMask
    let accessibility: Accessibility
    let addresses: [AddressEvaluation]
    let failed: Bool

    init(_ evaluation: TargetEvaluation) {
        status = evaluation.status
        flags = evaluation.flags
        interfaceIndex = evaluation.primary?.link?.index
        interfaceName = evaluation.primary?.link?.name
        mask = evaluation.mask
        accessibility = evaluation.accessibility
        addresses = evaluation.addresses
        failed = evaluation.error != nil
    }

    static func == (a: ResultKey, b: ResultKey) -> Bool {
        a.status == b.status && a.flags == b.flags && a.interfaceIndex == b.interfaceIndex
            && a.interfaceName == b.interfaceName && a.mask == b.mask && a.accessibility == b.accessibility
            && a.failed == b.failed && sameFamilies(a.addresses, b.addresses) && sameFamilies(b.addresses, a.addresses)
    }

    /// Every (family, reachable, interface) of `a` is one of `b`'s.
    private static func sameFamilies(_ a: [AddressEvaluation], _ b: [AddressEvaluation]) -> Bool {
        a.allSatisfy { x in
            b.contains { y in
                x.address.family == y.address.family && x.status.isReachable == y.status.isReachable
                    && x.link?.index == y.link?.index
            }
        }
    }
}

func nanoseconds(_ duration: Duration) -> UInt64 {
    let (seconds, attoseconds) = duration.components
    guard seconds >= 0 else { return 0 }
    return UInt64(clamping: seconds).multipliedReportingOverflow(by: 1_000_000_000).partialValue
        &+ UInt64(attoseconds / 1_000_000_000)
}
