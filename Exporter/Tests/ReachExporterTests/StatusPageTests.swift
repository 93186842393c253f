// The status page (GET /) rendered in process: every value escaped, no
// credential written, the states and the last changes as ExporterMetrics
// recorded them. The page in a real browser: Tests/IntegrationTests/
// ExporterTests.swift, testStatusPageInAHeadlessBrowser (make test-fleet).

@testable import ReachExporterKit
@testable import ReachabilityCore
import XCTest

final class StatusPageTests: XCTestCase {
    let hostile = Target.host("gw<script>&\"x'")

    func change(_ target: Target, reachable: Bool, initial: Bool) -> ReachabilityChange {
        wiredChange(target, reachable: reachable, initial: initial, interface: "eth<0>")
    }

    func event(_ state: UplinkState, previous: UplinkState?) -> TrackerEvent {
        trackerEvent(state, previous: previous, verdict: state == .online ? .healthy : .down)
    }

    func page(_ metrics: ExporterMetrics, remotes: [RemoteWriteStatus] = []) -> String {
        var configuration = ExporterConfiguration()
        configuration.targets = [hostile]
        configuration.uplinks = [UplinkTracker.Configuration(interface: "wan0", hosts: [IPAddress("10.9.0.2")!])]
        configuration.validation = try? Validation(parsing: "http:http://portal.example/generate_204")
        return StatusPage(version: "1.2.3<b>", configuration: configuration, snapshot: metrics.statusSnapshot(),
                          remotes: remotes, ready: true, now: WallClock.unixSeconds(), hostName: "gw&1").render()
    }

    func testEveryValueIsEscapedAndNoCredentialIsWritten() throws {
        let metrics = ExporterMetrics(targets: [hostile], uplinks: ["wan0"], version: "1.2.3<b>")
        metrics.record(change(hostile, reachable: true, initial: true))
        metrics.record(change(hostile, reachable: false, initial: false))
        metrics.record(state: event(.online, previous: nil))
        let remote = RemoteWriteStatus(name: "central<1>", url: "https://gw:hunter2@203.0.113.10:9090/api/v1/write",
                                       pending: 120, lagSeconds: 4, sent: 0, retried: 3, dropped: 0,
                                       lastError: "connection refused <&>", lastSuccess: nil)
        let html = page(metrics, remotes: [remote])

        XCTAssertFalse(html.contains("<script>"), "a target's name is markup")
        XCTAssertFalse(html.contains("central<1>"))
        XCTAssertFalse(html.contains("eth<0>"))
        XCTAssertTrue(html.contains("<tr data-target=\"gw&lt;script&gt;&amp;&quot;x&#39;\" data-status=\"notReachable\""), html)
        XCTAssertTrue(html.contains("<b>gw&lt;script&gt;&amp;&quot;x&#39;</b>"), "the change names the target, escaped")
        XCTAssertTrue(html.contains("data-uplink=\"wan0\" data-state=\"online\" data-score=\"5\""))
        XCTAssertTrue(html.contains("data-remote=\"central&lt;1&gt;\" data-state=\"failing\" data-pending=\"120\""))
        XCTAssertTrue(html.contains("connection refused &lt;&amp;&gt;"))
        XCTAssertTrue(html.contains("https://203.0.113.10:9090/api/v1/write"))
        XCTAssertTrue(html.contains("portal.example/generate_204"))
        for secret in ["hunter2", "gw:"] { XCTAssertFalse(html.contains(secret), secret) }
        XCTAssertTrue(html.contains("<meta name=\"viewport\" content=\"width=device-width"))
        XCTAssertFalse(html.contains("<script"), "no script")
        XCTAssertFalse(html.contains("src=") || html.contains("<link"), "no external asset")
    }

    /// The configuration's receivers: names, URLs and the kind of credential, never the credential.
    func testTheConfigurationShowsNoCredential() throws {
        var configuration = try ExporterConfiguration.parse(yaml: """
            push_interval: 5s
            external_labels: {gateway: gw-0042}
            remote_write:
              - {url: "https://203.0.113.10:9090/api/v1/write", name: central, basic_auth: {username: gw, password: hunter2},
                 headers: {X-Token: s3cr3t}}
              - {url: "http://192.0.2.5/push", bearer_token: t0ken}
            """, source: "test.yml")
        try configuration.finish()
        let html = StatusPage(version: "1", configuration: configuration,
                              snapshot: ExporterMetrics(targets: [.internet], uplinks: [], version: "1").statusSnapshot(),
                              remotes: [], ready: false, now: WallClock.unixSeconds(), hostName: "gw").render()
        XCTAssertTrue(html.contains("<b>central</b> https://203.0.113.10:9090/api/v1/write (basic_auth)"), html)
        XCTAssertTrue(html.contains("<b>192.0.2.5:80</b> http://192.0.2.5:80/push (bearer_token)"), html)
        XCTAssertTrue(html.contains("gateway=gw-0042"))
        for secret in ["hunter2", "s3cr3t", "t0ken", "X-Token"] { XCTAssertFalse(html.contains(secret), secret) }
    }

    func testWithoutRemoteWriteThePageSaysSo() {
        let metrics = ExporterMetrics(targets: [hostile], uplinks: ["wan0"], version: "1")
        let html = page(metrics)
        XCTAssertTrue(html.contains("push: not configured"))
        XCTAssertTrue(html.contains("data-status=\"unknown\""), "no answer yet")
        XCTAssertTrue(html.contains("data-uplink=\"wan0\" data-state=\"unknown\""))
        XCTAssertTrue(html.contains("No change since the start"))
    }

    /// The last changes: newest first, at most `ChangeRing.capacity`, the total counted.
    func testTheLastChangesAreABoundedRingNewestFirst() {
        let metrics = ExporterMetrics(targets: [hostile], uplinks: ["wan0"], version: "1")
        metrics.record(state: event(.online, previous: nil))
        var state = UplinkState.online
        for _ in 0 ..< 73 {
            let next: UplinkState = state == .online ? .offline : .online
            metrics.record(state: event(next, previous: state))
            state = next
        }
        let snapshot = metrics.statusSnapshot()
        let changes = snapshot.changes.newestFirst
        XCTAssertEqual(changes.count, StatusSnapshot.ChangeRing.capacity)
        XCTAssertEqual(snapshot.changes.total, 73)
        XCTAssertEqual(changes.first?.to, state.rawValue, "newest first")
        XCTAssertEqual(snapshot.uplinks.first?.state, state.rawValue)
        for (newer, older) in zip(changes, changes.dropFirst()) {
            XCTAssertEqual(newer.from, older.to, "each change follows the one before it")
            XCTAssertGreaterThanOrEqual(newer.time, older.time)
        }
        XCTAssertTrue(page(metrics).contains("The last 50 of 73, newest first."))
    }

    func testValuesAsTheyAreShown() {
        XCTAssertEqual(StatusPage.redacted("https://a:b@h:1/p?q=x@y"), "https://h:1/p?q=***")
        XCTAssertEqual(StatusPage.redacted("http:http://u@h/x and tcp://v:w@k"), "http:http://h/x and tcp://k")
        XCTAssertEqual(Duration.milliseconds(200).configurationText, "200ms")
        XCTAssertEqual(Duration.seconds(120).configurationText, "2m")
        XCTAssertEqual(StatusPage.age(3 * 86_400 + 7200 + 5), "3 d 2 h")
        XCTAssertEqual(StatusPage.age(65), "1 min 5 s")
        XCTAssertEqual(StatusPage.milliseconds(.microseconds(1234)), "1.23 ms")
        XCTAssertEqual(StatusPage.utc(1_796_000_000.7).machine, "2026-11-30T00:53:20Z")
    }

    /// Issue 52, point 14: a token in a URL's query is not shown either.
    func testQueryValuesAreRedactedAsUserInformationIs() {
        XCTAssertEqual(StatusPage.redacted("https://h:1/api/v1/write?api_key=s3cr3t&tenant=t1#x"),
                       "https://h:1/api/v1/write?api_key=***&tenant=***#x")
        XCTAssertEqual(StatusPage.redacted("http:http://u:p@portal.example/204?token=abc and tcp://k:1"),
                       "http:http://portal.example/204?token=*** and tcp://k:1")
        XCTAssertEqual(StatusPage.redacted("https://h/p?flag"), "https://h/p?flag")
        let remote = RemoteWriteStatus(name: "central", url: "https://203.0.113.10/api/v1/write?api_key=s3cr3t",
                                       pending: 0, lagSeconds: 0, sent: 1, retried: 0, dropped: 0, lastError: nil, lastSuccess: nil)
        let html = page(ExporterMetrics(targets: [hostile], uplinks: ["wan0"], version: "1"), remotes: [remote])
        XCTAssertFalse(html.contains("s3cr3t"), html)
        XCTAssertTrue(html.contains("https://203.0.113.10/api/v1/write?api_key=***"), html)
    }

    /// A change of the accessibility alone (validation failed, the status is
    /// still reachable.wired) says so, rather than `reachable.wired → reachable.wired`;
    /// and a restricted target is not counted as reachable in the header.
    func testAnAccessibilityChangeSaysWhatChangedAndRestrictedIsNotReachable() {
        let metrics = ExporterMetrics(targets: [hostile], uplinks: ["wan0"], version: "1")
        metrics.record(wiredChange(hostile, reachable: true, initial: true, interface: "eth0", probe: .answered))
        metrics.record(wiredChange(hostile, reachable: true, initial: false, interface: "eth0", probe: .failed))
        let change = try! XCTUnwrap(metrics.statusSnapshot().changes.newestFirst.first)
        XCTAssertEqual(change.from, "accessible")
        XCTAssertEqual(change.to, "restricted.probeFailed")
        let html = page(metrics)
        XCTAssertFalse(html.contains("data-from=\"reachable.wired\" data-to=\"reachable.wired\""), html)
        XCTAssertTrue(html.contains("accessibility <span class=\"badge ok\">accessible</span> → <span class=\"badge warn\">restricted.probeFailed</span>"), html)
        XCTAssertTrue(html.contains("<span>0/1 targets reachable, 1 restricted</span>"), html)
    }

    /// Issue 52, point 12: an uplink whose interface does not exist says so on the page.
    func testAnUplinkWithoutItsInterfaceSaysSo() {
        let metrics = ExporterMetrics(targets: [hostile], uplinks: ["wan0"], version: "1")
        metrics.record(state: event(.offline, previous: nil))
        var configuration = ExporterConfiguration()
        configuration.targets = [hostile]
        configuration.uplinks = [UplinkTracker.Configuration(interface: "wan0", hosts: [IPAddress("10.9.0.2")!])]
        let html = StatusPage(version: "1", configuration: configuration, snapshot: metrics.statusSnapshot(), remotes: [],
                              ready: true, now: WallClock.unixSeconds(), hostName: "gw", missingInterfaces: ["wan0"]).render()
        XCTAssertTrue(html.contains("uplink wan0: no interface wan0 in this host (misspelled?); its probes fail until it appears"), html)
    }
}
