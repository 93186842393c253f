// An uplink tracker's verdict against real servers and a real kernel: nginx
// and dnsmasq in the responder namespace of `makeUplink`, nftables for the
// faults, the kernel's neighbour table for the next hop. The whole table of
// faults runs as shell scenarios (make test-uplinks, and in the kernel lane
// with netem); these tests hold the library's side of each signal.

import Foundation
import LinuxReachability
import ReachabilityTestSupport
import ReachabilityTesting
import Synchronization
import XCTest

final class DirtyUplinkTests: NamespaceTestCase {
    private let responder = IPAddress("10.9.0.2")!

    /// Verdict changes as a tracker's observer sees them.
    private final class Verdicts: Sendable {
        let events = Mutex<[TrackerEvent]>([])
        var all: [TrackerEvent] { events.withLock { $0 } }

        /// The first event with `verdict`, waited for until `timeout`.
        func wait(for verdict: UplinkVerdict, timeout: TimeInterval = 10) -> TrackerEvent? {
            let deadline = Date().addingTimeInterval(timeout)
            repeat {
                if let event = all.first(where: { $0.verdict == verdict }) { return event }
                usleep(2000)
            } while Date() < deadline
            return nil
        }
    }

    /// A tracker of wan0 probing the responder every 0.2 s, checks every 0.2 s.
    private func track(_ uplink: Uplink, checks: UplinkChecks, down: Int = 3) throws -> (UplinkTracker, Verdicts) {
        var checks = checks
        checks.interval = .milliseconds(200)
        let configuration = UplinkTracker.Configuration(
            interface: "wan0", hosts: [responder], timeout: .milliseconds(500), interval: .milliseconds(200),
            down: down, up: 1, checks: checks)
        let tracker = try UplinkTracker(configuration: configuration, namespace: .named(uplink.client.name))
        let verdicts = Verdicts()
        tracker.onEvent { event in verdicts.events.withLock { $0.append(event) } }
        try tracker.start()
        addTeardownBlock { tracker.stop() }
        return (tracker, verdicts)
    }

    /// Every check passing gives healthy, and nothing changes for ten rounds
    /// of checks; then each server-side fault gives its verdict, and its
    /// removal gives healthy back.
    func testEachCheckGivesItsVerdictAndHealthyWhenItPasses() throws {
        let uplink = try makeUplink()
        _ = try startNginx(in: uplink.responder, addresses: ["10.9.0.2"])
        _ = try startDnsmasq(in: uplink.responder, address: "10.9.0.2", records: ["check.test": "10.9.0.2"],
                             readyFrom: uplink.client)
        let clean = UplinkChecks(host: responder, ports: [80], otherFamilyHost: IPAddress("fd09::2")!,
                                 dnsServer: responder, dnsName: "check.test")
        let (tracker, verdicts) = try track(uplink, checks: clean)
        let rounds = Mutex(0)
        tracker.onRound { _ in rounds.withLock { $0 += 1 } }
        XCTAssertTrue(eventually(timeout: 10) { rounds.withLock { $0 } >= 10 })
        XCTAssertEqual(verdicts.all.map(\.verdict), [.healthy], "clean: no change at all: \(verdicts.all.map { $0.detail ?? "-" })")

        // TCP 443 refused (nothing listens), 80 fine: partial.
        var checks = clean
        checks.ports = [80, 443]
        var (_, seen) = try track(uplink, checks: checks)
        var event = try XCTUnwrap(seen.wait(for: .partial), "\(seen.all.map(\.verdict))")
        XCTAssertEqual(event.detail, "port 443 refused")
        XCTAssertTrue(event.verdict.isUsable)

        // The captive portal's redirect, and its page.
        for (path, detail) in [("/redirect", "HTTP 302 → http://portal.invalid/login"), ("/page", "HTTP 200 with a page")] {
            checks = clean
            checks.url = HTTPProbeURL(host: nil, port: 80, path: path)
            (_, seen) = try track(uplink, checks: checks)
            event = try XCTUnwrap(seen.wait(for: .captive), "\(path): \(seen.all.map(\.verdict))")
            XCTAssertEqual(event.detail, detail)
            XCTAssertFalse(event.verdict.isUsable)
        }

        // A name the resolver does not have: DNS failing.
        checks = clean
        checks.dnsName = "missing.test"
        (_, seen) = try track(uplink, checks: checks)
        event = try XCTUnwrap(seen.wait(for: .dnsFailing), "\(seen.all.map(\.verdict))")
        XCTAssertTrue(event.detail?.hasPrefix("DNS 10.9.0.2 missing.test: no-address") == true, "\(event.detail ?? "-")")

        // IPv6 black-holed in the responder, IPv4 fine: partial.
        uplink.responder.run("-6 route add blackhole fd09::1/128")
        (_, seen) = try track(uplink, checks: clean)
        event = try XCTUnwrap(seen.wait(for: .partial), "\(seen.all.map(\.verdict))")
        XCTAssertTrue(event.detail?.hasPrefix("IPv6 fd09::2") == true, "\(event.detail ?? "-")")
        uplink.responder.run("-6 route del blackhole fd09::1/128")
        XCTAssertNotNil(seen.wait(for: .healthy, timeout: 10), "back: \(seen.all.map(\.verdict))")
    }

    /// A resolver that answers every name with one address answers the
    /// `.invalid` name too: hijacked (dnsmasq's `address=/#/`).
    func testAResolverAnsweringEveryNameIsHijacked() throws {
        let uplink = try makeUplink()
        _ = try startDnsmasq(in: uplink.responder, address: "10.9.0.2", records: ["#": "10.9.0.99"],
                             readyFrom: uplink.client)
        let (_, seen) = try track(uplink, checks: UplinkChecks(dnsServer: responder, dnsName: "check.example"))
        let event = try XCTUnwrap(seen.wait(for: .dnsHijacked), "\(seen.all.map(\.verdict))")
        XCTAssertTrue(event.detail?.contains(".invalid with 10.9.0.99") == true, "\(event.detail ?? "-")")
    }

    /// Packets over 1,280 bytes dropped in the responder, no ICMP sent back:
    /// the 1,400-byte DF echo is lost while the small one answers.
    func testBigPacketsDroppedWithoutICMPIsAPathMTUBlackHole() throws {
        let uplink = try makeUplink()
        _ = try startNginx(in: uplink.responder, addresses: ["10.9.0.2"])
        try nftables(uplink.responder, "add table ip reach_pmtu",
                     "add chain ip reach_pmtu in { type filter hook input priority 0; }",
                     "add rule ip reach_pmtu in ip length > 1280 drop")
        let (_, seen) = try track(uplink, checks: UplinkChecks(host: responder, ports: [80]))
        let event = try XCTUnwrap(seen.wait(for: .pathMTUBlackHole), "\(seen.all.map(\.verdict))")
        XCTAssertEqual(event.detail, "1400-byte probe lost, icmpRaw echo answered, no fragmentation needed")
        try nftables(uplink.responder, "delete table ip reach_pmtu")
        XCTAssertNotNil(seen.wait(for: .healthy), "\(seen.all.map(\.verdict))")
    }

    /// The next hop stops answering ARP while the carrier stays up: the
    /// kernel marks its neighbour entry NUD_FAILED, and the tracker is down
    /// from that message, long before `down` (100) failed rounds.
    func testTheNextHopsFailedNeighbourEntryTakesTheUplinkDown() throws {
        let uplink = try makeUplink()
        // A dynamic entry that the kernel gives up on quickly.
        uplink.client.run("neigh del 10.9.0.2 dev wan0")
        for (key, value) in [("base_reachable_time_ms", "200"), ("delay_first_probe_time", "1"),
                             ("retrans_time_ms", "100"), ("ucast_solicit", "1"), ("mcast_solicit", "1")] {
            try uplink.client.setSysctl("net.ipv4.neigh.wan0.\(key)", value)
        }
        let (_, seen) = try track(uplink, checks: UplinkChecks(), down: 100)
        XCTAssertTrue(eventually(timeout: 5) {
            uplink.client.run(["neigh", "show", "10.9.0.2", "dev", "wan0"]).stdout.contains("REACHABLE")
        }, "the tracker's probes resolve the next hop")
        try nftables(uplink.responder, "add table arp reach_arp",
                     "add chain arp reach_arp in { type filter hook input priority 0; }",
                     "add rule arp reach_arp in drop")
        let event = try XCTUnwrap(seen.wait(for: .down, timeout: 15), "\(seen.all.map { "\($0.verdict) \($0.detail ?? "")" })")
        XCTAssertEqual(event.detail, "next hop's neighbour entry failed")
        XCTAssertEqual(event.state, .offline)
        XCTAssertLessThan(event.round, 100, "not the rounds")
        try nftables(uplink.responder, "delete table arp reach_arp")
        XCTAssertNotNil(seen.wait(for: .healthy, timeout: 15), "\(seen.all.map(\.verdict))")
    }

    /// nft commands in a test namespace, or a skip (a failure under REACH_REQUIRE_NETNS=1) without nft.
    private func nftables(_ namespace: TestNamespace, _ commands: String...) throws {
        guard let nft = ["/usr/sbin/nft", "/sbin/nft"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            try skipOrFail("nft is not installed (apt-get install nftables)", requiredBy: requireNetnsVariable)
        }
        for command in commands {
            let result = try runCommand(URL(fileURLWithPath: "/usr/bin/env"), ["ip", "netns", "exec", namespace.name, nft, command])
            XCTAssertEqual(result.status, 0, "nft \(command): \(result.stderr)")
        }
    }
}
