import Testing
import ReachabilityTesting

/// The same product under Swift Testing (whose tests run in parallel: each
/// has its own simulated network, and none touches process-wide state).
@Suite struct SimulatedNetworkSwiftTesting {
    @Test func aHostNameFollowsItsNameServer() async throws {
        let net = SimulatedNetwork(.wiredOnly)
        net[host: "api.example.com"] = [IPAddress("203.0.113.10")!]
        let monitor = try ReachabilityMonitor(targets: [try Target(parsing: "api.example.com")], namespace: net.namespace)
        try monitor.start()
        await net.settled()
        #expect(monitor.currentEvaluations.first?.status == .reachable(.wired))
        #expect(monitor.currentEvaluations.first?.addresses.map(\.address) == [IPAddress("203.0.113.10")!])
        monitor.stop()
        try await net.finish()
    }

    @Test(arguments: [SimulatedNetwork.Fault.down, .unplugged])
    func aScopedFaultOnTheLTEUplinkRevertsItself(fault: SimulatedNetwork.Fault) async throws {
        let net = SimulatedNetwork(.dualUplinkWanLte)
        net.routes.setDefault(via: net["wwan0"])
        let monitor = try ReachabilityMonitor(targets: [.internet], namespace: net.namespace)
        try monitor.start()
        await net.settled()
        #expect(monitor.currentEvaluations.first?.status == .reachable(.wwan))
        try await net.with(fault, on: "wwan0") {
            await net.settled()
            #expect(monitor.currentEvaluations.first?.isReachable == false)
        }
        await net.settled()
        #expect(monitor.currentEvaluations.first?.status == .reachable(.wwan))
        monitor.stop()
        try await net.finish()
    }

    /// A modem in Ethernet mode (`usb0`, a wired link to the kernel) is WWAN
    /// once a modem daemon's facts say a modem owns it, with the daemon's
    /// technology; an application's kind rule still wins (issue 42).
    @Test func aModemDaemonsInterfaceIsWWAN() async throws {
        let net = SimulatedNetwork()
        net.uplink("usb0", .wired)
        let monitor = try ReachabilityMonitor(targets: [.internet], namespace: net.namespace)
        try monitor.start()
        await net.settled()
        #expect(monitor.currentEvaluations.first?.status == .reachable(.wired))
        net.radio.setModemFacts(.init(provider: "ModemManager", technologies: ["usb0": .lte], interfaces: ["usb0"]))
        await net.settled()
        #expect(monitor.currentEvaluations.first?.status == .reachable(.wwan))
        #expect(monitor.currentEvaluations.first?.mask == .wwan4G)
        net.radio.setModemFacts(nil)
        await net.settled()
        #expect(monitor.currentEvaluations.first?.status == .reachable(.wired))
        monitor.stop()
        try await net.finish()
        // A kind rule of the application's wins over the daemon.
        let ruled = SimulatedNetwork()
        ruled.uplink("usb0", .wired)
        ruled.radio.setModemFacts(.init(provider: "ModemManager", technologies: [:], interfaces: ["usb0"]))
        let evaluator = try ReachabilityEvaluator(namespace: ruled.namespace,
                                                  kindOverrides: [InterfaceKindOverride(parsing: "usb0=wired")])
        #expect(try await evaluator.evaluate(.internet).status == .reachable(.wired))
        #expect(try await ReachabilityEvaluator(namespace: ruled.namespace).evaluate(.internet).status == .reachable(.wwan))
    }

    @Test func theRadioSetsTheMaskGeneration() async throws {
        let net = SimulatedNetwork()
        net.uplink("wwan0", .wwan)
        let monitor = try ReachabilityMonitor(targets: [.internet], namespace: net.namespace)
        try monitor.start()
        net.radio.set(.edge, for: "wwan0")
        await net.settled()
        #expect(monitor.currentEvaluations.first?.mask == .wwan2G)
        net.radio.set(.nr, for: "wwan0")
        await net.settled()
        #expect(monitor.currentEvaluations.first?.mask == .wwan5G)
        monitor.stop()
        try await net.finish()
    }
}
