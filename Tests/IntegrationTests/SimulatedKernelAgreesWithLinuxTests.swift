// The property test of issue 31: for the same kernel facts, the simulated
// network (ReachabilityTesting's `SimulatedNetwork`) gives the answers Linux
// gives. Each case draws facts from a seeded generator — 1 to 4 veth links
// (some named wwan*, classified WWAN) whose peers live in another namespace,
// IPv4 and IPv6 addresses, admin state and carrier (the peer's admin state),
// links brought down and up again, routes in main and table 100 (default and
// prefix routes, through a gateway or direct, with metrics; blackhole,
// unreachable, prohibit and throw routes), policy rules (to, from, fwmark,
// oif, uidrange; lookup, blackhole, unreachable, prohibit) — builds them in
// a real namespace with `ip` and in a simulated network with the same steps
// in the same order, then evaluates ten destinations (with a mark, a uid, a
// source or an interface, sometimes) with a live and a simulated
// `ReachabilityEvaluator` and compares verdict, table, link, gateway, kind,
// status and flags. The links' state (flags, operstate, carrier, kind,
// addresses) and which `ip route add` the kernel refused are compared too.
// Cases run in two namespaces, reset between cases: one where an IPv4 rule
// was added once (the local and main tables split, as on most routers), one
// where none ever was (merged: a local route is reported in table main).
//
// Seeds: every run prints its base seed (random unless REACH_PROPTEST_SEED=N
// is set, which repeats a run); each case's seed is derived from it and is
// printed with any difference, with the case's `ip` commands and both answers;
// REACH_PROPTEST_CASE=N replays that one case, REACH_PROPTEST_CASES=N sets the
// count (250: about 7 s).
//
// What the generated space leaves out, and why:
// - IPv6 lookups bound to an output interface (`LookupOptions.interface`):
//   the kernel scores IPv6 routes by interface (rt6_score_route) and refuses a
//   local address through another device; the simulation does not claim it.
// - Gateways off the device's own subnet: the kernel accepts a gateway that
//   any link-scope route through the device covers (fib_check_nh_v4_gw,
//   ip6_route_check_nh, looked up through the rules present then); the
//   simulation's `routes.add` checks only the device's connected subnets.
//   Gateways here are .1 / ::1 of the device's subnet, or routes through a
//   link that is down (both sides must refuse those). Rules come after the
//   routes for the same reason. No gateway is the host's own address.
// - Two routes with the same table, prefix and metric: `ip route add`
//   refuses the second (EEXIST), the simulation replaces the first.
// - Broadcast, multicast, network, link-local destinations, and routes
//   inside 127.0.0.0/8 or over a local address: the simulation has no
//   broadcast or multicast routes, and with merged tables the kernel matches
//   local and main routes together (the simulation consults local first).
// - IPv4 sources that are not this host's (ENETUNREACH) or loopback (EINVAL
//   out of another device, __mkroute_output): IPv4 sources are addresses of
//   the case's links (which keep them when down). IPv6 sources may have been
//   flushed: the kernel does not check them, nor does the simulation.
// - Multipath routes, nexthop objects, `onlink`, `src`, TOS/DSCP, rule `iif`,
//   `goto`, `nop`, `suppress_prefixlength`, `not`, other link kinds, dormant.
// - Live-side limitations (found by this test; the simulation gives the
//   kernel's reason, the live evaluator cannot tell it):
//   - an IPv6 `from` rule in a case with an IPv6 `throw` route: for a lookup
//     without a source the live evaluator cannot tell whether such a rule
//     matches (RuleChain: FIB_RULE_FIND_SADDR) and reports `noRoute` where
//     the simulation reports the throw.
//   (An IPv4 lookup bound to an admin-down link in a case with an IPv4
//   `throw` route was the other: the kernel refuses it before any rule, and
//   the live evaluator took that refusal for the throw. RouteSocket now knows
//   an IPv4 lookup bound to an interface is never refused by a throw.)

import Foundation
import LinuxReachability
import ReachabilityTesting
import ReachabilityTestSupport
import XCTest

#if canImport(Glibc)
import Glibc
#endif

// MARK: - One case: facts as steps both sides take in the same order

struct KernelFactCase {
    struct Link {
        var name: String
        /// The veth's other end, in the peer namespace: its admin state is our carrier.
        var peer: String
        /// 10.N.0.0/24 and fd00:N::/64.
        var subnet: Int
        var v4: String { "10.\(subnet).0.2" }
        var v6: String { "fd00:\(subnet)::2" }
        var gateway4: String { "10.\(subnet).0.1" }
        var gateway6: String { "fd00:\(subnet)::1" }
    }

    struct Route {
        var family: IPAddress.Family
        var type: RouteVerdict = .unicast
        var prefix: String
        var link: Int?
        var gateway: String?
        var metric: UInt32
        var table: UInt32
    }

    struct Rule {
        var family: IPAddress.Family
        var priority: UInt32
        var from: String?
        var to: String?
        var mark: UInt32?
        var markMask: UInt32 = 0xffff_ffff
        var outputLink: Int?
        var uids: ClosedRange<UInt32>?
        var action: SimulatedNetwork.Rules.Action
    }

    enum Step {
        /// An IPv4 rule added and removed: the namespace's IPv4 local and
        /// main tables are split from then on (fib_unmerge).
        case ruleHistory
        /// Peer namespace: `link add PEER type veth peer name NAME netns NS`, and the peer up or not.
        case createLink(Int, peerUp: Bool)
        /// Peer namespace: the peer end up or down (our end's carrier).
        case setPeer(Int, up: Bool)
        case address(Int, IPAddress.Family)
        case admin(Int, up: Bool)
        case route(Route)
        case rule(Rule)
    }

    struct Lookup {
        var destination: String
        var options: LookupOptions
    }

    var seed: UInt64
    /// Runs where no IPv4 rule was ever added (the local and main tables merged).
    var pristine = false
    var links: [Link] = []
    var steps: [Step] = []
    var lookups: [Lookup] = []
}

extension KernelFactCase {
    static let namePool = ["eth0", "eth1", "wan0", "wan1", "wwan0", "wwan1"]
    static let prefixes4 = ["0.0.0.0/0", "10.0.0.0/8", "198.51.0.0/16", "198.51.100.0/24", "198.51.100.7/32",
                            "203.0.113.0/24", "203.0.113.128/25"]
    static let prefixes6 = ["::/0", "fd00::/8", "2001:db8::/32", "2001:db8:1::/48", "2001:db8:1:2::/64",
                            "2001:db8:1:2::5/128", "2606:4700::/32"]
    static let destinations4 = ["198.51.100.7", "198.51.100.9", "198.51.7.9", "203.0.113.5", "203.0.113.200", "8.8.8.8",
                                "10.77.0.1", "127.0.0.1"]
    static let destinations6 = ["2001:db8:1:2::5", "2001:db8:1:2::6", "2001:db8:1:3::5", "2001:db8:5::5", "2606:4700::1",
                                "fd77::1", "::1"]
    static let typed: [RouteVerdict] = [.blackhole, .unreachable, .prohibit, .throw]
    static let metrics: [UInt32] = [0, 10, 100, 500, 1024, 2000]

    /// Draws one case from `seed`.
    init(seed: UInt64) {
        self.seed = seed
        var rng = SplitMix64(seed: seed)
        func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &rng) < p }

        let names = Self.namePool.shuffled(using: &rng).prefix(Int.random(in: 1...4, using: &rng))
        for (position, name) in names.enumerated() {
            links.append(Link(name: name, peer: "pk\(position)", subnet: position + 1))
        }

        // What the generator knows of the state as it goes (to make valid routes).
        struct LinkPlan {
            var v4 = false, v6 = false, beforeUp = false, neverUp = false, initialPeer = true
            var flap = false, flapLate = false, finalDown = false, finalPeer = true
        }
        var plans: [LinkPlan] = []
        for _ in links {
            var plan = LinkPlan()
            plan.v4 = chance(0.8)
            plan.v6 = chance(0.6)
            plan.beforeUp = chance(0.6)
            plan.neverUp = chance(0.08)
            plan.initialPeer = chance(0.85)
            plan.flap = !plan.neverUp && chance(0.2)
            plan.flapLate = chance(0.5)
            plan.finalDown = !plan.neverUp && chance(0.15)
            plan.finalPeer = chance(0.8)
            plans.append(plan)
        }
        var up = Array(repeating: false, count: links.count)
        var hasV6 = Array(repeating: false, count: links.count)

        for index in links.indices { steps.append(.createLink(index, peerUp: plans[index].initialPeer)) }
        func addAddresses(_ index: Int) {
            if plans[index].v4 { steps.append(.address(index, .v4)) }
            if plans[index].v6 { steps.append(.address(index, .v6)); hasV6[index] = true }
        }
        for index in links.indices where plans[index].beforeUp { addAddresses(index) }
        for index in links.indices where !plans[index].neverUp {
            steps.append(.admin(index, up: true))
            up[index] = true
        }
        for index in links.indices where !plans[index].beforeUp { addAddresses(index) }

        var keys = Set<String>()
        var hasThrow: Set<IPAddress.Family> = []
        func addRoutes(_ count: Int) {
            for _ in 0..<count {
                let family: IPAddress.Family = chance(0.55) ? .v4 : .v6
                let table: UInt32 = chance(0.65) ? 254 : 100
                let pool = family == .v4 ? Self.prefixes4 : Self.prefixes6
                let prefix = chance(0.3) ? pool[0] : pool.randomElement(using: &rng)!   // the default route, often
                var metric = Self.metrics.randomElement(using: &rng)!
                if family == .v6 && metric == 0 && chance(0.5) { metric = 1024 }
                // IPv6 takes metric 0 as 1024: one key.
                let key = "\(family) \(table) \(prefix) \(family == .v6 && metric == 0 ? 1024 : metric)"
                guard !keys.contains(key) else { continue }
                if chance(0.15) {
                    let type = Self.typed.randomElement(using: &rng)!
                    if type == .throw { hasThrow.insert(family) }
                    steps.append(.route(Route(family: family, type: type, prefix: prefix, metric: metric, table: table)))
                    keys.insert(key)
                    continue
                }
                let index = Int.random(in: 0..<links.count, using: &rng)
                let hasAddress = family == .v4 ? plans[index].v4 : hasV6[index]
                var gateway: String?
                if (hasAddress && chance(0.6)) || (!up[index] && chance(0.5)) {
                    gateway = family == .v4 ? links[index].gateway4 : links[index].gateway6
                }
                steps.append(.route(Route(family: family, prefix: prefix, link: index, gateway: gateway, metric: metric,
                                          table: table)))
                // Through a link that is down, both sides refuse it: no key taken.
                if up[index] { keys.insert(key) }
            }
        }
        func flap(_ late: Bool) {
            for index in links.indices where plans[index].flap && plans[index].flapLate == late {
                steps.append(.admin(index, up: false))
                steps.append(.admin(index, up: true))
                hasV6[index] = false
                // Its routes went: their keys are free again, but keeping them taken is harmless.
            }
        }

        addRoutes(Int.random(in: 0...8, using: &rng))
        flap(false)
        addRoutes(Int.random(in: 0...3, using: &rng))

        var priorities: [IPAddress.Family: Set<UInt32>] = [.v4: [], .v6: []]
        for _ in 0..<Int.random(in: 0...4, using: &rng) {
            let family: IPAddress.Family = chance(0.6) ? .v4 : .v6
            var priority = UInt32.random(in: 1...32000, using: &rng)
            while priorities[family]!.contains(priority) { priority += 1 }
            priorities[family]!.insert(priority)
            var rule = Rule(family: family, priority: priority, action: .table(100))
            if chance(0.35) { rule.to = (family == .v4 ? Self.prefixes4 : Self.prefixes6).randomElement(using: &rng)! }
            if chance(0.25), !(family == .v6 && hasThrow.contains(.v6)) {
                let owners = links.indices.filter { family == .v4 ? plans[$0].v4 : plans[$0].v6 }
                if let owner = owners.randomElement(using: &rng) {
                    let link = links[owner]
                    rule.from = chance(0.5) ? (family == .v4 ? "\(link.v4)/32" : "\(link.v6)/128")
                        : (family == .v4 ? "10.\(link.subnet).0.0/24" : "fd00:\(link.subnet)::/64")
                }
            }
            if chance(0.25) {
                rule.mark = [1, 2, 0x101].randomElement(using: &rng)!
                rule.markMask = chance(0.5) ? 0xffff_ffff : 0xff
            }
            if chance(0.15) { rule.outputLink = Int.random(in: 0..<links.count, using: &rng) }
            if chance(0.2) { rule.uids = [1000...1999, 0...0, 65534...65534].randomElement(using: &rng)! }
            let action = Double.random(in: 0..<1, using: &rng)
            switch action {
            case ..<0.4: rule.action = .table(100)
            case ..<0.55: rule.action = .table(254)
            case ..<0.6: rule.action = .table(200)
            case ..<0.74: rule.action = .blackhole
            case ..<0.87: rule.action = .unreachable
            default: rule.action = .prohibit
            }
            steps.append(.rule(rule))
        }

        flap(true)
        let v4Rules = steps.contains { if case let .rule(rule) = $0 { return rule.family == .v4 } else { return false } }
        pristine = !v4Rules && chance(0.4)
        if !pristine { steps.insert(.ruleHistory, at: 0) }
        for index in links.indices where plans[index].finalDown {
            steps.append(.admin(index, up: false))
            up[index] = false
        }
        for index in links.indices where plans[index].finalPeer != plans[index].initialPeer {
            steps.append(.setPeer(index, up: plans[index].finalPeer))
        }

        // The lookups.
        var candidates4 = Self.destinations4, candidates6 = Self.destinations6
        for link in links {
            candidates4 += [link.v4, "10.\(link.subnet).0.7"]
            candidates6 += [link.v6, "fd00:\(link.subnet)::7"]
        }
        for _ in 0..<10 {
            let v4 = chance(0.6)
            let destination = (v4 ? candidates4 : candidates6).randomElement(using: &rng)!
            var options = LookupOptions()
            if chance(0.55) {
                if chance(0.35) { options.mark = [1, 2, 0x101, 0x201].randomElement(using: &rng)! }
                if chance(0.3) { options.uid = [0, 1000, 1500, 65534].randomElement(using: &rng)! }
                if chance(0.3) {
                    let owners = links.indices.filter { v4 ? plans[$0].v4 : plans[$0].v6 }
                    if let owner = owners.randomElement(using: &rng) {
                        options.source = IPAddress(v4 ? links[owner].v4 : links[owner].v6)
                    }
                }
                if v4 && chance(0.3) {
                    let index = Int.random(in: 0..<links.count, using: &rng)
                    options.interface = links[index].name
                }
            }
            lookups.append(Lookup(destination: destination, options: options))
        }
    }
}

// MARK: - The two sides

extension KernelFactCase {
    /// Where an `ip` line runs, and the family option it needs (`ip rule`
    /// does not infer IPv6 from nothing, and `-6` would misread IPv4 lines).
    enum Side: Equatable { case namespace, peer }
    enum Needs: Equatable { case any, v4, v6 }

    struct Line {
        var side: Side
        var needs: Needs
        var text: String
        var step: Int
    }

    /// The group of every link a case makes (`ip link del group` removes them in one go).
    static let linkGroup = 7

    /// The `ip` lines of every step, in order.
    ///
    /// Indexes are fixed: each name of the pool has its own (ip's batch
    /// keeps names' indexes from one command to the next, and links are made
    /// again every case), and the peers' ends have indexes no link of the
    /// namespace has, so that a link whose peer is down reports operstate
    /// `down`, as a NIC without carrier does (default_operstate looks its
    /// iflink up in the link's own namespace), and its carrier changes are
    /// urgent for the kernel's link watch (linkwatch_urgent_event).
    ///
    /// `namespace` is what `netns` takes in the peer namespace's `link add`:
    /// the name, or the pid of a process in the namespace (ip's batch opens
    /// /run/netns/NAME for every command and never closes it).
    func lines(namespace: String) -> [Line] {
        var lines: [Line] = []
        for (number, step) in steps.enumerated() {
            func add(_ side: Side, _ needs: Needs, _ text: String) {
                lines.append(Line(side: side, needs: needs, text: text, step: number))
            }
            switch step {
            case .ruleHistory:
                add(.namespace, .v4, "rule add priority 1 lookup main")
                add(.namespace, .v4, "rule del priority 1")
            case let .createLink(index, peerUp):
                let link = links[index]
                add(.peer, .any, "link add \(link.peer) index \(100_000 + index) type veth peer name \(link.name) "
                    + "netns \(namespace) index \(10 + Self.namePool.firstIndex(of: link.name)!) group \(Self.linkGroup)")
                if peerUp { add(.peer, .any, "link set \(links[index].peer) up") }
            case let .setPeer(index, up):
                add(.peer, .any, "link set \(links[index].peer) \(up ? "up" : "down")")
            case let .address(index, family):
                let link = links[index]
                add(.namespace, family == .v4 ? .v4 : .any,
                    family == .v4 ? "addr add \(link.v4)/24 dev \(link.name)" : "addr add \(link.v6)/64 dev \(link.name) nodad")
            case let .admin(index, up):
                add(.namespace, .any, "link set \(links[index].name) \(up ? "up" : "down")")
            case let .route(route):
                var text = "route add "
                if route.type != .unicast { text += "\(route.type.rawValue) " }
                text += route.prefix
                if let gateway = route.gateway { text += " via \(gateway)" }
                if let index = route.link { text += " dev \(links[index].name)" }
                text += " metric \(route.metric) table \(route.table)"
                add(.namespace, route.family == .v4 ? .v4 : .any, text)
            case let .rule(rule):
                var text = "rule add priority \(rule.priority)"
                if let from = rule.from { text += " from \(from)" }
                if let to = rule.to { text += " to \(to)" }
                if let mark = rule.mark { text += " fwmark \(mark)/\(String(format: "0x%x", rule.markMask))" }
                if let index = rule.outputLink { text += " oif \(links[index].name)" }
                if let uids = rule.uids { text += " uidrange \(uids.lowerBound)-\(uids.upperBound)" }
                switch rule.action {
                case let .table(table): text += " lookup \(table)"
                case .blackhole: text += " blackhole"
                case .unreachable: text += " unreachable"
                case .prohibit: text += " prohibit"
                }
                add(.namespace, rule.family == .v4 ? .v4 : .v6, text)
            }
        }
        return lines
    }

    /// The lines that put the namespaces back as they were (the peers go with their links).
    func resetLines() -> [Line] {
        var lines: [Line] = []
        for family in [IPAddress.Family.v4, .v6] {
            let needs: Needs = family == .v4 ? .v4 : .v6
            for step in steps {
                if case let .rule(rule) = step, rule.family == family {
                    lines.append(Line(side: .namespace, needs: needs, text: "rule del priority \(rule.priority)", step: -1))
                }
            }
            if family == .v4 {
                lines.append(Line(side: .namespace, needs: .v4, text: "link del group \(Self.linkGroup)", step: -1))
            }
            for table in [254, 100] {
                lines.append(Line(side: .namespace, needs: needs, text: "route flush table \(table)", step: -1))
            }
        }
        return lines
    }

    /// Applies the steps to `net`; for each step, whether the simulation accepted it
    /// (only `routes.add` can refuse).
    func apply(to net: SimulatedNetwork) -> [Bool] {
        var uplinks: [SimulatedNetwork.Uplink] = []
        var accepted: [Bool] = []
        for step in steps {
            var ok = true
            switch step {
            case .ruleHistory:
                net.rules.add(priority: 1, family: .v4, .table(254))
                net.rules.remove(priority: 1)
            case let .createLink(index, peerUp):
                let link = links[index]
                uplinks.append(net.addLink(link.name, facts: InterfaceFacts(name: link.name, rawFlags: 0x1002,
                                                                            hardwareType: 1, linkKind: "veth"),
                                           up: false, carrier: peerUp))
            case let .setPeer(index, up):
                if up { uplinks[index].plugIn() } else { uplinks[index].unplug() }
            case let .address(index, family):
                let link = links[index]
                if family == .v4 {
                    uplinks[index].addAddress(IPAddress(link.v4)!, prefixLength: 24)
                } else {
                    uplinks[index].addAddress(IPAddress(link.v6)!, prefixLength: 64)
                }
            case let .admin(index, up):
                if up { uplinks[index].setUp() } else { uplinks[index].setDown() }
            case let .route(route):
                if route.type == .unicast {
                    ok = net.routes.add(route.prefix, via: uplinks[route.link!], gateway: route.gateway.flatMap(IPAddress.init),
                                        metric: route.metric, table: route.table)
                } else {
                    net.routes.add(route.type, route.prefix, metric: route.metric, table: route.table)
                }
            case let .rule(rule):
                net.rules.add(priority: rule.priority, from: rule.from, to: rule.to, mark: rule.mark, markMask: rule.markMask,
                              outputInterface: rule.outputLink.map { links[$0].name }, uids: rule.uids,
                              family: rule.family, rule.action)
            }
            accepted.append(ok)
        }
        return accepted
    }
}

// MARK: - The test

final class SimulatedKernelAgreesWithLinuxTests: NamespaceTestCase {
    /// What is compared of one answer.
    struct Answer: Equatable, CustomStringConvertible {
        var verdict: RouteVerdict
        var table: UInt32
        var link: String?
        var gateway: IPAddress?
        var kind: InterfaceKind?
        var status: ReachabilityStatus
        var flags: ReachabilityFlags
        var error: String?

        init(_ evaluation: AddressEvaluation) {
            verdict = evaluation.route.verdict
            table = evaluation.route.table
            link = evaluation.link?.name
            gateway = evaluation.route.gateway
            kind = evaluation.interfaceKind
            status = evaluation.status
            flags = evaluation.flags
        }

        init(error: Error) {
            verdict = .failed; table = 0; status = .notReachable; flags = []
            self.error = "\(error)"
        }

        var description: String {
            if let error { return "error \(error)" }
            return "\(verdict) table \(table) dev \(link ?? "-") via \(gateway?.description ?? "-") kind \(kind?.description ?? "-") "
                + "status \(status) flags \(flags)"
        }
    }

    /// A link as compared: state and addresses.
    struct LinkView: Equatable, CustomStringConvertible {
        var rawFlags: UInt32
        var operState: OperState
        var carrier: Bool?
        var kind: InterfaceKind
        var addresses: [String]

        init(_ summary: InterfaceSummary) {
            rawFlags = summary.link.rawFlags
            operState = summary.link.operState
            carrier = summary.link.carrier
            kind = summary.kind
            addresses = summary.addresses.map { "\($0.address)/\($0.prefixLength)" }.sorted()
        }

        var description: String {
            "flags \(String(format: "0x%x", rawFlags)) \(operState) carrier \(carrier.map(String.init) ?? "-") \(kind) \(addresses)"
        }
    }

    /// One namespace the cases run in, with its `ip` shells.
    struct Lab {
        var namespace: TestNamespace
        var shell: IPShell
        var shell6: IPShell
    }

    private static func environmentNumber(_ name: String) -> UInt64? {
        guard let text = ProcessInfo.processInfo.environment[name] else { return nil }
        return text.hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) : UInt64(text)
    }

    func testSimulatedAnswersAreTheKernels() throws {
        try skipUnderEmulation(qemuHasNoRuleMessages)
        let ip = try XCTUnwrap(ipExecutable)
        // Two namespaces for the cases, so that both states of the IPv4
        // tables are covered: one that never gets an IPv4 rule (local and main
        // merged) and one that had one (split for good); and one for the peers.
        let pristine = try makeNamespace(), ruled = try makeNamespace(), peers = try makeNamespace()
        let labs = try [pristine, ruled].map {
            Lab(namespace: $0, shell: try IPShell(ip: ip, namespace: $0.name, v6: false),
                shell6: try IPShell(ip: ip, namespace: $0.name, v6: true))
        }
        let peerShell = try IPShell(ip: ip, namespace: peers.name, v6: false)
        addTeardownBlock {
            for shell in labs.flatMap({ [$0.shell, $0.shell6] }) + [peerShell] { shell.close() }
        }
        let started = Date()

        let base = Self.environmentNumber("REACH_PROPTEST_SEED") ?? UInt64.random(in: 0...UInt64.max)
        let count = Int(Self.environmentNumber("REACH_PROPTEST_CASES") ?? 250)
        var seeds: [UInt64] = []
        if let one = Self.environmentNumber("REACH_PROPTEST_CASE") {
            seeds = [one]
        } else {
            var rng = SplitMix64(seed: base)
            seeds = (0..<count).map { _ in rng.next() }
        }
        print("SimulatedKernelAgreesWithLinux: base seed \(base) (REACH_PROPTEST_SEED=\(base) repeats this run), \(seeds.count) cases")

        var failures = 0
        var statistics = Statistics()
        for seed in seeds {
            let facts = KernelFactCase(seed: seed)
            let lab = labs[facts.pristine ? 0 : 1]
            let report = try runCase(facts, lab: lab, peerShell: peerShell, statistics: &statistics, ip: ip)
            if !report.problems.isEmpty {
                failures += 1
                XCTFail(report.text(base: base, ns: lab.namespace.name, peers: peers.name))
                if failures >= 5 { break }
            }
        }
        let elapsed = Date().timeIntervalSince(started)
        print("SimulatedKernelAgreesWithLinux: \(statistics.cases) cases, \(statistics.lookups) lookups compared, "
              + "\(failures) failing, \(String(format: "%.1f", elapsed)) s (base seed \(base))\n  \(statistics)")
    }

    /// What the cases covered, for the summary line.
    struct Statistics: CustomStringConvertible {
        var cases = 0, lookups = 0, pristine = 0
        var verdicts: [String: Int] = [:]
        var options: [String: Int] = [:]
        var routesRefused = 0, routesAdded = 0, rules = 0
        var linksDown = 0, linksWithoutCarrier = 0, links = 0

        var description: String {
            func list(_ counts: [String: Int]) -> String {
                counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            }
            return "live answers: \(list(verdicts)); lookups with \(list(options)); "
                + "\(links) links (\(linksDown) admin down, \(linksWithoutCarrier) up without carrier), "
                + "\(routesAdded) routes added, \(routesRefused) refused by both, \(rules) rules; "
                + "\(pristine) cases in the namespace that never had an IPv4 rule"
        }
    }

    struct CaseReport {
        var facts: KernelFactCase
        var lines: [KernelFactCase.Line]
        var problems: [String] = []
        var kernelState = ""

        func text(base: UInt64, ns: String, peers: String) -> String {
            var text = "simulated answer differs from the kernel's: case seed \(facts.seed) (base seed \(base)); "
                + "replay with REACH_PROPTEST_CASE=\(facts.seed)\n"
            text += "facts (NS=\(ns)\(facts.pristine ? ", where no IPv4 rule was ever added" : ""); PEER=\(peers)):\n"
            for line in lines {
                text += "  ip -n \(line.side == .namespace ? "$NS" : "$PEER")\(line.needs == .v6 ? " -6" : "") \(line.text)\n"
            }
            text += "differences:\n" + problems.map { "  - \($0)\n" }.joined()
            text += "the kernel's tables and links:\n" + kernelState
            return text
        }
    }

    /// Builds one case on both sides, compares, and resets the namespace.
    private func runCase(_ facts: KernelFactCase, lab: Lab, peerShell: IPShell, statistics: inout Statistics,
                         ip: URL) throws -> CaseReport {
        let ns = lab.namespace
        let lines = facts.lines(namespace: String(lab.shell.pid))
        var report = CaseReport(facts: facts, lines: facts.lines(namespace: "$NS"))
        defer { _ = run(facts.resetLines(), lab: lab, peerShell: peerShell) }

        let net = SimulatedNetwork()
        let simulatedAccepts = facts.apply(to: net)
        let refused = run(lines, lab: lab, peerShell: peerShell)
        for (number, step) in facts.steps.enumerated() {
            if case .route = step { simulatedAccepts[number] ? (statistics.routesAdded += 1) : (statistics.routesRefused += 1) }
            if case .rule = step { statistics.rules += 1 }
            guard refused.steps.contains(number) == simulatedAccepts[number] else { continue }
            let text = lines.filter { $0.step == number }.map(\.text).joined(separator: "; ")
            if case .route = step {
                report.problems.append("`\(text)`: the kernel \(simulatedAccepts[number] ? "refused" : "accepted") it, "
                                       + "the simulation \(simulatedAccepts[number] ? "accepted" : "refused") it")
            } else {
                report.problems.append("`\(text)` failed: \(refused.errors)")
            }
        }

        let policy = ReachabilityPolicy()
        let live = try ReachabilityEvaluator(namespace: .named(ns.name), policy: policy, radio: RadioSource())
        let simulated = try ReachabilityEvaluator(namespace: net.namespace, policy: policy, radio: RadioSource())

        // Links: flags, operstate, carrier, kind and addresses. Operstate
        // follows carrier through the kernel's link watch, a moment later: wait.
        let expected = try Dictionary(uniqueKeysWithValues: simulated.interfaces().map { ($0.link.name, LinkView($0)) })
        var actual: [String: LinkView] = [:]
        let deadline = Date().addingTimeInterval(3)
        repeat {
            actual = try Dictionary(uniqueKeysWithValues: live.interfaces().map { ($0.link.name, LinkView($0)) })
            if actual == expected { break }
            usleep(1_000)
        } while Date() < deadline
        for name in Set(expected.keys).union(actual.keys).sorted() where expected[name] != actual[name] {
            report.problems.append("link \(name): live \(actual[name].map(String.init(describing:)) ?? "none"), "
                                   + "simulated \(expected[name].map(String.init(describing:)) ?? "none")")
        }
        for view in expected.values where view.kind != .loopback {
            statistics.links += 1
            if view.rawFlags & LinkFlags.up.rawValue == 0 {
                statistics.linksDown += 1
            } else if view.carrier != true {
                statistics.linksWithoutCarrier += 1
            }
        }
        // An IPv6 address (nodad) gets its local route from the DAD work, a moment after `ip addr add`.
        for view in expected.values {
            for text in view.addresses {
                guard let address = IPAddress(String(text.split(separator: "/")[0])), address.family == .v6 else { continue }
                let until = Date().addingTimeInterval(1)
                while (try? live.lookupRoute(address))?.verdict != .local && Date() < until { usleep(1_000) }
            }
        }

        for lookup in facts.lookups {
            guard let address = IPAddress(lookup.destination) else { continue }
            let kernel: Answer, model: Answer
            do { kernel = Answer(try live.evaluate(address, options: lookup.options)) } catch { kernel = Answer(error: error) }
            do { model = Answer(try simulated.evaluate(address, options: lookup.options)) } catch { model = Answer(error: error) }
            statistics.lookups += 1
            statistics.verdicts[kernel.error == nil ? kernel.verdict.rawValue : "error", default: 0] += 1
            let options = lookup.options
            for (name, used) in [("mark", options.mark != nil), ("uid", options.uid != nil), ("source", options.source != nil),
                                 ("oif", options.interface != nil)] where used {
                statistics.options[name, default: 0] += 1
            }
            if kernel != model {
                report.problems.append("\(lookup.destination) \(describe(options)):\n      live       \(kernel)\n"
                                       + "      simulated  \(model)")
            }
        }
        statistics.cases += 1
        if facts.pristine { statistics.pristine += 1 }
        if !report.problems.isEmpty {
            for args in [["-d", "route", "show", "table", "all"], ["-d", "-6", "route", "show", "table", "all"],
                         ["rule"], ["-6", "rule"], ["-d", "link"], ["addr"]] {
                let result = try? runCommand(ip, ["-n", ns.name] + args)
                report.kernelState += "  $ ip \(args.joined(separator: " "))\n"
                    + (result?.stdoutLines ?? []).filter { !$0.hasPrefix("multicast") }.map { "    \($0)\n" }.joined()
            }
        }
        return report
    }

    private func describe(_ options: LookupOptions) -> String {
        var parts: [String] = []
        if let mark = options.mark { parts.append("mark \(mark)") }
        if let uid = options.uid { parts.append("uid \(uid)") }
        if let source = options.source { parts.append("from \(source)") }
        if let interface = options.interface { parts.append("oif \(interface)") }
        return parts.isEmpty ? "(no options)" : "(" + parts.joined(separator: " ") + ")"
    }

    /// `ip -n NS [-6] -force -batch -`, kept running for the whole test (a
    /// process per command would cost more than the cases): lines are written
    /// to its standard input, then one that must fail, whose error on stderr
    /// comes after theirs and marks their end.
    final class IPShell {
        private let process = Process()
        private let input: FileHandle
        private let errors: FileHandle
        private var sent = 0
        private var pending = ""
        /// The process, which lives in the namespace.
        var pid: Int32 { process.processIdentifier }

        init(ip: URL, namespace: String, v6: Bool) throws {
            process.executableURL = ip
            process.arguments = ["-n", namespace] + (v6 ? ["-6"] : []) + ["-force", "-batch", "-"]
            let inputPipe = Pipe(), errorPipe = Pipe()
            process.standardInput = inputPipe
            process.standardOutput = FileHandle.nullDevice
            process.standardError = errorPipe
            try process.run()
            try? inputPipe.fileHandleForReading.close()
            try? errorPipe.fileHandleForWriting.close()
            input = inputPipe.fileHandleForWriting
            errors = errorPipe.fileHandleForReading
        }

        /// Runs `texts`; returns the positions of those that failed, and what ip said.
        func run(_ texts: [String]) -> (failed: Set<Int>, errors: String) {
            let first = sent + 1
            sent += texts.count + 1
            let marker = "Command failed -:\(sent)\n"
            input.write(Data((texts + ["link show dev reach-sync"]).map { $0 + "\n" }.joined().utf8))
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !pending.contains(marker) {
                var ready = pollfd(fd: errors.fileDescriptor, events: Int16(POLLIN), revents: 0)
                guard poll(&ready, 1, 10_000) > 0 else { break }
                let count = read(errors.fileDescriptor, &buffer, buffer.count)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                pending += String(decoding: buffer[..<count], as: UTF8.self)
            }
            guard let end = pending.range(of: marker) else {
                return (Set(texts.indices), "ip did not answer (\(pending))")
            }
            let reply = pending[..<end.lowerBound]
            pending = String(pending[end.upperBound...])
            var failed = Set<Int>()
            var messages: [String] = []
            for line in reply.split(separator: "\n") where !line.contains("reach-sync") {
                if line.hasPrefix("Command failed -:"), let number = Int(line.dropFirst("Command failed -:".count)) {
                    failed.insert(number - first)
                } else {
                    messages.append(String(line))
                }
            }
            return (failed, messages.joined(separator: "; "))
        }

        /// Ends ip (end of its input) and waits for it.
        func close() {
            try? input.close()
            process.waitUntilExit()
        }
    }

    /// Runs `lines` in order, each run of lines on the shell of its side and
    /// family; returns the steps with a refused line.
    private func run(_ lines: [KernelFactCase.Line], lab: Lab, peerShell: IPShell) -> (steps: Set<Int>, errors: String) {
        var refused = Set<Int>()
        var errors: [String] = []
        var start = 0
        while start < lines.count {
            var end = start + 1
            var needs = lines[start].needs
            while end < lines.count && lines[end].side == lines[start].side
                    && (lines[end].needs == .any || needs == .any || lines[end].needs == needs) {
                if needs == .any { needs = lines[end].needs }
                end += 1
            }
            let group = Array(lines[start..<end])
            let shell = group[0].side == .peer ? peerShell : needs == .v6 ? lab.shell6 : lab.shell
            let result = shell.run(group.map(\.text))
            for position in result.failed where group.indices.contains(position) { refused.insert(group[position].step) }
            if !result.errors.isEmpty { errors.append(result.errors) }
            start = end
        }
        return (refused, errors.joined(separator: "; "))
    }
}
