import XCTest
import CReachability
import LinuxReachability
@testable import ReachabilityCore
@testable import ReachabilityKernel

/// Architecture.md's "Kernel state → flags" table, row by row, on kernel facts built
/// as the C core reports them. (The same situations on the real kernel are in
/// IntegrationTests; here each row is isolated.)
final class KernelFlagsTests: XCTestCase {
    static let up = creach_iff_up, lowerUp = creach_iff_lower_up, p2p = creach_iff_pointopoint

    func route(type: Int32 = Int32(RTN_UNICAST), gateway: String? = nil, error: Int32 = 0) -> RouteLookup {
        var raw = creach_route()
        raw.family = UInt8(AF_INET)
        raw.error = error
        raw.type = UInt8(type)
        raw.table = 254
        raw.oif = 3
        if let gateway {
            raw.has_gateway = 1
            raw.gateway_family = UInt8(AF_INET)
            IPAddress(gateway)!.copy(into: &raw.gateway)
        }
        return RouteLookup(raw)
    }

    func link(flags: UInt32 = up | lowerUp, oper: UInt8 = 6) -> LinkState {
        var raw = creach_link()
        raw.index = 3
        raw.type = 1
        raw.flags = flags
        raw.operstate = oper
        raw.carrier = -1
        return LinkState(raw)
    }

    func testRefusedLookupsAreNotReachableAndKeepTheirVerdict() {
        let cases: [(Int32, RouteVerdict)] = [
            (ENETUNREACH, .noRoute), (EHOSTUNREACH, .unreachable), (EACCES, .prohibit), (EINVAL, .blackhole), (ENODEV, .failed),
        ]
        for (errno, verdict) in cases {
            let answer = route(error: errno)
            XCTAssertEqual(answer.verdict, verdict)
            XCTAssertEqual(answer.errno, SystemErrno(rawValue: errno))
            XCTAssertNil(answer.interfaceIndex)
            XCTAssertEqual(ReachabilityFlags(route: answer, link: nil, kind: nil), [])
        }
    }

    func testRejectRouteTypesAreNotReachable() {
        for type in [RTN_UNREACHABLE, RTN_BLACKHOLE, RTN_PROHIBIT, RTN_THROW] {
            XCTAssertEqual(ReachabilityFlags(route: route(type: Int32(type)), link: link(), kind: .wired), [], "type \(type)")
        }
    }

    func testOnLinkIsDirect() {
        XCTAssertEqual(ReachabilityFlags(route: route(), link: link(), kind: .wired), [.reachable, .isDirect])
    }

    func testViaGatewayIsReachableOnly() {
        let answer = route(gateway: "10.1.0.254")
        XCTAssertEqual(answer.gateway, IPAddress("10.1.0.254"))
        XCTAssertEqual(ReachabilityFlags(route: answer, link: link(), kind: .wired), [.reachable])
    }

    func testLocalAddress() {
        XCTAssertEqual(ReachabilityFlags(route: route(type: Int32(RTN_LOCAL)), link: link(oper: 0), kind: .loopback),
                       [.reachable, .isLocalAddress, .isDirect])
    }

    func testAdministrativelyDownLinkIsNotReachable() {
        XCTAssertEqual(ReachabilityFlags(route: route(gateway: "10.0.0.1"), link: link(flags: 0, oper: 2), kind: .wired), [])
    }

    func testCarrierLostRequiresAConnection() {
        // IFF_UP without IFF_LOWER_UP, operstate lowerlayerdown: what a veth shows when its peer goes down.
        XCTAssertEqual(ReachabilityFlags(route: route(gateway: "10.0.0.1"), link: link(flags: Self.up, oper: 3), kind: .wired),
                       [.reachable, .connectionRequired])
    }

    func testUpWithoutCarrierRequiresAConnectionEvenWhenOperstateIsUnknown() {
        // tun with no process attached: IFF_UP, no IFF_LOWER_UP; some drivers leave operstate unknown.
        XCTAssertEqual(ReachabilityFlags(route: route(), link: link(flags: Self.up, oper: 0), kind: .tunnel),
                       [.reachable, .isDirect, .connectionRequired])
    }

    func testOperStatesThatRequireAConnection() {
        for oper: UInt8 in [1, 2, 3, 4, 5] {
            let flags = ReachabilityFlags(route: route(gateway: "10.0.0.1"), link: link(oper: oper), kind: .wired)
            XCTAssertTrue(flags.contains(.connectionRequired), "operstate \(oper)")
        }
        for oper: UInt8 in [0, 6] {
            let flags = ReachabilityFlags(route: route(gateway: "10.0.0.1"), link: link(oper: oper), kind: .wired)
            XCTAssertFalse(flags.contains(.connectionRequired), "operstate \(oper)")
        }
    }

    func testDormantRequiresIntervention() {
        let flags = ReachabilityFlags(route: route(gateway: "10.0.0.1"), link: link(oper: 5), kind: .wifi)
        XCTAssertEqual(flags, [.reachable, .connectionRequired, .interventionRequired])
        XCTAssertEqual(ReachabilityStatus(flags: flags, kind: .wifi), .notReachable)
    }

    func testPointToPointIsTransient() {
        let flags = ReachabilityFlags(route: route(), link: link(flags: Self.up | Self.lowerUp | Self.p2p, oper: 0), kind: .tunnel)
        XCTAssertEqual(flags, [.reachable, .isDirect, .transientConnection])
    }

    func testWWANKindSetsIsWWAN() {
        let flags = ReachabilityFlags(route: route(gateway: "10.0.0.1"), link: link(), kind: .wwan)
        XCTAssertEqual(flags, [.reachable, .isWWAN])
        XCTAssertEqual(ReachabilityStatus(flags: flags, kind: .wwan), .reachable(.wwan))
    }

    func testBroadcastAndMulticastAreUsable() {
        XCTAssertTrue(RouteVerdict.broadcast.isUsable)
        XCTAssertTrue(RouteVerdict.multicast.isUsable)
        XCTAssertEqual(ReachabilityFlags(route: route(type: Int32(RTN_BROADCAST)), link: link(), kind: .wired), [.reachable, .isDirect])
    }
}
