import XCTest
import CReachability
@testable import ReachabilityCore
@testable import ReachabilityKernel

/// When the monitor may publish an answer read on a burst's leading edge
/// (`TargetEvaluation.isFinalOnLeadingEdge`): only when no address is routed
/// over a link that cannot carry packets now, and nothing failed. And when it
/// holds an answer back at any time (`awaitsRouteFlush`): a route over a link
/// set down, which the kernel is about to flush. Every link state a kernel
/// sequence passes through is one case.
final class LeadingEdgeTests: XCTestCase {
    private func link(flags: UInt32, operstate: UInt8) -> LinkState {
        var raw = creach_link()
        raw.index = 3; raw.type = 1; raw.flags = flags; raw.operstate = operstate; raw.carrier = -1
        return LinkState(raw)
    }

    private func answer(_ address: String, link: LinkState?) -> AddressEvaluation {
        var raw = creach_route()
        raw.family = UInt8(address.contains(":") ? AF_INET6 : AF_INET); raw.type = UInt8(RTN_UNICAST); raw.table = 254
        raw.oif = link?.index ?? 0
        return AddressEvaluation(address: IPAddress(address)!, kernelFlags: link == nil ? [] : .reachable,
                                 route: RouteLookup(raw), link: link, kind: link == nil ? nil : .wired,
                                 policy: ReachabilityPolicy(), radio: nil, probe: .notProbed)
    }

    private func target(_ answers: [AddressEvaluation], error: ReachabilityError? = nil) -> TargetEvaluation {
        TargetEvaluation(target: .internet, addresses: answers, error: error, isEvaluated: true,
                         availableInterfaces: [], supportsDNS: nil, validation: nil)
    }

    func testAnAnswerIsFinalOnlyOverLinksThatCarryPackets() {
        let up = creach_iff_up, lowerUp = creach_iff_lower_up
        let cases: [(String, LinkState, Bool)] = [
            ("up, carrier, operstate up", link(flags: up | lowerUp, operstate: 6), true),
            ("up, carrier, operstate unknown (tun, loopback)", link(flags: up | lowerUp, operstate: 0), true),
            // `ip link set down`: RTM_NEWLINK before NETDEV_DOWN flushes the routes.
            ("admin down, routes not yet flushed", link(flags: 0, operstate: 2), false),
            // A tun device detached: IFF_LOWER_UP cleared, operstate still up for a millisecond.
            ("carrier lost, operstate still up", link(flags: up, operstate: 6), false),
            // ... and attached: carrier back, operstate not yet up.
            ("carrier back, operstate still down", link(flags: up | lowerUp, operstate: 2), false),
            ("dormant", link(flags: up | lowerUp, operstate: 5), false),
        ]
        for (name, state, final) in cases {
            XCTAssertEqual(target([answer("10.9.0.1", link: state)]).isFinalOnLeadingEdge, final, name)
            // One family over such a link holds back the whole target (`internet`: both families).
            XCTAssertEqual(target([answer("10.9.0.1", link: link(flags: up | lowerUp, operstate: 6)),
                                   answer("2001:db8::1", link: state)]).isFinalOnLeadingEdge, final, "IPv6 \(name)")
        }
        // Only a route over a link set down is one the kernel is about to flush:
        // without carrier, the routes stay (that answer is the state).
        XCTAssertTrue(target([answer("10.9.0.1", link: link(flags: 0, operstate: 2))]).awaitsRouteFlush)
        XCTAssertTrue(target([answer("10.9.0.1", link: link(flags: up | lowerUp, operstate: 6)),
                              answer("2001:db8::1", link: link(flags: 0, operstate: 2))]).awaitsRouteFlush)
        XCTAssertFalse(target([answer("10.9.0.1", link: link(flags: up, operstate: 2))]).awaitsRouteFlush)
        XCTAssertFalse(target([answer("10.9.0.1", link: link(flags: up | lowerUp, operstate: 6))]).awaitsRouteFlush)
        XCTAssertFalse(target([answer("10.9.0.1", link: nil)]).awaitsRouteFlush)
        // An interface with carrier whose operstate has not followed yet is
        // coming up (availableInterfaces may be about to gain it); one losing
        // carrier, one set down, a dormant one and an operational one are not.
        XCTAssertTrue(link(flags: up | lowerUp, operstate: 2).isComingUp)
        XCTAssertTrue(link(flags: up | lowerUp, operstate: 3).isComingUp)   // lowerLayerDown
        XCTAssertFalse(link(flags: up | lowerUp, operstate: 6).isComingUp)
        XCTAssertFalse(link(flags: up | lowerUp, operstate: 0).isComingUp)  // unknown: tun, loopback
        XCTAssertFalse(link(flags: up | lowerUp, operstate: 5).isComingUp)  // dormant
        XCTAssertFalse(link(flags: up, operstate: 6).isComingUp)
        XCTAssertFalse(link(flags: lowerUp, operstate: 2).isComingUp)
        // No route names no link that is in the middle of a change.
        XCTAssertTrue(target([answer("10.9.0.1", link: nil)]).isFinalOnLeadingEdge)
        // A failed evaluation waits for the burst to end.
        XCTAssertFalse(target([], error: .resolutionTimedOut(host: "x.test")).isFinalOnLeadingEdge)
    }
}
