import XCTest
import Network
import SystemConfiguration
import CoreTelephony
import AlamofireReachability
import ReachabilityCompatSupport
import ReachabilityTesting

/// iOS code's own APIs (the compat modules) on a simulated network: what an
/// app ported from iOS tests its reachability logic with. The compat modules
/// read the process-wide `CompatEnvironment.namespace`, so these tests run
/// one at a time (XCTest's order) and put it back.
final class CompatOnSimulationTests: XCTestCase {
    override func tearDown() {
        CompatEnvironment.namespace = .current
        super.tearDown()
    }

    func testNWPathMonitorFollowsTheFailoverToCellular() async throws {
        let net = SimulatedNetwork(.dualUplinkWanLte)
        CompatEnvironment.namespace = net.namespace
        let paths = Locked<[NWPath]>([])
        let monitor = NWPathMonitor()
        monitor.pathUpdateHandler = { path in paths.withLock { $0.append(path) } }
        monitor.start(queue: DispatchQueue(label: "paths"))
        await net.settled()
        let first = try XCTUnwrap(paths.withLock { $0.last })
        XCTAssertEqual(first.status, .satisfied)
        XCTAssertTrue(first.usesInterfaceType(.wiredEthernet))
        XCTAssertFalse(first.isExpensive)

        net["wan0"].setDown()
        await net.settled()
        let cellular = try XCTUnwrap(paths.withLock { $0.last })
        XCTAssertEqual(cellular.status, .satisfied)
        XCTAssertTrue(cellular.usesInterfaceType(.cellular))
        XCTAssertTrue(cellular.isExpensive)

        net.policy.allowsWWAN = false
        await net.settled()
        let denied = try XCTUnwrap(paths.withLock { $0.last })
        XCTAssertEqual(denied.status, .unsatisfied)
        XCTAssertEqual(denied.unsatisfiedReason, .cellularDenied)
        monitor.cancel()
        try await net.finish()
    }

    func testSCNetworkReachabilityCallsBackOnItsQueue() async throws {
        let net = SimulatedNetwork(.wiredOnly)
        CompatEnvironment.namespace = net.namespace
        let reachability = try XCTUnwrap(SCNetworkReachabilityCreateWithName(nil, "api.example.com"))
        net[host: "api.example.com"] = [IPAddress("203.0.113.10")!]
        let flags = Locked<[SCNetworkReachabilityFlags]>([])
        final class Box: @unchecked Sendable { let flags: Locked<[SCNetworkReachabilityFlags]>; init(_ f: Locked<[SCNetworkReachabilityFlags]>) { flags = f } }
        let box = Box(flags)
        var context = SCNetworkReachabilityContext(version: 0, info: Unmanaged.passRetained(box).toOpaque(),
                                                   retain: nil, release: nil, copyDescription: nil)
        XCTAssertTrue(SCNetworkReachabilitySetCallback(reachability, { _, flags, info in
            Unmanaged<Box>.fromOpaque(info!).takeUnretainedValue().flags.withLock { $0.append(flags) }
        }, &context))
        XCTAssertTrue(SCNetworkReachabilitySetDispatchQueue(reachability, DispatchQueue(label: "sc")))
        await net.settled()
        // As on iOS, scheduling brings no callback: only changes do.
        XCTAssertEqual(flags.withLock { $0 }, [])
        var now = SCNetworkReachabilityFlags()
        XCTAssertTrue(SCNetworkReachabilityGetFlags(reachability, &now))
        XCTAssertEqual(now, .reachable)
        // A cable out: the route stays, the link has no carrier. Linux's
        // answer in Apple's flags: reachable once a connection is made.
        net["eth0"].unplug()
        await net.settled()
        XCTAssertEqual(flags.withLock { $0 }, [[.reachable, .connectionRequired]])
        XCTAssertTrue(SCNetworkReachabilitySetDispatchQueue(reachability, nil))
        Unmanaged<Box>.fromOpaque(context.info!).release()
        try await net.finish()
    }

    func testAlamofiresManagerAndCTCellularDataSeeMobileDataSwitchedOff() async throws {
        let net = SimulatedNetwork()
        net.uplink("wwan0", .wwan)
        CompatEnvironment.namespace = net.namespace
        let statuses = Locked<[NetworkReachabilityManager.NetworkReachabilityStatus]>([])
        let manager = try XCTUnwrap(NetworkReachabilityManager())
        manager.startListening(onQueue: DispatchQueue(label: "af")) { status in statuses.withLock { $0.append(status) } }
        let cellular = CTCellularData()
        let restricted = Locked<[CTCellularDataRestrictedState]>([])
        cellular.cellularDataRestrictionDidUpdateNotifier = { state in restricted.withLock { $0.append(state) } }
        await net.settled()
        XCTAssertEqual(statuses.withLock { $0 }.last, .reachable(.cellular))
        XCTAssertEqual(restricted.withLock { $0 }.last, .notRestricted)

        net.policy.allowsWWAN = false
        await net.settled()
        XCTAssertEqual(statuses.withLock { $0 }.last, .notReachable)
        XCTAssertEqual(restricted.withLock { $0 }.last, .restricted)
        manager.stopListening()
        cellular.cellularDataRestrictionDidUpdateNotifier = nil
        try await net.finish()
    }
}
