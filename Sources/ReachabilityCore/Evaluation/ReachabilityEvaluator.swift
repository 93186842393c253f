#if canImport(Glibc)
internal import Glibc
#endif

/// Evaluates targets against the kernel of one network namespace: one FIB
/// lookup per address (`RTM_GETROUTE`, honouring policy rules), the output
/// link's state (`RTM_GETLINK`) and kind, then the flags.
///
/// One evaluator holds one NETLINK_ROUTE socket and one reply buffer, both
/// reused: evaluating an address allocates nothing in the C core. It is safe to
/// share between threads (calls are serialised on an internal lock).
public final class ReachabilityEvaluator: Sendable {
    /// The network namespace whose kernel every lookup asks; one other than the current namespace
    /// is held open (a file descriptor) for the evaluator's lifetime.
    public let namespace: NetworkNamespace
    /// User rules that set interfaces' kinds by name: the first one that matches wins over the
    /// kernel's facts (hardware type, sysfs `DEVTYPE`, driver).
    public let kindOverrides: [InterfaceKindOverride]
    /// What the application allows (WWAN) and how it treats its interfaces
    /// (on demand, on traffic, metered, constrained, modems): the policy part
    /// of flags, mask and accessibility. It may be changed at any time; the
    /// next evaluation uses it (a monitor's ``ReachabilityMonitor/policy``
    /// also evaluates again). An evaluator created without one follows
    /// ``ReachabilityModel/ReachabilityPolicy/processDefault`` until this is set.
    public var policy: ReachabilityPolicy {
        // Inlined: called out of line, the copy it returns is destroyed through
        // its type's metadata (about 200 instructions more per evaluation).
        @inline(__always)
        get { policyState.withLock { $0 } ?? simulation?.policy ?? ProcessDefaultPolicy.shared.policy }
        set {
            policyState.withLock { $0 = newValue }
            // Declared modems decide PPP links' kinds.
            invalidateInterfaceCache()
        }
    }
    /// nil while the evaluator follows the process's default policy (in a
    /// simulated namespace, the simulation's `policy` stands for it).
    private let policyState: Locked<ReachabilityPolicy?>
    /// The namespace's simulation (nil for a real one), chosen once: it
    /// answers instead of the socket (`SimulatedKernelQuestions`). A
    /// firmware build has no simulated namespace: a constant nil there lets
    /// the optimizer drop every simulated branch below.
    #if REACH_NO_SIMULATION   // a constant nil, so that the optimizer drops the simulated branches
    private var simulation: (any KernelSimulation)? { nil }
    #else
    private let simulation: (any KernelSimulation)?
    #endif
    /// Whether ``policy`` is the process's default (``ReachabilityModel/ReachabilityPolicy/processDefault``),
    /// followed as it changes: no policy was given, and none set since.
    public var followsProcessDefaultPolicy: Bool { policyState.withLock { $0 == nil } }
    /// The radio technology of WWAN links, for the mask's 2G ... 5G bits.
    public let radio: RadioSource

    private struct CachedKind {
        var name: String
        var kind: InterfaceKind
    }

    private struct Session {
        /// The kernel of the namespace: lookups, dumps, sysfs (ReachabilityKernel's RouteSocket);
        /// nil where a simulation answers instead (`simulation`: SimulatedKernelQuestions).
        var socket: RouteSocket?
        /// Interface kinds by ifindex: sysfs is read once per interface, not per lookup.
        var kinds: [Int32: CachedKind] = [:]
        /// The namespace's name servers, read again when resolv.conf changes.
        var nameServers = NameServerCache()
        /// Test seam: this many path-facts reads fail (`injectPathFactsFailures`).
        var pathFactsFailures = 0
        #if !REACH_NO_MODEM_FACTS
        /// The radio source's modem facts the cached kinds were read with.
        var modemFacts: RadioSource.ModemFacts?
        #endif
    }

    private let session: Locked<Session>
    #if !REACH_NO_MODEM_FACTS
    /// The radio source's observer that forgets the cached kinds when a modem
    /// daemon's facts change (an interface a modem owns is WWAN): the kinds are
    /// then read again, and a kept kind costs an evaluation nothing.
    private let radioObserver: UInt64
    #endif
    /// The namespace, held open to resolve host names from inside it (its
    /// resolver threads hold it too); fd -1 for the current one.
    let handle: NamespaceHandle
    /// For the LinuxReachability module's async lookups. A computed property on
    /// purpose: a stored one is read at a field offset compiled into that
    /// module, which an incremental build can leave stale when this class's
    /// private storage changes (a release binary then freed a wrong pointer).
    package var namespaceHandle: NamespaceHandle { handle }
    var namespaceFD: Int32 { namespaceHandle.fd }
    /// The request socket's netlink port id (for tests that inject faults into it).
    var portID: UInt32 { session.withLock { $0.socket?.portID ?? 0 } }

    /// Test seam: the next `count` path-facts reads fail with EIO, as a link
    /// dump the kernel cannot answer (nothing else produces one on demand).
    func injectPathFactsFailures(_ count: Int) { session.withLock { $0.pathFactsFailures = count } }

    /// Opens a netlink socket (and the namespace's sysfs) in `namespace`.
    ///
    /// - Parameters:
    ///   - namespace: The network namespace whose kernel every lookup asks;
    ///     the process's own by default. Opening another one needs `CAP_SYS_ADMIN`.
    ///   - kindOverrides: Rules that set interfaces' kinds by name; the first
    ///     that matches wins over the kernel's facts.
    ///   - policy: What the application allows and how it treats its
    ///     interfaces; nil follows ``ReachabilityModel/ReachabilityPolicy/processDefault`` as it changes.
    ///   - radio: The radio technology of WWAN links; ``RadioSource/processDefault``
    ///     by default.
    /// - Throws: `ReachabilityError.unknownNamespace(_:)` or
    ///   `.invalidNamespace(_:reason:)` when `namespace` cannot be opened,
    ///   `.permissionDenied(operation:needs:)` when the process may not enter
    ///   it, or `.system(operation:errno:)` when the socket cannot be opened.
    public init(namespace: NetworkNamespace = .current, kindOverrides: [InterfaceKindOverride] = [],
                policy: ReachabilityPolicy? = nil, radio: RadioSource = .processDefault) throws(ReachabilityError) {
        self.namespace = namespace
        self.kindOverrides = kindOverrides
        self.policyState = Locked(policy)
        #if !REACH_NO_SIMULATION   // a stored property only where simulations exist (above)
        self.simulation = namespace.simulation
        #endif
        // In a simulation, the process's radio source is the simulation's.
        self.radio = radio === RadioSource.processDefault ? namespace.engineSimulation?.radio ?? radio : radio
        let handle = try NamespaceHandle(namespace)
        var socket: RouteSocket?
        if namespace.simulation == nil {
            guard let opened = RouteSocket(namespaceFD: handle.fd) else {
                throw .openingSocket("open NETLINK_ROUTE socket", in: namespace, errno: .current)
            }
            socket = opened
        }
        self.handle = handle
        #if REACH_NO_MODEM_FACTS
        self.session = Locked(Session(socket: socket))
        #else
        var state = Session(socket: socket)
        state.modemFacts = self.radio.modemFacts
        let session = Locked(state)
        self.session = session
        // Only a change of the modem facts (not of a technology) forgets the kinds.
        radioObserver = self.radio.addObserver { [radio = self.radio] in
            let now = radio.modemFacts
            session.withLock { session in
                guard session.modemFacts != now else { return }
                session.modemFacts = now
                session.kinds.removeAll(keepingCapacity: true)
            }
        }
        #endif
    }

    deinit {
        #if !REACH_NO_MODEM_FACTS
        radio.removeObserver(radioObserver)
        #endif
        session.withLock { $0.socket?.close() }
    }

    // MARK: Evaluation

    /// Evaluates one address: its FIB lookup, the output link's state and
    /// kind, then the flags under ``policy`` and ``radio``.
    ///
    /// A lookup the kernel refuses (no route, `unreachable`, `prohibit`,
    /// `blackhole`) is an answer, not an error.
    ///
    /// - Parameters:
    ///   - address: The destination to look up.
    ///   - options: The lookup's selectors (uid, firewall mark, interface,
    ///     source); none by default.
    /// - Returns: The address's flags and the kernel facts they came from.
    /// - Throws: `ReachabilityError.invalidUID(_:)` or
    ///   `.invalidInterfaceName(_:reason:)` for options no lookup can take,
    ///   `.unknownInterface(_:)` when `options.interface` names no link,
    ///   `.invalidConfiguration(_:reason:)` when `options.source` is of
    ///   another family than `address`, or `.system(operation:errno:)` when
    ///   the kernel cannot be asked.
    public func evaluate(_ address: IPAddress, options: LookupOptions = LookupOptions()) throws(ReachabilityError) -> AddressEvaluation {
        if let simulation { return try evaluate(address, options: options, simulation: simulation) }
        return try session.withLock { (session) throws(ReachabilityError) -> AddressEvaluation in
            try evaluate(address, options: options, kernel: &session.socket!, kinds: &session.kinds)
        }
    }

    /// `evaluate(_:options:)` in a simulated namespace: out of line, so that the live path carries none of it.
    @inline(never)
    private func evaluate(_ address: IPAddress, options: LookupOptions,
                          simulation: any KernelSimulation) throws(ReachabilityError) -> AddressEvaluation {
        try session.withLock { (session) throws(ReachabilityError) -> AddressEvaluation in
            var kernel = SimulatedKernelQuestions(simulation: simulation)
            return try evaluate(address, options: options, kernel: &kernel, kinds: &session.kinds)
        }
    }

    /// `evaluate(_:options:)` with the namespace's kernel (one copy per kind of kernel: `KernelQuestions`).
    @inline(__always)
    private func evaluate<Kernel: KernelQuestions>(_ address: IPAddress, options: LookupOptions, kernel: inout Kernel,
                                                   kinds: inout [Int32: CachedKind]) throws(ReachabilityError) -> AddressEvaluation {
        let route = try kernel.lookupRoute(address, options: options)
        guard route.verdict.isUsable, let index = route.interfaceIndex else {
            return decide(address, flags: ReachabilityFlags(route: route, link: nil, kind: nil), route: route,
                          link: nil, kind: nil)
        }
        guard let link = try kernel.link(index: index) else {
            // The link went away between the two answers: nothing leaves by it.
            return decide(address, flags: [], route: route, link: nil, kind: nil)
        }
        let kind = kind(of: link, kernel: kernel, kinds: &kinds)
        return decide(address, flags: ReachabilityFlags(route: route, link: link, kind: kind), route: route,
                      link: link, kind: kind)
    }

    /// The decision tables over the kernel's facts, under the current policy
    /// and radio source (`AddressEvaluation.init(address:kernelFlags:...)`).
    private func decide(_ address: IPAddress, flags kernelFlags: ReachabilityFlags, route: RouteLookup, link: LinkState?,
                        kind: InterfaceKind?, probe: ProbeVerdict = .notProbed) -> AddressEvaluation {
        let generation = kind == .wwan ? link.flatMap { radio.technology(for: $0.name)?.generation } : nil
        return AddressEvaluation(address: address, kernelFlags: kernelFlags, route: route, link: link, kind: kind,
                                 policy: policy, radio: generation, probe: probe)
    }

    /// `answer` decided again with a validation probe's verdict: a captive
    /// portal sets `interventionRequired` and makes it captive, a failed probe
    /// over an up link makes it `restricted(.probeFailed)`.
    func validated(_ answer: AddressEvaluation, probe: ProbeVerdict) -> AddressEvaluation {
        var kernelFlags = answer.flags
        kernelFlags.remove([.connectionOnDemand, .connectionOnTraffic])
        return decide(answer.address, flags: kernelFlags, route: answer.route, link: answer.link,
                      kind: answer.interfaceKind, probe: probe)
    }

    // MARK: Path facts

    /// What NWPath tells besides the route: the interfaces that can carry
    /// packets now, and whether a name server is reachable. Facts of the
    /// namespace, read once for any number of targets.
    public struct PathFacts: Hashable, Sendable {
        /// Up, with carrier, not loopback; in index order.
        public let interfaces: [NetworkInterface]
        /// A `nameserver` of the namespace's resolv.conf is reachable.
        public let supportsDNS: Bool
        /// An interface is coming up: it has carrier, but its operstate has
        /// not followed yet (the kernel reports the two in separate messages),
        /// so `interfaces` may be about to gain it.
        var isSettling = false
    }

    /// `target` evaluated at `addresses` (its own, or what its name resolved
    /// to), with the path facts: what every target evaluation ends with.
    package func evaluate(_ target: Target, at addresses: [IPAddress],
                          options: LookupOptions) throws(ReachabilityError) -> TargetEvaluation {
        var results: [AddressEvaluation] = []
        results.reserveCapacity(addresses.count)
        for address in addresses { results.append(try evaluate(address, options: options)) }
        return TargetEvaluation(target: target, addresses: results, pathFacts: try pathFacts())
    }

    /// Reads the path facts: one link dump, and one lookup per name server.
    ///
    /// - Returns: The interfaces that can carry packets now, and whether a
    ///   name server of the namespace's resolv.conf is reachable.
    /// - Throws: `ReachabilityError.system(operation:errno:)` when the kernel
    ///   cannot be asked.
    public func pathFacts() throws(ReachabilityError) -> PathFacts {
        let (interfaces, settling, servers) = try session.withLock {
            (session) throws(ReachabilityError) -> ([NetworkInterface], Bool, [IPAddress]) in
            if session.pathFactsFailures > 0 {
                session.pathFactsFailures -= 1
                throw .system(operation: "dump links (injected)", errno: SystemErrno(rawValue: EIO))
            }
            if let simulation {
                var kernel = SimulatedKernelQuestions(simulation: simulation)
                let (interfaces, settling) = try operationalInterfaces(kernel: &kernel, kinds: &session.kinds)
                return (interfaces, settling, simulation.nameServers())
            }
            let (interfaces, settling) = try operationalInterfaces(kernel: &session.socket!, kinds: &session.kinds)
            return (interfaces, settling, session.nameServers.nameServers(at: namespace.resolvConfPath))
        }
        var dns = false
        for server in servers where !dns {
            dns = (try? evaluate(server))?.status.isReachable ?? false
        }
        return PathFacts(interfaces: interfaces.sorted { $0.index < $1.index }, supportsDNS: dns, isSettling: settling)
    }

    /// The interfaces that can carry packets (not loopback), and whether one is coming up.
    /// Inlined: one caller per kind of kernel (a function of its own costs the firmware budget).
    @inline(__always)
    private func operationalInterfaces<Kernel: KernelQuestions>(kernel: inout Kernel, kinds: inout [Int32: CachedKind])
        throws(ReachabilityError) -> ([NetworkInterface], Bool) {
        let links = try kernel.dumpLinks()
        let interfaces = links.filter { $0.isOperational && !$0.isLoopback }.map { link in
            NetworkInterface(name: link.name, index: link.index, kind: kind(of: link, kernel: kernel, kinds: &kinds))
        }
        return (interfaces, links.contains { $0.isComingUp })
    }

    /// The FIB's answer for one address, as `ip route get` gives it: no link
    /// state, kind or flags.
    ///
    /// - Parameters:
    ///   - address: The destination to look up.
    ///   - options: The lookup's selectors; none by default.
    /// - Returns: The route type, table, output interface, gateway and
    ///   preferred source, or the errno of a refusal.
    /// - Throws: What ``evaluate(_:options:)`` throws.
    public func lookupRoute(_ address: IPAddress, options: LookupOptions = LookupOptions()) throws(ReachabilityError) -> RouteLookup {
        try session.withLock { (session) throws(ReachabilityError) -> RouteLookup in
            if let simulation { return try SimulatedKernelQuestions(simulation: simulation).lookupRoute(address, options: options) }
            return try session.socket!.lookupRoute(address, options: options)
        }
    }

    /// A monitor's event socket listens (`on`), or stopped: while it listens,
    /// the request socket remembers the families a throw dump found no
    /// `throw` route of (`RouteSocket.remembersThrowRoutes`). Only a monitor's
    /// own evaluator is told so.
    func remembersThrowRoutes(_ on: Bool) { session.withLock { $0.socket?.remembersThrowRoutes = on } }

    /// The event socket read a `throw` route added, or lost events.
    func forgetThrowRoutes() { session.withLock { $0.socket?.forgetThrowRoutes() } }

    /// Forgets the cached interface kinds (after links were renamed or re-created).
    package func invalidateInterfaceCache() {
        session.withLock { $0.kinds.removeAll(keepingCapacity: true) }
    }

    /// Forgets the cached kinds of these interfaces (deleted links: their index
    /// may be reused by a new link of another kind).
    func forgetInterfaces(_ indexes: [Int32]) {
        session.withLock { session in
            for index in indexes { session.kinds[index] = nil }
        }
    }

    /// Netlink messages dropped: sent by a process rather than the kernel, or
    /// carrying another request's sequence number.
    public var droppedMessages: (foreignSender: UInt64, foreignSequence: UInt64) {
        session.withLock { $0.socket?.droppedMessages ?? (0, 0) }
    }

    // MARK: Interfaces

    /// Every interface of the namespace with its kind and addresses (for listings).
    ///
    /// - Returns: One summary per link, in index order.
    /// - Throws: `ReachabilityError.system(operation:errno:)` when a link or
    ///   address dump fails.
    public func interfaces() throws(ReachabilityError) -> [InterfaceSummary] {
        try session.withLock { (session) throws(ReachabilityError) -> [InterfaceSummary] in
            if let simulation {
                var kernel = SimulatedKernelQuestions(simulation: simulation)
                return try interfaces(kernel: &kernel, kinds: &session.kinds)
            }
            return try interfaces(kernel: &session.socket!, kinds: &session.kinds)
        }
    }

    private func interfaces<Kernel: KernelQuestions>(kernel: inout Kernel, kinds: inout [Int32: CachedKind])
        throws(ReachabilityError) -> [InterfaceSummary] {
        let links = try kernel.dumpLinks()
        let all = try kernel.dumpAddresses()
        return links.map { link in
            InterfaceSummary(link: link, kind: kind(of: link, kernel: kernel, kinds: &kinds),
                             addresses: all.filter { $0.interfaceIndex == link.index })
        }.sorted { $0.link.index < $1.link.index }
    }

    private func kind<Kernel: KernelQuestions>(of link: LinkState, kernel: Kernel, kinds: inout [Int32: CachedKind]) -> InterfaceKind {
        // A kind is kept while the link's name stays the same, until a modem
        // daemon's facts change (`radioObserver` forgets every kind then).
        if let cached = kinds[link.index], cached.name == link.name { return cached.kind }
        let facts = kernel.interfaceFacts(of: link, namespaceFD: namespaceFD, declaredModems: policy.modemDevices)
        #if REACH_NO_MODEM_FACTS
        let kind = InterfaceKind(facts: facts, overrides: kindOverrides)
        #else
        let kind = InterfaceKind(facts: facts, overrides: kindOverrides, ownedByModem: radio.isModemInterface(link.name))
        #endif
        kinds[link.index] = CachedKind(name: link.name, kind: kind)
        return kind
    }
}
