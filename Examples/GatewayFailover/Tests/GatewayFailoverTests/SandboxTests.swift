// Tier 2: the same situations on the real kernel, in a NetworkSandbox (as
// root, or as a normal user inside `unshare -Urnm`). Every wait is for the
// gateway's own decision (its callback signals), bounded by a timeout; none
// is a sleep. Skipped, with NetworkSandbox's reason and remedy, where no
// sandbox can be built; REACH_REQUIRE_NETNS=1 makes that a failure.

import Foundation
import GatewayFailover
import ReachabilityTesting
import XCTest

final class SandboxTests: XCTestCase {
    override func setUpWithError() throws {
        let availability = NetworkSandbox.availability
        guard !availability.isAvailable else { return }
        if ProcessInfo.processInfo.environment["REACH_REQUIRE_NETNS"] == "1" {
            XCTFail(availability.description)
        }
        throw XCTSkip(availability.description)
    }

    /// A sandbox with these uplinks and a started gateway over them; both go at the test's end.
    private func start(_ uplinks: [(String, InterfaceKind)], priority: [String]? = nil,
                       before prepare: (NetworkSandbox) throws -> Void = { _ in })
        throws -> (NetworkSandbox, GatewayFailover, Decisions) {
        let sandbox = try NetworkSandbox()
        addTeardownBlock { sandbox.close() }
        for (name, kind) in uplinks { try sandbox.uplink(name, kind) }
        try prepare(sandbox)
        let gateway = try GatewayFailover(uplinks: priority ?? uplinks.map(\.0), namespace: sandbox.namespace,
                                          validation: sandbox.validation, kindOverrides: sandbox.kindOverrides)
        let decisions = Decisions(gateway)
        try gateway.start()
        addTeardownBlock { gateway.stop() }
        return (sandbox, gateway, decisions)
    }

    func testBothUplinksUpPrefersTheWiredOne() throws {
        let (_, _, decisions) = try start([("wan0", .wired), ("wwan0", .wwan)])
        try decisions.wait { $0.activeUplink == "wan0" && !$0.syncPaused }
    }

    func testTheCableOutFailsOverToLTEAndBack() throws {
        let (sandbox, _, decisions) = try start([("wan0", .wired), ("wwan0", .wwan)])
        try decisions.wait { $0.activeUplink == "wan0" }
        try sandbox.uplink(named: "wan0")!.unplug()
        try decisions.wait { $0.activeUplink == "wwan0" }
        try sandbox.uplink(named: "wan0")!.plugIn()
        try decisions.wait { $0.activeUplink == "wan0" }
    }

    func testLosingBothPausesTheSync() throws {
        let (sandbox, _, decisions) = try start([("wan0", .wired), ("wwan0", .wwan)])
        try decisions.wait { $0.activeUplink == "wan0" }
        try sandbox.uplink(named: "wan0")!.unplug()
        try sandbox.uplink(named: "wwan0")!.signalLost()
        try decisions.wait { $0 == .init(activeUplink: nil, syncPaused: true, reason: "no uplink reaches the internet") }
    }

    func testACaptivePortalPausesTheSync() throws {
        // The Wi-Fi the gateway joins is behind a portal: its first validation sees the redirect.
        let (_, _, decisions) = try start([("wlan0", .wifi)]) { try $0.uplink(named: "wlan0")!.becomeCaptive() }
        try decisions.wait { $0 == .init(activeUplink: nil, syncPaused: true, reason: "captive portal on wlan0") }
    }

    func testMobileDataRefusedPausesTheSync() throws {
        ReachabilityPolicy.updateProcessDefault { $0.allowsWWAN = false }
        addTeardownBlock { ReachabilityPolicy.updateProcessDefault { $0.allowsWWAN = true } }
        let (sandbox, _, decisions) = try start([("wan0", .wired), ("wwan0", .wwan)])
        try decisions.wait { $0.activeUplink == "wan0" }
        try sandbox.uplink(named: "wan0")!.setDown()
        try decisions.wait { $0 == .init(activeUplink: nil, syncPaused: true, reason: "mobile data refused on wwan0") }
    }

    func testAnLTEOutageInsideAScopeLeavesWanActive() throws {
        let (sandbox, _, decisions) = try start([("wan0", .wired), ("wwan0", .wwan)], priority: ["wwan0", "wan0"])
        try decisions.wait { $0.activeUplink == "wwan0" }
        try sandbox.with(.down, on: "wwan0") {
            try decisions.wait { $0.activeUplink == "wan0" }
        }
        try decisions.wait { $0.activeUplink == "wwan0" }
    }
}

/// The gateway's decisions as they come, and a wait for one.
final class Decisions: @unchecked Sendable {
    private let gateway: GatewayFailover
    private let condition = NSCondition()
    private var seen: [GatewayFailover.Decision] = []

    init(_ gateway: GatewayFailover) {
        self.gateway = gateway
        gateway.onDecision { [weak self] decision in
            guard let self else { return }
            self.condition.lock()
            self.seen.append(decision)
            self.condition.broadcast()
            self.condition.unlock()
        }
    }

    /// Returns once the gateway's decision satisfies `predicate`; fails after `timeout` of wall time.
    func wait(timeout: TimeInterval = 15, file: StaticString = #filePath, line: UInt = #line,
              _ predicate: (GatewayFailover.Decision) -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while !predicate(gateway.decision) {
            guard condition.wait(until: deadline) else {
                XCTFail("no such decision within \(timeout) s; now \(gateway.decision), seen \(seen)", file: file, line: line)
                throw XCTSkip("timed out")
            }
        }
    }
}
