// The uplink's verdict in the exporter: reach_uplink_verdict (one-hot, like
// reach_uplink_state), reach_uplink_failovers_total, the quality window's
// reach_uplink_loss_ratio and reach_uplink_latency_seconds, the status
// page's verdict and detail, and the YAML keys that configure them
// (profile, mwan3's quality thresholds, flap_limit, checks).

@testable import ReachExporterKit
@testable import ReachabilityCore
import XCTest

final class UplinkVerdictSeriesTests: XCTestCase {
    /// The series lines (no comments) of `family` in an exposition.
    func lines(_ family: String, in text: Substring) -> [Substring] {
        text.split(separator: "\n").filter { $0.hasPrefix(family + "{") || $0.hasPrefix(family + " ") }
    }

    func scrape(_ metrics: ExporterMetrics) -> Substring {
        Substring(exposition(metrics))
    }

    func testTheFamiliesAreDeclaredAsTheOthersAre() {
        let text = scrape(ExporterMetrics(targets: [.internet], uplinks: ["wan0"], version: "test"))
        for (family, kind) in [("reach_uplink_verdict", "gauge"), ("reach_uplink_failovers_total", "counter"),
                               ("reach_uplink_loss_ratio", "gauge"), ("reach_uplink_latency_seconds", "gauge")] {
            XCTAssertTrue(text.contains("\n# TYPE \(family) \(kind)\n"), "\(family) \(kind): \(text)")
            XCTAssertTrue(text.contains("\n# HELP \(family) "), family)
        }
    }

    /// Before the tracker's initial event: every verdict at 0 (as every
    /// state), no failover, loss and latency NaN.
    func testBeforeTheInitialEventNothingIsKnown() {
        let text = scrape(ExporterMetrics(targets: [.internet], uplinks: ["wan0"], version: "test"))
        let verdicts = lines("reach_uplink_verdict", in: text)
        XCTAssertEqual(verdicts.count, UplinkVerdict.allCases.count)
        XCTAssertTrue(verdicts.allSatisfy { $0.hasSuffix(" 0.0") }, "\(verdicts)")
        XCTAssertEqual(lines("reach_uplink_failovers_total", in: text), ["reach_uplink_failovers_total{interface=\"wan0\"} 0"])
        XCTAssertEqual(lines("reach_uplink_loss_ratio", in: text), ["reach_uplink_loss_ratio{interface=\"wan0\"} nan"])
        XCTAssertEqual(lines("reach_uplink_latency_seconds", in: text), ["reach_uplink_latency_seconds{interface=\"wan0\"} nan"])
    }

    /// Every verdict a TrackerEvent can carry renders as exactly that
    /// verdict at 1 and every other at 0, with every verdict listed, and the
    /// failovers it counts.
    func testEveryVerdictIsOneHot() {
        let metrics = ExporterMetrics(targets: [.internet], uplinks: ["wan0"], version: "test")
        metrics.record(state: trackerEvent(.online, previous: nil, verdict: .healthy))
        var previous = UplinkVerdict.healthy
        for (index, verdict) in UplinkVerdict.allCases.enumerated() {
            let state: UplinkState = verdict == .down ? .offline : .online
            metrics.record(state: trackerEvent(state, previous: .online, verdict: verdict, previousVerdict: previous,
                                               detail: verdict == .healthy ? nil : "why \(verdict)", failovers: index))
            previous = verdict
            let text = scrape(metrics)
            let expected = UplinkVerdict.allCases.map {
                Substring("reach_uplink_verdict{interface=\"wan0\",verdict=\"\($0.rawValue)\"} \($0 == verdict ? "1.0" : "0.0")")
            }
            XCTAssertEqual(lines("reach_uplink_verdict", in: text), expected, "\(verdict)")
            XCTAssertEqual(lines("reach_uplink_failovers_total", in: text), ["reach_uplink_failovers_total{interface=\"wan0\"} \(index)"])
            XCTAssertEqual(lines("reach_uplink_state", in: text).filter { $0.hasSuffix(" 1.0") },
                           ["reach_uplink_state{interface=\"wan0\",state=\"\(state.rawValue)\"} 1.0"])
            let row = metrics.statusSnapshot().uplinks[0]
            XCTAssertEqual(row.verdict, verdict.rawValue)
            XCTAssertEqual(row.detail, verdict == .healthy ? nil : "why \(verdict)")
        }
        XCTAssertEqual(UplinkVerdict.allCases.map(\.rawValue),
                       ["healthy", "degraded", "partial", "pmtu-black-hole", "dns-failing", "dns-hijacked", "captive",
                        "unusable", "flapping", "down"], "the label values the dashboard and the docs name")
    }

    /// Loss and latency follow every round: loss over the probes in the
    /// window so far, a median once enough answered; NaN without a window
    /// (no thresholds, or a fresh one after an outage); failovers never go back.
    func testLossAndLatencyFollowEveryRound() {
        let metrics = ExporterMetrics(targets: [.internet], uplinks: ["wan0"], version: "test")
        metrics.record(state: trackerEvent(.online, previous: nil, verdict: .healthy))
        metrics.record(round: trackerEvent(.online, previous: .online, verdict: .degraded, failovers: 2, loss: 4,
                                           latency: .milliseconds(30)))
        var text = scrape(metrics)
        XCTAssertEqual(lines("reach_uplink_loss_ratio", in: text), ["reach_uplink_loss_ratio{interface=\"wan0\"} 0.04"])
        XCTAssertEqual(lines("reach_uplink_latency_seconds", in: text), ["reach_uplink_latency_seconds{interface=\"wan0\"} 0.03"])
        XCTAssertEqual(lines("reach_uplink_failovers_total", in: text), ["reach_uplink_failovers_total{interface=\"wan0\"} 2"])
        XCTAssertEqual(lines("reach_uplink_verdict", in: text).filter { $0.hasSuffix(" 1.0") },
                       ["reach_uplink_verdict{interface=\"wan0\",verdict=\"healthy\"} 1.0"],
                       "the verdict is the events' (record(state:)), as the state is")

        // A window with a median and no loss read yet (not full): the loss over the probes so far.
        metrics.record(round: trackerEvent(.online, previous: .online, verdict: .healthy, failovers: 1, latency: .microseconds(1500)))
        text = scrape(metrics)
        XCTAssertEqual(lines("reach_uplink_loss_ratio", in: text), ["reach_uplink_loss_ratio{interface=\"wan0\"} 0.0"])
        XCTAssertEqual(lines("reach_uplink_latency_seconds", in: text), ["reach_uplink_latency_seconds{interface=\"wan0\"} 0.0015"])
        XCTAssertEqual(lines("reach_uplink_failovers_total", in: text), ["reach_uplink_failovers_total{interface=\"wan0\"} 2"],
                       "a counter does not go back")

        // All lost: loss 1, no median.
        metrics.record(round: trackerEvent(.offline, previous: .offline, verdict: .down, failovers: 3, loss: 100))
        text = scrape(metrics)
        XCTAssertEqual(lines("reach_uplink_loss_ratio", in: text), ["reach_uplink_loss_ratio{interface=\"wan0\"} 1.0"])
        XCTAssertEqual(lines("reach_uplink_latency_seconds", in: text), ["reach_uplink_latency_seconds{interface=\"wan0\"} nan"])
        XCTAssertEqual(lines("reach_uplink_failovers_total", in: text), ["reach_uplink_failovers_total{interface=\"wan0\"} 3"])

        // No quality thresholds: no window at all.
        metrics.record(round: trackerEvent(.online, previous: .online, verdict: .healthy, failovers: 3))
        text = scrape(metrics)
        XCTAssertEqual(lines("reach_uplink_loss_ratio", in: text), ["reach_uplink_loss_ratio{interface=\"wan0\"} nan"])
    }

    /// Pushed series carry the same values (remote write reads the snapshot's families).
    func testTheSnapshotHoldsTheNewFamilies() {
        let metrics = ExporterMetrics(targets: [.internet], uplinks: ["wan0", "wwan0"], version: "test")
        metrics.record(state: trackerEvent(.online, previous: nil, verdict: .captive, interface: "wwan0", detail: "HTTP 302"))
        let text = scrape(metrics)
        XCTAssertTrue(lines("reach_uplink_verdict", in: text).contains("reach_uplink_verdict{interface=\"wwan0\",verdict=\"captive\"} 1.0"))
        XCTAssertEqual(lines("reach_uplink_verdict", in: text).count { $0.hasSuffix(" 1.0") }, 1, "wan0 has no verdict yet")
        XCTAssertEqual(lines("reach_uplink_failovers_total", in: text).count, 2)
    }
}

final class UplinkVerdictPageTests: XCTestCase {
    func page(_ metrics: ExporterMetrics) -> String {
        var configuration = ExporterConfiguration()
        configuration.targets = [.internet]
        configuration.uplinks = [UplinkTracker.Configuration(interface: "wan0", hosts: [IPAddress("10.9.0.2")!])]
        return StatusPage(version: "1", configuration: configuration, snapshot: metrics.statusSnapshot(), remotes: [],
                          ready: true, now: WallClock.unixSeconds(), hostName: "gw").render()
    }

    /// Each uplink's verdict beside its state, its detail escaped, its colour.
    func testTheVerdictAndItsDetailAreShownBesideTheState() {
        let metrics = ExporterMetrics(targets: [.internet], uplinks: ["wan0"], version: "1")
        var html = page(metrics)
        XCTAssertTrue(html.contains("<th>State</th><th>Verdict</th>"), html)
        XCTAssertTrue(html.contains("data-uplink=\"wan0\" data-state=\"unknown\" data-score=\"\" data-verdict=\"unknown\">"), html)

        metrics.record(state: trackerEvent(.online, previous: nil, verdict: .healthy))
        metrics.record(round: trackerEvent(.online, previous: .online, verdict: .healthy, loss: 4, latency: .milliseconds(30)))
        html = page(metrics)
        XCTAssertTrue(html.contains("data-score=\"5\" data-verdict=\"healthy\">"), html)
        XCTAssertTrue(html.contains("<span class=\"badge ok\">healthy</span>"), html)
        XCTAssertTrue(html.contains("median 30.00 ms, loss 4 %"), html)

        metrics.record(state: trackerEvent(.online, previous: .online, verdict: .partial, previousVerdict: .healthy,
                                           detail: "port 443 <refused>", failovers: 0))
        html = page(metrics)
        XCTAssertTrue(html.contains("data-verdict=\"partial\" data-detail=\"port 443 &lt;refused&gt;\">"), html)
        XCTAssertTrue(html.contains("<span class=\"badge warn\">partial</span><br><small>port 443 &lt;refused&gt;</small>"), html)
        XCTAssertFalse(html.contains("<refused>"))

        metrics.record(state: trackerEvent(.offline, previous: .online, verdict: .down, previousVerdict: .partial,
                                           detail: "carrier lost", failovers: 1))
        html = page(metrics)
        XCTAssertTrue(html.contains("<span class=\"badge bad\">down</span><br><small>carrier lost</small><br><small>1 failover</small>"), html)
    }

    /// A change of the verdict alone says "verdict healthy → dns-hijacked",
    /// not "online → online"; a change of the state names the verdict too.
    func testAVerdictChangeIsALastChange() throws {
        let metrics = ExporterMetrics(targets: [.internet], uplinks: ["wan0"], version: "1")
        metrics.record(state: trackerEvent(.online, previous: nil, verdict: .healthy))
        metrics.record(state: trackerEvent(.online, previous: .online, verdict: .dnsHijacked, previousVerdict: .healthy,
                                           detail: "DNS 10.0.0.1 answered x.invalid"))
        var change = try XCTUnwrap(metrics.statusSnapshot().changes.newestFirst.first)
        XCTAssertTrue(change.isVerdict)
        XCTAssertEqual([change.from, change.to], ["healthy", "dns-hijacked"])
        XCTAssertEqual(change.detail, "online, score 5 · DNS 10.0.0.1 answered x.invalid")
        let html = page(metrics)
        XCTAssertTrue(html.contains("verdict <span class=\"badge ok\">healthy</span> → <span class=\"badge bad\">dns-hijacked</span>"), html)
        XCTAssertFalse(html.contains("data-from=\"online\" data-to=\"online\""), html)

        metrics.record(state: trackerEvent(.offline, previous: .online, verdict: .down, previousVerdict: .dnsHijacked, detail: "no answer"))
        change = try XCTUnwrap(metrics.statusSnapshot().changes.newestFirst.first)
        XCTAssertFalse(change.isVerdict)
        XCTAssertEqual([change.from, change.to], ["online", "offline"])
        XCTAssertEqual(change.detail, "score 0 · verdict down · no answer")
    }

    func testVerdictTones() {
        XCTAssertEqual(UplinkVerdict.allCases.map { StatusPage.tone(verdict: $0.rawValue) },
                       ["ok", "warn", "warn", "bad", "bad", "bad", "bad", "bad", "bad", "bad"])
        XCTAssertEqual(StatusPage.tone(verdict: "unknown"), "unknown")
    }
}

/// An uplink's YAML keys for the verdict: profile, mwan3's quality
/// thresholds, flap_limit and checks; every bad value a ConfigurationError
/// with the file, the line and the key's path.
final class UplinkConfigurationTests: XCTestCase {
    func uplink(_ keys: String) throws -> UplinkTracker.Configuration {
        let configuration = try ExporterConfiguration.parse(yaml: "uplinks:\n  - interface: wan0\n    hosts: [192.0.2.1]\n" + keys,
                                                            source: "test.yml")
        return try XCTUnwrap(configuration.uplinks.first)
    }

    func testProfiles() throws {
        let hosts = [IPAddress("192.0.2.1")!]
        XCTAssertEqual(try uplink(""), UplinkTracker.Configuration(interface: "wan0", hosts: hosts))
        XCTAssertEqual(try uplink("    profile: standard\n"), UplinkTracker.Configuration(interface: "wan0", hosts: hosts))
        XCTAssertEqual(try uplink("    profile: fast\n"), .fast(interface: "wan0", hosts: hosts))
        XCTAssertEqual(try uplink("    profile: mwan3\n"), .mwan3(interface: "wan0", hosts: hosts))
        // The profile first, the keys over it, whatever their order.
        let mwan3 = try uplink("    interval: 20s\n    profile: mwan3\n    down: 2\n")
        XCTAssertEqual(mwan3.interval, .seconds(20))
        XCTAssertEqual(mwan3.down, 2)
        XCTAssertEqual(mwan3.up, 5)
        XCTAssertEqual(mwan3.quality, .mwan3)
        XCTAssertEqual(mwan3.flapLimit, 0)
        XCTAssertFalse(mwan3.followsKernel)
        // standard is the init's defaults, whatever they are; the keys go over it.
        let standard = try uplink("    profile: standard\n    failure_interval: 2s\n")
        XCTAssertEqual(standard.failureInterval, .seconds(2))
        XCTAssertEqual(standard.interval, UplinkTracker.Configuration(interface: "wan0", hosts: hosts).interval)
        XCTAssertEqual(standard.quality, UplinkQuality())
        XCTAssertNil(standard.checks)
    }

    func testQualityThresholdsInMwan3sNames() throws {
        let given = try uplink("    failure_latency: 1000\n    failure_loss: 40\n    recovery_latency: 400\n    recovery_loss: 5\n    flap_limit: 0\n")
        let quality = try XCTUnwrap(given.quality)
        XCTAssertEqual(quality.failureLatency, .milliseconds(1000))
        XCTAssertEqual(quality.failureLoss, 40)
        XCTAssertEqual(quality.recoveryLatency, .milliseconds(400))
        XCTAssertEqual(quality.recoveryLoss, 5)
        XCTAssertEqual(quality.degradedLatency, UplinkQuality().degradedLatency, "no mwan3 option: the default")
        XCTAssertEqual(quality.window, 50)
        XCTAssertEqual(given.flapLimit, 0)
        // Failure thresholds under the defaults' recovery and degraded ones lower those, rather than refuse.
        let strict = try XCTUnwrap(try uplink("    failure_latency: 200\n    failure_loss: 5\n").quality)
        XCTAssertEqual([strict.recoveryLatency, strict.degradedLatency], [.milliseconds(200), .milliseconds(200)])
        XCTAssertEqual([strict.recoveryLoss, strict.degradedLoss], [5, 2])
        // Over the mwan3 profile's.
        let mwan3 = try XCTUnwrap(try uplink("    profile: mwan3\n    failure_loss: 30\n").quality)
        XCTAssertEqual(mwan3.failureLatency, .milliseconds(1000))
        XCTAssertEqual(mwan3.failureLoss, 30)
        XCTAssertEqual(try uplink("    flap_limit: 5\n").flapLimit, 5)
    }

    func testChecks() throws {
        let given = try uplink("""
                checks:
                  host: 192.0.2.80
                  url: http://192.0.2.80:8080/generate_204
                  ports: [443, 8443]
                  other_family_host: "2001:db8::80"
                  pmtu_size: 1280
                  dns_name: example.com
                  dns_server: 192.0.2.53
                  dns_hijack: false
                  interval: 300

            """)
        let checks = try XCTUnwrap(given.checks)
        XCTAssertEqual(checks.host, IPAddress("192.0.2.80"))
        XCTAssertEqual(checks.url.port, 8080)
        XCTAssertEqual(checks.url.path, "/generate_204")
        XCTAssertEqual(checks.ports, [443, 8443])
        XCTAssertEqual(checks.otherFamilyHost, IPAddress("2001:db8::80"))
        XCTAssertEqual(checks.pathMTUSize, 1280)
        XCTAssertEqual(checks.dnsName, "example.com")
        XCTAssertEqual(checks.dnsServer, IPAddress("192.0.2.53"))
        XCTAssertFalse(checks.dnsHijack)
        XCTAssertEqual(checks.interval, .seconds(300))
        // Defaults for the keys not given; the fast profile checks every 10 s unless told otherwise.
        let defaults = try XCTUnwrap(try uplink("    checks: {host: 192.0.2.80, pmtu_size: 0, ports: []}\n").checks)
        XCTAssertEqual(defaults.interval, .seconds(3600))
        XCTAssertEqual(defaults.url, UplinkChecks().url)
        XCTAssertNil(defaults.pathMTUSize)
        XCTAssertEqual(defaults.ports, [])
        XCTAssertTrue(defaults.dnsHijack)
        XCTAssertEqual(try uplink("    profile: fast\n    checks: {dns_name: example.com}\n").checks?.interval, .seconds(10))
        XCTAssertEqual(try uplink("    profile: fast\n    checks: {dns_name: example.com, interval: 1m}\n").checks?.interval, .seconds(60))
        XCTAssertEqual(try uplink("    profile: mwan3\n    checks: {dns_name: example.com}\n").checks?.dnsName, "example.com")
    }

    func testBadValuesNameTheKeyAndLine() {
        let cases: [(String, String)] = [
            ("    profile: turbo\n", "test.yml:4: uplinks[0].profile: takes standard, fast, mwan3, not 'turbo'"),
            ("    profile: [fast]\n", "test.yml:4: uplinks[0].profile: expected a value"),
            ("    failure_latency: 1s\n", "test.yml:4: uplinks[0].failure_latency: expected a whole number of milliseconds"),
            ("    failure_latency: -5\n", "uplinks[0].failure_latency: expected a whole number of milliseconds"),
            ("    failure_loss: 140\n", "test.yml:4: uplinks[0].failure_loss: expected a whole percentage (0...100), not '140'"),
            ("    recovery_loss: x\n", "uplinks[0].recovery_loss: expected a whole percentage"),
            ("    recovery_latency: 900\n", "test.yml:4: uplinks[0]: recovery thresholds: must be at or under the failure thresholds"),
            ("    flap_limit: 101\n", "test.yml:4: uplinks[0].flap_limit: takes 0...100"),
            ("    flap_limit: many\n", "uplinks[0].flap_limit: expected a whole number, not 'many'"),
            ("    checks: yes\n", "test.yml:4: uplinks[0].checks: expected a mapping of keys"),
            ("    checks: {hots: 192.0.2.80}\n", "test.yml:4: uplinks[0].checks: unknown key 'hots'"),
            ("    checks: {host: gw.example}\n", "uplinks[0].checks.host: 'gw.example' is not an IP address"),
            ("    checks: {dns_server: 1.2.3}\n", "uplinks[0].checks.dns_server: '1.2.3' is not an IP address"),
            ("    checks: {ports: [443, 0]}\n", "uplinks[0].checks.ports: '0' is not a port (1...65535)"),
            ("    checks: {ports: [70000]}\n", "uplinks[0].checks.ports: '70000' is not a port"),
            ("    checks: {ports: 443}\n", "uplinks[0].checks.ports: expected a list"),
            ("    checks: {pmtu_size: 9000}\n", "uplinks[0].checks.pmtu_size: takes 29...1500 bytes"),
            ("    checks: {dns_hijack: maybe}\n", "uplinks[0].checks.dns_hijack: expected true or false, not 'maybe'"),
            ("    checks: {interval: soon}\n", "uplinks[0].checks.interval: expected a duration"),
            ("    checks: {url: https://192.0.2.80/}\n", "uplinks[0].checks.url 'https://192.0.2.80/'"),
            ("    checks: {dns_name: \"not a name\"}\n", "test.yml:4: uplinks[0].checks:"),
            ("    checks: {host: 192.0.2.80, other_family_host: 192.0.2.81}\n", "test.yml:4: uplinks[0].checks:"),
        ]
        for (keys, expected) in cases {
            XCTAssertThrowsError(try uplink(keys), keys) { error in
                XCTAssertTrue("\(error)".contains(expected), "expected '\(expected)' in: \(error)")
            }
        }
    }
}
