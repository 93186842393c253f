// The semantics every view shares, on the real kernel: the WWAN switch in
// every answer, policy and radio changed while a monitor runs, the state
// model before the first answer, and NWPath's fields. A link named `wwan0`
// is WWAN by the built-in name rule, so a veth stands for a modem here (the
// real PPP and modem links are in the kernel lane, Tests/KernelLane).

import Foundation
import LinuxReachability
@testable import ReachabilityCore
@testable import ReachabilityKernel
import ReachabilityTestSupport
import Synchronization
import XCTest

final class SemanticsTests: NamespaceTestCase {
    /// wwan0 (10.20.0.1/24, a veth named as a modem would be) and va
    /// (10.1.0.1/24, wired); no default route.
    private func makeWWANAndWired() throws -> TestNamespace {
        let ns = try makeNamespace()
        ns.addVethPair("wwan0", peer: "wb", address: "10.20.0.1/24")
        ns.addVethPair("va", peer: "vb", address: "10.1.0.1/24")
        return ns
    }

    /// A barrier: routes `barrier` (a watched, unrouted target) through lo and
    /// waits for its change, so every change caused before it has arrived.
    private func passBarrier(_ barrier: String, in ns: TestNamespace, _ recorder: ChangeRecorder,
                             file: StaticString = #filePath, line: UInt = #line) {
        ns.run(["route", "add", "local", barrier, "dev", "lo"], file: file, line: line)
        XCTAssertTrue(recorder.wait(timeout: 5) { $0.contains { !$0.isInitial && $0.target.description == barrier } },
                      "the barrier's change did not arrive", file: file, line: line)
    }

    private func changes(of target: String, _ recorder: ChangeRecorder) -> [ReachabilityChange] {
        recorder.nonInitial.filter { $0.target.description == target }
    }

    // MARK: The WWAN switch

    func testTheWWANSwitchInEveryViewOfAnEvaluation() async throws {
        let ns = try makeWWANAndWired()
        let evaluator = try ReachabilityEvaluator(namespace: .named(ns.name), policy: ReachabilityPolicy(allowsWWAN: false))
        let refused = try await evaluator.evaluate(.address(IPAddress("10.20.0.5")!))
        XCTAssertEqual(refused.flags, [.reachable, .isDirect, .isWWAN], "the kernel's truth")
        XCTAssertEqual(refused.networkStatus, .reachableViaWWAN, "the Apple sample's view keeps the kernel's truth")
        XCTAssertEqual(refused.mask, .wwanRefused)
        XCTAssertEqual(refused.pathStatus, .unsatisfied)
        XCTAssertEqual(refused.unsatisfiedReason, .wwanRefused)
        XCTAssertEqual(refused.status, .notReachable, "what an app acts on")
        XCTAssertFalse(refused.isReachable)
        XCTAssertEqual(refused.accessibility, .restricted(.wwanRefused))
        let wired = try await evaluator.evaluate(.address(IPAddress("10.1.0.5")!))
        XCTAssertEqual(wired.status, .reachable(.wired), "the switch touches WWAN only")
        XCTAssertNil(wired.unsatisfiedReason)
    }

    func testCheckNoWWANExitsOneWithTheReason() throws {
        let ns = try makeWWANAndWired()
        let refused = try reach(["check", "--netns", ns.name, "--no-wwan", "--json", "10.20.0.5"])
        XCTAssertEqual(refused.status, 1, refused.stderr)
        let json = try jsonObject(refused.stdout)
        XCTAssertEqual(json["status"] as? String, "notReachable")
        XCTAssertEqual(json["reachable"] as? Bool, false)
        XCTAssertEqual(json["unsatisfiedReason"] as? String, "wwanRefused")
        XCTAssertEqual(json["pathStatus"] as? String, "unsatisfied")
        XCTAssertEqual(json["networkStatus"] as? String, "reachableViaWWAN")
        XCTAssertEqual(json["flagString"] as? String, "WR ------d")
        XCTAssertEqual(json["mask"] as? String, "wwanRefused")
        let allowed = try reach(["check", "--netns", ns.name, "10.20.0.5"])
        XCTAssertEqual(allowed.status, 0, allowed.stdout + allowed.stderr)
        XCTAssertTrue(allowed.stdout.contains("reachable.wwan"), allowed.stdout)
        let human = try reach(["check", "--netns", ns.name, "--no-wwan", "10.20.0.5"])
        XCTAssertEqual(human.status, 1)
        XCTAssertTrue(human.stdout.contains("notReachable") && human.stdout.contains("restricted.wwanRefused"), human.stdout)
    }

    // MARK: Policy and radio while running

    func testThePolicyChangedWhileRunningGivesOneChangePerAffectedTarget() throws {
        let ns = try makeWWANAndWired()
        let statuses = Mutex<[StatusChange]>([])
        let (monitor, recorder) = try startMonitor(ns, [.address(IPAddress("10.20.0.5")!), .address(IPAddress("10.1.0.5")!),
                                                        .address(IPAddress("10.250.0.1")!), .address(IPAddress("10.250.0.2")!)])
        monitor.whenUnreachable { change in statuses.withLock { $0.append(change) } }
        XCTAssertTrue(recorder.wait(timeout: 5) { _ in statuses.withLock { $0.count } == 2 }, "the two unrouted barriers' initial states")
        monitor.policy = ReachabilityPolicy(allowsWWAN: false)
        passBarrier("10.250.0.1", in: ns, recorder)
        let off = changes(of: "10.20.0.5", recorder)
        XCTAssertEqual(off.count, 1, "\(off)")
        XCTAssertEqual(off.first?.status, .notReachable)
        XCTAssertEqual(off.first?.evaluation.unsatisfiedReason, .wwanRefused)
        XCTAssertEqual(changes(of: "10.1.0.5", recorder).count, 0, "the wired target is not affected")
        let unreachable = statuses.withLock { $0.filter { !$0.isInitial } }
        XCTAssertEqual(unreachable.map(\.target.description), ["10.20.0.5"], "whenUnreachable once, for the WWAN target")

        monitor.policy = ReachabilityPolicy(allowsWWAN: true)
        passBarrier("10.250.0.2", in: ns, recorder)
        let on = changes(of: "10.20.0.5", recorder)
        XCTAssertEqual(on.count, 2, "\(on)")
        XCTAssertEqual(on.last?.status, .reachable(.wwan))
    }

    /// `ReachabilityPolicy.processDefault` (what iOS code cannot pass: the
    /// Settings switch) reaches a running monitor created without a policy at
    /// once, and only that one.
    func testTheProcessDefaultPolicyReachesMonitorsThatFollowIt() throws {
        let ns = try makeWWANAndWired()
        let saved = ReachabilityPolicy.processDefault
        addTeardownBlock { ReachabilityPolicy.processDefault = saved }
        let targets: [Target] = [.address(IPAddress("10.20.0.5")!), .address(IPAddress("10.250.0.1")!)]
        let (following, recorder) = try startMonitor(ns, targets, policy: nil)
        let (own, ownRecorder) = try startMonitor(ns, targets, policy: ReachabilityPolicy())
        XCTAssertTrue(following.core.evaluator.followsProcessDefaultPolicy)
        XCTAssertFalse(own.core.evaluator.followsProcessDefaultPolicy)

        ReachabilityPolicy.processDefault.allowsWWAN = false
        XCTAssertTrue(recorder.wait(timeout: 5) { _ in self.changes(of: "10.20.0.5", recorder).count == 1 })
        XCTAssertEqual(changes(of: "10.20.0.5", recorder).last?.evaluation.unsatisfiedReason, .wwanRefused)
        XCTAssertEqual(following.policy.allowsWWAN, false)
        passBarrier("10.250.0.1", in: ns, ownRecorder)
        XCTAssertEqual(changes(of: "10.20.0.5", ownRecorder).count, 0, "a monitor given its own policy keeps it")

        // Setting a monitor's policy ends its following the default.
        following.policy = ReachabilityPolicy(allowsWWAN: false)
        ReachabilityPolicy.processDefault.allowsWWAN = true
        XCTAssertEqual(following.policy.allowsWWAN, false)
        XCTAssertFalse(following.core.evaluator.followsProcessDefaultPolicy)
    }

    func testRadioSourceProcessDefaultIsTheDefault() throws {
        let ns = try makeWWANAndWired()
        let evaluator = try ReachabilityEvaluator(namespace: .named(ns.name))
        XCTAssertTrue(evaluator.radio === RadioSource.processDefault)
        XCTAssertTrue(evaluator.followsProcessDefaultPolicy)
        let monitor = try ReachabilityMonitor(targets: [.internet], namespace: .named(ns.name))
        XCTAssertTrue(monitor.radio === RadioSource.processDefault)
    }

    func testARadioChangeWhileRunningIsOneMaskChange() throws {
        let ns = try makeWWANAndWired()
        let radio = RadioSource(["wwan0": .lte])
        let (_, recorder) = try startMonitor(ns, [.address(IPAddress("10.20.0.5")!), .address(IPAddress("10.250.0.1")!)],
                                             radio: radio)
        XCTAssertEqual(recorder.all.first { $0.target.description == "10.20.0.5" }?.evaluation.mask, .wwan4G)
        radio.set(.umts, for: "wwan0")
        XCTAssertTrue(recorder.wait(timeout: 5) { _ in self.changes(of: "10.20.0.5", recorder).count == 1 })
        XCTAssertEqual(changes(of: "10.20.0.5", recorder).last?.evaluation.mask, .wwan3G)
        radio.set(.umts, for: "wwan0")   // the same: no change
        radio.set(.umts, for: "eth9")    // another interface: no change
        passBarrier("10.250.0.1", in: ns, recorder)
        XCTAssertEqual(changes(of: "10.20.0.5", recorder).count, 1, "\(changes(of: "10.20.0.5", recorder))")
        radio.set(.nr, for: "wwan0")
        XCTAssertTrue(recorder.wait(timeout: 5) { _ in self.changes(of: "10.20.0.5", recorder).count == 2 })
        XCTAssertEqual(changes(of: "10.20.0.5", recorder).last?.evaluation.mask, .wwan5G)
    }

    // MARK: The state model

    func testCurrentEvaluationsHasOneEntryPerTargetInOrder() throws {
        let ns = try makeWWANAndWired()
        let targets: [Target] = [.address(IPAddress("10.1.0.5")!), .internet, .address(IPAddress("10.20.0.5")!)]
        let monitor = try ReachabilityMonitor(targets: targets, namespace: .named(ns.name))
        addTeardownBlock { monitor.stop() }
        let before = monitor.currentEvaluations
        XCTAssertEqual(before.map(\.target), targets)
        XCTAssertEqual(before.map(\.status), [.unknown, .unknown, .unknown])
        let recorder = ChangeRecorder()
        monitor.onChange { recorder.record($0) }
        try monitor.start()
        XCTAssertTrue(recorder.waitForInitial(3))
        let after = monitor.currentEvaluations
        XCTAssertEqual(after.map(\.target), targets)
        XCTAssertEqual(after.map(\.status), [.reachable(.wired), .notReachable, .reachable(.wwan)])
    }

    // MARK: NWPath's fields

    func testPathFieldsOfAnEvaluation() async throws {
        let ns = try makeWWANAndWired()
        ns.addVethPair("vc", peer: "vd", address: "10.3.0.1/24")
        ns.run("link set vd down")   // vc: no carrier, not available
        ns.run("route add default via 10.1.0.254")
        let configDirectory = "/etc/netns/\(ns.name)"
        try FileManager.default.createDirectory(atPath: configDirectory, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: configDirectory) }
        try "nameserver 10.20.0.53\n".write(toFile: configDirectory + "/resolv.conf", atomically: true, encoding: .utf8)

        let evaluator = try ReachabilityEvaluator(namespace: .named(ns.name),
                                                  policy: ReachabilityPolicy(constrainedInterfaces: ["wwan*"]))
        let direct = try await evaluator.evaluate(.address(IPAddress("10.20.0.9")!))
        // The veth peers (wb, vb) live here too and are up; vc has no carrier, vd is down, lo is loopback.
        XCTAssertEqual(direct.availableInterfaces.first?.name, "wwan0", "the output first")
        XCTAssertEqual(Set(direct.availableInterfaces.map(\.name)), ["wwan0", "wb", "va", "vb"], "no vc, vd or lo")
        XCTAssertEqual(direct.availableInterfaces.first?.kind, .wwan)
        XCTAssertTrue(direct.usesInterfaceType(.wwan))
        XCTAssertFalse(direct.usesInterfaceType(.wired))
        XCTAssertTrue(direct.isConstrained)
        XCTAssertTrue(direct.isExpensive)
        XCTAssertEqual(direct.supportsDNS, true, "10.20.0.53 is routable")
        XCTAssertEqual(direct.gateways, [])

        let internet = try await evaluator.evaluate(.internet)
        XCTAssertTrue(internet.supportsIPv4)
        XCTAssertFalse(internet.supportsIPv6, "no IPv6 route")
        XCTAssertEqual(internet.gateways.map(\.description), ["10.1.0.254"])
        XCTAssertEqual(internet.availableInterfaces.first?.name, "va")
        XCTAssertEqual(internet.availableInterfaces.count, 4)
        XCTAssertFalse(internet.isConstrained)

        ns.run("link set wwan0 down")
        let noDNS = try await evaluator.evaluate(.address(IPAddress("10.1.0.9")!))
        XCTAssertEqual(noDNS.supportsDNS, true, "10.20.0.53 now leaves by the default route")
        ns.run("route del default")
        let none = try await evaluator.evaluate(.address(IPAddress("10.1.0.9")!))
        XCTAssertEqual(none.supportsDNS, false, "no route to the name server")

        let json = try jsonObject(try reach(["check", "--netns", ns.name, "--json", "10.1.0.9"]).stdout)
        XCTAssertEqual(json["availableInterfaces"] as? [String], ["va", "vb"], "wwan0 is down now, and so is its peer's carrier")
        XCTAssertEqual(json["supportsDNS"] as? Bool, false)
        XCTAssertEqual(json["supportsIPv4"] as? Bool, true)
        XCTAssertEqual(json["supportsIPv6"] as? Bool, false)
        XCTAssertEqual(json["gateways"] as? [String], [])
        XCTAssertEqual(json["isConstrained"] as? Bool, false)
        XCTAssertTrue(json.keys.contains("probe"))
    }
}
