import Synchronization
import XCTest
import ReachabilityTesting

/// Tier 1 on the engine's own observer API: evaluator, monitor (streams,
/// callbacks, validation), tracker, with the test clock. No root, no sleep.
final class SimulatedNetworkTests: XCTestCase {
    /// A started monitor of `internet` on `net` that validates once a minute (on the test clock).
    private func validatingMonitor(on net: SimulatedNetwork) throws -> ReachabilityMonitor {
        var configuration = ReachabilityMonitor.Configuration()
        configuration.validation = SimulatedNetwork.validation
        configuration.validationInterval = .seconds(60)
        let monitor = try ReachabilityMonitor(targets: [.internet], namespace: net.namespace,
                                              configuration: configuration)
        try monitor.start()
        return monitor
    }

    /// `stop()` on a monitor that never started ends its streams and drops
    /// its callbacks at once, as it promises: a start afterwards delivers to
    /// nobody (a facade that stopped before it started relied on that).
    func testStopBeforeStartEndsStreamsAndDropsCallbacks() async throws {
        let net = SimulatedNetwork(.dualUplinkWanLte)
        let monitor = try ReachabilityMonitor(targets: [.internet], namespace: net.namespace)
        let called = Mutex(0)
        monitor.onChange { _ in called.withLock { $0 += 1 } }
        let changes = monitor.changes()
        monitor.stop()
        try monitor.start()
        await net.settled()
        var iterator = changes.makeAsyncIterator()
        let first = await iterator.next()
        XCTAssertTrue(first == nil, "the stream of a monitor stopped before it started gave \(first.map { "\($0.status)" } ?? "")")
        XCTAssertEqual(called.withLock { $0 }, 0, "a callback that stop() dropped was called after the start")
        monitor.stop()
    }

    func testTheEvaluatorAnswersFromTheFacts() throws {
        let net = SimulatedNetwork(.dualUplinkWanLte)
        let evaluator = try ReachabilityEvaluator(namespace: net.namespace)
        let wan = try evaluator.evaluate(IPAddress("8.8.8.8")!)
        XCTAssertEqual(wan.link?.name, "wan0")
        XCTAssertEqual(wan.status, .reachable(.wired))
        XCTAssertEqual(wan.interfaceKind, .wired)
        XCTAssertEqual(wan.route.gateway, IPAddress("10.1.0.1"))

        net["wan0"].setDown()
        let lte = try evaluator.evaluate(IPAddress("8.8.8.8")!)
        XCTAssertEqual(lte.link?.name, "wwan0")
        XCTAssertTrue(lte.flags.contains(.isWWAN))
        XCTAssertEqual(lte.mask, .wwan4G)   // the radio says LTE

        net.routes.removeDefault()
        XCTAssertEqual(try evaluator.evaluate(IPAddress("8.8.8.8")!).route.verdict, .noRoute)
    }

    func testAnUnpluggedCableKeepsItsRouteAndIsNotReachable() throws {
        let net = SimulatedNetwork(.dualUplinkWanLte)
        let evaluator = try ReachabilityEvaluator(namespace: net.namespace)
        net["wan0"].unplug()
        let answer = try evaluator.evaluate(IPAddress("8.8.8.8")!)
        // The kernel still routes by the link-down route (ignore_routes_with_linkdown = 0).
        XCTAssertEqual(answer.link?.name, "wan0")
        XCTAssertFalse(answer.status.isReachable)
    }

    func testAMonitorStreamsTheFailoverAndFinishesClean() async throws {
        let net = SimulatedNetwork(.dualUplinkWanLte)
        let monitor = try ReachabilityMonitor(targets: [.internet], namespace: net.namespace)
        var changes = monitor.changes().makeAsyncIterator()
        try monitor.start()
        let initial = await changes.next()
        XCTAssertEqual(initial?.evaluation.primary?.link?.name, "wan0")

        net["wan0"].setDown()
        await net.settled()
        let failover = await changes.next()
        XCTAssertEqual(failover?.evaluation.primary?.link?.name, "wwan0")
        XCTAssertEqual(monitor.currentEvaluations.first?.primary?.link?.name, "wwan0")

        net["wan0"].setUp()
        await net.settled()
        let back = await changes.next()
        XCTAssertEqual(back?.evaluation.primary?.link?.name, "wan0")
        try await net.finish()
        monitor.stop()
    }

    func testStatusStreamsAndReachabilityCallbacksSeeOnlyStatusChanges() async throws {
        let net = SimulatedNetwork(.dualUplinkWanLte)
        let monitor = try ReachabilityMonitor(targets: [.internet], namespace: net.namespace)
        var statuses = monitor.statusChanges().makeAsyncIterator()
        let reachable = Locked<[ReachabilityStatus]>([]), unreachable = Locked<[ReachabilityStatus]>([])
        let up = monitor.whenReachable { change in reachable.withLock { $0.append(change.status) } }
        let down = monitor.whenUnreachable { change in unreachable.withLock { $0.append(change.status) } }
        try monitor.start()
        let initial = await statuses.next()
        XCTAssertEqual(initial?.status, .reachable(.wired))
        XCTAssertEqual(initial?.isInitial, true)

        // wired → WWAN is a status change; losing both is another; the time stamps are the test clock's.
        net["wan0"].setDown()
        await net.settled()
        let cellular = await statuses.next()
        XCTAssertEqual(cellular?.status, .reachable(.wwan))
        XCTAssertEqual(cellular?.time, net.now)
        net["wwan0"].signalLost()
        await net.settled()
        let none = await statuses.next()
        XCTAssertEqual(none?.status, .notReachable)
        XCTAssertEqual(reachable.withLock { $0 }, [.reachable(.wired), .reachable(.wwan)])
        XCTAssertEqual(unreachable.withLock { $0 }, [.notReachable])
        try await net.finish()
        _ = (up, down)
        monitor.stop()
    }

    func testFinishListsAChangeNoObserverTook() async throws {
        let net = SimulatedNetwork(.wiredOnly)
        let monitor = try ReachabilityMonitor(targets: [.internet], namespace: net.namespace)
        let stream = monitor.changes()
        try monitor.start()
        net["eth0"].unplug()
        do {
            try await net.finish()
            XCTFail("finish() passed with a change waiting in a stream")
        } catch {
            XCTAssertTrue(error.description.contains("waiting in a changes() stream"), error.description)
        }
        _ = stream
        monitor.stop()
    }

    func testFinishListsAnArmedRetryUntilTheClockReachesIt() async throws {
        let net = SimulatedNetwork(.wiredOnly)
        // The kernel fails a lookup; the monitor reports it and retries in a second.
        net.failNextLookups(1)
        let monitor = try ReachabilityMonitor(targets: [.internet], namespace: net.namespace)
        try monitor.start()
        await net.settled()
        XCTAssertNotNil(monitor.currentEvaluations.first?.error)
        do {
            try await net.finish()
            XCTFail("finish() passed with a retry armed")
        } catch {
            XCTAssertTrue(error.leftovers.contains { $0.contains("retry of internet in 1000 ms") }, error.description)
        }
        await net.advance(by: .seconds(1))
        XCTAssertEqual(monitor.currentEvaluations.first?.status, .reachable(.wired))
        try await net.finish()
        monitor.stop()
    }

    func testCallbacksOnAQueueHaveRunOnceSettled() async throws {
        let net = SimulatedNetwork(.dualUplinkWanLte)
        let monitor = try ReachabilityMonitor(targets: [.internet], namespace: net.namespace)
        let seen = Locked<[String]>([])
        let queue = DispatchQueue(label: "callbacks")
        monitor.onChange(on: .dispatch(queue)) { change in
            seen.withLock { $0.append(change.evaluation.primary?.link?.name ?? "none") }
        }
        try monitor.start()
        await net.settled()
        XCTAssertEqual(seen.withLock { $0 }, ["wan0"])
        net["wan0"].setDown()
        await net.settled()
        XCTAssertEqual(seen.withLock { $0 }, ["wan0", "wwan0"])
        net["wwan0"].signalLost()
        await net.settled()
        XCTAssertEqual(seen.withLock { $0 }.count, 3)
        try await net.finish()
        monitor.stop()
    }

    func testValidationSeesThePortalAndTheTestClockDrivesItsRounds() async throws {
        let net = SimulatedNetwork(.captiveWifi)
        let monitor = try validatingMonitor(on: net)
        await net.settled()
        let captive = try XCTUnwrap(monitor.currentEvaluations.first)
        XCTAssertEqual(captive.primary?.link?.name, "wlan0")
        XCTAssertTrue(captive.flags.contains(.interventionRequired), "\(captive.flags)")
        XCTAssertEqual(captive.validation?.location, "http://portal.example/login")

        // The user logs in; the next validation round, a minute later, sees 204.
        net["wlan0"].leaveCaptivity()
        await net.settled()
        await net.advance(by: .seconds(60))
        let online = try XCTUnwrap(monitor.currentEvaluations.first)
        XCTAssertEqual(online.status, .reachable(.wifi), "\(online.flags)")
        XCTAssertEqual(online.validation?.httpStatus, 204)
        try await net.finish()
        monitor.stop()
    }

    func testATargetThatMovesToAnotherUplinkIsValidatedThereAtOnce() async throws {
        let net = SimulatedNetwork(.dualUplinkWanLte)
        net["wwan0"].becomeCaptive(location: "http://lte-portal.example/")
        let monitor = try validatingMonitor(on: net)
        await net.settled()
        XCTAssertEqual(monitor.currentEvaluations.first?.validation?.httpStatus, 204)
        // wan0 goes; the answer moves to wwan0, whose portal the next probe sees, not one a minute later.
        net["wan0"].setDown()
        await net.settled()
        let moved = try XCTUnwrap(monitor.currentEvaluations.first)
        XCTAssertEqual(moved.primary?.link?.name, "wwan0")
        XCTAssertEqual(moved.validation?.location, "http://lte-portal.example/")
        XCTAssertTrue(moved.flags.contains(.interventionRequired), "\(moved.flags)")
        try await net.finish()
        monitor.stop()
    }

    func testTheWWANSwitchRefusesTheCellularPath() async throws {
        let net = SimulatedNetwork()
        net.uplink("wwan0", .wwan)
        let monitor = try ReachabilityMonitor(targets: [.internet], namespace: net.namespace)
        try monitor.start()
        await net.settled()
        XCTAssertEqual(monitor.currentEvaluations.first?.status, .reachable(.wwan))
        net.policy.allowsWWAN = false
        await net.settled()
        XCTAssertEqual(monitor.currentEvaluations.first?.unsatisfiedReason, .wwanRefused)
        XCTAssertFalse(monitor.currentEvaluations.first?.isReachable ?? true)
        try await net.finish()
        monitor.stop()
    }

    func testATrackerCountsRoundsOnTheTestClock() async throws {
        let net = SimulatedNetwork(.dualUplinkWanLte)
        var configuration = UplinkTracker.Configuration(interface: "wan0", hosts: [IPAddress("192.0.2.1")!])
        configuration.interval = .seconds(5)
        configuration.down = 3
        configuration.up = 2
        let tracker = try UplinkTracker(configuration: configuration, namespace: net.namespace)
        let events = Locked<[UplinkState]>([])
        tracker.onEvent { event in events.withLock { $0.append(event.state) } }
        try tracker.start()
        await net.settled()
        XCTAssertEqual(tracker.state, .online)

        net["wan0"].upstreamLost()
        await net.advance(by: .seconds(5))    // one failed round: disconnecting (mwan3's word)
        XCTAssertEqual(tracker.state, .disconnecting)
        await net.advance(by: .seconds(5))    // two: not yet
        XCTAssertEqual(tracker.state, .disconnecting)
        await net.advance(by: .seconds(5))    // the third
        XCTAssertEqual(tracker.state, .offline)
        net["wan0"].upstreamBack()
        await net.advance(by: .seconds(10))
        XCTAssertEqual(tracker.state, .online)
        XCTAssertEqual(events.withLock { $0 }, [.online, .disconnecting, .offline, .connecting, .online])
        try await net.finish()
        tracker.stop()
    }

    func testAScopedFaultRevertsItself() async throws {
        let net = SimulatedNetwork(.dualUplinkWanLte)
        let evaluator = try ReachabilityEvaluator(namespace: net.namespace)
        try await net.with(.down, on: "wan0") {
            XCTAssertEqual(try evaluator.evaluate(IPAddress("8.8.8.8")!).link?.name, "wwan0")
        }
        XCTAssertEqual(try evaluator.evaluate(IPAddress("8.8.8.8")!).link?.name, "wan0")
    }
}

/// A lock for test observers' records.
final class Locked<Value: Sendable>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()
    init(_ value: Value) { self.value = value }
    func withLock<T>(_ body: (inout Value) -> T) -> T { lock.lock(); defer { lock.unlock() }; return body(&value) }
}

