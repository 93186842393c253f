// The evaluator's questions to the kernel of one namespace: a NETLINK_ROUTE
// request socket (route lookups, link and address dumps, the rule walk behind
// a `throw`) and the namespace's /sys/class/net, with typed answers out. With
// NetlinkEventSocket (the multicast side) it is where the engine meets the C
// core: ReachabilityCore's evaluator asks here (through `KernelQuestions`) and
// decides with ReachabilityModel.
import ReachabilityModel

internal import CReachability
#if canImport(Glibc)
internal import Glibc
#endif

/// One namespace's request socket and sysfs directory. Not thread-safe: its
/// owner (`ReachabilityEvaluator`) holds it under its lock.
package struct RouteSocket {
    private var netlink: creach_nl
    /// The reply buffer of one request (CREACH_REPLY_BUFSIZ).
    private let buffer: UnsafeMutableRawPointer
    /// /sys/class/net of the namespace, -1 when sysfs cannot be seen there.
    private let sysfsFD: Int32
    /// The tree sysfs and procfs are read from (`KernelFiles.root`), nil for `/`.
    private let root: String?
    /// A dump buffer (CREACH_DUMP_BUFSIZ) for the lookups that need one on
    /// the monitor's rounds (the throw scan), taken once.
    private var dumpBuffer: UnsafeMutableRawPointer?
    /// The families a throw dump found no `throw` route of (bit 0: IPv4,
    /// bit 1: IPv6), kept only while `remembersThrowRoutes`: a monitor's own
    /// evaluator, whose event socket forgets them (`forgetThrowRoutes`) at
    /// every `throw` route added and at every loss of events. A lookup
    /// refused in such a family then asks no dump (on a gateway without an
    /// IPv6 default route, every IPv6 lookup of a round is refused).
    private var noThrowRoutes: UInt8 = 0
    /// Set while a monitor's event socket (`NetlinkEventSocket`) listens.
    package var remembersThrowRoutes = false {
        didSet { noThrowRoutes = 0 }
    }

    /// Opens the socket (and sysfs) in the namespace `namespaceFD` (-1: the
    /// current one); nil with errno set when the socket cannot be opened.
    package init?(namespaceFD fd: Int32) {
        var netlink = creach_nl()
        guard creach_nl_open(&netlink, 0, fd) == 0 else { return nil }
        self.netlink = netlink
        // Without sysfs (e.g. no right to mount one for another namespace) kinds
        // come from netlink facts and name patterns alone.
        sysfsFD = creach_sysfs_open(KernelFiles.root, fd)
        buffer = UnsafeMutableRawPointer.allocate(byteCount: Int(CREACH_REPLY_BUFSIZ), alignment: 8)
        root = KernelFiles.root
    }

    /// Closes the socket and sysfs and frees the buffers; the owner's deinit calls it once.
    package mutating func close() {
        creach_nl_close(&netlink)
        if sysfsFD >= 0 { _ = Glibc.close(sysfsFD) }
        buffer.deallocate()
        dumpBuffer?.deallocate()
        dumpBuffer = nil
    }

    /// The socket's netlink port id (for tests that inject faults into it).
    package var portID: UInt32 { netlink.portid }

    /// Netlink messages dropped: sent by a process rather than the kernel, or
    /// carrying another request's sequence number.
    package var droppedMessages: (foreignSender: UInt64, foreignSequence: UInt64) {
        (netlink.dropped_foreign, netlink.dropped_seq)
    }


    /// Every link of the namespace (`RTM_GETLINK` dump).
    package mutating func dumpLinks() throws(ReachabilityError) -> [LinkState] {
        try retryingInterruptedDump("RTM_GETLINK dump") { (buffer, size, links: Collected<creach_link>) in
            var skipped: UInt64 = 0
            return creach_link_dump(&netlink, buffer, size, { link, context in
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

    package mutating func lookupRoute(_ address: IPAddress, options: LookupOptions) throws(ReachabilityError) -> RouteLookup {
        var query = creach_route_query()
        query.family = address.family.rawFamily
        address.copy(into: &query.dst)
        query.has_src = try address.copySource(options.source, into: &query.src) ? 1 : 0
        try options.validate()
        if let uid = options.uid { query.has_uid = 1; query.uid = uid }
        if let mark = options.mark { query.has_mark = 1; query.mark = mark }
        if let name = options.interface { query.oif = try interfaceIndex(named: name) }
        var route = creach_route()
        guard creach_route_get(&netlink, &query, buffer, Int(CREACH_REPLY_BUFSIZ), &route) == 0 else {
            throw .system(operation: "RTM_GETROUTE \(address)", errno: .current)
        }
        guard route.error == ENETUNREACH else { return RouteLookup(route, source: options.source) }
        // An IPv4 lookup bound to an interface is answered "on link" when the
        // FIB finds nothing, a throw included (ip_route_output_key_hash_rcu):
        // its ENETUNREACH comes from the interface itself (down), never from a throw.
        if address.family == .v4 && query.oif > 0 { return RouteLookup(route, source: options.source) }
        let lookup = RuleChain.Lookup(destination: address, source: options.source, outputIndex: query.oif,
                                      mark: options.mark ?? 0, uid: options.uid ?? getuid())
        return RouteLookup(route, throwTable: try throwTable(lookup))
    }

    /// The tables holding a `throw` route (of the destination's family, any
    /// TOS but 0 aside) that covers `destination`: one dump the kernel filters
    /// to `throw` routes, read into the session's dump buffer and scanned in
    /// place, so a refused lookup in a monitor's round allocates nothing when
    /// no throw route covers it (the common case).
    private mutating func throwTables(covering destination: IPAddress) throws(ReachabilityError) -> Set<UInt32> {
        struct Scan {
            var destination: IPAddress
            var tables: Set<UInt32> = []   // empty: no storage, nothing allocated
            /// Throw routes of the family, covering or not.
            var seen = 0
        }
        let bit: UInt8 = destination.family == .v4 ? 1 : 2
        if noThrowRoutes & bit != 0 { return [] }
        if dumpBuffer == nil {
            dumpBuffer = UnsafeMutableRawPointer.allocate(byteCount: Int(CREACH_DUMP_BUFSIZ), alignment: 8)
        }
        let buffer = dumpBuffer!
        var scan = Scan(destination: destination)
        var skipped: UInt64 = 0
        try retryingInterrupted("RTM_GETROUTE throw dump") {
            scan = Scan(destination: destination)
            skipped = 0
            return withUnsafeMutablePointer(to: &scan) { pointer in
                creach_route_dump(&netlink, destination.family.rawFamily, 0, UInt8(RTN_THROW), buffer,
                                  Int(CREACH_DUMP_BUFSIZ), { route, context in
                    let scan = context!.assumingMemoryBound(to: Scan.self)
                    scan.pointee.seen += 1
                    scan.pointee.tables.formUnion(RuleChain.tables(of: CollectionOfOne(route!.pointee),
                                                                   covering: scan.pointee.destination))
                    return 0
                }, pointer, &skipped)
            }
        }
        // A route the parser could not read may have been one: nothing is learnt then.
        if remembersThrowRoutes && scan.seen == 0 && skipped == 0 { noThrowRoutes |= bit }
        return scan.tables
    }

    /// A `throw` route may have been added, or events were lost: the next
    /// refused lookup of either family dumps them again.
    package mutating func forgetThrowRoutes() { noThrowRoutes = 0 }

    /// Whether a lookup refused with `ENETUNREACH` met a `throw` route: the
    /// family's `throw` routes (a dump the kernel filters) and its rules,
    /// walked by `RuleChain`. Undecidable counts as no (`noRoute`, as before).
    private mutating func throwTable(_ lookup: RuleChain.Lookup) throws(ReachabilityError) -> UInt32? {
        let tables = try throwTables(covering: lookup.destination)
        guard !tables.isEmpty else { return nil }
        let family = lookup.destination.family.rawFamily
        let rules: [PolicyRule]
        do throws(ReachabilityError) {
            rules = try retryingInterruptedDump("RTM_GETRULE dump") { (buffer, size, rules: Collected<creach_rule>) in
                var skipped: UInt64 = 0
                return creach_rule_dump(&netlink, family, buffer, size, { rule, context in
                    Unmanaged<Collected<creach_rule>>.fromOpaque(context!).takeUnretainedValue().items.append(rule!.pointee)
                    return 0
                }, Unmanaged.passUnretained(rules).toOpaque(), &skipped)
            }.map(PolicyRule.init)
        } catch let .system(operation: _, errno: error) where error.rawValue == EOPNOTSUPP {
            // A kernel without policy routing (CONFIG_IP_MULTIPLE_TABLES off)
            // has no rules to dump: its lookups consult local, then main.
            // (qemu-user, whose netlink translation has no rule messages,
            // answers the same: what its programs see is such a kernel.)
            return [UInt32(RT_TABLE_LOCAL.rawValue), UInt32(RT_TABLE_MAIN.rawValue)].first { tables.contains($0) }
        }
        var indexes: [String: Int32] = [:]
        for name in rules.flatMap({ [$0.inputInterface, $0.outputInterface] }).compactMap({ $0 }) where indexes[name] == nil {
            indexes[name] = (try? interfaceIndex(named: name)) ?? -1
        }
        return RuleChain.throwTable(rules: rules, throwTables: tables, lookup: lookup) { indexes[$0] } ?? nil
    }

    /// The link with this index, nil when it no longer exists.
    package mutating func link(index: Int32) throws(ReachabilityError) -> LinkState? {
        var link = creach_link()
        guard creach_link_get(&netlink, index, nil, buffer, Int(CREACH_REPLY_BUFSIZ), &link) == 0 else {
            let error = SystemErrno.current
            if error == .noSuchDevice { return nil }
            throw .system(operation: "RTM_GETLINK \(index)", errno: error)
        }
        return LinkState(link)
    }

    /// The index of a link whose name `LookupOptions.validate()` accepted.
    mutating func interfaceIndex(named name: String) throws(ReachabilityError) -> Int32 {
        var link = creach_link()
        guard creach_link_get(&netlink, 0, name, buffer, Int(CREACH_REPLY_BUFSIZ), &link) == 0 else {
            let error = SystemErrno.current
            if error == .noSuchDevice { throw .unknownInterface(name) }
            throw .system(operation: "RTM_GETLINK \(name)", errno: error)
        }
        return link.index
    }

    /// Every address of the namespace (`RTM_GETADDR` dump).
    package mutating func dumpAddresses() throws(ReachabilityError) -> [InterfaceAddress] {
        try retryingInterruptedDump("RTM_GETADDR dump") { (buffer, size, addresses: Collected<creach_addr>) in
            var skipped: UInt64 = 0
            return creach_addr_dump(&netlink, UInt8(AF_UNSPEC), buffer, size, { addr, context in
                Unmanaged<Collected<creach_addr>>.fromOpaque(context!).takeUnretainedValue().items.append(addr!.pointee)
                return 0
            }, Unmanaged.passUnretained(addresses).toOpaque(), &skipped)
        }.map(InterfaceAddress.init)
    }

    /// What sysfs and procfs tell of `link` beyond netlink (DEVTYPE, the
    /// driver, wireless; for PPP the namespace's carriers): the facts its
    /// kind is decided from (`InterfaceKind.init(facts:overrides:ownedByModem:)`).
    package func interfaceFacts(of link: LinkState, namespaceFD: Int32, declaredModems: [String]) -> InterfaceFacts {
        var facts = InterfaceFacts(name: link.name, rawFlags: link.rawFlags, hardwareType: link.hardwareType,
                                   linkKind: link.linkKind)
        if sysfsFD >= 0 {
            var sysfs = creach_sysfs()
            // The ifindex check guards against a sysfs that shows another namespace.
            if creach_sysfs_read(sysfsFD, link.name, &sysfs) == 0 && sysfs.ifindex == link.index {
                let deviceType = withUnsafeBytes(of: &sysfs.devtype) { String(decodingCString: $0) }
                let driver = withUnsafeBytes(of: &sysfs.driver) { String(decodingCString: $0) }
                facts.deviceType = deviceType.isEmpty ? nil : deviceType
                facts.driver = driver.isEmpty ? nil : driver
                facts.isWireless = sysfs.wireless != 0
            }
        }
        if facts.hardwareType == InterfaceKind.hardwareTypePPP {
            facts.ppp = KernelFiles.pppFacts(root: root, namespaceFD: namespaceFD, declaredModems: declaredModems)
        }
        return facts
    }
}
