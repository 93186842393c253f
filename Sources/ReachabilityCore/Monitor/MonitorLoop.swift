internal import CReachability
#if canImport(Glibc)
import Glibc
#endif

/// The monitor's event thread: wait for notifications (`EventSource`), for
/// answers of its helper threads (resolvers, validation probes) and for its
/// deadlines; evaluate the targets a turn may have changed; publish what
/// changed (`MonitorCore.publish`).
///
/// Everything here belongs to that one thread (the core hands it over in
/// `start()` and never touches it again), hence `@unchecked Sendable`.
final class MonitorLoop: @unchecked Sendable {
    /// Which targets a turn may have changed.
    struct Dirty {
        var v4 = false
        var v6 = false
        /// Targets to evaluate whatever their families (a new resolution, a retry).
        var targets: Set<Int> = []
        /// Something about links, addresses or rules happened, or events were lost:
        /// host names are resolved again, and the path facts read again.
        var network = false
        /// A link changed: the interfaces that can carry packets may differ.
        var links = false
        /// Read the path facts again (the last read failed).
        var pathFacts = false

        /// Every target is evaluated again (a link changed, events were lost).
        mutating func markAll() { v4 = true; v6 = true }
        var isEmpty: Bool { !v4 && !v6 && targets.isEmpty && !pathFacts }
    }

    /// A host name's lookups: whether one runs, and whether the name has an
    /// answer the target can be evaluated with.
    struct NameLookup {
        enum Phase {
            case idle
            /// A lookup runs; `again`: another was asked for meanwhile.
            case inFlight(again: Bool)
            /// Put off until `minimumResolveInterval` has passed since the last
            /// start (the `.resolveStart` deadline).
            case deferred
        }
        var phase: Phase = .idle
        /// The lookup started last: cancelled at stop while it still waits for a resolver thread.
        var lookUp: HostResolver.LookUp?
        var lastStart: UInt64?
        /// A first answer, or a timeout, exists: the target is evaluated from now on.
        var settled = false
        var error: ReachabilityError?
    }

    /// What validation knows of a target (when the monitor validates).
    struct ValidationState {
        /// The latest verdict and the output interface it was found on.
        var verdict: (verdict: ProbeVerdict, result: ProbeResult?, interfaceIndex: Int32)?
        /// A probe runs (the `.validate` deadline schedules the next one).
        var probing = false
    }

    /// One target's state: a class, so the loop changes it in place (and the
    /// binary carries no value witnesses for its fields). Its timers are in
    /// the loop's one `Deadlines`.
    final class Watched {
        let target: Target
        var addresses: [IPAddress]
        /// The last state published, nil before the initial one, and what it was compared by.
        var emitted: TargetEvaluation?
        var emittedKey: ResultKey?
        /// The path facts `emitted` carries, as read.
        var facts: ReachabilityEvaluator.PathFacts?
        /// Host names only.
        var name = NameLookup()
        var validation = ValidationState()
        /// Since when the answer is held back while the kernel flushes the
        /// routes of a link set down (`holdWhileLinkGoesDown`); nil when not held.
        var heldSince: UInt64?

        init(target: Target, addresses: [IPAddress]) {
            self.target = target
            self.addresses = addresses
        }

        /// Evaluated at all: a host name needs a first answer (or a timeout).
        var isEvaluable: Bool {
            if case .host = target { return name.settled }
            return true
        }
    }

    private let core: MonitorCore
    private let source: EventSource
    private let generation: UInt64
    private var watched: [Watched]
    private var deadlines: Deadlines
    /// `evaluateTarget`'s answers, reused from round to round (the steady state allocates nothing).
    private var scratch: [AddressEvaluation] = []
    /// The namespace's path facts as last read (nil before the first read,
    /// or while every read failed); a failed read is tried again (`.pathFacts`).
    private var pathFacts: ReachabilityEvaluator.PathFacts?

    init(core: MonitorCore, source: EventSource, generation: UInt64) {
        self.core = core
        self.source = source
        self.generation = generation
        watched = core.targets.map { target in
            switch target {
            case let .address(address): return Watched(target: target, addresses: [address])
            case .internet: return Watched(target: target, addresses: Target.internetProbeAddresses)
            case .host: return Watched(target: target, addresses: [])
            }
        }
        deadlines = Deadlines(targets: core.targets.count)
    }

    /// Frees what `init` took when the thread could not be started.
    func release() { source.close() }

    // MARK: The thread

    func run(wakeFD: Int32) {
        defer {
            // Lookups still queued behind the resolver threads' bound are of no use now.
            for item in watched { _ = item.name.lookUp?.cancel() }
            source.close()
            core.eventThreadFinished()
        }
        // Initial states: addresses and the internet now, host names when resolved.
        var dirty = Dirty()
        dirty.markAll()
        dirty.links = true
        for index in watched.indices { startResolution(index) }   // host names only
        evaluate(dirty)

        while !core.stopRequested {
            core.runInlineCallbacks()
            if core.stopRequested { break }
            let ready = creach_wait(source.fd, wakeFD, timeoutUntilNextDeadline())
            dirty = Dirty()
            if ready > 0 && Int32(ready) & CREACH_WAIT_WAKEUP != 0 {
                creach_wakeup_clear(wakeFD)
            }
            if ready < 0 || (ready > 0 && Int32(ready) & CREACH_WAIT_NETLINK != 0) {
                var burst = EventSource.Burst()
                if ready < 0 {
                    source.fail(&burst)
                } else {
                    burst = source.drainBurst { leadingEdge() }
                }
                record(burst)
                merge(burst.dirty, into: &dirty)
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

    /// A burst that opens with a link's own state change is evaluated at once;
    /// `evaluate(_:leadingEdge:)` holds back any answer the rest of the burst
    /// may still change, and what it publishes reaches callbacks on this
    /// thread now, not once the burst has gone quiet.
    private func leadingEdge() {
        var all = Dirty()
        all.markAll()
        evaluate(all, leadingEdge: true)
        core.runInlineCallbacks()
    }

    private func merge(_ other: Dirty, into dirty: inout Dirty) {
        dirty.v4 = dirty.v4 || other.v4
        dirty.v6 = dirty.v6 || other.v6
        dirty.network = dirty.network || other.network
        dirty.links = dirty.links || other.links
    }

    /// A burst's counts into the counters, its deletions into the evaluator's
    /// interface cache, a reopened socket into the core.
    private func record(_ burst: EventSource.Burst) {
        if burst.forgetAllLinks {
            core.evaluator.invalidateInterfaceCache()
        } else if !burst.deletedLinks.isEmpty {
            core.evaluator.forgetInterfaces(burst.deletedLinks)
        }
        let reopened = burst.failed && source.fd >= 0
        let size = reopened ? source.receiveBufferSize : 0, port = source.portID
        core.shared.withLock { shared in
            shared.counters.events += burst.messages
            shared.counters.overflows += burst.overflows
            shared.counters.droppedMalformed += burst.malformed + burst.unreadable
            shared.counters.droppedForeign += burst.foreign
            shared.counters.ignoredEvents += burst.ignored
            if burst.failed { shared.eventPortID = port }
            if reopened {
                shared.counters.recoveries += 1
                shared.counters.receiveBufferSize = size
            }
        }
    }

    // MARK: Deadlines

    private func timeoutUntilNextDeadline() -> Int64 {
        var next = deadlines.next
        if let reopenAt = source.reopenAt, next.map({ reopenAt < $0 }) ?? true { next = reopenAt }
        guard let next else { return -1 }
        let now = creach_monotonic_ns()
        return next > now ? Int64(clamping: next - now) : 0
    }

    private func applyDeadlines(into dirty: inout Dirty) {
        let now = creach_monotonic_ns()
        if source.reopenIfDue(now: now) {
            let size = source.receiveBufferSize, port = source.portID
            core.shared.withLock { shared in
                shared.counters.recoveries += 1
                shared.counters.receiveBufferSize = size
                shared.eventPortID = port
            }
            dirty.markAll()
            dirty.network = true
            dirty.links = true
        }
        while let (kind, index) = deadlines.takeDue(now: now) {
            switch kind {
            case .resolveTimeout:
                if !watched[index].name.settled, case let .host(name) = watched[index].target {
                    watched[index].name.settled = true
                    watched[index].name.error = .resolutionTimedOut(host: name)
                    dirty.targets.insert(index)
                }
            case .resolveStart:
                watched[index].name.phase = .idle
                startResolution(index)
            case .retry, .recheck:
                dirty.targets.insert(index)
            case .validate:
                startValidation(index)
            case .pathFacts:
                dirty.pathFacts = true
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
                watched[index].validation.verdict = nil
                deadlines.clear(.validate, index)
                continue
            }
            let validatedHere = watched[index].validation.verdict?.interfaceIndex == interface
            if !validatedHere && !watched[index].validation.probing && deadlines[.validate, index] == nil {
                startValidation(index)
            }
        }
    }

    /// Sends the configured probe for target `index` through its output
    /// interface, on a thread of its own; the answer comes back through the core.
    private func startValidation(_ index: Int) {
        guard let validation = core.configuration.validation, let probe = core.probe, !watched[index].validation.probing,
              let evaluation = watched[index].emitted, evaluation.isReachable,
              let primary = evaluation.primary, let link = primary.link else { return }
        watched[index].validation.probing = true
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
            watched[index].validation.probing = false
            // Meanwhile the target may have moved or gone: a verdict about another
            // interface is dropped (the next round validates the new one).
            guard watched[index].emitted?.primary?.link?.index == answer.interfaceIndex else { continue }
            watched[index].validation.verdict = (answer.verdict, answer.result, answer.interfaceIndex)
            deadlines[.validate, index] = now &+ nanoseconds(core.configuration.validationInterval)
            core.updateCounters { $0.validations += 1 }
            dirty.targets.insert(index)
        }
    }

    // MARK: Host names

    private func startResolution(_ index: Int) {
        guard case let .host(name) = watched[index].target else { return }
        switch watched[index].name.phase {
        case .inFlight:
            watched[index].name.phase = .inFlight(again: true)
            return
        case .deferred:
            core.updateCounters { $0.deferredResolutions += 1 }
            return
        case .idle:
            break
        }
        // A name is looked up at most once per minimumResolveInterval: a link
        // that flaps asks again and again, and one lookup after it settles answers them all.
        let now = creach_monotonic_ns()
        let interval = nanoseconds(core.configuration.minimumResolveInterval)
        if let last = watched[index].name.lastStart, now &- last < interval {
            watched[index].name.phase = .deferred
            deadlines[.resolveStart, index] = last &+ interval
            core.updateCounters { $0.deferredResolutions += 1 }
            return
        }
        watched[index].name.lastStart = now
        watched[index].name.phase = .inFlight(again: false)
        deadlines[.resolveTimeout, index] = now &+ nanoseconds(core.configuration.resolveTimeout)
        core.updateCounters { $0.resolutions += 1 }
        let core = self.core, generation = self.generation
        do {
            // The thread holds the namespace handle, so the namespace it enters stays open until it is done.
            watched[index].name.lookUp = try HostResolver.startLookUp(name, in: core.evaluator.namespaceHandle) { result in
                core.post(MonitorCore.Resolution(generation: generation, targetIndex: index, result: result))
            }
        } catch {
            core.post(MonitorCore.Resolution(generation: generation, targetIndex: index, result: .failure(error)))
        }
    }

    private func applyResolutions(into dirty: inout Dirty) {
        for resolution in core.takeResolutions() where resolution.generation == generation {
            let index = resolution.targetIndex
            var again = false
            if case let .inFlight(asked) = watched[index].name.phase { again = asked }
            watched[index].name.phase = .idle
            watched[index].name.settled = true
            deadlines.clear(.resolveTimeout, index)
            switch resolution.result {
            case let .success(addresses):
                watched[index].addresses = addresses
                watched[index].name.error = nil
            case let .failure(error):
                // A name that resolved before keeps its addresses: their
                // routes are still facts, and a resolver that fails while the
                // network changes should not hide them.
                if watched[index].addresses.isEmpty { watched[index].name.error = error }
            }
            dirty.targets.insert(index)
            if again { startResolution(index) }
        }
    }

    // MARK: Evaluation

    /// Evaluates the dirty targets and publishes those whose result differs.
    /// Returns whether anything was published that is not an initial state.
    ///
    /// The steady state (a notification that changes no answer) reads only
    /// what the flags need: the namespace's path facts (interfaces, name
    /// servers: two dumps) are read once a round, when links, addresses or
    /// rules changed or a target's answer is published; a change of them
    /// alone (an interface joining or leaving `availableInterfaces`, a name
    /// server becoming reachable) is a change of every target.
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
        /// The path facts read this round, when they were.
        var fresh: ReachabilityEvaluator.PathFacts?
        func readPathFacts() -> ReachabilityEvaluator.PathFacts {
            if let fresh { return fresh }
            let facts = self.readPathFacts()
            fresh = facts
            return facts
        }
        if (dirty.network || dirty.pathFacts) && watched.contains(where: { $0.emitted != nil }) { _ = readPathFacts() }
        if leadingEdge && fresh?.isSettling == true { return false }
        targets: for index in watched.indices {
            let item = watched[index]
            guard item.isEvaluable else { continue }
            let touched = dirty.targets.contains(index) || item.emitted == nil
                || item.addresses.contains { $0.family == .v4 ? dirty.v4 : dirty.v6 }
            let factsMoved = item.facts.map { published in fresh.map { !Self.samePathFacts(published, $0) } ?? false } ?? false
            guard touched || factsMoved else { continue }
            let evaluation = evaluateTarget(index)
            if leadingEdge && !evaluation.isFinalOnLeadingEdge { continue }
            if holdWhileLinkGoesDown(index, evaluation) { continue }
            let key = ResultKey(evaluation)
            if key == item.emittedKey {
                if factsMoved {
                    // The same answer over another set of interfaces: a change (NWPath's).
                } else if evaluation.validation != item.emitted?.validation {
                    // The same answer with a newer probe result: current, but no change.
                    let facts = readPathFacts()
                    if leadingEdge && facts.isSettling { break targets }
                    let current = Self.evaluation(evaluation, with: facts)
                    watched[index].emitted = current
                    watched[index].facts = facts
                    core.refresh(index, evaluation: current, generation: generation)
                    continue
                } else {
                    continue
                }
            }
            let facts = readPathFacts()
            if leadingEdge && facts.isSettling { break targets }
            let current = Self.evaluation(evaluation, with: facts)
            let change = ReachabilityChange(target: item.target, evaluation: current, previous: item.emitted,
                                            isInitial: item.emitted == nil, timeNanoseconds: creach_monotonic_ns())
            watched[index].emitted = current
            watched[index].emittedKey = key
            watched[index].facts = facts
            changes.append((index, change))
        }
        core.updateCounters { $0.reevaluations += 1 }
        if !changes.isEmpty { core.publish(changes, generation: generation) }
        scheduleValidations()
        return changes.contains { !$0.change.isInitial }
    }

    /// Reads the path facts. A read that fails is tried again after the
    /// retry interval; meanwhile the facts last read stand (none: empty).
    private func readPathFacts() -> ReachabilityEvaluator.PathFacts {
        do {
            let facts = try core.evaluator.pathFacts()
            pathFacts = facts
            deadlines.clear(.pathFacts, 0)
            return facts
        } catch {
            if deadlines[.pathFacts, 0] == nil {
                deadlines[.pathFacts, 0] = creach_monotonic_ns() &+ nanoseconds(core.configuration.retryInterval)
            }
            return pathFacts ?? .init(interfaces: [], supportsDNS: false)
        }
    }

    /// The same interfaces and name-server reachability (whether an
    /// interface is still coming up is not a fact of the answer).
    private static func samePathFacts(_ a: ReachabilityEvaluator.PathFacts, _ b: ReachabilityEvaluator.PathFacts) -> Bool {
        a.supportsDNS == b.supportsDNS && a.interfaces == b.interfaces
    }

    /// `evaluation` (from `evaluateTarget`) with the round's path facts.
    private static func evaluation(_ evaluation: TargetEvaluation,
                                   with facts: ReachabilityEvaluator.PathFacts) -> TargetEvaluation {
        TargetEvaluation(target: evaluation.target, addresses: evaluation.addresses, error: evaluation.error,
                         pathFacts: facts, validation: evaluation.validation)
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
        deadlines[.recheck, index] = now &+ max(nanoseconds(core.configuration.settleTime), 100_000)
        return true
    }

    /// The target's answer without path facts (`evaluate` adds them when it publishes).
    private func evaluateTarget(_ index: Int) -> TargetEvaluation {
        let item = watched[index]
        guard !item.addresses.isEmpty else {
            return TargetEvaluation(target: item.target, addresses: [], error: item.name.error)
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
                deadlines[.retry, index] = creach_monotonic_ns() &+ nanoseconds(core.configuration.retryInterval)
            }
            return TargetEvaluation(target: item.target, addresses: [], error: error)
        }
        // A validation verdict about the primary's output interface joins its answer.
        var validation: ProbeResult?
        let unvalidated = TargetEvaluation(target: item.target, addresses: results)
        if let verdict = item.validation.verdict, let primary = unvalidated.primary, primary.status.isReachable,
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
