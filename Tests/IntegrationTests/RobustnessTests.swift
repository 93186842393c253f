// Kernel corner cases on the real kernel (the robustness issue): lost
// notifications and the interface-kind cache, the receive buffer past
// rmem_max, nexthop objects, dumps that race changes, and notifications that
// change nothing (a bridge's flapping port, address lifetime refreshes).

import Dispatch
import Foundation
import ReachabilityTesting   // runCommand, ipExecutable
import LinuxReachability
@testable import ReachabilityCore
@testable import ReachabilityKernel
import ReachabilityTestSupport
import Synchronization
import XCTest

final class RobustnessTests: NamespaceTestCase {
    /// Route flood through `ip -batch` (one process, thousands of notifications).
    private func flood(_ ns: TestNamespace, routes: Int, via device: String) throws {
        var batch = ""
        for i in 0 ..< routes { batch += "route add 10.100.\(i / 250).\(i % 250)/32 dev \(device)\n" }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("\(ns.name)-flood.batch")
        try batch.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        ns.run(["-batch", file.path])
    }

    /// While the monitor's thread is held, its socket overflows and a link is
    /// deleted and re-created with the same name and index but another kind;
    /// that RTM_DELLINK is among the lost notifications. The kinds cached
    /// before must not answer for the new link.
    func testAfterAnOverflowTheInterfaceKindCacheIsNotTrusted() throws {
        let ns = try makeNamespace()
        ns.run("link add up0 index 4000 type veth peer name up0p", "addr add 10.60.0.1/24 dev up0",
               "link set up0 up", "link set up0p up")
        ns.addVethPair("vb", peer: "vbp", address: "10.61.0.1/24")
        let target = Target.address(IPAddress("10.60.0.7")!)
        let (monitor, recorder) = try startMonitor(ns, [target, .address(IPAddress("10.250.0.1")!)]) {
            $0.receiveBufferSize = 4096
        }
        XCTAssertEqual(recorder.all.first?.evaluation.primary?.interfaceKind, .wired)
        let release = DispatchSemaphore(value: 0)
        let holding = DispatchSemaphore(value: 0)
        let held = Atomic<Bool>(false)
        monitor.onChange { change in
            if change.target.description == "10.250.0.1" && !held.exchange(true, ordering: .relaxed) {
                holding.signal()
                release.wait()
            }
        }
        ns.run(["route", "add", "local", "10.250.0.1", "dev", "lo"])   // the change whose callback holds the thread
        XCTAssertEqual(holding.wait(timeout: .now() + 5), .success, "the monitor thread was not held")
        try flood(ns, routes: 3000, via: "vb")                         // the socket overflows...
        ns.run("link del up0")                                          // ...so these are lost
        ns.run("link add up0 index 4000 type vxlan id 42 local 127.0.0.1 dstport 4789",
               "addr add 10.60.0.1/24 dev up0", "link set up0 up")
        release.signal()
        XCTAssertTrue(recorder.wait(timeout: 10) { changes in
            changes.contains { !$0.isInitial && $0.target == target && $0.evaluation.primary?.link?.linkKind == "vxlan" }
        }, "\(recorder.nonInitial.map { "\($0.target) \($0.evaluation.primary?.link?.linkKind ?? "-")" })")
        let last = try XCTUnwrap(recorder.nonInitial.last { $0.target == target })
        XCTAssertEqual(last.evaluation.primary?.link?.index, 4000, "the same index")
        XCTAssertEqual(last.evaluation.primary?.interfaceKind, .tunnel, "the vxlan's kind, not the old veth's")
        XCTAssertGreaterThanOrEqual(monitor.counters.overflows, 1, "\(monitor.counters)")
    }

    /// SO_RCVBUF is capped at net.core.rmem_max without a word; with
    /// CAP_NET_ADMIN, SO_RCVBUFFORCE gets what was asked, and `counters` says
    /// what the socket has.
    func testTheReceiveBufferIsGrantedPastRmemMaxAndReported() throws {
        let ns = try makeNamespace()
        let rmemMax = Int((try String(contentsOfFile: "/proc/sys/net/core/rmem_max", encoding: .utf8))
            .trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        let asked = max(8 << 20, rmemMax * 4)
        let (monitor, _) = try startMonitor(ns, [.internet]) { $0.receiveBufferSize = asked }
        XCTAssertGreaterThanOrEqual(monitor.counters.receiveBufferSize, asked, "rmem_max \(rmemMax): \(monitor.counters)")
        let (plain, _) = try startMonitor(ns, [.internet])
        XCTAssertGreaterThan(plain.counters.receiveBufferSize, 0, "the default size is reported too")
    }

    /// Routes that use a nexthop object move when the object is replaced
    /// (`ip nexthop replace`, as FRR does). With nexthop_compat_mode 0 the
    /// kernel sends only RTM_NEWNEXTHOP; with 1 it may add route messages.
    func testReplacingANexthopObjectMovesItsRoutesAsOneChange() throws {
        for compat in ["0", "1"] {
            let ns = try makeNamespace()
            try ns.setSysctl("net.ipv4.nexthop_compat_mode", compat)
            ns.addVethPair("va", peer: "vap", address: "10.1.0.1/24")
            ns.addVethPair("vc", peer: "vcp", address: "10.3.0.1/24")
            ns.run("nexthop add id 1 via 10.1.0.254 dev va", "route add 10.50.0.0/24 nhid 1")
            let target = Target.address(IPAddress("10.50.0.7")!)
            let (_, recorder) = try startMonitor(ns, [target, .address(IPAddress("10.250.0.1")!)])
            XCTAssertEqual(recorder.all.first?.interface, "va", "compat \(compat)")
            ns.run("nexthop replace id 1 via 10.3.0.254 dev vc")
            XCTAssertTrue(recorder.wait(timeout: 5) { $0.contains { !$0.isInitial && $0.interface == "vc" } },
                          "compat \(compat): no change after the nexthop moved: \(recorder.nonInitial.map { $0.interface ?? "-" })")
            ns.run(["route", "add", "local", "10.250.0.1", "dev", "lo"])   // barrier
            XCTAssertTrue(recorder.wait(timeout: 5) { $0.contains { !$0.isInitial && $0.target.description == "10.250.0.1" } })
            let moved = recorder.nonInitial.filter { $0.target == target }
            XCTAssertEqual(moved.count, 1, "compat \(compat): \(moved.map { $0.interface ?? "-" })")
            XCTAssertEqual(moved.first?.evaluation.primary?.route.gateway, IPAddress("10.3.0.254"))
        }
    }

    /// A dump that races a change (NLM_F_DUMP_INTR) is read again, so a
    /// listing on a busy box does not fail.
    func testListingInterfacesWhileAddressesChangeNeverFails() throws {
        let ns = try makeNamespace()
        ns.addVethPair("va", peer: "vap", address: "10.1.0.1/24")
        // Enough addresses that a dump spans many datagrams, so a change can land inside it.
        var batch = ""
        for i in 0 ..< 2000 { batch += "addr add 10.110.\(i / 250).\(i % 250 + 1)/32 dev va\n" }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("\(ns.name)-addrs.batch")
        try batch.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        ns.run(["-batch", file.path])
        let evaluator = try makeEvaluator(ns)
        let stop = Atomic<Bool>(false)
        let flapper = Thread {
            var i = 0
            while !stop.load(ordering: .relaxed) {
                _ = try? runCommand(ipExecutable!, ["-n", ns.name, "addr", i % 2 == 0 ? "add" : "del", "10.2.0.1/24", "dev", "va"])
                i += 1
                usleep(5_000)   // a busy router's pace, not a storm: a dump fits between two changes
            }
        }
        flapper.start()
        defer { stop.store(true, ordering: .relaxed) }
        var failures: [String] = []
        for _ in 0 ..< 100 {
            do { _ = try evaluator.interfaces() } catch { failures.append("\(error)") }
        }
        stop.store(true, ordering: .relaxed)
        XCTAssertEqual(failures, [], "\(failures.count) of 100 listings failed")
    }

    /// Statistics-only link messages (`ip link set alias`), IPv6 lifetime
    /// refreshes (`ip addr change ... valid_lft`, what a router advertisement
    /// does) and a bridge's per-port messages change nothing the answers
    /// read: no round, no lookup. A port that flaps changes the port (a round
    /// each), but its bridge stays up, and the name is looked up at most once
    /// a second, then once more after it settles.
    func testNotificationsThatChangeNothingNeitherEvaluateNorResolveAgain() throws {
        let ns = try makeNamespace()
        ns.run("link add br0 type bridge", "addr add 10.70.0.1/24 dev br0", "link set br0 up",
               "-6 addr add 2001:db8:70::1/64 dev br0 valid_lft 3600 preferred_lft 3600 nodad")
        for port in ["p1", "p2"] {
            ns.run("link add \(port) type veth peer name \(port)x", "link set \(port) master br0",
                   "link set \(port) up", "link set \(port)x up")
        }
        XCTAssertTrue(ns.waitForState("br0", "UP"), ns.linkLine("br0"))
        try configureNetns(ns, ["hosts": "10.70.0.8 gw.test\n"])
        let barrier = Target.address(IPAddress("10.250.0.1")!)
        // `monitor` evaluates; `names` looks up (its lookups are counted apart from any barrier's).
        let (monitor, recorder) = try startMonitor(ns, [.address(IPAddress("10.70.0.7")!), barrier])
        let (names, _) = try startMonitor(ns, [.host("gw.test")])
        XCTAssertEqual(recorder.all.first?.status, .reachable(.wired))
        var barriers = 0
        /// A change of `barrier`, seen after everything before it was read.
        func sync(_ what: String) {
            ns.run(["route", barriers % 2 == 0 ? "add" : "del", "local", "10.250.0.1", "dev", "lo"])
            barriers += 1
            XCTAssertTrue(recorder.wait(timeout: 5) { $0.filter { MonitorTests.moved($0) && $0.target == barrier }.count == barriers },
                          "\(what): barrier \(barriers) not seen")
        }

        // The first message about br0 and about its address since the start
        // are changes (nothing is known yet); the 19 after each are not.
        let start = monitor.counters, namesStart = names.counters
        for i in 0 ..< 20 {
            ns.run("link set br0 alias quiet\(i)",
                   "-6 addr change 2001:db8:70::1/64 dev br0 valid_lft \(3000 - i) preferred_lft \(3000 - i)")
        }
        sync("quiet")
        XCTAssertTrue(eventually(timeout: 5) { names.counters.events - namesStart.events >= 40 })
        let quiet = monitor.counters, namesQuiet = names.counters
        print("quiet: 20 alias changes + 20 lifetime refreshes: events +\(quiet.events - start.events), "
              + "ignored +\(quiet.ignoredEvents - start.ignoredEvents), rounds +\(quiet.reevaluations - start.reevaluations), "
              + "lookups +\(namesQuiet.resolutions - namesStart.resolutions)")
        XCTAssertGreaterThanOrEqual(quiet.ignoredEvents - start.ignoredEvents, 38, "\(quiet)")
        // The first link message is evaluated on its burst's leading edge and
        // after it, and so is the barrier's route (a route message is a leading
        // edge too, issue 41): two rounds each, and one for the first address message.
        XCTAssertLessThanOrEqual(quiet.reevaluations - start.reevaluations, 5, "the two first messages and the barrier: \(quiet)")
        XCTAssertLessThanOrEqual(namesQuiet.resolutions - namesStart.resolutions, 2, "\(namesQuiet)")

        let started = Date()
        for _ in 0 ..< 20 { ns.run("link set p2x down", "link set p2x up") }
        sync("flaps")
        let elapsed = Date().timeIntervalSince(started)
        let flapped = monitor.counters, namesFlapped = names.counters
        print(String(format: "flapping bridge port: 20 flaps in %.2f s: ", elapsed)
              + "events +\(flapped.events - quiet.events), ignored +\(flapped.ignoredEvents - quiet.ignoredEvents), "
              + "rounds +\(flapped.reevaluations - quiet.reevaluations), changes +\(flapped.changes - quiet.changes), "
              + "lookups +\(namesFlapped.resolutions - namesQuiet.resolutions), "
              + "deferred +\(namesFlapped.deferredResolutions - namesQuiet.deferredResolutions)")
        // p2 and p2x leave and join the interfaces that can carry packets (a change of the path); br0's answer stays.
        XCTAssertEqual(recorder.nonInitial.filter { $0.target != barrier && MonitorTests.moved($0) }.map { "\($0.target) \($0.status)" },
                       [], "br0 stayed up")
        XCTAssertGreaterThan(flapped.ignoredEvents, quiet.ignoredEvents, "the bridge's per-port messages")
        XCTAssertLessThanOrEqual(namesFlapped.resolutions - namesQuiet.resolutions, UInt64(elapsed) + 2, "at most one lookup a second")
        XCTAssertGreaterThan(namesFlapped.deferredResolutions, namesQuiet.deferredResolutions)
        // The lookups put off are not lost: one runs once the interval has passed.
        XCTAssertTrue(eventually(timeout: 3) { names.counters.resolutions > namesQuiet.resolutions }, "the deferred lookup never ran")
    }
}
