// Faults give typed errors, never a crash or a hang (the robustness issue):
// an unexpected errno from a netlink socket (injected through the C core's
// one receive seam, creach_nl_inject_recv_error), the descriptor limit
// (RLIMIT_NOFILE) at its floor, thread creation refused (RLIMIT_NPROC), and
// the watched namespace deleted while a monitor runs.

import CReachability
import CTestSupport
import Foundation
import ReachabilityTestSupport
import Synchronization
import LinuxReachability
@testable import ReachabilityCore
@testable import ReachabilityKernel
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// `error` is `.system` with errno `expected`.
private func assertSystemError(_ error: Error, _ expected: Int32, _ what: String,
                               file: StaticString = #filePath, line: UInt = #line) {
    guard case let ReachabilityError.system(_, errno)? = error as? ReachabilityError else {
        return XCTFail("\(what): \(error), not a .system error", file: file, line: line)
    }
    XCTAssertEqual(errno.rawValue, expected, "\(what): \(error)", file: file, line: line)
}

final class FaultTests: NamespaceTestCase {

    // MARK: Netlink errno

    /// The event socket fails with an errno reading cannot fix: the monitor
    /// closes it, opens another (`recoveries`), evaluates every target, and
    /// keeps reporting changes through the new socket. Setting va up is one
    /// change once vb's operstate has followed, a lag that reached 20 ms (the
    /// default `maximumSettleTime`) in a loaded run: that run saw a second
    /// change for it and counted it as the next step's (issue 39), so the
    /// bound here is one a loaded machine stays within, as in MonitorTests.
    func testAnUnexpectedErrnoOnTheEventSocketOpensANewOne() throws {
        let ns = try makeNamespace()
        ns.addVethPair("va", peer: "vb", address: "10.1.0.1/24")
        let target = Target.address(IPAddress("10.1.0.7")!)
        let (monitor, recorder) = try startMonitor(ns, [target]) { $0.maximumSettleTime = .seconds(1) }
        for (step, error) in [EIO, ENOMEM, EFAULT].enumerated() {
            let port = try XCTUnwrap(monitor.eventPortID)
            creach_nl_inject_recv_error(port, error, 1)
            defer { creach_nl_inject_recv_error(0, 0, 0) }
            let up = step % 2 == 1
            ns.run("link set va \(up ? "up" : "down")")    // the datagram the failed read would have returned
            XCTAssertTrue(recorder.wait(timeout: 5) { $0.filter { !$0.isInitial }.count >= step + 1 },
                          "errno \(error): the change was lost")
            XCTAssertEqual(recorder.nonInitial.count, step + 1,
                           "errno \(error): \(recorder.nonInitial.map { "\($0.status) \($0.evaluation.availableInterfaces)" })")
            XCTAssertEqual(recorder.nonInitial.last?.isReachable, up, "errno \(error)")
            XCTAssertEqual(monitor.counters.recoveries, UInt64(step + 1), "errno \(error): \(monitor.counters)")
            XCTAssertNotEqual(monitor.eventPortID, port, "errno \(error): still the failed socket")
        }
        XCTAssertTrue(monitor.isRunning)
    }

    /// A change that a reopened socket carries is published only once the
    /// recovery is counted and the new port is known: a failure ends the
    /// burst (issue 39, defect 4). The hook runs on the event thread right
    /// after the reopen and sets va down, so that the new socket holds link
    /// messages while the failed burst would still be draining; the handler,
    /// on the same thread, reads the counters as the change is published.
    func testARecoveryIsCountedBeforeAChangeTheNewSocketCarries() throws {
        let ns = try makeNamespace()
        ns.addVethPair("va", peer: "vb", address: "10.1.0.1/24")
        let target = Target.address(IPAddress("10.1.0.7")!)
        let (monitor, recorder) = try startMonitor(ns, [target])
        let port = try XCTUnwrap(monitor.eventPortID)
        let atChange = Mutex<[(recoveries: UInt64, port: UInt32?)]>([])
        monitor.onChange { [unowned monitor] change in
            guard !change.isInitial else { return }
            atChange.withLock { $0.append((monitor.counters.recoveries, monitor.eventPortID)) }
        }
        NetlinkEventSocket.testHook = { step in if step == .reopened { ns.run("link set va down") } }
        defer { NetlinkEventSocket.testHook = nil }
        creach_nl_inject_recv_error(port, EIO, 1)
        defer { creach_nl_inject_recv_error(0, 0, 0) }
        ns.run("route add 10.99.0.0/24 dev va")   // any datagram: its read fails
        XCTAssertTrue(recorder.wait(timeout: 5) { $0.contains { !$0.isInitial && !$0.isReachable } }, "va down not seen")
        // The recorder is the monitor's first observer, this handler its second:
        // the recorder can have the change while this one has not been called yet.
        XCTAssertTrue(eventually(timeout: 5) { atChange.withLock { !$0.isEmpty } }, "the handler never saw the change")
        let first = try XCTUnwrap(atChange.withLock { $0.first })
        XCTAssertEqual(first.recoveries, 1, "the recovery that carried the change was not counted yet when it was published")
        XCTAssertNotEqual(first.port, port, "the change was published while the failed socket's port was still given")
    }

    /// A link deleted while no event socket listened (between the failed one
    /// and its successor), and another of another kind made with the same
    /// name and index: the failure forgets every cached interface kind, as
    /// lost events do, so the answer names the new link's kind (issue 39,
    /// defect 4). The hook does it on the event thread with the socket closed.
    func testAFailedEventSocketForgetsTheKindsOfLinksItMayHaveMissed() throws {
        let ns = try makeNamespace()
        ns.run("link add va index 4001 type veth peer name vb", "addr add 10.1.0.1/24 dev va",
               "link set va up", "link set vb up")
        XCTAssertTrue(ns.waitForState("va", "UP"))
        let target = Target.address(IPAddress("10.1.0.7")!)
        let (monitor, recorder) = try startMonitor(ns, [target])
        XCTAssertEqual(recorder.all.first?.evaluation.primary?.interfaceKind, .wired)
        NetlinkEventSocket.testHook = { step in
            guard step == .closed else { return }
            ns.run("link del va")
            ns.run("link add va index 4001 type vxlan id 42 local 127.0.0.1 dstport 4789",
                   "addr add 10.1.0.1/24 dev va", "link set va up")
        }
        defer { NetlinkEventSocket.testHook = nil }
        creach_nl_inject_recv_error(try XCTUnwrap(monitor.eventPortID), EIO, 1)
        defer { creach_nl_inject_recv_error(0, 0, 0) }
        ns.run("route add 10.99.0.0/24 dev va")   // any datagram: its read fails
        XCTAssertTrue(recorder.wait(timeout: 5) { changes in
            changes.contains { !$0.isInitial && $0.evaluation.primary?.link?.linkKind == "vxlan" }
        }, "\(recorder.nonInitial.map { "\($0.status) \($0.evaluation.primary?.link?.linkKind ?? "-")" })")
        let last = try XCTUnwrap(recorder.nonInitial.last)
        XCTAssertEqual(last.evaluation.primary?.link?.index, 4001, "the same index")
        XCTAssertEqual(last.evaluation.primary?.interfaceKind, .tunnel, "the vxlan's kind, not the deleted veth's")
        XCTAssertEqual(monitor.counters.recoveries, 1)
    }

    /// A request whose reply read fails is a typed error; the reply left in
    /// the socket is not taken for the next request's answer.
    func testAnUnexpectedErrnoOnARequestIsATypedErrorAndTheNextAnswerIsRight() throws {
        let ns = try makeNamespace()
        ns.addVethPair("va", peer: "vb", address: "10.1.0.1/24")
        let evaluator = try makeEvaluator(ns)
        defer { creach_nl_inject_recv_error(0, 0, 0) }

        creach_nl_inject_recv_error(evaluator.portID, EIO, 1)
        XCTAssertThrowsError(try evaluator.evaluate(IPAddress("10.1.0.7")!)) { assertSystemError($0, EIO, "route lookup") }
        let next = try evaluator.evaluate(IPAddress("10.250.0.9")!)
        XCTAssertEqual(next.status, .notReachable, "the answer of this lookup, not the stale one of 10.1.0.7")
        XCTAssertEqual(try evaluator.evaluate(IPAddress("10.1.0.7")!).status, .reachable(.wired))

        creach_nl_inject_recv_error(evaluator.portID, ENOMEM, 1)
        XCTAssertThrowsError(try evaluator.interfaces()) { assertSystemError($0, ENOMEM, "link dump") }
        XCTAssertTrue(try evaluator.interfaces().contains { $0.link.name == "va" }, "the dump after the failed one is whole")
    }

    // MARK: Descriptor limit

    /// Runs `body` with RLIMIT_NOFILE's soft limit at the lowest free
    /// descriptor number, so that every new descriptor fails with EMFILE.
    private func atDescriptorFloor(_ body: () throws -> Void) rethrows {
        var saved = rlimit()
        XCTAssertEqual(getrlimit(Int32(RLIMIT_NOFILE.rawValue), &saved), 0)
        let lowestFree = dup(0)
        close(lowestFree)
        var floor = saved
        floor.rlim_cur = rlim_t(lowestFree)
        XCTAssertEqual(setrlimit(Int32(RLIMIT_NOFILE.rawValue), &floor), 0)
        defer { setrlimit(Int32(RLIMIT_NOFILE.rawValue), &saved) }
        try body()
    }

    func testAtTheDescriptorFloorEveryEntryPointFailsWithATypedError() throws {
        let ns = try makeNamespace()
        ns.addVethPair("va", peer: "vb", address: "10.1.0.1/24")
        let target = Target.address(IPAddress("10.1.0.7")!)
        let monitor = try ReachabilityMonitor(targets: [target], namespace: .named(ns.name))
        defer { monitor.stop() }
        let prober = try Prober(namespace: .named(ns.name))
        let evaluator = try makeEvaluator(ns)
        var errors: [String] = []
        try atDescriptorFloor {
            XCTAssertThrowsError(try ReachabilityEvaluator(namespace: .named(ns.name))) {
                assertSystemError($0, EMFILE, "a new evaluator"); errors.append("\($0)")
            }
            XCTAssertThrowsError(try ReachabilityEvaluator()) { assertSystemError($0, EMFILE, "in this namespace") }
            XCTAssertThrowsError(try monitor.start()) { assertSystemError($0, EMFILE, "monitor start"); errors.append("\($0)") }
            XCTAssertFalse(monitor.isRunning)
            XCTAssertThrowsError(try prober.probe(IPAddress("10.1.0.1")!, method: .icmp)) {
                assertSystemError($0, EMFILE, "probe"); errors.append("\($0)")
            }
            // What holds its sockets already goes on answering.
            XCTAssertEqual(try? evaluator.evaluate(IPAddress("10.1.0.7")!).status, .reachable(.wired))
        }
        print("at the descriptor floor: " + errors.joined(separator: "; "))
        // The limit back: the same monitor starts.
        try monitor.start()
        XCTAssertTrue(eventually(timeout: 5) { monitor.currentEvaluations.first?.isEvaluated == true })
    }

    // MARK: Thread limit

    /// Runs `body` on a thread of its own whose real and effective uid are
    /// `nobody` (its saved uid stays 0, so the test gets root back) with
    /// RLIMIT_NPROC 0: the kernel refuses every thread it tries to create (EAGAIN).
    private func withThreadsRefused(_ body: @escaping @Sendable () -> Void) throws {
        var saved = rlimit()
        XCTAssertEqual(getrlimit(Int32(__RLIMIT_NPROC.rawValue), &saved), 0)
        var none = saved
        none.rlim_cur = 0
        XCTAssertEqual(setrlimit(Int32(__RLIMIT_NPROC.rawValue), &none), 0)
        defer { setrlimit(Int32(__RLIMIT_NPROC.rawValue), &saved) }
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            defer { done.signal() }
            guard test_thread_setresuid(65534, 65534, 0) == 0 else { return XCTFail("setresuid: \(errno)") }
            defer { XCTAssertEqual(test_thread_setresuid(0, 0, 0), 0) }
            body()
        }
        thread.start()
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success, "the thread hung")
    }

    func testWhenNoThreadCanBeCreatedEveryEntryPointFailsWithATypedError() throws {
        let ns = try makeNamespace()
        ns.addVethPair("va", peer: "vb", address: "10.1.0.1/24")
        try configureNetns(ns, ["hosts": "10.1.0.8 gw.test\n"])
        let monitor = try ReachabilityMonitor(targets: [.address(IPAddress("10.1.0.7")!)], namespace: .named(ns.name))
        let tracker = try UplinkTracker(configuration: .init(interface: "va", hosts: [IPAddress("10.1.0.2")!]),
                                        namespace: .named(ns.name))
        let evaluator = try makeEvaluator(ns)
        final class Findings: Sendable { let list = Mutex<[String]>([]) }
        let findings = Findings()
        try withThreadsRefused {
            let check: @Sendable (String, () throws -> Void) -> Void = { what, action in
                do {
                    try action()
                    XCTFail("\(what): no error")
                } catch {
                    assertSystemError(error, EAGAIN, what)
                    findings.list.withLock { $0.append("\(what): \(error)") }
                }
            }
            check("monitor start") { try monitor.start() }
            check("tracker start") { try tracker.start() }
            check("host name lookup") { try HostResolver.startLookUp("gw.test", in: evaluator.namespaceHandle) { _ in } }
        }
        XCTAssertFalse(monitor.isRunning)
        print("threads refused: " + findings.list.withLock { $0 }.joined(separator: "; "))
        XCTAssertEqual(findings.list.withLock { $0.count }, 3)
        XCTAssertEqual(HostResolver.threadsInFlight, 0, "the refused lookup still counts as in flight")
        try monitor.start()
        XCTAssertTrue(monitor.isRunning, "the same monitor starts once threads can be created")
        monitor.stop()
    }

    // MARK: The namespace deleted

    /// `ip netns del` removes the name, not the namespace: the monitor holds
    /// it (its sockets and its namespace handle), so it goes on watching it,
    /// and reports what happens in it, until `stop()` lets it go. The name no
    /// longer opens (`unknownNamespace`).
    func testDeletingTheWatchedNamespaceWhileAMonitorRunsKeepsItWatched() throws {
        let ns = try makeNamespace()
        ns.addVethPair("va", peer: "vb", address: "10.1.0.1/24")
        let links = try ns.linkControl()   // a socket in the namespace: it still reaches va after the name is gone
        let (monitor, recorder) = try startMonitor(ns, [.address(IPAddress("10.1.0.7")!)])
        ns.destroy()
        XCTAssertFalse(TestNamespace.existingNames().contains(ns.name))
        XCTAssertThrowsError(try ReachabilityEvaluator(namespace: .named(ns.name))) {
            XCTAssertEqual($0 as? ReachabilityError, .unknownNamespace(ns.name))
        }
        try links.set("va", up: false)
        XCTAssertTrue(recorder.wait(timeout: 5) { $0.contains { !$0.isInitial && $0.status == .notReachable } },
                      "the monitor stopped watching the unnamed namespace")
        XCTAssertTrue(monitor.isRunning)
        monitor.stop()
        XCTAssertFalse(monitor.isRunning)
    }
}
