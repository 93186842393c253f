// The facts a simulated kernel holds, and the kernel's rules over them: what
// an address, a link going down or losing carrier does to routes (as
// net/ipv4/fib_frontend.c and net/ipv6/addrconf.c do it), and the FIB's
// lookup (rules by priority; local, main and default tables; longest prefix,
// then metric; route types; an output interface bound lookup). The property
// test `SimulatedKernelAgreesWithLinuxTests` checks these answers against a
// real kernel given the same facts.

import ReachabilityCore

/// One link as the simulation holds it.
struct SimulatedLink: Sendable {
    var index: Int32
    var name: String
    var adminUp: Bool
    var carrier: Bool
    /// 802.1X or a modem waiting for its bearer: operstate `dormant`.
    var dormant = false
    var facts: InterfaceFacts
    var mtu: UInt32 = 1500

    var isLoopback: Bool { facts.rawFlags & LinkFlags.loopback.rawValue != 0 }

    /// The link as RTM_GETLINK reports it: IFF_UP, IFF_RUNNING and IFF_LOWER_UP
    /// from the admin state and carrier, the operstate the kernel derives.
    var state: LinkState {
        var flags = facts.rawFlags
        if adminUp { flags |= LinkFlags.up.rawValue }
        let lowerUp = adminUp && carrier
        if lowerUp { flags |= LinkFlags.lowerUp.rawValue | 0x40 }   // IFF_RUNNING
        if lowerUp && dormant { flags |= 0x20000 }                   // IFF_DORMANT
        let operState: OperState
        if isLoopback {
            operState = .unknown
        } else if !adminUp {
            operState = .down
        } else if !carrier {
            // default_operstate (net/core/link_watch.c): a link that is not
            // stacked on another (its iflink is itself: a NIC, a modem, a
            // radio) is `down` without carrier; `lowerlayerdown` is for
            // stacked links whose lower device lost it.
            operState = .down
        } else if dormant {
            operState = .dormant
        } else {
            operState = facts.hardwareType == InterfaceKind.hardwareTypeEther ? .up : .unknown
        }
        return LinkState(index: index, name: name, rawFlags: flags, operState: operState,
                         hardwareType: facts.hardwareType, linkKind: facts.linkKind, mtu: mtu,
                         carrier: adminUp ? carrier : false)
    }
}

/// A route the simulation was given (`ip route add`); connected and local
/// routes are not stored: they follow from addresses and link states.
struct SimulatedRoute: Sendable, Equatable {
    var table: UInt32 = 254
    var destination: IPAddress
    var prefixLength: Int
    /// `.unicast`, `.blackhole`, `.unreachable`, `.prohibit`, `.throw`.
    var type: RouteVerdict = .unicast
    var device: Int32?
    var gateway: IPAddress?
    var metric: UInt32 = 0
    var family: IPAddress.Family { destination.family }
}

/// A policy rule (`ip rule add`).
struct SimulatedRule: Sendable, Equatable {
    enum Action: Sendable, Equatable {
        case table(UInt32)
        case blackhole, unreachable, prohibit
    }
    var family: IPAddress.Family
    var priority: UInt32
    var from: (prefix: IPAddress, length: Int)?
    var to: (prefix: IPAddress, length: Int)?
    var mark: UInt32 = 0
    var markMask: UInt32 = 0
    var outputInterface: String?
    var uids: ClosedRange<UInt32>?
    var action: Action

    static func == (lhs: SimulatedRule, rhs: SimulatedRule) -> Bool {
        lhs.family == rhs.family && lhs.priority == rhs.priority && lhs.from?.prefix == rhs.from?.prefix
            && lhs.from?.length == rhs.from?.length && lhs.to?.prefix == rhs.to?.prefix && lhs.to?.length == rhs.to?.length
            && lhs.mark == rhs.mark && lhs.markMask == rhs.markMask && lhs.outputInterface == rhs.outputInterface
            && lhs.uids == rhs.uids && lhs.action == rhs.action
    }
}

/// Everything the simulated kernel knows, and its answers.
struct KernelFacts: Sendable {
    static let tableLocal: UInt32 = 255, tableMain: UInt32 = 254, tableDefault: UInt32 = 253

    var links: [SimulatedLink] = []
    var addresses: [InterfaceAddress] = []
    var routes: [SimulatedRoute] = []
    var rules: [SimulatedRule] = KernelFacts.defaultRules
    /// Whether an IPv4 rule was ever added. Until then the kernel keeps the
    /// local table's routes in the main table's trie (fib_unmerge splits them
    /// at the first rule, for good; removing the rule does not merge them
    /// back), and a lookup that finds a local route reports table main.
    var ipv4TablesUnmerged = false
    private var nextIndex: Int32 = 2

    /// What `ip rule` shows in a new namespace.
    static let defaultRules: [SimulatedRule] = [
        SimulatedRule(family: .v4, priority: 0, action: .table(tableLocal)),
        SimulatedRule(family: .v4, priority: 32766, action: .table(tableMain)),
        SimulatedRule(family: .v4, priority: 32767, action: .table(tableDefault)),
        SimulatedRule(family: .v6, priority: 0, action: .table(tableLocal)),
        SimulatedRule(family: .v6, priority: 32766, action: .table(tableMain)),
    ]

    init() {
        // A new namespace's loopback, up (as `ip link set lo up` leaves it).
        links.append(SimulatedLink(index: 1, name: "lo", adminUp: true, carrier: true,
                                   facts: InterfaceFacts(name: "lo", rawFlags: LinkFlags.loopback.rawValue,
                                                         hardwareType: InterfaceKind.hardwareTypeLoopback),
                                   mtu: 65536))
        addresses.append(InterfaceAddress(interfaceIndex: 1, address: IPAddress("127.0.0.1")!, prefixLength: 8))
        addresses.append(InterfaceAddress(interfaceIndex: 1, address: IPAddress("::1")!, prefixLength: 128))
    }

    // MARK: Changes, with the kernel's consequences

    mutating func addLink(name: String, facts: InterfaceFacts, adminUp: Bool, carrier: Bool) -> Int32 {
        let index = nextIndex
        nextIndex += 1
        var facts = facts
        facts.name = name
        links.append(SimulatedLink(index: index, name: name, adminUp: adminUp, carrier: carrier, facts: facts))
        return index
    }

    func linkIndex(_ name: String) -> Int32? { links.first { $0.name == name }?.index }
    func link(_ index: Int32) -> SimulatedLink? { links.first { $0.index == index } }

    mutating func update(_ index: Int32, _ change: (inout SimulatedLink) -> Void) {
        guard let position = links.firstIndex(where: { $0.index == index }) else { return }
        let wasUp = links[position].adminUp
        change(&links[position])
        if wasUp && !links[position].adminUp { linkWentDown(index) }
    }

    /// Admin down: every route through the link goes (IPv4's and IPv6's
    /// flush), and its IPv6 addresses (`keep_addr_on_down` 0); IPv4
    /// addresses stay, their routes come back when it is up again.
    private mutating func linkWentDown(_ index: Int32) {
        routes.removeAll { $0.device == index }
        addresses.removeAll { $0.interfaceIndex == index && $0.address.family == .v6 }
    }

    mutating func removeLink(_ index: Int32) {
        links.removeAll { $0.index == index }
        routes.removeAll { $0.device == index }
        addresses.removeAll { $0.interfaceIndex == index }
        rules = rules.filter { $0.outputInterface == nil || links.contains { $0.name == $0.name } }
    }

    mutating func addAddress(_ address: IPAddress, prefixLength: Int, on index: Int32) {
        guard !addresses.contains(where: { $0.interfaceIndex == index && $0.address == address }) else { return }
        // An IPv6 address on a link that is down goes with the next down; one
        // added while down stays (as `ip addr add ... nodad`).
        addresses.append(InterfaceAddress(interfaceIndex: index, address: address, prefixLength: UInt8(prefixLength)))
    }

    mutating func removeAddress(_ address: IPAddress, on index: Int32) {
        addresses.removeAll { $0.interfaceIndex == index && $0.address == address }
        // The kernel removes routes whose preferred source was the address;
        // ours carry none, and IPv4 gateways that become unreachable stay as routes.
    }

    /// Adds a route as `ip route add` does: refused (false) when its gateway
    /// is not on a connected network of its device, or the device is down.
    @discardableResult
    mutating func addRoute(_ route: SimulatedRoute) -> Bool {
        var route = route
        // IPv6 takes metric 0 as IP6_RT_PRIO_USER, 1024 (rtm_to_fib6_config).
        if route.family == .v6 && route.metric == 0 { route.metric = 1024 }
        if let device = route.device {
            guard let link = link(device), link.adminUp else { return false }
            if let gateway = route.gateway {
                let onLink = addresses.contains {
                    $0.interfaceIndex == device && $0.address.family == gateway.family
                        && gateway.isIn($0.address, length: Int($0.prefixLength))
                }
                guard onLink || gateway.isLinkLocal else { return false }
            }
        }
        routes.removeAll { $0.table == route.table && $0.destination == route.destination
            && $0.prefixLength == route.prefixLength && $0.metric == route.metric && $0.family == route.family }
        routes.append(route)
        return true
    }

    mutating func addRule(_ rule: SimulatedRule) {
        if rule.family == .v4 { ipv4TablesUnmerged = true }
        // A rule goes after the rules of its priority (as the kernel inserts it).
        let position = rules.firstIndex { $0.family == rule.family && $0.priority > rule.priority } ?? rules.endIndex
        rules.insert(rule, at: position)
    }

    // MARK: The derived tables

    /// The routes of `table` for `family`: the stored ones, and those the
    /// kernel makes for addresses on links that are up (local routes in
    /// table local, the connected prefix in main).
    func routes(of table: UInt32, family: IPAddress.Family) -> [SimulatedRoute] {
        var all = routes.filter { $0.table == table && $0.family == family }
        for address in addresses where address.address.family == family {
            guard let link = link(address.interfaceIndex) else { continue }
            let length = Int(address.prefixLength)
            // The local route is there whatever the link's state: fib_add_ifaddr
            // adds it before it checks IFF_UP, and fib_sync_down_dev spares
            // host-scope next hops when a link goes down (only unregistering
            // removes them); an IPv6 address added with nodad to a link that is
            // down has its local route too (addrconf_dad_begin completes at once).
            // The connected route needs the link up.
            if table == Self.tableLocal {
                let local = SimulatedRoute(table: table, destination: address.address,
                                           prefixLength: link.isLoopback && family == .v4 ? length : (family == .v4 ? 32 : 128),
                                           type: .local, device: address.interfaceIndex)
                all.append(local)
            } else if table == Self.tableMain && link.adminUp && !link.isLoopback && length < (family == .v4 ? 32 : 128) {
                all.append(SimulatedRoute(table: table, destination: address.address.masked(to: length), prefixLength: length,
                                          device: address.interfaceIndex, metric: family == .v4 ? 0 : 256))
            }
        }
        return all
    }

    // MARK: Lookup

    struct Query {
        var destination: IPAddress
        var source: IPAddress?
        var outputIndex: Int32?
        var mark: UInt32 = 0
        var uid: UInt32 = 0
    }

    /// The FIB's answer for `query`, as RTM_GETROUTE gives it.
    func lookup(_ query: Query) -> RouteLookup {
        let family = query.destination.family
        let refused = { (errno: Int32, verdict: RouteVerdict) in
            RouteLookup(verdict: verdict, family: family, table: 0, errno: SystemErrno(rawValue: errno))
        }
        let loopbackUp = link(1)?.adminUp ?? false
        if let source = query.source, family == .v4, !isLocal(source) || !loopbackUp {
            // ip_route_output_key_hash_rcu: an IPv4 source this host does not
            // have (__ip_dev_find) is ENETUNREACH. IPv6 does not check the source.
            return refused(101, .noRoute)
        }
        if let index = query.outputIndex {
            guard let link = link(index), link.adminUp else { return refused(101, .noRoute) }   // ENETUNREACH
        }
        let answer = walkRules(query)
        if let index = query.outputIndex, family == .v4, !answer.verdict.isUsable {
            // IPv4 with an output interface: whatever made the lookup fail (no
            // route, a throw, a typed route, a refusing rule), the kernel
            // "assume[s] that the destination is on link" (ip_route_output_key_hash_rcu).
            return RouteLookup(verdict: .unicast, family: family, table: 0, interfaceIndex: index,
                               preferredSource: query.source ?? preferredSource(device: index, family: family, local: nil))
        }
        return answer
    }

    /// The rules in order of priority, each consulting its table (fib_rules_lookup).
    private func walkRules(_ query: Query) -> RouteLookup {
        let family = query.destination.family
        let refused = { (errno: Int32, verdict: RouteVerdict) in
            RouteLookup(verdict: verdict, family: family, table: 0, errno: SystemErrno(rawValue: errno))
        }
        var thrownBy: UInt32?
        for rule in rules where rule.family == family && matches(rule, query) {
            switch rule.action {
            case .blackhole: return refused(22, .blackhole)
            case .unreachable: return refused(101, .noRoute)
            case .prohibit: return refused(13, .prohibit)
            case let .table(table):
                guard let route = lookup(in: table, query) else { continue }
                switch route.type {
                case .throw:
                    thrownBy = thrownBy ?? table
                    continue
                case .unreachable: return refused(113, .unreachable)   // EHOSTUNREACH
                case .prohibit: return refused(13, .prohibit)          // EACCES
                case .blackhole: return refused(22, .blackhole)        // EINVAL
                default:
                    let device = route.type == .local ? 1 : route.device ?? 1
                    let merged = family == .v4 && table == Self.tableLocal && !ipv4TablesUnmerged
                    return RouteLookup(verdict: route.type, family: family, table: merged ? Self.tableMain : table,
                                       interfaceIndex: device,
                                       gateway: route.gateway,
                                       preferredSource: query.source ?? preferredSource(device: route.type == .local
                                                                                        ? route.device ?? 1 : device,
                                                                                        family: family,
                                                                                        local: route.type == .local
                                                                                        ? query.destination : nil))
                }
            }
        }
        if let thrownBy {
            return RouteLookup(verdict: .throw, family: family, table: thrownBy, errno: SystemErrno(rawValue: 101))
        }
        return refused(101, .noRoute)
    }

    /// The route `table` chooses: the longest prefix that covers the
    /// destination, then the lowest metric, among routes whose next hop is
    /// usable (its device is the lookup's output interface, when it names one);
    /// typed routes (unreachable, throw ...) have no next hop to check.
    private func lookup(in table: UInt32, _ query: Query) -> SimulatedRoute? {
        let candidates = routes(of: table, family: query.destination.family)
            .filter { query.destination.isIn($0.destination, length: $0.prefixLength) }
            .sorted { ($0.prefixLength, UInt32.max - $0.metric) > ($1.prefixLength, UInt32.max - $1.metric) }
        return candidates.first { route in
            guard route.type == .unicast || route.type == .local else { return true }
            // fib_lookup_good_nhc: with an output interface, a next hop through
            // another device is passed over; a local route's next hop is the
            // device that holds the address (lo for 127.0.0.0/8).
            guard let index = query.outputIndex else { return true }
            return route.device == index
        }
    }

    private func matches(_ rule: SimulatedRule, _ query: Query) -> Bool {
        if let to = rule.to, !query.destination.isIn(to.prefix, length: to.length) { return false }
        if let from = rule.from {
            let source = query.source ?? (query.destination.family == .v4 ? IPAddress("0.0.0.0")! : IPAddress("::")!)
            if !source.isIn(from.prefix, length: from.length) { return false }
        }
        if (rule.mark ^ query.mark) & rule.markMask != 0 { return false }
        if let name = rule.outputInterface {
            guard let index = query.outputIndex, linkIndex(name) == index else { return false }
        }
        if let uids = rule.uids, !uids.contains(query.uid) { return false }
        return true
    }

    /// An IPv4 address of this host as __ip_dev_find finds it: one assigned
    /// to any link, whatever the link's state, or 127.0.0.0/8.
    func isLocal(_ address: IPAddress) -> Bool {
        addresses.contains { $0.address == address }
            || (address.family == .v4 && address.isIn(IPAddress("127.0.0.0")!, length: 8))
    }

    /// The source the kernel would choose on `device`: the local address
    /// itself for a local route, else the device's first address of the family.
    private func preferredSource(device: Int32, family: IPAddress.Family, local: IPAddress?) -> IPAddress? {
        if let local { return local }
        return addresses.first { $0.interfaceIndex == device && $0.address.family == family }?.address
    }
}

extension IPAddress {
    /// The network of this address with a prefix of `length` bits.
    func masked(to length: Int) -> IPAddress {
        var bytes = withBytes { Array($0) }
        for position in bytes.indices {
            let keep = max(0, min(8, length - position * 8))
            bytes[position] &= keep == 8 ? 0xff : UInt8(truncatingIfNeeded: 0xff << (8 - keep))
        }
        return bytes.withUnsafeBytes { IPAddress(family: family, bytes: $0) }
    }

    /// fe80::/10.
    var isLinkLocal: Bool { family == .v6 && isIn(IPAddress("fe80::")!, length: 10) }
}
