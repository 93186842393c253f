#if canImport(Glibc)
internal import Glibc
#endif

/// The monitor's event thread: wait for kernel notifications (`KernelEvents`), for
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
        /// host names are resolved again.
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

    let core: MonitorCore
    /// The kernel's notifications (MonitorLoop+Events.swift).
    let source: any KernelEvents
    /// The simulation's ring behind `source`, nil on a real kernel.
    let subscriber: SimulationSubscriber?
    let generation: UInt64
    /// CLOCK_MONOTONIC, or the simulation's test clock.
    let clock: RuntimeClock
    var watched: [Watched]
    var deadlines: Deadlines
    /// `evaluateTarget`'s answers, reused from round to round (the steady state allocates nothing).
    var scratch: [AddressEvaluation] = []
    /// The namespace's path facts as last read (nil before the first read,
    /// or while every read failed); a failed read is tried again (`.pathFacts`).
    var pathFacts: ReachabilityEvaluator.PathFacts?
    /// Since when the path facts read show an interface coming up (nil: they
    /// do not): changes are held back for at most `maximumSettleTime` from then.
    var settlingSince: UInt64?

    init(core: MonitorCore, source: any KernelEvents, generation: UInt64) {
        self.core = core
        self.source = source
        subscriber = Self.subscriber(of: source)
        self.generation = generation
        clock = RuntimeClock(simulation: core.evaluator.namespace.simulation)
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
    func release() { Self.closeEvents(source, of: core.evaluator) }

    // MARK: The thread

    func run(wakeFD: Int32) {
        defer {
            // Lookups still queued behind the resolver threads' bound are of no use now.
            for item in watched { _ = item.name.lookUp?.cancel() }
            Self.closeEvents(source, of: core.evaluator)
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
            subscriber?.aboutToWait(busy: hasWorkInFlight, next: deadlines.next, timers: oneShotTimers())
            let ready = waitForEvents(source.fd, wake: wakeFD, timeoutNanoseconds: timeoutUntilNextDeadline())
            subscriber?.beginTurn()
            dirty = Dirty()
            if ready.wasWoken {
                Wakeup.clear(wakeFD)
            }
            if ready.failed || ready.isReadable {
                let burst = readBurst(failed: ready.failed)
                record(burst)
                merge(Dirty(burst), into: &dirty)
            }
            let reevaluation = core.takeReevaluationRequest()
            if reevaluation != nil {
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
                if dirty.network || dirty.links || dirty.v4 || dirty.v6 { core.kernelChanged() }
            }
            if let reevaluation { core.reevaluationApplied(reevaluation) }
        }
    }

    private func merge(_ other: Dirty, into dirty: inout Dirty) {
        dirty.v4 = dirty.v4 || other.v4
        dirty.v6 = dirty.v6 || other.v6
        dirty.network = dirty.network || other.network
        dirty.links = dirty.links || other.links
    }

    /// A burst's counts into the counters, its deletions into the evaluator's
    /// interface cache, a reopened socket into the core.
    private func record(_ burst: KernelEventBurst) {
        if burst.forgetAllLinks {
            core.evaluator.invalidateInterfaceCache()
        } else if !burst.deletedLinks.isEmpty {
            core.evaluator.forgetInterfaces(burst.deletedLinks)
        }
        core.updateCounters { counters in
            counters.events += burst.messages
            counters.overflows += burst.overflows
            counters.droppedMalformed += burst.malformed + burst.unreadable
            counters.droppedForeign += burst.foreign
            counters.ignoredEvents += burst.ignored
        }
        if burst.failed { recordSocketReopened() }
    }

    /// The event socket failed and was opened again, or will be (`reopenAt`):
    /// its port id (nil while closed), and once open, a recovery and its buffer.
    private func recordSocketReopened() {
        let open = source.fd >= 0
        let size = open ? source.receiveBufferSize : 0, port = source.portID
        core.shared.withLock { shared in
            shared.eventPortID = port
            if open {
                shared.counters.recoveries += 1
                shared.counters.receiveBufferSize = size
            }
        }
    }

    // MARK: Deadlines

    private func timeoutUntilNextDeadline() -> Int64 {
        if let subscriber { return subscriber.timeout(until: deadlines.next) }
        var next = deadlines.next
        if let reopenAt = source.reopenAt, next.map({ reopenAt < $0 }) ?? true { next = reopenAt }
        guard let next else { return -1 }
        let now = clock.now()
        return next > now ? Int64(clamping: next - now) : 0
    }

    /// A helper thread works for this one (a lookup, a validation probe):
    /// under a simulation, the loop is not idle until its answer is in.
    private var hasWorkInFlight: Bool {
        watched.contains { item in
            if case .inFlight = item.name.phase { return true }
            return item.validation.probing
        }
    }

    /// The timers whose firing would change an answer (a retry, a held
    /// answer's recheck, a lookup's timeout), for a simulation's `finish()`.
    /// Validation rounds and put-off lookups repeat what is known: not listed.
    private func oneShotTimers() -> [String] {
        var timers: [String] = []
        let now = clock.now()
        func line(_ name: String, _ due: UInt64, _ target: Target?) -> String {
            let left = (due &- min(due, now)) / 1_000_000
            return name + (target.map { " of \($0.description)" } ?? "") + " in \(left) ms"
        }
        for (index, item) in watched.enumerated() {
            if let due = deadlines[.retry, index] { timers.append(line("retry", due, item.target)) }
            if let due = deadlines[.recheck, index] { timers.append(line("recheck", due, item.target)) }
            if let due = deadlines[.resolveTimeout, index] { timers.append(line("resolveTimeout", due, item.target)) }
        }
        if let due = deadlines[.pathFacts, 0] { timers.append(line("pathFacts", due, nil)) }
        return timers
    }

    private func applyDeadlines(into dirty: inout Dirty) {
        let now = clock.now()
        if source.reopenIfDue(now: now) {
            core.evaluator.remembersThrowRoutes(true)
            recordSocketReopened()
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
            case .retry:
                dirty.targets.insert(index)
            case .recheck:
                // A held answer; held for an interface coming up: the path facts are read again too.
                dirty.targets.insert(index)
                if settlingSince != nil { dirty.pathFacts = true }
            case .validate:
                startValidation(index)
            case .pathFacts:
                dirty.pathFacts = true
            }
        }
    }
}
