// NetworkSandbox (ReachabilityTesting, tier 2) driving a real
// ReachabilityMonitor: two uplinks, wan0 (wired) and wwan0 (WWAN), each with
// its own provider and validation endpoint at the same address, so the uplink
// that carries the probe decides its answer. Every wait is on the monitor's
// own changes (expectations fulfilled by its callback), never a sleep.
//
// As root, or as a normal user through the whole-suite wrapper
// (`make test-sandbox-unprivileged`: `unshare -Urnm`, which sets
// REACH_EXPECT_USERNS=1 so that the unprivileged path is proven taken).
// Skipped with NetworkSandbox.availability's reason and remedy when neither
// works; REACH_REQUIRE_NETNS=1 makes that a failure.

import Foundation
import LinuxReachability
import ReachabilityTesting
import ReachabilityTestSupport
import Synchronization
import XCTest

/// A monitor's changes as they arrive, and expectations fulfilled by the
/// first change (from a mark on) that satisfies a condition.
final class ChangeLog: Sendable {
    private struct Waiter {
        let condition: @Sendable (ReachabilityChange) -> Bool
        let expectation: XCTestExpectation
    }
    private let state = Mutex<(changes: [ReachabilityChange], waiters: [Waiter])>(([], []))

    func record(_ change: ReachabilityChange) {
        let fulfilled = state.withLock { state -> [XCTestExpectation] in
            state.changes.append(change)
            let matched = state.waiters.filter { $0.condition(change) }
            state.waiters.removeAll { $0.condition(change) }
            return matched.map(\.expectation)
        }
        fulfilled.forEach { $0.fulfill() }
    }

    var changes: [ReachabilityChange] { state.withLock { $0.changes } }
    /// The number of changes so far: a mark for `expectation(from:...)`.
    var mark: Int { state.withLock { $0.changes.count } }

    /// Fulfilled by the first change from `mark` on (one already recorded, or a later one) that satisfies `condition`.
    func expectation(_ description: String, from mark: Int,
                     where condition: @escaping @Sendable (ReachabilityChange) -> Bool) -> XCTestExpectation {
        let expectation = XCTestExpectation(description: description)
        let seen = state.withLock { state -> Bool in
            if state.changes[min(mark, state.changes.count)...].contains(where: condition) { return true }
            state.waiters.append(Waiter(condition: condition, expectation: expectation))
            return false
        }
        if seen { expectation.fulfill() }
        return expectation
    }

    var summary: String {
        changes.map { change in
            "\(change.status) via \(change.interface ?? "-") [\(change.flags)] \(change.evaluation.accessibility)"
                + " probe \(change.evaluation.validation?.outcome.description ?? "-")"
        }.joined(separator: "; ")
    }
}

final class SandboxTests: XCTestCase {
    private static let expectUserNamespaceEnvironment = "REACH_EXPECT_USERNS"
    private let portal = "http://portal.test/login"

    /// Skips the test with the availability's reason and remedy, or fails it
    /// when REACH_REQUIRE_NETNS=1; with REACH_EXPECT_USERNS=1 the process must
    /// run inside a user namespace (the unprivileged path, really taken).
    private func requireSandbox(file: StaticString = #filePath, line: UInt = #line) throws {
        let environment = ProcessInfo.processInfo.environment
        if environment[Self.expectUserNamespaceEnvironment] == "1" {
            XCTAssertTrue(NetworkSandbox.runsInUserNamespace, "\(Self.expectUserNamespaceEnvironment)=1, but this process "
                          + "runs in the initial user namespace (euid \(geteuid()))", file: file, line: line)
        }
        let availability = NetworkSandbox.availability
        guard !availability.isAvailable else { return }
        try skipOrFail(availability.description, requiredBy: requireNetnsVariable, file: file, line: line)
    }

    /// A sandbox with wan0 (wired, the primary default route) and wwan0 (WWAN,
    /// the backup), closed when the test ends however it ends.
    private func makeSandbox(file: StaticString = #filePath,
                             line: UInt = #line) throws -> (NetworkSandbox, wan: NetworkSandbox.Uplink, lte: NetworkSandbox.Uplink) {
        try requireSandbox(file: file, line: line)
        let sandbox = try NetworkSandbox()
        addTeardownBlock { sandbox.close() }
        let wan = try sandbox.uplink("wan0", .wired)
        let lte = try sandbox.uplink("wwan0", .wwan)
        return (sandbox, wan, lte)
    }

    /// A started monitor of the internet in the sandbox, validating through
    /// the sandbox's endpoint every `validationInterval`, and its change log
    /// once the first state arrived. Stopped when the test ends.
    private func startMonitor(_ sandbox: NetworkSandbox, validationInterval: Duration = .seconds(60),
                              file: StaticString = #filePath, line: UInt = #line) throws -> (ReachabilityMonitor, ChangeLog) {
        var configuration = ReachabilityMonitor.Configuration()
        configuration.validation = sandbox.validation
        configuration.validationInterval = validationInterval
        configuration.validationTimeout = .seconds(1)
        let monitor = try ReachabilityMonitor(targets: [.internet], namespace: sandbox.namespace,
                                              kindOverrides: sandbox.kindOverrides, policy: ReachabilityPolicy(),
                                              radio: RadioSource(), configuration: configuration)
        addTeardownBlock { monitor.stop() }
        let log = ChangeLog()
        let initial = log.expectation("the initial state", from: 0) { $0.isInitial }
        monitor.onChange { log.record($0) }
        try monitor.start()
        wait(for: [initial], timeout: 10)
        return (monitor, log)
    }

    /// Waits until a change from `mark` on satisfies `condition`; fails with the log otherwise.
    private func waitForChange(_ log: ChangeLog, from mark: Int, _ description: String, timeout: TimeInterval = 10,
                               file: StaticString = #filePath, line: UInt = #line,
                               where condition: @escaping @Sendable (ReachabilityChange) -> Bool) {
        let expectation = log.expectation(description, from: mark, where: condition)
        if XCTWaiter().wait(for: [expectation], timeout: timeout) != .completed {
            XCTFail("no change: \(description) within \(timeout) s; changes: \(log.summary)", file: file, line: line)
        }
    }

    private static func validated(_ verdict: ProbeVerdict) -> @Sendable (ReachabilityChange) -> Bool {
        { $0.evaluation.validation?.verdict == verdict }
    }

    // MARK: Availability

    func testAvailabilityIsProbedForReal() throws {
        try requireSandbox()
        XCTAssertEqual(NetworkSandbox.availability, .available)
        XCTAssertTrue(NetworkSandbox.availability.isAvailable)
        XCTAssertEqual(NetworkSandbox.availability.description, "NetworkSandbox is available")
        if geteuid() != 0 || NetworkSandbox.runsInUserNamespace {
            XCTAssertTrue(NetworkSandbox.runsInUserNamespace, "not root: only a user namespace makes it available")
        }
    }

    /// The reasons and remedies, from what a probe would see on machines this one is not.
    func testAvailabilityDiagnosisNamesTheCauseAndTheRemedy() {
        func diagnosis(_ context: AvailabilityFacts.Context, _ step: AvailabilityFacts.Step? = nil, _ message: String = "",
                       _ change: (inout AvailabilityFacts) -> Void = { _ in }) -> (reason: String, remedy: String)? {
            var facts = AvailabilityFacts(context: context)
            facts.failure = step.map { ($0, message) }
            change(&facts)
            guard case let .unavailable(reason, remedy) = facts.diagnosis else { return nil }
            return (reason, remedy)
        }
        XCTAssertNil(diagnosis(.root))
        XCTAssertNil(diagnosis(.userNamespace))

        let wrapper = diagnosis(.unprivileged)
        XCTAssertTrue(wrapper?.reason.contains("not root and not inside a user namespace") == true, "\(String(describing: wrapper))")
        XCTAssertTrue(wrapper?.remedy.contains("unshare -Urnm swift test") == true, "\(String(describing: wrapper))")

        let missing = diagnosis(.root) { $0.missingPrograms = [("nginx", "nginx-light"), ("dnsmasq", "dnsmasq-base")] }
        XCTAssertEqual(missing?.reason, "nginx, dnsmasq not installed")
        XCTAssertTrue(missing?.remedy.contains("apt-get install dnsmasq-base nginx-light") == true, "\(String(describing: missing))")

        let appArmor = diagnosis(.unprivileged, .veth, "RTNETLINK answers: Operation not permitted") {
            $0.appArmorRestrictsUserNamespaces = true
        }
        XCTAssertTrue(appArmor?.reason.contains("AppArmor") == true, "\(String(describing: appArmor))")
        XCTAssertTrue(appArmor?.remedy.contains("kernel.apparmor_restrict_unprivileged_userns=0") == true)
        XCTAssertTrue(appArmor?.remedy.contains("AppArmor profile") == true)

        let docker = diagnosis(.root, .namespace, "mount --make-shared /run/netns failed: Operation not permitted") {
            $0.seccompFiltered = true
            $0.inContainer = true
        }
        XCTAssertTrue(docker?.reason.contains("seccomp") == true, "\(String(describing: docker))")
        XCTAssertTrue(docker?.remedy.contains("--security-opt seccomp=unconfined") == true)
        XCTAssertTrue(docker?.remedy.contains("--privileged") == true)

        let switchedOff = diagnosis(.unprivileged, .unshare, "unshare: unshare failed: No space left on device") {
            $0.maxUserNamespaces = 0
        }
        XCTAssertTrue(switchedOff?.reason.contains("user.max_user_namespaces is 0") == true, "\(String(describing: switchedOff))")
        XCTAssertTrue(switchedOff?.remedy.contains("sysctl -w user.max_user_namespaces=") == true)

        let noVeth = diagnosis(.root, .veth, "Error: Unknown device type.")
        XCTAssertTrue(noVeth?.reason.contains("cannot make veth pairs") == true, "\(String(describing: noVeth))")
        XCTAssertTrue(noVeth?.remedy.contains("modprobe veth") == true)

        let noMountNamespace = diagnosis(.userNamespace, .mount, "mount: /run/netns: permission denied.")
        XCTAssertTrue(noMountNamespace?.reason.contains("no mount namespace of its own") == true,
                      "\(String(describing: noMountNamespace))")
        XCTAssertTrue(noMountNamespace?.remedy.contains("unshare -Urnm") == true, "\(String(describing: noMountNamespace))")
    }

    // MARK: The monitor on the sandbox

    /// Both up: the internet goes over wan0, validated through wan0's provider.
    /// Unplugged: the kernel keeps wan0's default route (marked linkdown) and
    /// still chooses it, so the honest answer is "not reachable, connection
    /// required", no failover. Set down: the kernel removes the route, and the
    /// internet goes over wwan0 (WWAN), validated through wwan0's provider.
    /// Back up and plugged in: wan0 again.
    func testUnplugSetDownAndBackAsTheMonitorSeesThem() throws {
        let (sandbox, wan, _) = try makeSandbox()
        XCTAssertEqual(sandbox.kindOverrides, [], "wan0 and wwan0 say their kinds by name")
        let (monitor, log) = try startMonitor(sandbox)
        XCTAssertEqual(log.changes.first?.status, .reachable(.wired), log.summary)
        XCTAssertEqual(log.changes.first?.interface, "wan0", log.summary)
        waitForChange(log, from: 0, "validated through wan0", where: Self.validated(.answered))

        var mark = log.mark
        try wan.unplug()
        waitForChange(log, from: mark, "not reachable: wan0 has no carrier") {
            $0.status == .notReachable && $0.interface == "wan0" && $0.flags.contains(.connectionRequired)
        }

        mark = log.mark
        try wan.setDown()
        waitForChange(log, from: mark, "reachable over wwan0") {
            $0.status == .reachable(.wwan) && $0.interface == "wwan0" && $0.flags.contains(.isWWAN)
        }
        waitForChange(log, from: mark, "validated through wwan0") {
            $0.interface == "wwan0" && $0.evaluation.validation?.verdict == .answered
        }

        mark = log.mark
        try wan.plugIn()   // still down: nothing the monitor reads changes
        try wan.setUp()
        waitForChange(log, from: mark, "reachable over wan0 again") {
            $0.status == .reachable(.wired) && $0.interface == "wan0"
        }
        XCTAssertEqual(monitor.currentEvaluations.first?.primary?.link?.name, "wan0")
    }

    /// A captive portal on the active uplink: validation finds it
    /// (interventionRequired, accessibility captive, the Location); leaving
    /// captivity makes it accessible again.
    func testACaptivePortalOnTheActiveUplink() throws {
        let (sandbox, wan, _) = try makeSandbox()
        // Captivity starts without a netlink event: only the next periodic validation can see it.
        let (_, log) = try startMonitor(sandbox, validationInterval: .milliseconds(200))
        waitForChange(log, from: 0, "validated through wan0", where: Self.validated(.answered))

        var mark = log.mark
        try wan.becomeCaptive(location: portal)
        XCTAssertEqual(wan.captiveLocation, portal)
        let portal = self.portal
        waitForChange(log, from: mark, "captive") {
            $0.evaluation.accessibility == .captive && $0.flags.contains(.interventionRequired)
                && $0.evaluation.validation?.location == portal && $0.status == .reachable(.wired)
        }

        mark = log.mark
        try wan.leaveCaptivity()
        waitForChange(log, from: mark, "accessible again") {
            $0.evaluation.accessibility == .accessible && $0.evaluation.validation?.verdict == .answered
        }
    }

    /// The uplink that carries the probe decides the answer: a captive backup
    /// does not matter until traffic fails over to it. The scoped fault
    /// reverts itself.
    func testTheUplinkThatCarriesTheProbeDecides() throws {
        let (sandbox, wan, _) = try makeSandbox()
        // Periodic validation: the monitor validates a target that moved from
        // one reachable interface to another only when the previous interface's
        // validation interval ends (ReachabilityCore, MonitorLoop
        // scheduleValidations: the pending periodic deadline holds back the
        // new interface's first probe).
        let (_, log) = try startMonitor(sandbox, validationInterval: .milliseconds(200))
        let portal = self.portal
        try sandbox.with(.captive(location: portal), on: "wwan0") {
            waitForChange(log, from: 0, "validated through wan0", where: Self.validated(.answered))
            let mark = log.mark
            try wan.setDown()
            waitForChange(log, from: mark, "captive over wwan0") {
                $0.interface == "wwan0" && $0.flags.contains(.isWWAN) && $0.evaluation.accessibility == .captive
                    && $0.evaluation.validation?.location == portal
            }
            let back = log.mark
            try wan.setUp()
            waitForChange(log, from: back, "accessible over wan0") {
                $0.interface == "wan0" && $0.evaluation.validation?.verdict == .answered
            }
        }
        // Reverted: wwan0's endpoint answers 204 again, so failing over validates as answered.
        let mark = log.mark
        try wan.setDown()
        waitForChange(log, from: mark, "validated through wwan0") {
            $0.interface == "wwan0" && $0.evaluation.validation?.verdict == .answered
        }
    }

    /// The async twin of the scoped fault: applied for the body, reverted after.
    func testAnAsyncScopedFaultRevertsItself() async throws {
        let (sandbox, _, _) = try makeSandbox()
        let unplugged = try await sandbox.with(.signalLost, on: "wwan0") {
            await Task.yield()
            return try sandbox.ip("-o link show dev wwan0")
        }
        XCTAssertTrue(unplugged.contains("NO-CARRIER"), unplugged)
        XCTAssertTrue(try sandbox.ip("-o link show dev wwan0").contains("state UP"))
    }

    // MARK: Verbs and teardown

    func testAScopedFaultRevertsItselfWhenTheBodyThrows() throws {
        let (sandbox, _, _) = try makeSandbox()
        struct Expected: Error {}
        XCTAssertThrowsError(try sandbox.with(.down, on: "wwan0") {
            XCTAssertFalse(try sandbox.ip("route show default").contains("wwan0"), "down: the kernel removed its route")
            XCTAssertFalse(try sandbox.ip("-o link show dev wwan0").contains(",UP"))
            throw Expected()
        }) { XCTAssertTrue($0 is Expected, "\($0)") }
        XCTAssertTrue(try sandbox.ip("-o link show dev wwan0").contains("state UP"))
        XCTAssertTrue(try sandbox.ip("route show default").contains("via 10.200.1.1 dev wwan0 metric 200"),
                      (try? sandbox.routes.show()) ?? "")
        XCTAssertThrowsError(try sandbox.with(.unplugged, on: "eth9") {}) { XCTAssertTrue($0 is SandboxError) }
    }

    func testRoutesRulesAndKinds() throws {
        let (sandbox, wan, lte) = try makeSandbox()
        let wifi = try sandbox.uplink("wlan0", .wifi)
        XCTAssertEqual(sandbox.kindOverrides.map(\.description), ["wlan0=wifi"], "a veth has no 802.11 facts")
        XCTAssertEqual(sandbox.uplinks.map(\.name), ["wan0", "wwan0", "wlan0"])
        XCTAssertEqual(wifi.gateway, IPAddress("10.200.2.1"))

        try sandbox.routes.setDefault(via: wifi)
        let evaluator = try ReachabilityEvaluator(namespace: sandbox.namespace, kindOverrides: sandbox.kindOverrides)
        XCTAssertEqual(try evaluator.evaluate(sandbox.endpoint).status, .reachable(.wifi), (try? sandbox.routes.show()) ?? "")

        try sandbox.routes.setDefault(via: lte)
        XCTAssertEqual(try evaluator.evaluate(sandbox.endpoint).status, .reachable(.wwan), (try? sandbox.routes.show()) ?? "")

        // Policy: this process's uid may not use the internet.
        try sandbox.addRule("uidrange \(getuid())-\(getuid()) prohibit")
        let refused = try evaluator.evaluate(sandbox.endpoint)
        XCTAssertEqual(refused.status, .notReachable)
        XCTAssertEqual(refused.route.verdict, .prohibit)
        try sandbox.deleteRule("uidrange \(getuid())-\(getuid()) prohibit")
        XCTAssertEqual(try evaluator.evaluate(sandbox.endpoint).status, .reachable(.wwan))

        try sandbox.routes.addDefault(via: wan, metric: 50)
        XCTAssertEqual(try evaluator.evaluate(sandbox.endpoint).link?.name, "wan0")
        XCTAssertThrowsError(try sandbox.uplink("wan0", .wired)) { XCTAssertTrue("\($0)".contains("exists already"), "\($0)") }
        XCTAssertThrowsError(try sandbox.uplink("bad name", .wired))
    }

    func testCloseRemovesNamespacesAndServersAndIsIdempotent() throws {
        let (sandbox, wan, _) = try makeSandbox()
        guard case let .named(device) = sandbox.namespace, case let .named(provider) = wan.providerNamespace else {
            return XCTFail("named namespaces expected")
        }
        let ip = try XCTUnwrap(ipExecutable)
        XCTAssertTrue(try runCommand(ip, ["netns", "list"]).stdout.contains(provider))
        let servers = sandbox.uplinks.flatMap { $0.servers.map(\.pid) }
        XCTAssertTrue(servers.allSatisfy { !processIsGone($0) })
        sandbox.close()
        sandbox.close()
        let left = try runCommand(ip, ["netns", "list"]).stdout
        XCTAssertFalse(left.contains(device), left)
        XCTAssertFalse(left.contains(provider), left)
        XCTAssertTrue(servers.allSatisfy(processIsGone), "servers still running: \(servers)")
        XCTAssertThrowsError(try wan.unplug()) { XCTAssertTrue("\($0)".contains("closed"), "\($0)") }
    }
}
