// The simulation's side of the engine's seam (ReachabilityCore's
// `KernelSimulation` and `EngineSimulation`): it answers the evaluator's questions from
// `KernelFacts`, rings the monitors and trackers that listen when a fact
// changes or the test clock moves, answers probes and host names from the
// script, and knows when everything a step caused has been delivered.

import ReachabilityCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// What an uplink's far side does: a test's script for probes.
struct UplinkScript: Sendable {
    var kind: InterfaceKind
    /// Packets beyond the gateway get answers.
    var upstream = true
    /// The validation endpoint's answer is a redirect here (a captive portal).
    var captiveLocation: String?
    /// What the uplink had configured, restored when it comes back up.
    var addresses: [(IPAddress, Int)] = []
    var defaultRoutes: [SimulatedRoute] = []
    var roundTrip: Duration = .milliseconds(20)
}

final class SimulatedKernelBackend: EngineSimulation, @unchecked Sendable {
    struct State {
        var facts = KernelFacts()
        var scripts: [String: UplinkScript] = [:]
        var hosts: [String: [IPAddress]] = [:]
        var nameServers: [IPAddress] = []
        var policy = ReachabilityPolicy()
        var clock: UInt64 = 1_000 * 1_000_000_000
        var subscribers: [SimulationSubscriber] = []
        var deliveries = 0
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter: UInt64 = 0
        /// Problems `finish()` reports (a `settled()` that gave up).
        var problems: [String] = []
        /// This many route lookups fail as a kernel that cannot answer does.
        var failingLookups = 0
    }

    let name: String
    let state: Mutex<State>
    let radio: RadioSource

    init(name: String) {
        self.name = name
        state = Mutex(State())
        radio = RadioSource()
    }

    // MARK: Changes

    /// Changes facts, then rings every listener: the kernel would have sent
    /// notifications for it.
    func change<T>(_ body: (inout State) throws -> T) rethrows -> T {
        let (result, subscribers) = try state.withLock { state in
            (try body(&state), state.subscribers)
        }
        for subscriber in subscribers { subscriber.factsChanged() }
        return result
    }

    func read<T>(_ body: (borrowing State) -> T) -> T { state.withLock { body($0) } }

    // MARK: KernelSimulation: the evaluator's questions

    func dumpLinks() -> [LinkState] { read { $0.facts.links.map(\.state) } }
    func dumpAddresses() -> [InterfaceAddress] { read { $0.facts.addresses } }
    func link(index: Int32) -> LinkState? { read { $0.facts.link(index)?.state } }
    func interfaceIndex(named name: String) -> Int32? { read { $0.facts.linkIndex(name) } }

    func lookupRoute(_ address: IPAddress, options: LookupOptions) throws(ReachabilityError) -> RouteLookup {
        let fails = state.withLock { state -> Bool in
            guard state.failingLookups > 0 else { return false }
            state.failingLookups -= 1
            return true
        }
        if fails { throw .system(operation: "RTM_GETROUTE \(address) (simulated)", errno: SystemErrno(rawValue: EIO)) }
        return read { state in
            state.facts.lookup(KernelFacts.Query(destination: address, source: options.source,
                                                 outputIndex: options.interface.flatMap(state.facts.linkIndex),
                                                 mark: options.mark ?? 0, uid: options.uid ?? getuid()))
        }
    }

    func interfaceFacts(of link: LinkState) -> InterfaceFacts {
        read { $0.facts.link(link.index)?.facts } ?? InterfaceFacts(name: link.name, rawFlags: link.rawFlags,
                                                                    hardwareType: link.hardwareType, linkKind: link.linkKind)
    }

    func nameServers() -> [IPAddress] { read { $0.nameServers } }

    var policy: ReachabilityPolicy { read { $0.policy } }

    var nanoseconds: UInt64 { read { $0.clock } }

    // MARK: Probes and names, from the script

    /// Where a packet to `address` leaves and whether anything beyond answers:
    /// the FIB's route, the link's state, the uplink's script.
    private enum Path {
        case refused(SystemErrno)
        case local
        case dropped
        case through(UplinkScript?)
    }

    private func path(to address: IPAddress, interface: String?, source: IPAddress?, mark: UInt32?) -> Path {
        read { state in
            let route = state.facts.lookup(KernelFacts.Query(destination: address, source: source,
                                                             outputIndex: interface.flatMap(state.facts.linkIndex),
                                                             mark: mark ?? 0, uid: getuid()))
            guard route.verdict.isUsable, let index = route.interfaceIndex else {
                return .refused(route.errno ?? SystemErrno(rawValue: ENETUNREACH))
            }
            if route.verdict == .local { return .local }
            guard let link = state.facts.link(index), link.state.isOperational else { return .dropped }
            return .through(state.scripts[link.name])
        }
    }

    func probe(_ address: IPAddress, method: ProbeMethod, options: ProbeOptions) throws(ReachabilityError) -> ProbeResult {
        let outcome: ProbeOutcome
        var status: Int?
        var resolved: IPAddress?
        var roundTrip: Duration?
        switch path(to: address, interface: options.interface, source: options.source, mark: options.mark) {
        case let .refused(errno):
            outcome = .unreachable(errno)
        case .dropped:
            outcome = .timedOut
        case .local:
            outcome = method == .icmp ? .answered : .refused
            roundTrip = .microseconds(50)
        case let .through(script):
            let script = script ?? UplinkScript(kind: .wired)
            roundTrip = script.roundTrip
            if !script.upstream {
                outcome = .timedOut
                roundTrip = nil
            } else {
                switch method {
                case .http:
                    if let location = script.captiveLocation {
                        outcome = .captivePortal(status: 302, location: location)
                        status = 302
                    } else {
                        outcome = .answered
                        status = 204
                    }
                case let .dns(name, type):
                    let family: IPAddress.Family = type == .aaaa ? .v6 : .v4
                    resolved = read { $0.hosts[name.lowercased()] }?.first { $0.family == family }
                    outcome = resolved == nil ? .noAddress(rcode: 3) : .answered
                case .icmp, .tcp:
                    // A portal lets nothing through but its own web server.
                    outcome = script.captiveLocation == nil ? .answered : .timedOut
                    if script.captiveLocation != nil { roundTrip = nil }
                }
            }
        }
        return ProbeResult(simulatedAddress: address, method: method, outcome: outcome, httpStatus: status,
                           roundTrip: roundTrip, resolvedAddress: resolved)
    }

    func resolve(_ host: String) throws(ReachabilityError) -> [IPAddress] {
        let name = host.lowercased()
        if let address = IPAddress(host) { return [address] }
        if name == "localhost" { return [IPAddress("::1")!, IPAddress("127.0.0.1")!] }
        let (servers, known) = read { ($0.nameServers, $0.hosts[name]) }
        // The resolver needs a name server it can reach, and one that answers.
        let reachable = servers.contains { server in
            switch path(to: server, interface: nil, source: nil, mark: nil) {
            case .local: return true
            case let .through(script): return (script?.upstream ?? true) && script?.captiveLocation == nil
            case .refused, .dropped: return false
            }
        }
        guard reachable else { throw .resolutionFailed(host: host, reason: "Temporary failure in name resolution") }
        guard let known, !known.isEmpty else { throw .resolutionFailed(host: host, reason: "Name or service not known") }
        return known
    }

    // MARK: Listeners, delivery, settling

    func attach(_ subscriber: SimulationSubscriber) {
        state.withLock { $0.subscribers.append(subscriber) }
    }

    func detach(_ subscriber: SimulationSubscriber) {
        state.withLock { $0.subscribers.removeAll { $0 === subscriber } }
        resumeWaitersIfSettled()
    }

    func subscriberWentIdle() { resumeWaitersIfSettled() }

    func deliveryQueued() { state.withLock { $0.deliveries += 1 } }

    func deliveryRan() {
        state.withLock { $0.deliveries -= 1 }
        resumeWaitersIfSettled()
    }

    private static func isSettled(_ state: borrowing State) -> Bool {
        state.deliveries == 0 && state.subscribers.allSatisfy { $0.snapshot.idle }
    }

    private func resumeWaitersIfSettled() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard Self.isSettled(state), !state.waiters.isEmpty else { return [] }
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once every listener is idle and every queued delivery ran; after
    /// `limit` of wall time it gives up, and `finish()` reports who was not done.
    func settled(limit: Duration) async {
        let id = state.withLock { state -> UInt64 in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        let guardTask = Task.detached { [weak self] in
            try? await Task.sleep(for: limit)
            self?.giveUp(waiter: id, after: limit)
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if Self.isSettled(state) { return true }
                state.waiters[id] = continuation
                return false
            }
            if now { continuation.resume() }
        }
        guardTask.cancel()
    }

    private func giveUp(waiter id: UInt64, after limit: Duration) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiters.removeValue(forKey: id) else { return nil }
            let busy = state.subscribers.filter { !$0.snapshot.idle }.map(\.owner)
            state.problems.append("settled() gave up after \(limit): still working: "
                                  + (busy + (state.deliveries > 0 ? ["\(state.deliveries) queued deliveries"] : []))
                                  .joined(separator: ", "))
            return waiter
        }
        waiter?.resume()
    }

    /// Moves the test clock to `time` and rings every listener.
    func setClock(_ time: UInt64) {
        let subscribers = state.withLock { state in
            state.clock = max(state.clock, time)
            return state.subscribers
        }
        for subscriber in subscribers { subscriber.clockMoved() }
    }

    /// The earliest timer of a listener after now and at most `limit`.
    func nextDeadline(upTo limit: UInt64) -> UInt64? {
        read { state in
            state.subscribers.compactMap { $0.snapshot.nextDeadline }.filter { $0 > state.clock && $0 <= limit }.min()
        }
    }

    /// What is left: queued deliveries, listeners still working, one-shot
    /// timers, changes no observer took, and earlier problems.
    /// (A monitor's observers are read outside this lock: the monitor calls
    /// `deliveryQueued()` with its own lock held.)
    func leftovers() -> [String] {
        let (problems, deliveries, subscribers) = read { ($0.problems, $0.deliveries, $0.subscribers) }
        var lines = problems
        if deliveries > 0 { lines.append("\(deliveries) deliveries queued and not run") }
        for subscriber in subscribers {
            let snapshot = subscriber.snapshot
            if !snapshot.idle { lines.append("\(subscriber.owner): still working") }
            lines += snapshot.timers.map { "\(subscriber.owner): timer armed: \($0)" }
            lines += subscriber.undeliveredChanges().map { "\(subscriber.owner): \($0)" }
        }
        return lines
    }
}
