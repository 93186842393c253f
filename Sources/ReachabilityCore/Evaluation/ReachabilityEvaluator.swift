internal import CReachability
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
    public let namespace: NetworkNamespace
    public let kindOverrides: [InterfaceKindOverride]
    /// What the application allows (WWAN) and how it treats its interfaces
    /// (on demand, on traffic, metered, constrained, modems): the policy part
    /// of flags, mask and accessibility. It may be changed at any time; the
    /// next evaluation uses it (a monitor's `policy` also evaluates again).
    /// An evaluator created without one follows `ReachabilityPolicy.processDefault`
    /// until this is set.
    public var policy: ReachabilityPolicy {
        get { policyState.withLock { $0 } ?? ProcessDefaultPolicy.shared.policy }
        set {
            policyState.withLock { $0 = newValue }
            // Declared modems decide PPP links' kinds.
            invalidateInterfaceCache()
        }
    }
    /// nil while the evaluator follows the process's default policy.
    private let policyState: Locked<ReachabilityPolicy?>
    /// Whether `policy` is the process's default (`ReachabilityPolicy.processDefault`),
    /// followed as it changes: no policy was given, and none set since.
    public var followsProcessDefaultPolicy: Bool { policyState.withLock { $0 == nil } }
    /// The radio technology of WWAN links, for the mask's 2G ... 5G bits.
    public let radio: RadioSource

    private struct CachedKind {
        var name: String
        var kind: InterfaceKind
    }

    private struct Session {
        var netlink: creach_nl
        let buffer: UnsafeMutableRawPointer
        /// /sys/class/net of the namespace, -1 when sysfs cannot be seen there.
        let sysfsFD: Int32
        /// Interface kinds by ifindex: sysfs is read once per interface, not per lookup.
        var kinds: [Int32: CachedKind] = [:]
        /// The tree sysfs and procfs are read from (`KernelFiles.root`), nil for `/`.
        let root: String?
        /// A dump buffer (CREACH_DUMP_BUFSIZ) for the lookups that need one on
        /// the monitor's rounds (the throw scan), taken once.
        var dumpBuffer: UnsafeMutableRawPointer?
        /// The namespace's name servers, read again when resolv.conf changes.
        var nameServers = NameServerCache()
        /// Test seam: this many path-facts reads fail (`injectPathFactsFailures`).
        var pathFactsFailures = 0
    }

    private let session: Locked<Session>
    /// The namespace, held open to resolve host names from inside it (its
    /// resolver threads hold it too); fd -1 for the current one.
    let handle: NamespaceHandle
    /// For the Reachability module's async lookups. A computed property on
    /// purpose: a stored one is read at a field offset compiled into that
    /// module, which an incremental build can leave stale when this class's
    /// private storage changes (a release binary then freed a wrong pointer).
    package var namespaceHandle: NamespaceHandle { handle }
    var namespaceFD: Int32 { namespaceHandle.fd }
    /// The request socket's netlink port id (for tests that inject faults into it).
    var portID: UInt32 { session.withLock { $0.netlink.portid } }

    /// Test seam: the next `count` path-facts reads fail with EIO, as a link
    /// dump the kernel cannot answer (nothing else produces one on demand).
    func injectPathFactsFailures(_ count: Int) { session.withLock { $0.pathFactsFailures = count } }

    /// Opens a netlink socket (and sysfs) in `namespace`. Without `policy`
    /// the evaluator follows `ReachabilityPolicy.processDefault`; the default
    /// `radio` is `RadioSource.processDefault`.
    /// - Throws: `.unknownNamespace`, `.permissionDenied` when the process may
    ///   not enter `namespace` (that needs `CAP_SYS_ADMIN`), or `.system`.
    public init(namespace: NetworkNamespace = .current, kindOverrides: [InterfaceKindOverride] = [],
                policy: ReachabilityPolicy? = nil, radio: RadioSource = .processDefault) throws(ReachabilityError) {
        self.namespace = namespace
        self.kindOverrides = kindOverrides
        self.policyState = Locked(policy)
        self.radio = radio
        let handle = try NamespaceHandle(namespace)
        let fd = handle.fd
        var netlink = creach_nl()
        if creach_nl_open(&netlink, 0, fd) != 0 {
            throw .openingSocket("open NETLINK_ROUTE socket", in: namespace, errno: .current)
        }
        // Without sysfs (e.g. no right to mount one for another namespace) kinds
        // come from netlink facts and name patterns alone.
        let sysfsFD = creach_sysfs_open(KernelFiles.root, fd)
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: Int(CREACH_REPLY_BUFSIZ), alignment: 8)
        self.handle = handle
        self.session = Locked(Session(netlink: netlink, buffer: buffer, sysfsFD: sysfsFD, root: KernelFiles.root))
    }

    deinit {
        session.withLock { session in
            creach_nl_close(&session.netlink)
            if session.sysfsFD >= 0 { close(session.sysfsFD) }
            session.buffer.deallocate()
            session.dumpBuffer?.deallocate()
        }
    }

    // MARK: Evaluation

    /// Evaluates one address: FIB lookup, output link, kind, flags.
    public func evaluate(_ address: IPAddress, options: LookupOptions = LookupOptions()) throws(ReachabilityError) -> AddressEvaluation {
        try session.withLock { (session) throws(ReachabilityError) -> AddressEvaluation in
            let route = try lookupRoute(address, options: options, in: &session)
            guard route.verdict.isUsable, let index = route.interfaceIndex else {
                return decide(address, flags: ReachabilityFlags(route: route, link: nil, kind: nil), route: route,
                              link: nil, kind: nil)
            }
            guard let link = try link(index: index, in: &session) else {
                // The link went away between the two answers: nothing leaves by it.
                return decide(address, flags: [], route: route, link: nil, kind: nil)
            }
            let kind = kind(of: link, in: &session)
            return decide(address, flags: ReachabilityFlags(route: route, link: link, kind: kind), route: route,
                          link: link, kind: kind)
        }
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
    public func pathFacts() throws(ReachabilityError) -> PathFacts {
        let (interfaces, settling, servers) = try session.withLock {
            (session) throws(ReachabilityError) -> ([NetworkInterface], Bool, [IPAddress]) in
            if session.pathFactsFailures > 0 {
                session.pathFactsFailures -= 1
                throw .system(operation: "dump links (injected)", errno: SystemErrno(rawValue: EIO))
            }
            let links = try dumpLinks(in: &session)
            let interfaces = links.filter { $0.isOperational && !$0.isLoopback }.map { link in
                NetworkInterface(name: link.name, index: link.index, kind: kind(of: link, in: &session))
            }
            return (interfaces, links.contains { $0.isComingUp }, session.nameServers.nameServers(at: namespace.resolvConfPath))
        }
        var dns = false
        for server in servers where !dns {
            dns = (try? evaluate(server))?.status.isReachable ?? false
        }
        return PathFacts(interfaces: interfaces.sorted { $0.index < $1.index }, supportsDNS: dns, isSettling: settling)
    }

    /// The FIB's answer for one address, as `ip route get` gives it.
    public func lookupRoute(_ address: IPAddress, options: LookupOptions = LookupOptions()) throws(ReachabilityError) -> RouteLookup {
        try session.withLock { (session) throws(ReachabilityError) -> RouteLookup in
            try lookupRoute(address, options: options, in: &session)
        }
    }

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
        session.withLock { ($0.netlink.dropped_foreign, $0.netlink.dropped_seq) }
    }

    // MARK: Interfaces

    /// Every interface of the namespace with its kind and addresses (for listings).
    public func interfaces() throws(ReachabilityError) -> [InterfaceSummary] {
        try session.withLock { (session) throws(ReachabilityError) -> [InterfaceSummary] in
            let links = try dumpLinks(in: &session)
            let all = try retryingInterruptedDump("RTM_GETADDR dump") { (buffer, size, addresses: Collected<creach_addr>) in
                var skipped: UInt64 = 0
                return creach_addr_dump(&session.netlink, UInt8(AF_UNSPEC), buffer, size, { addr, context in
                    Unmanaged<Collected<creach_addr>>.fromOpaque(context!).takeUnretainedValue().items.append(addr!.pointee)
                    return 0
                }, Unmanaged.passUnretained(addresses).toOpaque(), &skipped)
            }.map(InterfaceAddress.init)
            return links.map { link in
                InterfaceSummary(link: link, kind: kind(of: link, in: &session),
                                        addresses: all.filter { $0.interfaceIndex == link.index })
            }.sorted { $0.link.index < $1.link.index }
        }
    }

    // MARK: Kernel exchanges (called with the session locked)

    /// Every link of the namespace (`RTM_GETLINK` dump).
    private func dumpLinks(in session: inout Session) throws(ReachabilityError) -> [LinkState] {
        try retryingInterruptedDump("RTM_GETLINK dump") { (buffer, size, links: Collected<creach_link>) in
            var skipped: UInt64 = 0
            return creach_link_dump(&session.netlink, buffer, size, { link, context in
                Unmanaged<Collected<creach_link>>.fromOpaque(context!).takeUnretainedValue().items.append(link!.pointee)
                return 0
            }, Unmanaged.passUnretained(links).toOpaque(), &skipped)
        }.map(LinkState.init)
    }

    /// Runs a dump, again from the start (at most `attempts` times, about
    /// 0.3 s in all) when the kernel says a change raced it (`NLM_F_DUMP_INTR`,
    /// EAGAIN from the C core), as libnl and NetworkManager do: a busy router
    /// must not make a listing fail. Each attempt collects afresh.
    private func retryingInterruptedDump<Item>(_ operation: String, attempts: Int = 64,
                                               _ dump: (UnsafeMutableRawPointer, Int, Collected<Item>) -> Int32) throws(ReachabilityError) -> [Item] {
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: Int(CREACH_DUMP_BUFSIZ), alignment: 8)
        defer { buffer.deallocate() }
        var items = Collected<Item>()
        try retryingInterrupted(operation, attempts: attempts) {
            items = Collected<Item>()
            return dump(buffer, Int(CREACH_DUMP_BUFSIZ), items)
        }
        return items.items
    }

    /// Runs `attempt` (a dump: >= 0, or -1 with errno) again from the start
    /// while it fails with EAGAIN, at most `attempts` times.
    private func retryingInterrupted(_ operation: String, attempts: Int = 64,
                                     _ attempt: () -> Int32) throws(ReachabilityError) {
        for count in 1...attempts {
            if attempt() >= 0 { return }
            let error = SystemErrno.current
            guard error.rawValue == EAGAIN, count < attempts else {
                throw .system(operation: error.rawValue == EAGAIN ? "\(operation) (interrupted \(attempts) times by changes)" : operation,
                              errno: error)
            }
            // Changes come in bursts: give this one a moment to pass (0.5 ms, 1 ms, ... at most 5 ms).
            usleep(UInt32(min(500 * count, 5_000)))
        }
    }

    private func lookupRoute(_ address: IPAddress, options: LookupOptions, in session: inout Session) throws(ReachabilityError) -> RouteLookup {
        var query = creach_route_query()
        query.family = address.family.rawFamily
        address.copy(into: &query.dst)
        query.has_src = try address.copySource(options.source, into: &query.src) ? 1 : 0
        try options.validate()
        if let uid = options.uid { query.has_uid = 1; query.uid = uid }
        if let mark = options.mark { query.has_mark = 1; query.mark = mark }
        if let name = options.interface { query.oif = try interfaceIndex(named: name, in: &session) }
        var route = creach_route()
        guard creach_route_get(&session.netlink, &query, session.buffer, Int(CREACH_REPLY_BUFSIZ), &route) == 0 else {
            throw .system(operation: "RTM_GETROUTE \(address)", errno: .current)
        }
        guard route.error == ENETUNREACH else { return RouteLookup(route, source: options.source) }
        let lookup = RuleChain.Lookup(destination: address, source: options.source, outputIndex: query.oif,
                                      mark: options.mark ?? 0, uid: options.uid ?? getuid())
        return RouteLookup(route, throwTable: try throwTable(lookup, in: &session))
    }

    /// The tables holding a `throw` route (of the destination's family, any
    /// TOS but 0 aside) that covers `destination`: one dump the kernel filters
    /// to `throw` routes, read into the session's dump buffer and scanned in
    /// place, so a refused lookup in a monitor's round allocates nothing when
    /// no throw route covers it (the common case).
    private func throwTables(covering destination: IPAddress, in session: inout Session) throws(ReachabilityError) -> Set<UInt32> {
        struct Scan {
            var destination: IPAddress
            var tables: Set<UInt32> = []   // empty: no storage, nothing allocated
        }
        if session.dumpBuffer == nil {
            session.dumpBuffer = UnsafeMutableRawPointer.allocate(byteCount: Int(CREACH_DUMP_BUFSIZ), alignment: 8)
        }
        let buffer = session.dumpBuffer!
        var scan = Scan(destination: destination)
        try retryingInterrupted("RTM_GETROUTE throw dump") {
            scan = Scan(destination: destination)
            var skipped: UInt64 = 0
            return withUnsafeMutablePointer(to: &scan) { pointer in
                creach_route_dump(&session.netlink, destination.family.rawFamily, 0, UInt8(RTN_THROW), buffer,
                                  Int(CREACH_DUMP_BUFSIZ), { route, context in
                    let scan = context!.assumingMemoryBound(to: Scan.self)
                    scan.pointee.tables.formUnion(RuleChain.tables(of: CollectionOfOne(route!.pointee),
                                                                   covering: scan.pointee.destination))
                    return 0
                }, pointer, &skipped)
            }
        }
        return scan.tables
    }

    /// Whether a lookup refused with `ENETUNREACH` met a `throw` route: the
    /// family's `throw` routes (a dump the kernel filters) and its rules,
    /// walked by `RuleChain`. Undecidable counts as no (`noRoute`, as before).
    private func throwTable(_ lookup: RuleChain.Lookup, in session: inout Session) throws(ReachabilityError) -> UInt32? {
        let tables = try throwTables(covering: lookup.destination, in: &session)
        guard !tables.isEmpty else { return nil }
        let family = lookup.destination.family.rawFamily
        let rules = try retryingInterruptedDump("RTM_GETRULE dump") { (buffer, size, rules: Collected<creach_rule>) in
            var skipped: UInt64 = 0
            return creach_rule_dump(&session.netlink, family, buffer, size, { rule, context in
                Unmanaged<Collected<creach_rule>>.fromOpaque(context!).takeUnretainedValue().items.append(rule!.pointee)
                return 0
            }, Unmanaged.passUnretained(rules).toOpaque(), &skipped)
        }.map(PolicyRule.init)
        var indexes: [String: Int32] = [:]
        for name in rules.flatMap({ [$0.inputInterface, $0.outputInterface] }).compactMap({ $0 }) where indexes[name] == nil {
            indexes[name] = (try? interfaceIndex(named: name, in: &session)) ?? -1
        }
        return RuleChain.throwTable(rules: rules, throwTables: tables, lookup: lookup) { indexes[$0] } ?? nil
    }

    /// The link with this index, nil when it no longer exists.
    private func link(index: Int32, in session: inout Session) throws(ReachabilityError) -> LinkState? {
        var link = creach_link()
        guard creach_link_get(&session.netlink, index, nil, session.buffer, Int(CREACH_REPLY_BUFSIZ), &link) == 0 else {
            let error = SystemErrno.current
            if error == .noSuchDevice { return nil }
            throw .system(operation: "RTM_GETLINK \(index)", errno: error)
        }
        return LinkState(link)
    }

    /// The index of a link whose name `LookupOptions.validate()` accepted.
    private func interfaceIndex(named name: String, in session: inout Session) throws(ReachabilityError) -> Int32 {
        var link = creach_link()
        guard creach_link_get(&session.netlink, 0, name, session.buffer, Int(CREACH_REPLY_BUFSIZ), &link) == 0 else {
            let error = SystemErrno.current
            if error == .noSuchDevice { throw .unknownInterface(name) }
            throw .system(operation: "RTM_GETLINK \(name)", errno: error)
        }
        return link.index
    }

    private func kind(of link: LinkState, in session: inout Session) -> InterfaceKind {
        if let cached = session.kinds[link.index], cached.name == link.name { return cached.kind }
        var facts = InterfaceFacts(name: link.name, rawFlags: link.rawFlags, hardwareType: link.hardwareType,
                                   linkKind: link.linkKind)
        if session.sysfsFD >= 0 {
            var sysfs = creach_sysfs()
            // The ifindex check guards against a sysfs that shows another namespace.
            if creach_sysfs_read(session.sysfsFD, link.name, &sysfs) == 0 && sysfs.ifindex == link.index {
                let deviceType = withUnsafeBytes(of: &sysfs.devtype) { String(decodingCString: $0) }
                let driver = withUnsafeBytes(of: &sysfs.driver) { String(decodingCString: $0) }
                facts.deviceType = deviceType.isEmpty ? nil : deviceType
                facts.driver = driver.isEmpty ? nil : driver
                facts.isWireless = sysfs.wireless != 0
            }
        }
        if facts.hardwareType == InterfaceKind.hardwareTypePPP {
            facts.ppp = KernelFiles.pppFacts(root: session.root, namespaceFD: namespaceFD,
                                             declaredModems: policy.modemDevices)
        }
        let kind = InterfaceKind(facts: facts, overrides: kindOverrides)
        session.kinds[link.index] = CachedKind(name: link.name, kind: kind)
        return kind
    }
}

/// One interface as `reach` lists it.
public struct InterfaceSummary: Hashable, Sendable {
    public let link: LinkState
    public let kind: InterfaceKind
    public let addresses: [InterfaceAddress]
}

