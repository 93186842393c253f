// One scenario per test, each in a namespace of its own, built with `ip`.
// Every answer of the library is checked twice: against the flags Architecture.md
// ("Kernel state → flags") prescribes, and against `ip route get` asked in
// the same namespace (same verdict or refusal, device, gateway, source, table).
// Nothing is sent: only FIB lookups, which put no packet on any wire.

import Foundation
import LinuxReachability
import ReachabilityTestSupport
import XCTest

#if canImport(Glibc)
import Glibc
#endif

final class RouteScenarioTests: NamespaceTestCase {

    // MARK: Helpers

    private func buildVethPair(_ ns: TestNamespace, _ name: String, peer: String, address: String,
                               file: StaticString = #filePath, line: UInt = #line) {
        ns.addVethPair(name, peer: peer, address: address, file: file, line: line)
    }

    /// va (10.1.0.1/24) ⟷ vb.
    private func buildLAN(_ ns: TestNamespace, file: StaticString = #filePath, line: UInt = #line) {
        buildVethPair(ns, "va", peer: "vb", address: "10.1.0.1/24", file: file, line: line)
    }

    /// A second pair: vc (10.3.0.1/24) ⟷ vd.
    private func buildSecondLAN(_ ns: TestNamespace, file: StaticString = #filePath, line: UInt = #line) {
        buildVethPair(ns, "vc", peer: "vd", address: "10.3.0.1/24", file: file, line: line)
    }

    /// `ip route get` selectors for the same lookup options.
    private func ipSelectors(_ options: LookupOptions) -> [String] {
        var extra: [String] = []
        if let uid = options.uid { extra += ["uid", String(uid)] }
        if let mark = options.mark { extra += ["mark", String(mark)] }
        if let interface = options.interface { extra += ["oif", interface] }
        if let source = options.source { extra += ["from", source.description] }
        return extra
    }

    /// The refusal text ip prints (strerror) for each refused verdict.
    private static let refusalText: [RouteVerdict: String] = [
        .noRoute: "Network is unreachable",
        .throw: "Network is unreachable",
        .unreachable: "No route to host",
        .prohibit: "Permission denied",
        .blackhole: "Invalid argument",
    ]

    /// Evaluates `text` in the namespace and checks the answer against `ip route get`.
    private func evaluate(_ evaluator: ReachabilityEvaluator, _ ns: TestNamespace, _ text: String,
                          options: LookupOptions = LookupOptions(),
                          file: StaticString = #filePath, line: UInt = #line) throws -> AddressEvaluation {
        let address = try XCTUnwrap(IPAddress(text), "bad test address \(text)", file: file, line: line)
        let evaluation = try evaluator.evaluate(address, options: options)
        let ip = ns.routeGet(text, extra: ipSelectors(options), file: file, line: line)
        assertAgrees(evaluation, with: ip, file: file, line: line)
        return evaluation
    }

    /// The library's route answer and iproute2's for the same lookup agree.
    private func assertAgrees(_ evaluation: AddressEvaluation, with ip: IPRouteAnswer,
                              file: StaticString = #filePath, line: UInt = #line) {
        let route = evaluation.route
        let context = "\(evaluation.address): library \(route), ip `\(ip)`"
        if let error = ip.error {
            XCTAssertFalse(route.verdict.isUsable, "ip refused (\(error)) but the library found a route: \(context)",
                           file: file, line: line)
            XCTAssertEqual(route.errno?.description, error, "errno text differs: \(context)", file: file, line: line)
            XCTAssertEqual(Self.refusalText[route.verdict], error, "verdict differs: \(context)", file: file, line: line)
            XCTAssertNil(evaluation.link, "a refused lookup has no link: \(context)", file: file, line: line)
            XCTAssertEqual(evaluation.flags, [], "a refused lookup has no flags: \(context)", file: file, line: line)
            return
        }
        XCTAssertEqual(route.verdict.rawValue, ip.type, "route type differs: \(context)", file: file, line: line)
        XCTAssertNil(route.errno, context, file: file, line: line)
        XCTAssertEqual(evaluation.link?.name, ip.dev, "device differs: \(context)", file: file, line: line)
        XCTAssertEqual(route.gateway?.description, ip.via, "gateway differs: \(context)", file: file, line: line)
        XCTAssertEqual(route.preferredSource?.description, ip.src, "source differs: \(context)", file: file, line: line)
        XCTAssertEqual(route.table, ip.tableNumber, "table differs: \(context)", file: file, line: line)
        if let link = evaluation.link {
            XCTAssertEqual(route.interfaceIndex, link.index, "link is not the route's oif: \(context)", file: file, line: line)
        }
    }

    // MARK: On-link, gateway, local

    func testOnLinkDestinationIsReachableAndDirect() throws {
        let ns = try makeNamespace()
        buildLAN(ns)
        let evaluator = try makeEvaluator(ns)

        let answer = try evaluate(evaluator, ns, "10.1.0.7")
        XCTAssertEqual(answer.route.verdict, .unicast)
        XCTAssertEqual(answer.flags, [.reachable, .isDirect])
        XCTAssertEqual(answer.link?.name, "va")
        XCTAssertEqual(answer.link?.linkKind, "veth")
        XCTAssertEqual(answer.link?.operState, .up)
        XCTAssertEqual(answer.link?.isOperational, true)
        XCTAssertEqual(answer.link?.hardwareType, 1)   // ARPHRD_ETHER
        XCTAssertNil(answer.route.gateway)
        XCTAssertEqual(answer.route.preferredSource, IPAddress("10.1.0.1"))
        XCTAssertEqual(answer.route.table, 254)
        XCTAssertEqual(answer.interfaceKind, .wired)
        XCTAssertEqual(answer.status, .reachable(.wired))
        XCTAssertEqual(answer.networkStatus, .reachableViaWiFi)   // Apple's sample: any non-WWAN link
        XCTAssertEqual(answer.pathStatus, .satisfied)
    }

    func testDestinationViaGateway() throws {
        let ns = try makeNamespace()
        buildLAN(ns)
        ns.run("route add default via 10.1.0.254")
        let evaluator = try makeEvaluator(ns)

        let answer = try evaluate(evaluator, ns, "198.51.100.7")
        XCTAssertEqual(answer.route.verdict, .unicast)
        XCTAssertEqual(answer.flags, [.reachable])
        XCTAssertEqual(answer.route.gateway, IPAddress("10.1.0.254"))
        XCTAssertEqual(answer.link?.name, "va")
        XCTAssertEqual(answer.status, .reachable(.wired))
    }

    func testLocalAddress() throws {
        let ns = try makeNamespace()
        buildLAN(ns)
        let evaluator = try makeEvaluator(ns)

        let answer = try evaluate(evaluator, ns, "10.1.0.1")
        XCTAssertEqual(answer.route.verdict, .local)
        XCTAssertEqual(answer.flags, [.reachable, .isLocalAddress, .isDirect])
        XCTAssertNil(answer.route.gateway)
        XCTAssertEqual(answer.link?.name, "lo")
        XCTAssertEqual(answer.interfaceKind, .loopback)
        XCTAssertEqual(answer.status, .reachable(.loopback))
    }

    // MARK: Refused lookups

    func testBlackholeRoute() throws {
        let ns = try makeNamespace()
        buildLAN(ns)
        ns.run("route add default via 10.1.0.254", "route add blackhole 10.2.0.0/16")
        let evaluator = try makeEvaluator(ns)

        let answer = try evaluate(evaluator, ns, "10.2.3.4")
        XCTAssertEqual(answer.route.verdict, .blackhole)
        XCTAssertEqual(answer.route.errno, .invalidArgument)
        XCTAssertEqual(answer.flags, [])
        XCTAssertNil(answer.link)
        XCTAssertEqual(answer.status, .notReachable)
        // The default route still serves everything else.
        XCTAssertEqual(try evaluate(evaluator, ns, "10.20.3.4").flags, [.reachable])
    }

    func testUnreachableRoute() throws {
        let ns = try makeNamespace()
        buildLAN(ns)
        ns.run("route add default via 10.1.0.254", "route add unreachable 10.4.0.0/16")
        let evaluator = try makeEvaluator(ns)

        let answer = try evaluate(evaluator, ns, "10.4.0.9")
        XCTAssertEqual(answer.route.verdict, .unreachable)
        XCTAssertEqual(answer.route.errno, .hostUnreachable)
        XCTAssertEqual(answer.flags, [])
        XCTAssertEqual(answer.status, .notReachable)
    }

    func testProhibitRoute() throws {
        let ns = try makeNamespace()
        buildLAN(ns)
        ns.run("route add default via 10.1.0.254", "route add prohibit 10.5.0.0/16")
        let evaluator = try makeEvaluator(ns)

        let answer = try evaluate(evaluator, ns, "10.5.0.9")
        XCTAssertEqual(answer.route.verdict, .prohibit)
        XCTAssertEqual(answer.route.errno, .permissionDenied)
        XCTAssertEqual(answer.flags, [])
        XCTAssertEqual(answer.status, .notReachable)
    }

    func testNoDefaultRoute() throws {
        let ns = try makeNamespace()
        buildLAN(ns)
        let evaluator = try makeEvaluator(ns)

        let answer = try evaluate(evaluator, ns, "198.51.100.7")
        XCTAssertEqual(answer.route.verdict, .noRoute)
        XCTAssertEqual(answer.route.errno, .networkUnreachable)
        XCTAssertEqual(answer.route.table, 0)
        XCTAssertNil(answer.route.interfaceIndex)
        XCTAssertEqual(answer.flags, [])
        XCTAssertNil(answer.interfaceKind)
        XCTAssertEqual(answer.status, .notReachable)
        XCTAssertEqual(answer.pathStatus, .unsatisfied)
    }

    // MARK: throw routes (the kernel answers ENETUNREACH as for no route)

    func testThrowRouteWithoutFallbackIsReportedAsThrow() throws {
        try skipUnderEmulation(qemuHasNoRuleMessages)
        let ns = try makeNamespace()
        buildLAN(ns)
        ns.run("route add throw 10.9.0.0/16", "-6 route add throw 2001:db8:9::/48")
        let evaluator = try makeEvaluator(ns)

        for target in ["10.9.4.4", "2001:db8:9::4"] {
            let answer = try evaluate(evaluator, ns, target)
            XCTAssertEqual(answer.route.verdict, .throw, target)
            XCTAssertEqual(answer.route.table, 254, "\(target): the main table threw")
            XCTAssertEqual(answer.route.errno, .networkUnreachable, target)
            XCTAssertEqual(answer.flags, [], target)
            XCTAssertEqual(answer.status, .notReachable, target)
        }
        // Outside the throw route's prefix there is simply no route.
        XCTAssertEqual(try evaluate(evaluator, ns, "10.8.4.4").route.verdict, .noRoute)
        XCTAssertEqual(try evaluate(evaluator, ns, "2001:db8:8::4").route.verdict, .noRoute)
    }

    func testThrowInAPolicyTableFollowsTheRuleChain() throws {
        try skipUnderEmulation(qemuHasNoRuleMessages)
        let ns = try makeNamespace()
        buildLAN(ns)
        ns.run("route add throw 10.7.0.0/16 table 100", "rule add to 10.7.0.0/16 table 100 pref 100",
               "route add throw 10.6.0.0/16 table 200")   // table 200: no rule consults it
        let evaluator = try makeEvaluator(ns)

        XCTAssertEqual(try evaluate(evaluator, ns, "10.7.1.1").route.verdict, .throw)
        XCTAssertEqual(try evaluate(evaluator, ns, "10.7.1.1").route.table, 100, "the policy table threw")
        XCTAssertEqual(try evaluate(evaluator, ns, "10.6.1.1").route.verdict, .noRoute,
                       "a throw route in a table no rule reaches is not why")

        // A rule that does not apply to this lookup (another mark, an inverted
        // match, an output interface) does not reach table 200. (With an
        // output interface IPv4 assumes on-link rather than refuse.)
        ns.run("rule add to 10.6.0.0/16 fwmark 9 table 200 pref 110", "rule add not to 10.6.0.0/16 table 200 pref 111",
               "rule add to 10.6.0.0/16 oif vb table 200 pref 112")
        XCTAssertEqual(try evaluate(evaluator, ns, "10.6.1.1").route.verdict, .noRoute)
        XCTAssertEqual(try evaluate(evaluator, ns, "10.6.1.1", options: LookupOptions(mark: 9)).route.verdict, .throw)
        XCTAssertEqual(try evaluate(evaluator, ns, "10.6.1.1", options: LookupOptions(mark: 8)).route.verdict, .noRoute)
        // `iif lo` matches a lookup for a locally sent packet.
        ns.run("rule add to 10.6.0.0/16 iif lo table 200 pref 113")
        XCTAssertEqual(try evaluate(evaluator, ns, "10.6.1.1").route.verdict, .throw)

        // The throw falls through to a later table that has a route: the kernel's answer.
        ns.run("route add default via 10.1.0.254")
        let fallback = try evaluate(evaluator, ns, "10.7.1.1")
        XCTAssertEqual(fallback.route.verdict, .unicast)
        XCTAssertEqual(fallback.route.table, 254)
        ns.run("route del default via 10.1.0.254")

        // A goto past the throw table's rule: it is not consulted.
        ns.run("rule add to 10.7.0.0/16 goto 150 pref 90", "rule add to 10.7.0.0/16 nop pref 150")
        XCTAssertEqual(try evaluate(evaluator, ns, "10.7.1.1").route.verdict, .noRoute)
        ns.run("rule del pref 90")
        XCTAssertEqual(try evaluate(evaluator, ns, "10.7.1.1").route.verdict, .throw)

        // An `unreachable` rule also answers ENETUNREACH: that one is no route.
        ns.run("rule add to 10.7.0.0/16 unreachable pref 200")
        XCTAssertEqual(try evaluate(evaluator, ns, "10.7.1.1").route.verdict, .noRoute)
    }

    // MARK: Link state

    func testCarrierLostRequiresConnection() throws {
        let ns = try makeNamespace()
        buildLAN(ns)
        ns.run("route add default via 10.1.0.254")
        let evaluator = try makeEvaluator(ns)
        XCTAssertEqual(try evaluate(evaluator, ns, "10.1.0.7").flags, [.reachable, .isDirect])

        // The peer goes down: va stays administratively up but loses carrier.
        ns.run("link set vb down")
        ns.waitForState("va", "LOWERLAYERDOWN")
        XCTAssertTrue(ns.linkLine("va").contains("NO-CARRIER"), ns.linkLine("va"))

        let onLink = try evaluate(evaluator, ns, "10.1.0.7")
        XCTAssertEqual(onLink.route.verdict, .unicast)
        XCTAssertEqual(onLink.flags, [.reachable, .connectionRequired, .isDirect])
        XCTAssertEqual(onLink.link?.operState, .lowerLayerDown)
        XCTAssertEqual(onLink.link?.isAdminUp, true)
        XCTAssertEqual(onLink.link?.isOperational, false)
        XCTAssertEqual(onLink.link?.carrier, false)
        XCTAssertEqual(onLink.status, .notReachable)

        let viaGateway = try evaluate(evaluator, ns, "198.51.100.7")
        XCTAssertEqual(viaGateway.flags, [.reachable, .connectionRequired])
        XCTAssertEqual(viaGateway.route.gateway, IPAddress("10.1.0.254"))
        XCTAssertEqual(viaGateway.status, .notReachable)

        // Carrier back: the connection is no longer required.
        ns.run("link set vb up")
        ns.waitForState("va", "UP")
        XCTAssertEqual(try evaluate(evaluator, ns, "198.51.100.7").flags, [.reachable])
    }

    func testDormantLinkRequiresIntervention() throws {
        let ns = try makeNamespace()
        // Link mode dormant: with carrier, operstate stays DORMANT until a
        // supplicant says otherwise (as 802.1X / WPA links do).
        ns.run("link add va type veth peer name vb",
               "addr add 10.1.0.1/24 dev va",
               "link set va mode dormant",
               "link set va up",
               "link set vb up")
        ns.waitForState("va", "DORMANT")
        let evaluator = try makeEvaluator(ns)

        let answer = try evaluate(evaluator, ns, "10.1.0.7")
        XCTAssertEqual(answer.route.verdict, .unicast)
        XCTAssertEqual(answer.link?.operState, .dormant)
        XCTAssertEqual(answer.link?.isOperational, false)
        XCTAssertEqual(answer.flags, [.reachable, .connectionRequired, .interventionRequired, .isDirect])
        XCTAssertEqual(answer.status, .notReachable)
    }

    func testBroadcastAddressOfAttachedNetwork() throws {
        let ns = try makeNamespace()
        buildLAN(ns)
        let evaluator = try makeEvaluator(ns)

        // Verdict, device and source are checked against ip; the flags of a
        // broadcast route are left open (Architecture.md, "Kernel state → flags",
        // says only that a broadcast route is reachable).
        let answer = try evaluate(evaluator, ns, "10.1.0.255")
        XCTAssertEqual(answer.route.verdict, .broadcast)
        XCTAssertEqual(answer.link?.name, "va")
        XCTAssertEqual(answer.route.preferredSource, IPAddress("10.1.0.1"))
    }

    func testAdministrativelyDownLinkHasNoRoute() throws {
        let ns = try makeNamespace()
        buildLAN(ns)
        ns.run("route add default via 10.1.0.254")
        let evaluator = try makeEvaluator(ns)

        ns.run("link set va down")
        ns.waitForLink("va", "admin down") { !$0.contains(",UP") && !$0.contains("<UP") }

        // The kernel flushes the routes of a link that goes down.
        for target in ["10.1.0.7", "198.51.100.7"] {
            let answer = try evaluate(evaluator, ns, target)
            XCTAssertEqual(answer.route.verdict, .noRoute, target)
            XCTAssertEqual(answer.flags, [], target)
            XCTAssertEqual(answer.status, .notReachable, target)
        }
    }

    // MARK: Point-to-point

    /// tun0 10.8.0.1 peer 10.8.0.2, up, with 10.9.0.0/16 routed to it.
    private func buildTun(_ ns: TestNamespace, file: StaticString = #filePath, line: UInt = #line) {
        ns.run("tuntap add mode tun name tun0",
               "addr add 10.8.0.1 peer 10.8.0.2 dev tun0",
               "link set tun0 up",
               "route add 10.9.0.0/16 dev tun0", file: file, line: line)
    }

    func testTunWithoutCarrierIsTransientAndRequiresConnection() throws {
        let ns = try makeNamespace()
        buildTun(ns)
        ns.waitForState("tun0", "DOWN")   // up, but nothing attached: NO-CARRIER
        XCTAssertTrue(ns.linkLine("tun0").contains("NO-CARRIER"), ns.linkLine("tun0"))
        let evaluator = try makeEvaluator(ns)

        for target in ["10.9.1.1", "10.8.0.2"] {
            let answer = try evaluate(evaluator, ns, target)
            XCTAssertEqual(answer.route.verdict, .unicast, target)
            XCTAssertEqual(answer.flags, [.transientConnection, .reachable, .connectionRequired, .isDirect], target)
            XCTAssertEqual(answer.link?.name, "tun0", target)
            XCTAssertEqual(answer.link?.linkKind, "tun", target)
            XCTAssertEqual(answer.link?.isPointToPoint, true, target)
            XCTAssertEqual(answer.link?.hardwareType, 65534, target)   // ARPHRD_NONE
            XCTAssertEqual(answer.interfaceKind, .tunnel, target)
            XCTAssertEqual(answer.status, .notReachable, target)
        }
    }

    func testTunWithCarrierIsTransientAndReachable() throws {
        let ns = try makeNamespace()
        buildTun(ns)
        ns.waitForState("tun0", "DOWN")
        let evaluator = try makeEvaluator(ns)
        XCTAssertTrue(try evaluate(evaluator, ns, "10.9.1.1").flags.contains(.connectionRequired))

        // A process attaches to the device (as a VPN client would): carrier on.
        _ = try attachTun("tun0", in: ns)
        ns.waitForLink("tun0", "carrier up") { $0.contains("LOWER_UP") && !$0.contains(" state DOWN ") }

        let answer = try evaluate(evaluator, ns, "10.9.1.1")
        XCTAssertEqual(answer.flags, [.transientConnection, .reachable, .isDirect])
        XCTAssertEqual(answer.link?.carrier, true)
        XCTAssertEqual(answer.link?.isOperational, true)
        XCTAssertEqual(answer.interfaceKind, .tunnel)
        XCTAssertEqual(answer.status, .reachable(.tunnel))
    }

    // MARK: IPv6

    private func buildLANv6(_ ns: TestNamespace, file: StaticString = #filePath, line: UInt = #line) {
        buildLAN(ns, file: file, line: line)
        ns.run("-6 addr add 2001:db8:1::1/64 dev va nodad", file: file, line: line)
        ns.waitForLocalRoute("2001:db8:1::1", file: file, line: line)
    }

    func testIPv6OnLinkAndLocal() throws {
        let ns = try makeNamespace()
        buildLANv6(ns)
        let evaluator = try makeEvaluator(ns)

        let onLink = try evaluate(evaluator, ns, "2001:db8:1::7")
        XCTAssertEqual(onLink.address.family, .v6)
        XCTAssertEqual(onLink.route.family, .v6)
        XCTAssertEqual(onLink.route.verdict, .unicast)
        XCTAssertEqual(onLink.flags, [.reachable, .isDirect])
        XCTAssertEqual(onLink.link?.name, "va")
        XCTAssertNil(onLink.route.gateway)
        XCTAssertEqual(onLink.status, .reachable(.wired))

        let local = try evaluate(evaluator, ns, "2001:db8:1::1")
        XCTAssertEqual(local.route.verdict, .local)
        XCTAssertEqual(local.flags, [.reachable, .isLocalAddress, .isDirect])

        let offLink = try evaluate(evaluator, ns, "2001:db8:99::1")
        XCTAssertEqual(offLink.route.verdict, .noRoute)
        XCTAssertEqual(offLink.flags, [])
    }

    func testIPv6ViaGateway() throws {
        let ns = try makeNamespace()
        buildLANv6(ns)
        ns.run("-6 route add default via 2001:db8:1::fe")
        let evaluator = try makeEvaluator(ns)

        let answer = try evaluate(evaluator, ns, "2001:db8:99::1")
        XCTAssertEqual(answer.route.verdict, .unicast)
        XCTAssertEqual(answer.flags, [.reachable])
        XCTAssertEqual(answer.route.gateway, IPAddress("2001:db8:1::fe"))
        XCTAssertEqual(answer.route.preferredSource, IPAddress("2001:db8:1::1"))
        XCTAssertEqual(answer.link?.name, "va")
        XCTAssertEqual(answer.status, .reachable(.wired))
    }

    // MARK: Policy routing

    func testUIDRuleSelectsTable() throws {
        let ns = try makeNamespace()
        buildLAN(ns)
        buildSecondLAN(ns)
        ns.run("route add default via 10.1.0.254",
               "rule add uidrange 1234-1234 table 100",
               "route add default via 10.3.0.254 dev vc table 100")
        let evaluator = try makeEvaluator(ns)

        let asUser = try evaluate(evaluator, ns, "198.51.100.7", options: LookupOptions(uid: 1234))
        XCTAssertEqual(asUser.link?.name, "vc")
        XCTAssertEqual(asUser.route.table, 100)
        XCTAssertEqual(asUser.route.gateway, IPAddress("10.3.0.254"))
        XCTAssertEqual(asUser.flags, [.reachable])

        let plain = try evaluate(evaluator, ns, "198.51.100.7")
        XCTAssertEqual(plain.link?.name, "va")
        XCTAssertEqual(plain.route.table, 254)
        XCTAssertEqual(plain.route.gateway, IPAddress("10.1.0.254"))

        let otherUser = try evaluate(evaluator, ns, "198.51.100.7", options: LookupOptions(uid: 1235))
        XCTAssertEqual(otherUser.link?.name, "va")
    }

    func testFwmarkRuleSelectsTable() throws {
        let ns = try makeNamespace()
        buildLAN(ns)
        buildSecondLAN(ns)
        ns.run("route add default via 10.1.0.254",
               "rule add fwmark 7 table 200",
               "route add default via 10.3.0.254 dev vc table 200")
        let evaluator = try makeEvaluator(ns)

        let marked = try evaluate(evaluator, ns, "198.51.100.7", options: LookupOptions(mark: 7))
        XCTAssertEqual(marked.link?.name, "vc")
        XCTAssertEqual(marked.route.table, 200)
        XCTAssertEqual(marked.route.gateway, IPAddress("10.3.0.254"))
        XCTAssertEqual(marked.flags, [.reachable])

        let unmarked = try evaluate(evaluator, ns, "198.51.100.7", options: LookupOptions(mark: 8))
        XCTAssertEqual(unmarked.link?.name, "va")
        XCTAssertEqual(unmarked.route.table, 254)
    }

    func testProhibitRuleForUID() throws {
        let ns = try makeNamespace()
        buildLAN(ns)
        ns.run("route add default via 10.1.0.254", "rule add uidrange 2000-2000 prohibit")
        let evaluator = try makeEvaluator(ns)

        let restricted = try evaluate(evaluator, ns, "198.51.100.7", options: LookupOptions(uid: 2000))
        XCTAssertEqual(restricted.route.verdict, .prohibit)
        XCTAssertEqual(restricted.route.errno, .permissionDenied)
        XCTAssertEqual(restricted.flags, [])
        XCTAssertEqual(restricted.status, .notReachable)

        XCTAssertEqual(try evaluate(evaluator, ns, "198.51.100.7", options: LookupOptions(uid: 2001)).flags, [.reachable])
    }

    // MARK: Interface kinds

    /// wwan0 (10.10.0.1/24, a veth) ⟷ wwanpeer, default route by wwan0.
    private func buildWWAN(_ ns: TestNamespace, file: StaticString = #filePath, line: UInt = #line) {
        ns.run("link add wwan0 type veth peer name wwanpeer",
               "addr add 10.10.0.1/24 dev wwan0",
               "link set wwan0 up",
               "link set wwanpeer up",
               "route add default via 10.10.0.254", file: file, line: line)
        ns.waitForState("wwan0", "UP", file: file, line: line)
    }

    func testWWANByNamePattern() throws {
        let ns = try makeNamespace()
        buildWWAN(ns)
        let evaluator = try makeEvaluator(ns)

        let answer = try evaluate(evaluator, ns, "198.51.100.7")
        XCTAssertEqual(answer.link?.name, "wwan0")
        XCTAssertEqual(answer.interfaceKind, .wwan)
        XCTAssertEqual(answer.flags, [.reachable, .isWWAN])
        XCTAssertEqual(answer.status, .reachable(.wwan))
        XCTAssertEqual(answer.networkStatus, .reachableViaWWAN)

        let onLink = try evaluate(evaluator, ns, "10.10.0.7")
        XCTAssertEqual(onLink.flags, [.reachable, .isDirect, .isWWAN])
    }

    func testWWANByOverride() throws {
        let ns = try makeNamespace()
        buildLAN(ns)
        let plain = try evaluate(try makeEvaluator(ns), ns, "10.1.0.7")
        XCTAssertEqual(plain.interfaceKind, .wired)
        XCTAssertFalse(plain.flags.contains(.isWWAN))

        let evaluator = try makeEvaluator(ns, overrides: ["va=wwan"])
        let answer = try evaluate(evaluator, ns, "10.1.0.7")
        XCTAssertEqual(answer.link?.name, "va")
        XCTAssertEqual(answer.interfaceKind, .wwan)
        XCTAssertEqual(answer.flags, [.reachable, .isDirect, .isWWAN])
        XCTAssertEqual(answer.status, .reachable(.wwan))
    }

    func testOverrideBeatsBuiltInWWANPattern() throws {
        let ns = try makeNamespace()
        buildWWAN(ns)
        let evaluator = try makeEvaluator(ns, overrides: ["wwan0=wired"])

        let answer = try evaluate(evaluator, ns, "198.51.100.7")
        XCTAssertEqual(answer.link?.name, "wwan0")
        XCTAssertEqual(answer.interfaceKind, .wired)
        XCTAssertEqual(answer.flags, [.reachable])
        XCTAssertEqual(answer.status, .reachable(.wired))
    }

    func testBridgeAndMacvlanAreWiredVirtualLinks() throws {
        let ns = try makeNamespace()
        buildLAN(ns)
        ns.run("link add br0 type bridge",
               "link add pa type veth peer name pb",
               "link set pb master br0",
               "addr add 10.6.0.1/24 dev br0",
               "link set pa up", "link set pb up", "link set br0 up",
               "link add mv0 link va type macvlan mode bridge",
               "addr add 10.7.0.1/24 dev mv0",
               "link set mv0 up")
        ns.waitForState("br0", "UP")
        ns.waitForState("mv0", "UP")
        let evaluator = try makeEvaluator(ns)

        let bridged = try evaluate(evaluator, ns, "10.6.0.7")
        XCTAssertEqual(bridged.link?.name, "br0")
        XCTAssertEqual(bridged.link?.linkKind, "bridge")
        XCTAssertEqual(bridged.interfaceKind, .wired)
        XCTAssertEqual(bridged.flags, [.reachable, .isDirect])

        let macvlan = try evaluate(evaluator, ns, "10.7.0.7")
        XCTAssertEqual(macvlan.link?.name, "mv0")
        XCTAssertEqual(macvlan.link?.linkKind, "macvlan")
        XCTAssertEqual(macvlan.interfaceKind, .wired)
        XCTAssertEqual(macvlan.flags, [.reachable, .isDirect])

        // The listing agrees with ip about names and indexes, and classifies each link.
        let listed = try evaluator.interfaces()
        let byName = Dictionary(listed.map { ($0.link.name, $0) }, uniquingKeysWith: { first, _ in first })
        XCTAssertEqual(Set(byName.keys), ["lo", "va", "vb", "br0", "pa", "pb", "mv0"])
        XCTAssertEqual(byName["lo"]?.kind, .loopback)
        XCTAssertEqual(byName["br0"]?.addresses.map(\.description), ["10.6.0.1/24"])
        XCTAssertEqual(byName["mv0"]?.addresses.filter { $0.address.family == .v4 }.map(\.description), ["10.7.0.1/24"])
        for name in ["va", "vb", "br0", "pa", "pb", "mv0"] {
            XCTAssertEqual(byName[name]?.kind, .wired, name)
            let line = ns.linkLine(name)
            let index = line.split(separator: ":").first.map { $0.trimmingCharacters(in: .whitespaces) }
            XCTAssertEqual(byName[name].map { String($0.link.index) }, index, line)
        }
    }

    // MARK: Output interface selector

    func testInterfaceSelectorForcesOutputInterface() throws {
        let ns = try makeNamespace()
        buildLAN(ns)
        buildSecondLAN(ns)
        ns.run("route add default via 10.1.0.254")
        let evaluator = try makeEvaluator(ns)

        let bound = try evaluate(evaluator, ns, "198.51.100.7", options: LookupOptions(interface: "vc"))
        XCTAssertEqual(bound.link?.name, "vc")
        XCTAssertNil(bound.route.gateway)
        XCTAssertEqual(bound.route.preferredSource, IPAddress("10.3.0.1"))
        XCTAssertEqual(bound.flags, [.reachable, .isDirect])

        let unbound = try evaluate(evaluator, ns, "198.51.100.7")
        XCTAssertEqual(unbound.link?.name, "va")
        XCTAssertEqual(unbound.flags, [.reachable])
    }

    func testUnknownInterfaceThrows() throws {
        let ns = try makeNamespace()
        buildLAN(ns)
        let evaluator = try makeEvaluator(ns)
        let address = try XCTUnwrap(IPAddress("10.1.0.7"))

        XCTAssertThrowsError(try evaluator.evaluate(address, options: LookupOptions(interface: "nosuch0"))) { error in
            XCTAssertEqual(error as? ReachabilityError, .unknownInterface("nosuch0"))
        }
        // ip agrees that there is no such device.
        let ip = ns.routeGet("10.1.0.7", extra: ["oif", "nosuch0"])
        XCTAssertNotNil(ip.error, "\(ip)")
        // A name Linux cannot have is refused before the kernel is asked.
        XCTAssertThrowsError(try evaluator.evaluate(address, options: LookupOptions(interface: "waytoolonginterfacename"))) { error in
            guard case .invalidInterfaceName("waytoolonginterfacename", _)? = error as? ReachabilityError else {
                return XCTFail("expected invalidInterfaceName, got \(error)")
            }
        }
    }

    // MARK: Host names (resolved inside the namespace; no DNS packet can leave)

    func testHostNameFromHostsFile() async throws {
        let hosts = (try? String(contentsOfFile: "/etc/hosts", encoding: .utf8)) ?? ""
        let hasLocalhost = hosts.split(separator: "\n").contains { line in
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            return fields.first.map { !$0.hasPrefix("#") } == true && fields.dropFirst().contains("localhost")
        }
        guard hasLocalhost else { throw XCTSkip("/etc/hosts has no localhost entry: resolving it could query DNS") }

        let ns = try makeNamespace()
        let evaluator = try makeEvaluator(ns)
        let answer = try await evaluator.evaluate(.host("localhost"), resolveTimeout: .seconds(5))

        XCTAssertNil(answer.error)
        XCTAssertTrue(answer.addresses.map(\.address).contains(IPAddress("127.0.0.1")!),
                      "\(answer.addresses.map(\.address))")
        for address in answer.addresses {
            XCTAssertEqual(address.route.verdict, .local, "\(address.address)")
            XCTAssertEqual(address.flags, [.reachable, .isLocalAddress, .isDirect], "\(address.address)")
            XCTAssertEqual(address.link?.name, "lo")
            assertAgrees(address, with: ns.routeGet(address.address.description))
        }
        XCTAssertEqual(answer.flags, [.reachable, .isLocalAddress, .isDirect])
        XCTAssertEqual(answer.status, .reachable(.loopback))
        XCTAssertTrue(answer.isReachable)
    }

    /// A name that is in no hosts file would be asked of DNS. That is only
    /// allowed here when no query can leave: the resolver's servers must all
    /// be unroutable from the test namespace (its `connect` then fails in the
    /// FIB, before any packet exists), and no resolver daemon (nscd,
    /// systemd-resolved) may ask on our behalf from the host's namespace.
    func testUnresolvableHostNameIsNotReachable() async throws {
        let ns = try makeNamespaceWhereDNSCannotLeave()
        let evaluator = try makeEvaluator(ns)
        let name = "no-such-host.invalid"
        let answer = try await evaluator.evaluate(.host(name), resolveTimeout: .seconds(5))

        XCTAssertEqual(answer.addresses, [])
        guard case .resolutionFailed(host: name, reason: _)? = answer.error else {
            return XCTFail("expected resolutionFailed for \(name), got \(String(describing: answer.error))")
        }
        XCTAssertEqual(answer.flags, [])
        XCTAssertEqual(answer.status, .notReachable)
        XCTAssertFalse(answer.isReachable)
    }

    // MARK: Namespaces

    func testUnknownNamespaceThrows() {
        let name = "\(TestNamespace.prefix)missing-\(getpid())"
        XCTAssertThrowsError(try ReachabilityEvaluator(namespace: .named(name))) { error in
            XCTAssertEqual(error as? ReachabilityError, .unknownNamespace(name))
        }
    }

    func testEvaluatorSeesOnlyItsNamespace() throws {
        // Two namespaces with the same link names and different addresses.
        let first = try makeNamespace()
        let second = try makeNamespace()
        buildLAN(first)
        second.run("link add va type veth peer name vb", "addr add 10.1.9.1/24 dev va", "link set va up", "link set vb up")
        second.waitForState("va", "UP")

        let inFirst = try evaluate(try makeEvaluator(first), first, "10.1.0.7")
        XCTAssertEqual(inFirst.flags, [.reachable, .isDirect])
        let inSecond = try evaluate(try makeEvaluator(second), second, "10.1.0.7")
        XCTAssertEqual(inSecond.route.verdict, .noRoute)
        XCTAssertEqual(try evaluate(try makeEvaluator(second), second, "10.1.9.1").route.verdict, .local)
    }
}
