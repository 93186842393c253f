// The other side of the seam: a kernel held in memory (ReachabilityTesting's
// SimulatedNetwork). Where a namespace is `.simulated`, the evaluator asks
// it the questions it asks RouteSocket, the monitor and trackers take their
// notifications and their clock from it, probes and host names are answered
// by it. Everything above this seam (the decision tables, the monitor's
// rounds, validation, the tracker's score, delivery to observers) is the
// code that runs on a real kernel (Architecture, "Testing").

#if canImport(Glibc)
internal import Glibc
#endif

/// What a simulated kernel answers. Implemented by ReachabilityTesting; the
/// engine only calls it. Calls come from any thread, never with a lock of
/// the simulation held by the engine's caller, and it never calls back into
/// the engine while holding its own lock.
package protocol KernelSimulation: AnyObject, Sendable {
    /// For descriptions: `simulated:NAME`.
    var name: String { get }

    // The evaluator's questions (RouteSocket's, answered from facts).
    func dumpLinks() -> [LinkState]
    func dumpAddresses() -> [InterfaceAddress]
    func link(index: Int32) -> LinkState?
    func interfaceIndex(named name: String) -> Int32?
    /// The FIB's answer, as `RTM_GETROUTE` gives it for these options.
    func lookupRoute(_ address: IPAddress, options: LookupOptions) throws(ReachabilityError) -> RouteLookup
    /// What sysfs would tell of `link` (its kind's facts).
    func interfaceFacts(of link: LinkState) -> InterfaceFacts
    /// The namespace's resolv.conf `nameserver` lines.
    func nameServers() -> [IPAddress]
    /// What getaddrinfo would answer in the namespace.
    func resolve(_ host: String) throws(ReachabilityError) -> [IPAddress]
    /// What a probe would get back (at once: the simulation's time does not pass while it probes).
    func probe(_ address: IPAddress, method: ProbeMethod, options: ProbeOptions) throws(ReachabilityError) -> ProbeResult

    /// The policy evaluators follow when they follow the process's default.
    var policy: ReachabilityPolicy { get }
    /// The radio source evaluators use when they were given `RadioSource.processDefault`.
    var radio: RadioSource { get }

    /// The test clock, in nanoseconds (a `MonotonicInstant`'s scale).
    var nanoseconds: UInt64 { get }

    /// A monitor or a tracker starts or ends listening.
    func attach(_ subscriber: SimulationSubscriber)
    func detach(_ subscriber: SimulationSubscriber)
    /// A subscriber went idle: `settled()` may be able to return.
    func subscriberWentIdle()
    /// Work for an observer was queued on a delivery queue / ran there.
    func deliveryQueued()
    func deliveryRan()
}

/// A simulated kernel, as a namespace names it (`NetworkNamespace.simulated`).
/// Two are equal when they are the same simulation.
public struct SimulatedKernel: Hashable, Sendable, CustomStringConvertible {
    package let backend: any KernelSimulation

    package init(_ backend: any KernelSimulation) { self.backend = backend }

    public static func == (lhs: SimulatedKernel, rhs: SimulatedKernel) -> Bool { lhs.backend === rhs.backend }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(backend)) }
    /// `simulated:NAME`.
    public var description: String { "simulated:\(backend.name)" }
}

#if REACH_NO_SIMULATION
/// A firmware build's stand-in (`-DREACH_NO_SIMULATION`): no namespace is
/// simulated there, so no subscriber exists and every call below is dead code
/// the optimizer removes with its branch.
package final class SimulationSubscriber: Sendable {
    package struct State: Sendable {
        package var idle = true
        package var timers: [String] = []
        package var nextDeadline: UInt64?
    }
    package let owner = ""
    let fd: Int32 = -1
    let undelivered = Locked<(@Sendable () -> [String])?>(nil)
    init(owner: String, simulation: any KernelSimulation) throws(ReachabilityError) {}
    func close() {}
    package func factsChanged() {}
    package func clockMoved() {}
    func markBusy() {}
    func beginTurn() {}
    package var snapshot: State { State() }
    package func undeliveredChanges() -> [String] { [] }
    func takeFactsChanged() -> Bool { false }
    func aboutToWait(busy: Bool, next: UInt64?, timers: @autoclosure () -> [String]) {}
    func timeout(until deadline: UInt64?) -> Int64 { -1 }
}

/// CLOCK_MONOTONIC: nothing else in a firmware build.
struct RuntimeClock: Sendable {
    init(simulation: (any KernelSimulation)?) {}
    var simulation: (any KernelSimulation)? { nil }
    @inline(__always)
    func now() -> UInt64 { monotonicNanoseconds() }
    var instant: MonotonicInstant { MonotonicInstant(nanoseconds: now()) }
}
#else
/// One listener of a simulation: a monitor's event thread or a tracker's
/// round thread. The simulation rings it (an eventfd the thread polls, as it
/// polls a netlink socket) when facts changed or its clock moved; the thread
/// says when it has done everything that caused, so `settled()` can return.
package final class SimulationSubscriber: Sendable {
    package struct State: Sendable {
        /// Facts changed since the thread last took them.
        package var factsChanged = false
        /// Rung (facts, the clock, work queued for the thread) since its turn began.
        package var rung = false
        /// The thread has nothing left to do: no notification, no helper
        /// thread working for it, no timer due.
        package var idle = false
        /// One-shot timers it holds (for `finish()`), as text.
        package var timers: [String] = []
        /// Its earliest timer on the test clock, nil for none (`advance(by:)` stops there).
        package var nextDeadline: UInt64?
    }

    /// What it is, for `finish()`'s report: "monitor of internet", "tracker of wan0".
    package let owner: String
    /// The eventfd the thread polls.
    let fd: Int32
    let state: Locked<State>
    let simulation: any KernelSimulation
    /// What its observers have not taken yet, as text (for `finish()`); set by its monitor.
    let undelivered = Locked<(@Sendable () -> [String])?>(nil)

    init(owner: String, simulation: any KernelSimulation) throws(ReachabilityError) {
        self.owner = owner
        self.simulation = simulation
        let fd = Wakeup.open()
        guard fd >= 0 else { throw .system(operation: "eventfd", errno: .current) }
        self.fd = fd
        state = Locked(State())
        simulation.attach(self)
    }

    /// Stops listening (the thread's end).
    func close() {
        simulation.detach(self)
        _ = Glibc.close(fd)
    }

    /// Facts changed: the thread takes them at its next turn.
    package func factsChanged() {
        state.withLock { $0.factsChanged = true; $0.rung = true; $0.idle = false }
        Wakeup.signal(fd)
    }

    /// The clock moved: the thread looks at its timers.
    package func clockMoved() {
        markBusy()
        Wakeup.signal(fd)
    }

    /// Work was queued for the thread, or it was asked to evaluate again (its
    /// own wake-up fd rings it): not idle until it has had its turn.
    func markBusy() {
        state.withLock { $0.rung = true; $0.idle = false }
    }

    /// The thread's wait ended: what rang it before now is handled in this turn.
    func beginTurn() {
        state.withLock { $0.rung = false }
    }

    /// Whether it is idle, and the timers it holds.
    package var snapshot: State { state.withLock { $0 } }

    /// Changes its observers have not taken, as text.
    package func undeliveredChanges() -> [String] { undelivered.withLock { $0 }?() ?? [] }

    /// The thread's turn begins: whether facts changed since the last one.
    func takeFactsChanged() -> Bool {
        Wakeup.clear(fd)
        return state.withLock { state in
            defer { state.factsChanged = false }
            return state.factsChanged
        }
    }

    /// The thread is about to wait: idle unless `busy` or something rang
    /// meanwhile; `next` is its earliest timer.
    func aboutToWait(busy: Bool, next: UInt64?, timers: @autoclosure () -> [String]) {
        // A timer already due is work this turn has not done yet.
        let busy = busy || next.map { $0 <= simulation.nanoseconds } ?? false
        let timers = busy ? [] : timers()
        let wentIdle = state.withLock { state -> Bool in
            state.nextDeadline = next
            guard !busy, !state.factsChanged, !state.rung else { state.idle = false; return false }
            state.idle = true
            state.timers = timers
            return true
        }
        if wentIdle { simulation.subscriberWentIdle() }
    }

    /// The timeout of a wait for `deadline` on the test clock: none left,
    /// or until the clock moves (nil deadline, or one still ahead).
    func timeout(until deadline: UInt64?) -> Int64 {
        guard let deadline else { return -1 }
        return deadline <= simulation.nanoseconds ? 0 : -1
    }
}

/// The clock a monitor or tracker reads: CLOCK_MONOTONIC, or a simulation's.
struct RuntimeClock: Sendable {
    let simulation: (any KernelSimulation)?

    @inline(__always)
    func now() -> UInt64 { simulation?.nanoseconds ?? monotonicNanoseconds() }

    var instant: MonotonicInstant { MonotonicInstant(nanoseconds: now()) }
}
#endif

extension DeliveryQueue {
    /// `work` queued on this queue; under a simulation, counted until it has
    /// run, so that `settled()` waits for it.
    func schedule(_ work: @escaping @Sendable () -> Void, simulation: (any KernelSimulation)?,
                  onMonitorThread: (@escaping @Sendable () -> Void) -> Void) {
        switch kind {
        case .monitorThread:
            onMonitorThread(work)
        case let .enqueue(enqueue):
            guard let simulation else { return enqueue(work) }
            simulation.deliveryQueued()
            enqueue { work(); simulation.deliveryRan() }
        }
    }
}
