#if canImport(Glibc)
internal import Glibc
#endif

// How the event thread turns a target's addresses into its published answer
// (see `MonitorLoop`).
extension MonitorLoop {
    // MARK: Evaluation

    /// Evaluates the dirty targets and publishes those whose result differs.
    /// Returns whether anything was published that is not an initial state.
    ///
    /// The steady state (a notification that changes no answer) reads only
    /// what the flags need: the namespace's path facts (interfaces, name
    /// servers: two dumps, which allocate) are read once a round, when a
    /// link changed or a target's answer is published; a change of them
    /// alone (an interface joining or leaving `availableInterfaces`, a name
    /// server reachable or not any more) is a change of every target. Address
    /// and route notifications (an IPv6 address finishing DAD, a route added)
    /// do not read them unless an answer changes.
    ///
    /// The kernel sends a link's RTM_NEWLINK before it acts on the change: an
    /// interface set down keeps its routes until the NETDEV_DOWN notifiers
    /// flush them, and a tun device loses IFF_LOWER_UP a millisecond before
    /// its operstate follows. An answer read in between is a moment of that
    /// sequence, not a state, so:
    /// - on a burst's leading edge (`edge`: a link's state change, or route
    ///   messages), an answer is published only when no address is routed
    ///   over a link that cannot carry packets now; the others wait for the
    ///   evaluation after the burst. Nothing is published there while an
    ///   interface is coming up (carrier, operstate not yet):
    ///   `availableInterfaces` may be about to gain it. On an edge of route
    ///   messages alone (`.route`), only a reachable answer is: a route
    ///   removed may be the first half of a replacement (a daemon's delete
    ///   and add), so a path lost waits for the burst to go quiet, while a
    ///   path found (a default route replaced or added) is one now;
    /// - an answer with a route over a link that is administratively down
    ///   (which the kernel is about to flush) is held back and read again
    ///   shortly, for at most `maximumSettleTime`;
    /// - a change read while an interface is coming up (carrier, its
    ///   operstate not yet followed: the kernel's link watch sends that in a
    ///   message of its own, milliseconds later under load) is held back the
    ///   same way (`holdWhileInterfaceComesUp`), so that a link coming up is
    ///   one change, not `[va]` and then `[va, vb]`, nor a moment of not
    ///   reachable on the link itself.
    @discardableResult
    func evaluate(_ dirty: Dirty, edge: LeadingEdge? = nil) -> Bool {
        let leadingEdge = edge != nil
        var changes: [(index: Int, change: ReachabilityChange)] = []
        /// The path facts read this round, when they were.
        var fresh: ReachabilityEvaluator.PathFacts?
        /// The round's path facts, read at most once (twice: `factsMiss`).
        func roundFacts() -> ReachabilityEvaluator.PathFacts {
            if let fresh { return fresh }
            let facts = readPathFacts()
            fresh = facts
            Self.pathFactsHook?(leadingEdge)
            return facts
        }
        var factsReadAgain = false
        if (dirty.links || dirty.pathFacts) && watched.contains(where: { $0.emitted != nil }) { _ = roundFacts() }
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
            if edge == .route && !evaluation.status.isReachable { continue }
            if holdWhileLinkGoesDown(index, item, evaluation) { continue }
            let key = ResultKey(evaluation)
            // The same answer over another set of interfaces is a change (NWPath's).
            var sameAnswer = key == item.emittedKey && !factsMoved
            // The same answer with a newer probe result: current, but no change.
            if sameAnswer && evaluation.validation == item.emitted?.validation { continue }
            var facts = roundFacts()
            // Read before this target's lookups, the facts may miss a link that
            // came up in between (its carrier and operstate came after them):
            // an answer over that link with an older set of interfaces is no
            // state the network was in. Read once more, then they are newer,
            // and whether they moved is asked of them.
            if !factsReadAgain && Self.factsMiss(evaluation, facts) {
                factsReadAgain = true
                fresh = readPathFacts()
                facts = fresh!
                sameAnswer = key == item.emittedKey && item.facts.map { Self.samePathFacts($0, facts) } ?? false
                if sameAnswer && evaluation.validation == item.emitted?.validation { continue }
            }
            if leadingEdge && facts.isSettling { break targets }
            if holdWhileInterfaceComesUp(index, item, facts, evaluation) { continue }
            let current = Self.evaluation(evaluation, with: facts)
            let previous = item.emitted
            watched[index].emitted = current
            watched[index].facts = facts
            if sameAnswer {
                core.refresh(index, evaluation: current, generation: generation)
                continue
            }
            watched[index].emittedKey = key
            changes.append((index, ReachabilityChange(target: item.target, evaluation: current, previous: previous,
                                                      isInitial: previous == nil, time: clock.instant)))
        }
        core.updateCounters { $0.reevaluations += 1 }
        if !changes.isEmpty { core.publish(changes, generation: generation) }
        scheduleValidations()
        return changes.contains { !$0.change.isInitial }
    }

    /// Reads the path facts. A read that fails is tried again after the
    /// retry interval; meanwhile the facts last read stand (none: empty).
    func readPathFacts() -> ReachabilityEvaluator.PathFacts {
        do {
            let facts = try core.evaluator.pathFacts()
            pathFacts = facts
            if !facts.isSettling { settlingSince = nil }
            deadlines.clear(.pathFacts, 0)
            return facts
        } catch {
            if deadlines[.pathFacts, 0] == nil {
                deadlines[.pathFacts, 0] = clock.now() &+ core.configuration.retryInterval.clampedNanoseconds
            }
            return pathFacts ?? .init(interfaces: [], supportsDNS: false)
        }
    }

    /// Whether an address answer leaves by an operational link (not loopback)
    /// that `facts` do not list: the facts are older than the answer.
    static func factsMiss(_ evaluation: TargetEvaluation, _ facts: ReachabilityEvaluator.PathFacts) -> Bool {
        evaluation.addresses.contains { answer in
            guard let link = answer.link, link.isOperational, answer.interfaceKind != .loopback else { return false }
            return !facts.interfaces.contains { $0.index == link.index }
        }
    }

    /// The same interfaces and name-server reachability (whether an
    /// interface is still coming up is not a fact of the answer).
    static func samePathFacts(_ a: ReachabilityEvaluator.PathFacts, _ b: ReachabilityEvaluator.PathFacts) -> Bool {
        a.supportsDNS == b.supportsDNS && a.interfaces == b.interfaces
    }

    /// `evaluation` (from `evaluateTarget`) with the round's path facts. Out
    /// of line: inlined into `evaluate` it costs more code (the firmware budget).
    @inline(never)
    static func evaluation(_ evaluation: TargetEvaluation,
                                   with facts: ReachabilityEvaluator.PathFacts) -> TargetEvaluation {
        TargetEvaluation(target: evaluation.target, addresses: evaluation.addresses, error: evaluation.error,
                         pathFacts: facts, validation: evaluation.validation)
    }

    /// Whether to hold back target `index`'s (`item`'s) answer because it routes an
    /// address over a link that is down (see `evaluate`); if so, it is read
    /// again after the settle time.
    func holdWhileLinkGoesDown(_ index: Int, _ item: Watched, _ evaluation: TargetEvaluation) -> Bool {
        guard evaluation.awaitsRouteFlush else {
            item.heldSince = nil
            return false
        }
        let now = clock.now()
        let since = item.heldSince ?? now
        // The kernel keeps such a route after all: it is the answer.
        guard now &- since < core.configuration.maximumSettleTime.clampedNanoseconds else { return false }
        item.heldSince = since
        deadlines[.recheck, index] = now &+ max(core.configuration.settleTime.clampedNanoseconds, 100_000)
        return true
    }

    /// Whether to hold back target `index`'s change because an interface is
    /// coming up in the round's `facts`, or the answer's own link is (see
    /// `evaluate`); if so, it is read again, with the path facts, after the
    /// settle time. The answer is asked too because the facts may be older:
    /// a round reads them before its targets' answers, and a link that
    /// starts coming up in between is in the answer only (a moment that
    /// qemu-user's slow round made long enough for MonitorTests to see). An
    /// initial state is never held. An interface that stays so for longer
    /// than `maximumSettleTime` (counted from the first round that saw it,
    /// for every target) is in that state, not on its way: answers are published.
    func holdWhileInterfaceComesUp(_ index: Int, _ item: Watched, _ facts: ReachabilityEvaluator.PathFacts,
                                   _ evaluation: TargetEvaluation) -> Bool {
        guard item.emitted != nil,
              facts.isSettling || evaluation.addresses.contains(where: { $0.link?.isComingUp == true }) else { return false }
        let now = clock.now()
        let since = settlingSince ?? now
        guard now &- since < core.configuration.maximumSettleTime.clampedNanoseconds else { return false }
        settlingSince = since
        deadlines[.recheck, index] = now &+ max(core.configuration.settleTime.clampedNanoseconds, 100_000)
        return true
    }

    /// The target's answer without path facts (`evaluate` adds them when it publishes).
    func evaluateTarget(_ index: Int) -> TargetEvaluation {
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
                deadlines[.retry, index] = clock.now() &+ core.configuration.retryInterval.clampedNanoseconds
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
    /// now (see `MonitorLoop.evaluate(_:edge:)`).
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
/// interface, route type, mask and accessibility of the target's primary
/// address, the validation verdict (the first one included), and for each address family
/// whether it is reachable, by which interface and by which route type (so the IPv6 half of
/// `internet` going away is a change, while a host name's addresses
/// rotating over the same interface is not). The route's type says why a
/// target is not reachable (`blackhole` → `unreachable` is a change); the
/// next hop, source and table do not make a change on their own.
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
    let route: RouteVerdict?
    let verdict: ProbeVerdict?
    let addresses: [AddressEvaluation]
    let failed: Bool

    init(_ evaluation: TargetEvaluation) {
        status = evaluation.status
        flags = evaluation.flags
        interfaceIndex = evaluation.primary?.link?.index
        interfaceName = evaluation.primary?.link?.name
        mask = evaluation.mask
        accessibility = evaluation.accessibility
        route = evaluation.primary?.route.verdict
        verdict = evaluation.validation?.verdict
        addresses = evaluation.addresses
        failed = evaluation.error != nil
    }

    static func == (a: ResultKey, b: ResultKey) -> Bool {
        a.status == b.status && a.flags == b.flags && a.interfaceIndex == b.interfaceIndex
            && a.interfaceName == b.interfaceName && a.mask == b.mask && a.accessibility == b.accessibility
            && a.route == b.route && a.verdict == b.verdict && a.failed == b.failed && sameFamilies(a.addresses, b.addresses) && sameFamilies(b.addresses, a.addresses)
    }

    /// Every (family, reachable, interface, route type) of `a` is one of `b`'s.
    static func sameFamilies(_ a: [AddressEvaluation], _ b: [AddressEvaluation]) -> Bool {
        a.allSatisfy { x in
            b.contains { y in
                x.address.family == y.address.family && x.status.isReachable == y.status.isReachable
                    && x.link?.index == y.link?.index && x.route.verdict == y.route.verdict
            }
        }
    }
}
