// Network's path monitor on the real kernel: the first path after start, a
// path per change, interface types, WWAN, cancel, the async sequence.

import Foundation
@testable import Network
import LinuxReachability
@testable import ReachabilityCore
@testable import ReachabilityKernel
import ReachabilityCompatSupport
import ReachabilityTestSupport
import XCTest

final class NetworkTests: CompatTestCase {
    private func watch(_ monitor: NWPathMonitor, queue: DispatchQueue = DispatchQueue(label: "nw-test")) -> Arrivals<NWPath> {
        let paths = Arrivals<NWPath>()
        monitor.pathUpdateHandler = { paths.add($0) }
        monitor.start(queue: queue)
        addTeardownBlock { monitor.cancel() }
        return paths
    }

    private func names(_ path: NWPath) -> [String] { path.availableInterfaces.map(\.name) }

    func testTheFirstPathComesRightAfterStartAndAPathPerChange() throws {
        let ns = try makeWiredNamespace()
        let monitor = NWPathMonitor()
        XCTAssertEqual(monitor.currentPath.status, .unsatisfied, "before start")
        XCTAssertNil(monitor.queue)
        let queue = DispatchQueue(label: "nw-first")
        let paths = watch(monitor, queue: queue)
        XCTAssertTrue(monitor.queue === queue)
        let first = try XCTUnwrap(paths.wait(for: 1).first)
        XCTAssertEqual(first.status, .satisfied)
        XCTAssertEqual(first.unsatisfiedReason, .notAvailable)
        XCTAssertEqual(names(first).first, "eth0")
        XCTAssertTrue(first.usesInterfaceType(.wiredEthernet))
        XCTAssertEqual(first.availableInterfaces.first?.type, .wiredEthernet)
        XCTAssertTrue(first.supportsIPv4)
        XCTAssertFalse(first.supportsIPv6)
        XCTAssertFalse(first.isExpensive)
        XCTAssertEqual(first.gateways, [.hostPort(host: .ipv4(IPv4Address("10.10.0.2")!), port: 0)])
        XCTAssertEqual(monitor.currentPath, first)

        ns.run("link set eth0 down")
        let down = try XCTUnwrap(paths.wait(for: 2).last)
        XCTAssertEqual(down.status, .unsatisfied)
        XCTAssertFalse(down.usesInterfaceType(.wiredEthernet))
        // One step at a time: the route added at once after the link can land
        // in the same burst of notifications (one path, not two) under load.
        ns.run("link set eth0 up")
        let up = paths.wait(for: 3).last
        XCTAssertEqual(up?.status, .unsatisfied, "up: no route yet")
        XCTAssertEqual(up.map(names)?.contains("eth0"), true, "up: the interface back")
        ns.run("route add default via 10.10.0.2")
        XCTAssertEqual(paths.wait(for: 4).last?.status, .satisfied, "up (interfaces back), then the route")
        let all = paths.all
        XCTAssertEqual(all.map(\.status), [.satisfied, .unsatisfied, .unsatisfied, .satisfied])
        for (earlier, later) in zip(all, all.dropFirst()) { XCTAssertNotEqual(earlier, later, "no path twice in a row") }
        XCTAssertEqual(all.last, first)
    }

    func testAChangeOfTheUsableInterfacesAloneIsANewPath() throws {
        let ns = try makeWiredNamespace()
        let paths = watch(NWPathMonitor())
        XCTAssertEqual(paths.wait(for: 1).map(names), [["eth0", "eb"]])
        ns.addVethPair("eth1", peer: "eb1", address: "10.11.0.1/24")
        let later = paths.wait(for: 2).last.map(names) ?? []
        XCTAssertEqual(later.first, "eth0")
        XCTAssertTrue(later.contains("eth1"), "\(later)")
        XCTAssertEqual(paths.all.map(\.status), [.satisfied, .satisfied])
    }

    func testStartWorksOnceAndCancelEndsUpdatesForGood() throws {
        let ns = try makeWiredNamespace()
        let monitor = NWPathMonitor()
        let queue = DispatchQueue(label: "nw-cancel")
        let paths = watch(monitor, queue: queue)
        XCTAssertEqual(paths.wait(for: 1).count, 1)
        monitor.start(queue: DispatchQueue(label: "ignored"))
        XCTAssertTrue(monitor.queue === queue, "a second start is ignored")
        monitor.cancel()
        monitor.start(queue: queue)
        // A monitor that is not cancelled witnesses the change the cancelled one must not see.
        let witness = watch(NWPathMonitor())
        XCTAssertEqual(witness.wait(for: 1).count, 1)
        ns.run("link set eth0 down")
        XCTAssertEqual(witness.wait(for: 2).last?.status, .unsatisfied)
        queue.sync {}
        XCTAssertEqual(paths.all.count, 1, "nothing after cancel(), and start() after cancel() does nothing")
    }

    func testWWANIsCellularAndExpensiveAndTheSwitchDeniesIt() throws {
        _ = try makeWWANNamespace()
        let paths = watch(NWPathMonitor())
        let first = try XCTUnwrap(paths.wait(for: 1).first)
        XCTAssertEqual(first.status, .satisfied)
        XCTAssertTrue(first.usesInterfaceType(.cellular))
        XCTAssertTrue(first.isExpensive)
        XCTAssertEqual(first.availableInterfaces.first, NWInterface(name: "wwan0", index: first.availableInterfaces[0].index, type: .cellular))
        ReachabilityPolicy.processDefault.allowsWWAN = false
        let denied = try XCTUnwrap(paths.wait(for: 2).last)
        XCTAssertEqual(denied.status, .unsatisfied)
        XCTAssertEqual(denied.unsatisfiedReason, .cellularDenied)
        XCTAssertFalse(denied.usesInterfaceType(.cellular))
        ReachabilityPolicy.processDefault.allowsWWAN = true
        XCTAssertEqual(paths.wait(for: 3).last, first)
    }

    func testRequiredAndProhibitedInterfaceTypesCountOnlyTheirInterfaces() throws {
        let ns = try makeWiredNamespace()
        ns.addVethPair("wwan0", peer: "wb", address: "10.20.0.1/24")
        let cellular = watch(NWPathMonitor(requiredInterfaceType: .cellular))
        let notCellular = watch(NWPathMonitor(prohibitedInterfaceTypes: [.cellular]))
        let wired = watch(NWPathMonitor(requiredInterfaceType: .wiredEthernet))
        let first = try XCTUnwrap(cellular.wait(for: 1).first)
        XCTAssertEqual(first.status, .unsatisfied, "wwan0 has no route of its own (the kernel's on-link answer does not count)")
        XCTAssertEqual(names(first), ["wwan0"], "only the cellular interfaces count")
        XCTAssertEqual(notCellular.wait(for: 1).first?.status, .satisfied)
        XCTAssertFalse(notCellular.all[0].availableInterfaces.contains { $0.type == .cellular })
        XCTAssertEqual(wired.wait(for: 1).first?.status, .satisfied)

        // A default route of its own, less preferred than eth0's: the cellular monitor's path uses it.
        ns.run("route add default via 10.20.0.2 metric 100")
        let viaWWAN = try XCTUnwrap(cellular.wait(for: 2).last)
        XCTAssertEqual(viaWWAN.status, .satisfied)
        XCTAssertTrue(viaWWAN.usesInterfaceType(.cellular))
        XCTAssertTrue(viaWWAN.isExpensive)
        XCTAssertEqual(viaWWAN.gateways, [.hostPort(host: "10.20.0.2", port: 0)])

        // eth0 goes: the wired monitor is unsatisfied; the one without cellular too.
        ns.run("link set eth0 down")
        XCTAssertEqual(wired.wait(for: 2).last?.status, .unsatisfied)
        XCTAssertEqual(notCellular.wait(for: 2).last?.status, .unsatisfied)
        // wwan0 loses its own route: one new path for the cellular monitor, none for eth0's going before it.
        ns.run("route del default via 10.20.0.2")
        XCTAssertEqual(cellular.wait(for: 3).map(\.status), [.unsatisfied, .satisfied, .unsatisfied],
                       "a burst that changes nothing for a monitor gives it no path")
    }

    func testForAwaitStartsTheMonitorAndEndsWhenItIsCancelled() async throws {
        let ns = try makeWiredNamespace()
        let monitor = NWPathMonitor()
        var iterator = monitor.makeAsyncIterator()
        let first = await iterator.next()
        XCTAssertEqual(first?.status, .satisfied, "the first element is the current path; iterating started the monitor")
        XCTAssertNotNil(monitor.queue)
        ns.run("link set eth0 down")
        let down = await iterator.next()
        XCTAssertEqual(down?.status, .unsatisfied)
        monitor.cancel()
        let end = await iterator.next()
        XCTAssertNil(end, "cancel() ends the sequence")
    }

    /// `for await path in NWPathMonitor()`, as code in the wild writes it: the
    /// loop holds the temporary monitor (before, it was released at once and
    /// the loop ended with no path), and the monitor the loop started is
    /// cancelled when the loop ends: no monitor thread is left (issue 40).
    func testAForAwaitLoopOverATemporaryMonitorGetsPathsAndCancelsItAtTheEnd() async throws {
        let ns = try makeWiredNamespace()
        let before = runningLibraryThreads(.monitor)
        var statuses: [NWPath.Status] = []
        for await path in NWPathMonitor() {
            statuses.append(path.status)
            if statuses.count == 1 { ns.run("link set eth0 down") } else { break }
        }
        XCTAssertEqual(statuses, [.satisfied, .unsatisfied])
        // Ending the loop drops its iterator, whose stream's termination cancels (and joins) the monitor.
        XCTAssertEqual(runningLibraryThreads(.monitor), before, "the loop's monitor still runs after the loop")
    }

    /// As Apple's (a started monitor holds itself until cancelled, Apple DTS
    /// on the developer forums), a started monitor nobody holds still calls
    /// its handler, until `cancel()`; then it goes (issue 40).
    func testAStartedMonitorLivesAndCallsItsHandlerUntilCancelled() throws {
        let ns = try makeWiredNamespace()
        weak var started: NWPathMonitor?
        let paths = Arrivals<NWPath>()
        let queue = DispatchQueue(label: "nw-held")
        do {
            let monitor = NWPathMonitor()
            monitor.pathUpdateHandler = { paths.add($0) }
            monitor.start(queue: queue)
            started = monitor
        }
        XCTAssertNotNil(started, "start() holds the monitor")
        XCTAssertEqual(paths.wait(for: 1).map(\.status), [.satisfied])
        ns.run("link set eth0 down")
        XCTAssertEqual(paths.wait(for: 2).map(\.status), [.satisfied, .unsatisfied], "a started monitor nobody holds still calls")
        started?.cancel()
        queue.sync {}
        XCTAssertNil(started, "cancelled, the monitor goes with its last reference")
    }

    /// A `cancel()` between `start`'s check and its engine monitor's start
    /// stops a monitor that is not running yet: the start must stop it again.
    func testACancelWhileStartIsUnderWayLeavesNoMonitorRunning() throws {
        _ = try makeWiredNamespace()
        let monitor = NWPathMonitor()
        let before = runningLibraryThreads(.monitor)
        nonisolated(unsafe) var started: ReachabilityMonitor?
        defer { started?.stop() }
        monitor.testHooks.beforeStart = { [unowned monitor] engine in
            started = engine
            monitor.cancel()
        }
        monitor.start(queue: DispatchQueue(label: "nw-race"))
        XCTAssertEqual(started?.isRunning, false, "cancel() during start: a monitor left running")
        XCTAssertEqual(runningLibraryThreads(.monitor), before)
    }

    /// A path given while a `for await` loop registers must come after the
    /// current path the loop starts with, never before it.
    func testALoopThatBeginsDuringAChangeEndsOnTheNewPath() async throws {
        let ns = try makeWiredNamespace()
        let monitor = NWPathMonitor()
        let queue = DispatchQueue(label: "nw-stream")
        let paths = watch(monitor, queue: queue)
        XCTAssertEqual(paths.wait(for: 1).map(\.status), [.satisfied])
        monitor.testHooks.afterStreamRegistered = {
            ns.run("link set eth0 down")
            paths.wait(for: 2)
            queue.sync {}   // that path has gone to every stream too
        }
        var iterator = monitor.makeAsyncIterator()
        let first = await iterator.next(), second = await iterator.next()
        XCTAssertEqual([first?.status, second?.status], [.satisfied, .unsatisfied], "the loop's last path is an older one")
        XCTAssertEqual(second, monitor.currentPath)
    }

    /// One answer for "intervention required" (README audit, issue 30): the
    /// facade's NWPath is the engine's, unsatisfied for a dormant link (the
    /// kernel's source) and for a captive portal (validation's, applied here
    /// to a routed answer as a validating monitor applies it). Apple's
    /// `UnsatisfiedReason` has no case for it: `notAvailable`.
    func testInterventionRequiredIsAnUnsatisfiedPathWhateverItsSource() throws {
        let dormantNS = try makeNamespace()
        dormantNS.run("link add va type veth peer name vb", "addr add 10.1.0.1/24 dev va", "link set va mode dormant",
                      "link set va up", "link set vb up")
        dormantNS.waitForState("va", "DORMANT")
        let dormant = try ReachabilityEvaluator(namespace: .named(dormantNS.name)).evaluate(IPAddress("10.1.0.7")!)
        XCTAssertTrue(dormant.flags.isSuperset(of: [.reachable, .connectionRequired, .interventionRequired]), "\(dormant.flags)")

        let lan = try makeWiredNamespace()
        let evaluator = try ReachabilityEvaluator(namespace: .named(lan.name))
        let captive = evaluator.validated(try evaluator.evaluate(IPAddress("10.10.0.7")!), probe: .captivePortal)
        XCTAssertEqual(captive.flags, [.reachable, .interventionRequired, .isDirect])

        for (source, answer) in [("dormant", dormant), ("captive", captive)] {
            let evaluation = TargetEvaluation(target: .internet, addresses: [answer])
            XCTAssertEqual(evaluation.pathStatus, .unsatisfied, source)
            XCTAssertEqual(evaluation.unsatisfiedReason, .interventionRequired, source)
            let path = NWPath(evaluation)
            XCTAssertEqual(path.status, .unsatisfied, source)
            XCTAssertEqual(path.unsatisfiedReason, .notAvailable, source)
            XCTAssertFalse(path.usesInterfaceType(.wiredEthernet), source)
        }
    }

    // MARK: The example

    func testNWWatchAcrossALinkDownAndUp() throws {
        let ns = try makeWiredNamespace()
        let watch = try runExample("nw-watch", in: ns)
        XCTAssertEqual(watch.waitForLines(1), ["path: satisfied, interfaces: [eth0, eb]"], watch.stderr)
        ns.run("link set eth0 down")
        XCTAssertEqual(watch.waitForLines(2).last, "path: unsatisfied (notAvailable), interfaces: []", watch.stderr)
        ns.run("link set eth0 up", "route add default via 10.10.0.2")
        XCTAssertEqual(watch.waitForLines(4).last, "path: satisfied, interfaces: [eth0, eb]", watch.stderr)
        print("nw-watch output:\n" + watch.lines.map { "  " + $0 }.joined(separator: "\n"))
    }
}
