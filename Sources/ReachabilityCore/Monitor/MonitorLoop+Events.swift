// The monitor's side of the kernel's events: which source a monitor listens
// to (chosen once, when it starts), what a burst of kernel facts means for
// its targets (`Dirty`), and what a notice read in the middle of a burst
// does (a leading edge, the evaluator's memory of throw routes). The event
// source itself (ReachabilityKernel's NetlinkEventSocket or
// SimulatedKernelEvents) knows nothing of monitors.

extension MonitorLoop {
    /// What made a burst be evaluated before it went quiet (`KernelEventNotice`).
    enum LeadingEdge {
        /// A link's own state change, or route messages in a burst that
        /// changed a link (its routes being flushed): any final answer is published.
        case link
        /// Route messages alone: only a path found is published at once (a
        /// route removed may be the first half of a replacement, so a path
        /// lost waits for the burst to go quiet).
        case route
    }

    /// The event source of a monitor of `core`'s targets: the namespace's
    /// netlink event socket, or its simulation's ring. Opened before the
    /// first evaluation, so that nothing that happens in between is missed;
    /// from then on the evaluator remembers which families have no `throw`
    /// route, since a `throw` route added is read here.
    /// - Throws: ``ReachabilityError`` when the socket or the ring cannot be opened.
    static func openEvents(for core: MonitorCore) throws(ReachabilityError) -> any KernelEvents {
        let evaluator = core.evaluator
        let source: any KernelEvents
        if let simulation = evaluator.namespace.engineSimulation {
            let owner = "monitor of " + core.targets.map { $0.description }.joined(separator: ", ")
            source = try SimulatedKernelEvents(simulation: simulation, owner: owner)
        } else {
            source = try NetlinkEventSocket(in: evaluator.handle, receiveBuffer: core.configuration.receiveBufferSize,
                                            retryInterval: core.configuration.retryInterval)
        }
        evaluator.remembersThrowRoutes(true)
        return source
    }

    /// The simulation's ring behind `source` (it is told when the thread is
    /// idle, so that `settled()` can return); nil on a real kernel.
    static func subscriber(of source: any KernelEvents) -> SimulationSubscriber? {
        (source as? SimulatedKernelEvents)?.subscriber
    }

    /// Closes `source`: no socket listens for `throw` routes any more.
    static func closeEvents(_ source: any KernelEvents, of evaluator: ReachabilityEvaluator) {
        evaluator.remembersThrowRoutes(false)
        source.close()
    }

    /// Drains the burst that made the event source readable (or, when the
    /// wait failed, fails the socket), handling its notices on the way.
    func readBurst(failed: Bool) -> KernelEventBurst {
        var burst = KernelEventBurst()
        if failed {
            source.fail(&burst) { handle($0) }
        } else {
            burst = source.drainBurst(settle: core.configuration.settleTime.clampedNanoseconds,
                                      limit: core.configuration.maximumSettleTime.clampedNanoseconds) { handle($0) }
        }
        return burst
    }

    /// A notice read before the burst ends.
    private func handle(_ notice: KernelEventNotice) {
        switch notice {
        case .linkChanged: leadingEdge(.link)
        case .routesChanged: leadingEdge(.route)
        case .throwRoutesMayHaveChanged: core.evaluator.forgetThrowRoutes()
        case let .listening(on): core.evaluator.remembersThrowRoutes(on)
        }
    }

    /// A link's own state change, or a route change, is evaluated as soon as
    /// it is read; `evaluate(_:edge:)` holds back any answer the rest of the
    /// burst may still change, and what it publishes reaches callbacks on
    /// this thread now, not once the burst has gone quiet.
    private func leadingEdge(_ edge: LeadingEdge) {
        var all = Dirty()
        all.markAll()
        evaluate(all, edge: edge)
        core.runInlineCallbacks()
        Self.edgeHook?(edge)
    }

    /// Test seam: called on the event thread after each leading edge's
    /// evaluation, before the burst reads on (what happens now is read in a
    /// drain of its own). Set only while no monitor runs but the test's.
    package nonisolated(unsafe) static var edgeHook: (@Sendable (LeadingEdge) -> Void)?
    /// Test seam: called on the event thread right after a round read the
    /// path facts, before it asks for the targets (a link may change between
    /// the two), with whether the round is a leading edge's. Set only while
    /// no monitor runs but the test's.
    package nonisolated(unsafe) static var pathFactsHook: (@Sendable (_ leadingEdge: Bool) -> Void)?
}

extension MonitorLoop.Dirty {
    /// What a burst of kernel facts may have changed for the targets. Lost
    /// events (or a failed socket) may hide anything: every target, the
    /// links and the network. A link or a nexthop object touches both
    /// families; an address, route or rule its own family; links, addresses
    /// and rules change the network a name resolves in; links change the
    /// interfaces that can carry packets (NWPath's `availableInterfaces`).
    init(_ burst: KernelEventBurst) {
        self.init()
        let lost = burst.eventsLost
        if burst.linksChanged || burst.nexthopsChanged || lost { markAll() }
        if burst.addressesChanged4 || burst.routesChanged4 || burst.rulesChanged4 { v4 = true }
        if burst.addressesChanged6 || burst.routesChanged6 || burst.rulesChanged6 { v6 = true }
        network = burst.linksChanged || burst.addressesChanged4 || burst.addressesChanged6
            || burst.rulesChanged4 || burst.rulesChanged6 || lost
        links = burst.linksChanged || lost
    }
}
