// Tier 1 under Swift Testing: the same product, another framework; these
// tests run in parallel, each on its own simulated network.

import GatewayFailover
import ReachabilityTesting
import Testing

@Suite struct GatewayFailoverSwiftTesting {
    @Test(arguments: [("wan0", "wwan0"), ("wwan0", "wan0")])
    func theFirstUplinkThatReachesTheInternetIsActive(first: String, second: String) async throws {
        let net = SimulatedNetwork(.dualUplinkWanLte)
        let gateway = try GatewayFailover(uplinks: [first, second], namespace: net.namespace)
        try gateway.start()
        await net.settled()
        #expect(gateway.decision.activeUplink == first)
        net[first].signalLost()
        await net.settled()
        #expect(gateway.decision.activeUplink == second)
        gateway.stop()
        try await net.finish()
    }

    @Test func mobileDataRefusedWithNothingElsePausesTheSync() async throws {
        let net = SimulatedNetwork()
        net.uplink("wwan0", .wwan)
        net.policy.allowsWWAN = false
        let gateway = try GatewayFailover(uplinks: ["wwan0"], namespace: net.namespace)
        try gateway.start()
        await net.settled()
        #expect(gateway.decision == .init(activeUplink: nil, syncPaused: true, reason: "mobile data refused on wwan0"))
        gateway.stop()
        try await net.finish()
    }
}
