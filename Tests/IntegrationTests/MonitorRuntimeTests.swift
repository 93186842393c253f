// The monitor's runtime against the real kernel: the defects a review found
// (issue 27), each pinned by a test that failed on the code before its fix.

import CReachability
import Dispatch
import Foundation
import LinuxReachability
@testable import ReachabilityCore
@testable import ReachabilityKernel
import ReachabilityTestSupport
import Synchronization
import XCTest

#if canImport(Glibc)
import Glibc
#endif

final class MonitorRuntimeTests: NamespaceTestCase {

    /// Releasing an observer's handler must not happen under the monitor's
    /// lock: here the handler holds the last reference to the monitor, so its
    /// release runs the handle's deinit, which takes that lock (before the
    /// fix, `cancel()` hung for good, and the event thread with it).
    func testCancellingAnObservationWhoseHandlerHoldsTheMonitorReturns() throws {
        let ns = try makeNamespace()
        ns.addVethPair("va", peer: "vb", address: "10.1.0.1/24")
        weak var weakCore: MonitorCore?
        var observation: MonitorObservation?
        do {
            let monitor = try ReachabilityMonitor(targets: [.address(IPAddress("10.1.0.7")!)], namespace: .named(ns.name))
            // A queue that never runs the work: the handler is only held.
            observation = monitor.onChange(on: .custom { _ in }) { _ in _ = monitor }
            try monitor.start()
            weakCore = monitor.core
        }
        let returned = DispatchSemaphore(value: 0)
        Thread { [observation] in observation?.cancel(); returned.signal() }.start()
        XCTAssertEqual(returned.wait(timeout: .now() + 2), .success, "cancel() deadlocked")
        observation = nil
        // Neither referenced nor observed: it stops and goes away.
        XCTAssertTrue(eventually(timeout: 2) { weakCore == nil }, "the monitor outlived its last observer")
    }

    /// After the event socket failed and was opened again, what the event
    /// filter remembered from before the gap is stale: the peer goes down
    /// while no socket listens (its carrier change is lost with the failed
    /// socket), comes back to the remembered state, and that must be a change.
    func testAfterTheEventSocketIsReopenedALinkBackToItsEarlierStateIsAChange() throws {
        let ns = try makeNamespace()
        let peer = try makeNamespace()
        ns.run("link add va type veth peer name vb netns \(peer.name)", "addr add 10.1.0.1/24 dev va", "link set va up")
        peer.run("link set vb up")
        XCTAssertTrue(ns.waitForState("va", "UP"), ns.linkLine("va"))
        let target = Target.address(IPAddress("10.1.0.7")!)
        let (monitor, recorder) = try startMonitor(ns, [target])
        // A flap, so that the filter knows va's facts.
        peer.run("link set vb down")
        XCTAssertEqual(recorder.waitForChanges(1).last?.isReachable, false)
        peer.run("link set vb up")
        XCTAssertEqual(recorder.waitForChanges(2).last?.isReachable, true)

        // The read of va's carrier loss fails: the socket is closed with it.
        let port = try XCTUnwrap(monitor.eventPortID)
        creach_nl_inject_recv_error(port, EIO, 1)
        defer { creach_nl_inject_recv_error(0, 0, 0) }
        peer.run("link set vb down")
        XCTAssertTrue(eventually(timeout: 5) { monitor.counters.recoveries == 1 }, "\(monitor.counters)")
        XCTAssertEqual(recorder.waitForChanges(3).last?.isReachable, false, "the state after the gap")
        peer.run("link set vb up")
        XCTAssertEqual(recorder.waitForChanges(4).last?.isReachable, true,
                       "va came back to the state remembered from before the gap, and it was ignored: \(monitor.counters)")
    }

    /// A leading-edge answer reaches `.monitorThread` callbacks at once, not
    /// once the burst has gone quiet (before the fix, background route churn
    /// kept the burst open and delivery came up to `maximumSettleTime` late).
    func testALeadingEdgeAnswerIsDeliveredToMonitorThreadCallbacksAtOnce() throws {
        let ns = try makeNamespace()
        ns.addVethPair("va", peer: "vb", address: "10.1.0.1/24")
        ns.addVethPair("vc", peer: "vd", address: "10.3.0.1/24")
        ns.run("route add default via 10.1.0.254 metric 100", "route add default via 10.3.0.254 metric 200")
        let monitor = try ReachabilityMonitor(targets: [.address(IPAddress("198.51.100.9")!)], namespace: .named(ns.name),
                                              configuration: {
                                                  var configuration = ReachabilityMonitor.Configuration()
                                                  configuration.settleTime = .milliseconds(5)
                                                  configuration.maximumSettleTime = .milliseconds(50)
                                                  return configuration
                                              }())
        addTeardownBlock { monitor.stop() }
        let delays = Mutex<[(interface: String?, late: UInt64)]>([])
        monitor.onChange { change in
            let now = creach_monotonic_ns()
            if !change.isInitial { delays.withLock { $0.append((change.interface, now &- change.time.nanoseconds)) } }
        }
        try monitor.start()
        XCTAssertTrue(eventually(timeout: 5) { monitor.currentEvaluations.first?.isEvaluated == true })

        let links = try ns.linkControl()
        // Each step waits for its own change, by interface, after the changes
        // already seen: va coming back is two changes (va joins the available
        // interfaces, then the route moves), so counting changes ran ahead of
        // the steps, and a link set down again before the return was
        // published could cancel it out (no change: "round 3").
        var seen = 0
        func waitForChange(via interface: String, _ what: String) {
            XCTAssertTrue(eventually(timeout: 5) { delays.withLock { $0.dropFirst(seen).contains { $0.interface == interface } } }, what)
            seen = delays.withLock { $0.count }
        }
        for round in 1 ... 5 {
            _ = try links.set("va", up: false)
            // Route churn right behind the link's message: the burst it opens stays open until maximumSettleTime.
            let churn = try ns.churnRoutes(device: "vc")
            waitForChange(via: "vc", "round \(round): no change")
            churn.stop()
            _ = try links.set("va", up: true)
            ns.run(["route", "replace", "default", "via", "10.1.0.254", "metric", "100"])
            waitForChange(via: "va", "round \(round): no return")
        }
        let late = delays.withLock { $0 }
        print("delivery after the stamp (ms): " + late.map { String(format: "%@ %.3f", $0.interface ?? "-", Double($0.late) / 1e6) }
            .joined(separator: ", "))
        let failovers = late.filter { $0.interface == "vc" }
        XCTAssertFalse(failovers.isEmpty)
        // A budget of real machines: under qemu-user every instruction is translated.
        try skipUnderEmulation("the 1 ms budget is a real machine's; emulated code runs many times slower")
        for failover in failovers {
            XCTAssertLessThan(failover.late, 1_000_000, "a failover reached the callback \(Double(failover.late) / 1e6) ms after it was found")
        }
    }

    /// A link's state change in the middle of a burst (route churn that never
    /// goes quiet) is evaluated when it is read: before, only a burst's first
    /// drain was, and a failover under churn came `maximumSettleTime` late.
    func testALinkChangeInTheMiddleOfRouteChurnIsReportedAtOnce() throws {
        let ns = try makeNamespace()
        ns.addVethPair("va", peer: "vb", address: "10.1.0.1/24")
        ns.addVethPair("vc", peer: "vd", address: "10.3.0.1/24")
        ns.run("route add default via 10.1.0.254 metric 100", "route add default via 10.3.0.254 metric 200")
        let (monitor, _) = try startMonitor(ns, [.address(IPAddress("198.51.100.9")!)]) { configuration in
            configuration.settleTime = .milliseconds(5)
            configuration.maximumSettleTime = .milliseconds(50)
        }
        let received = Mutex<[(interface: String?, at: UInt64)]>([])
        monitor.onChange { change in
            let now = creach_monotonic_ns()
            if !change.isInitial { received.withLock { $0.append((change.interface, now)) } }
        }
        // A notification every 0.1 ms: the monitor is always inside a burst.
        let churn = try ns.churnRoutes(device: "vc", pause: 100_000)
        defer { churn.stop() }
        let events = monitor.counters.events
        XCTAssertTrue(eventually(timeout: 5) { monitor.counters.events > events + 20 }, "no churn")
        let links = try ns.linkControl()
        var latencies: [UInt64] = []
        for round in 1 ... 5 {
            let seen = received.withLock { $0.count }
            let down = try links.set("va", up: false)
            XCTAssertTrue(eventually(timeout: 5) { received.withLock { $0.dropFirst(seen).contains { $0.interface == "vc" } } },
                          "round \(round): no failover")
            if let failover = received.withLock({ $0.dropFirst(seen).first { $0.interface == "vc" } }) {
                latencies.append(failover.at &- down)
            }
            let back = received.withLock { $0.count }
            _ = try links.set("va", up: true)
            ns.run(["route", "replace", "default", "via", "10.1.0.254", "metric", "100"])
            XCTAssertTrue(eventually(timeout: 5) { received.withLock { $0.dropFirst(back).contains { $0.interface == "va" } } },
                          "round \(round): no return")
        }
        print("failover under route churn, link set down → callback (ms): "
              + latencies.map { String(format: "%.3f", Double($0) / 1e6) }.joined(separator: ", "))
        for latency in latencies {
            XCTAssertLessThan(latency, 10_000_000, "a failover under churn took \(Double(latency) / 1e6) ms (maximumSettleTime is 50 ms)")
        }
    }

    /// An interface joining or leaving the set of usable interfaces is a
    /// change (NWPathMonitor delivers a new path then), though the target's
    /// status and interface stay.
    func testAnInterfaceJoiningOrLeavingAvailableInterfacesIsAChange() throws {
        let ns = try makeNamespace()
        ns.addVethPair("va", peer: "vb", address: "10.1.0.1/24")
        let (_, recorder) = try startMonitor(ns, [.address(IPAddress("10.1.0.7")!)])
        XCTAssertEqual(recorder.all.first?.evaluation.availableInterfaces.map(\.name).sorted(), ["va", "vb"])
        ns.addVethPair("vc", peer: "vd", address: "10.3.0.1/24")
        XCTAssertTrue(recorder.wait(timeout: 5) { $0.last?.evaluation.availableInterfaces.map(\.name).sorted() == ["va", "vb", "vc", "vd"] },
                      "vc and vd joined, unannounced: \(recorder.all.map(\.evaluation.availableInterfaces))")
        XCTAssertEqual(recorder.nonInitial.last?.interface, "va")
        ns.run("link del vc")
        XCTAssertTrue(recorder.wait(timeout: 5) { $0.last?.evaluation.availableInterfaces.map(\.name).sorted() == ["va", "vb"] },
                      "vc and vd left, unannounced: \(recorder.all.map(\.evaluation.availableInterfaces))")
        XCTAssertTrue(recorder.nonInitial.allSatisfy { $0.status == .reachable(.wired) && $0.interface == "va" })
    }

    /// A change published while the path facts could not be read is
    /// corrected once they can (before the fix it kept empty interfaces and
    /// no DNS until some other field changed).
    func testAFailedPathFactsReadIsCorrectedWithoutAnotherChange() throws {
        let ns = try makeNamespace()
        ns.run("link add va type veth peer name vb", "addr add 10.1.0.1/24 dev va", "link set va up", "link set vb up")
        ns.run("link add vc type veth peer name vd", "addr add 10.3.0.1/24 dev vc", "link set vc up", "link set vd up")
        XCTAssertTrue(ns.waitForState("va", "UP") && ns.waitForState("vc", "UP"))
        ns.run("route add default via 10.1.0.254 metric 100", "route add default via 10.3.0.254 metric 200")
        let (monitor, recorder) = try startMonitor(ns, [.address(IPAddress("198.51.100.9")!)]) { configuration in
            configuration.retryInterval = .milliseconds(100)
        }
        monitor.core.evaluator.injectPathFactsFailures(2)
        ns.run("link set va down", "link set vb down")
        XCTAssertTrue(recorder.wait(timeout: 5) { $0.last?.interface == "vc" }, "no failover")
        XCTAssertTrue(recorder.wait(timeout: 5) { $0.last?.evaluation.availableInterfaces.map(\.name).sorted() == ["vc", "vd"] },
                      "the facts of a failed read stayed: \(recorder.all.map(\.evaluation.availableInterfaces))")
        XCTAssertEqual(monitor.currentEvaluations.first?.availableInterfaces.map(\.name).sorted(), ["vc", "vd"])
    }

    /// Datagrams of a local process flooding the monitor's port id count
    /// against the drain's bound: the event thread still sees a stop (before
    /// the fix it kept reading them, and `stop()` could not join it).
    func testStopReturnsWhileProcessesFloodTheEventSocket() throws {
        let ns = try makeNamespace()
        ns.addVethPair("va", peer: "vb", address: "10.1.0.1/24")
        let (monitor, _) = try startMonitor(ns, [.address(IPAddress("10.1.0.7")!)]) { configuration in
            configuration.receiveBufferSize = 4 << 20
        }
        let port = try XCTUnwrap(monitor.eventPortID)
        let flood = try ns.floodNetlink(toPort: port, senders: 3)
        defer { flood.stop() }
        XCTAssertTrue(eventually(timeout: 5) { monitor.counters.droppedForeign > 10_000 }, "\(monitor.counters)")
        let took = Atomic<UInt64>(0)
        let stopped = DispatchSemaphore(value: 0)
        Thread {
            let started = creach_monotonic_ns()
            monitor.stop()
            took.store(creach_monotonic_ns() &- started, ordering: .relaxed)
            stopped.signal()
        }.start()
        let result = stopped.wait(timeout: .now() + 1)
        flood.stop()
        XCTAssertEqual(result, .success, "stop() did not return within 1 s under the flood")
        print("stop under a flood (\(monitor.counters.droppedForeign) foreign datagrams dropped): "
              + String(format: "%.3f ms", Double(took.load(ordering: .relaxed)) / 1e6))
    }
}

/// Background traffic in a test namespace, stopped by `stop()` (and at the latest when the test ends).
final class BackgroundLoad: Sendable {
    private let running = Atomic<Bool>(true)
    private let finished = DispatchGroup()

    /// A thread inside namespace `name` running `body` with a NETLINK_ROUTE
    /// socket of its own, until `stop()`.
    fileprivate func add(inside name: String, _ body: @escaping @Sendable (_ socket: Int32, _ running: () -> Bool) -> Void) {
        finished.enter()
        let thread = Thread { [self] in
            defer { finished.leave() }
            let nsfd = creach_netns_open(name)
            guard nsfd >= 0, creach_netns_enter_thread(nsfd) == 0 else { return }
            close(nsfd)
            let fd = socket(AF_NETLINK, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), NETLINK_ROUTE)
            guard fd >= 0 else { return }
            defer { close(fd) }
            body(fd) { running.load(ordering: .relaxed) }
        }
        thread.start()
    }

    func stop() {
        running.store(false, ordering: .relaxed)
        _ = finished.wait(timeout: .now() + 10)
    }
}

extension TestNamespace {
    /// Adds and deletes an unrelated route over `device` in a loop, from a
    /// thread inside the namespace: a route notification every few microseconds.
    func churnRoutes(device: String, pause nanoseconds: Int = 500_000) throws -> BackgroundLoad {
        let load = BackgroundLoad()
        let name = self.name
        let index = try XCTUnwrap(Int32(exactly: if_nametoindexInside(device)))
        load.add(inside: name) { fd, running in
            var add = true
            while running() {
                let message = routeMessage(add: add, destination: (192, 0, 2, 0), prefix: 24, index: index)
                _ = message.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
                add.toggle()
                var pause = timespec(tv_sec: 0, tv_nsec: nanoseconds)   // the churn's own pace, not a synchronisation
                nanosleep(&pause, nil)
            }
        }
        return load
    }

    /// `senders` threads inside the namespace unicasting small datagrams to
    /// `port` as fast as they can.
    func floodNetlink(toPort port: UInt32, senders: Int) throws -> BackgroundLoad {
        let load = BackgroundLoad()
        let name = self.name
        for _ in 0 ..< senders {
            load.add(inside: name) { fd, running in
                var address = sockaddr_nl()
                address.nl_family = sa_family_t(AF_NETLINK)
                address.nl_pid = port
                var message = [UInt8](repeating: 0, count: 32)
                withUnsafeBytes(of: UInt32(32).littleEndian) { message.replaceSubrange(0 ..< 4, with: $0) }
                withUnsafeBytes(of: UInt16(RTM_NEWLINK).littleEndian) { message.replaceSubrange(4 ..< 6, with: $0) }
                while running() {
                    _ = withUnsafePointer(to: &address) { pointer in
                        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                            sendto(fd, message, message.count, Int32(MSG_DONTWAIT), $0, socklen_t(MemoryLayout<sockaddr_nl>.size))
                        }
                    }
                }
            }
        }
        return load
    }

    /// The index of `device` in this namespace.
    func if_nametoindexInside(_ device: String) throws -> UInt32 {
        try onThreadInside { () throws(ThreadError) in
            let index = if_nametoindex(device)
            guard index > 0 else { throw ThreadError("if_nametoindex \(device)") }
            return index
        }
    }
}

/// An RTM_NEWROUTE (create, replace) or RTM_DELROUTE of an IPv4 unicast route to `destination/prefix` over `index`.
private func routeMessage(add: Bool, destination: (UInt8, UInt8, UInt8, UInt8), prefix: UInt8, index: Int32) -> [UInt8] {
    var message: [UInt8] = []
    func append<T>(_ value: T) { withUnsafeBytes(of: value) { message.append(contentsOf: $0) } }
    let length = 16 + 12 + 8 + 8   // nlmsghdr, rtmsg, RTA_DST, RTA_OIF
    append(UInt32(length))
    append(UInt16(add ? RTM_NEWROUTE : RTM_DELROUTE))
    append(UInt16(NLM_F_REQUEST) | (add ? UInt16(NLM_F_CREATE | NLM_F_REPLACE) : 0))
    append(UInt32(0)); append(UInt32(0))
    // rtmsg: family, dst_len, src_len, tos, table, protocol, scope, type, flags
    message += [UInt8(AF_INET), prefix, 0, 0, UInt8(RT_TABLE_MAIN.rawValue), UInt8(RTPROT_STATIC), UInt8(RT_SCOPE_LINK.rawValue),
                UInt8(RTN_UNICAST)]
    append(UInt32(0))
    append(UInt16(8)); append(UInt16(RTA_DST.rawValue))
    message += [destination.0, destination.1, destination.2, destination.3]
    append(UInt16(8)); append(UInt16(RTA_OIF.rawValue)); append(index)
    return message
}
