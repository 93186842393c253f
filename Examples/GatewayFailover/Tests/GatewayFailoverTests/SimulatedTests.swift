// Tier 1: each situation in a few lines, in memory, as any user, no sleep.

import GatewayFailover
import ReachabilityTesting
import XCTest

final class SimulatedTests: XCTestCase {
    private func gateway(_ net: SimulatedNetwork, _ uplinks: [String]) throws -> GatewayFailover {
        let gateway = try GatewayFailover(uplinks: uplinks, namespace: net.namespace,
                                          validation: SimulatedNetwork.validation)
        try gateway.start()
        addTeardownBlock { gateway.stop() }
        return gateway
    }

    func testBothUplinksUpPrefersTheWiredOne() async throws {
        let net = SimulatedNetwork(.dualUplinkWanLte)
        let gateway = try gateway(net, ["wan0", "wwan0"])
        await net.settled()
        XCTAssertEqual(gateway.decision, .init(activeUplink: "wan0", syncPaused: false, reason: ""))
        try await net.finish()
    }

    func testTheCableOutFailsOverToLTEAndBack() async throws {
        let net = SimulatedNetwork(.dualUplinkWanLte)
        let gateway = try gateway(net, ["wan0", "wwan0"])
        net["wan0"].unplug()
        await net.settled()
        XCTAssertEqual(gateway.decision.activeUplink, "wwan0")
        net["wan0"].plugIn()
        await net.settled()
        XCTAssertEqual(gateway.decision.activeUplink, "wan0")
        try await net.finish()
    }

    func testLosingBothPausesTheSync() async throws {
        let net = SimulatedNetwork(.dualUplinkWanLte)
        let gateway = try gateway(net, ["wan0", "wwan0"])
        net["wan0"].unplug()
        net["wwan0"].signalLost()
        await net.settled()
        XCTAssertEqual(gateway.decision, .init(activeUplink: nil, syncPaused: true,
                                               reason: "no uplink reaches the internet"))
        net["wwan0"].signalBack()
        await net.settled()
        XCTAssertEqual(gateway.decision.activeUplink, "wwan0")
        try await net.finish()
    }

    func testACaptivePortalPausesTheSyncUntilTheNextValidationSeesItGone() async throws {
        let net = SimulatedNetwork(.captiveWifi)
        let gateway = try gateway(net, ["wlan0"])
        await net.settled()
        XCTAssertEqual(gateway.decision, .init(activeUplink: nil, syncPaused: true, reason: "captive portal on wlan0"))
        net["wlan0"].leaveCaptivity()
        await net.advance(by: .seconds(60))   // the monitor validates once a minute
        XCTAssertEqual(gateway.decision.activeUplink, "wlan0")
        try await net.finish()
    }

    func testMobileDataRefusedPausesTheSync() async throws {
        let net = SimulatedNetwork(.dualUplinkWanLte)
        let gateway = try gateway(net, ["wan0", "wwan0"])
        net.policy.allowsWWAN = false
        net["wan0"].setDown()
        await net.settled()
        XCTAssertEqual(gateway.decision, .init(activeUplink: nil, syncPaused: true,
                                               reason: "mobile data refused on wwan0"))
        try await net.finish()
    }

    func testAnLTEOutageInsideAScopeLeavesWanActive() async throws {
        let net = SimulatedNetwork(.dualUplinkWanLte)
        let gateway = try gateway(net, ["wwan0", "wan0"])   // LTE first: a site whose fibre is metered
        await net.settled()
        XCTAssertEqual(gateway.decision.activeUplink, "wwan0")
        try await net.with(.down, on: "wwan0") {
            await net.settled()
            XCTAssertEqual(gateway.decision.activeUplink, "wan0")
        }
        await net.settled()
        XCTAssertEqual(gateway.decision.activeUplink, "wwan0")
        try await net.finish()
    }
}
