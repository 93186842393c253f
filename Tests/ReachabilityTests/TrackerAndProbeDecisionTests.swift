// The pure halves of probing and tracking: the tracker's score and intervals,
// method and URL parsing, and the choice of an ICMP socket.

import LinuxReachability
@testable import ReachabilityCore
@testable import ReachabilityKernel
import XCTest

final class TrackerScoreTests: XCTestCase {
    /// The rounds to take a fresh tracker from online to offline and back, for
    /// every down/up pair in 1...6.
    func testThresholdsForEveryDownUpPair() {
        for down in 1...6 {
            for up in 1...6 {
                var score = TrackerScore(down: down, up: up, initial: .online)
                XCTAssertEqual(score.score, down + up)
                var changes: [UplinkState] = []
                for _ in 0..<down {
                    if let state = score.record(roundSucceeded: false) { changes.append(state) }
                }
                XCTAssertEqual(score.state, .offline, "down \(down) up \(up)")
                XCTAssertEqual(score.score, 0)
                XCTAssertEqual(changes, down == 1 ? [.offline] : [.disconnecting, .offline], "down \(down) up \(up)")
                changes = []
                for round in 1...up {
                    if let state = score.record(roundSucceeded: true) { changes.append(state) }
                    XCTAssertEqual(score.state, round == up ? .online : .connecting, "down \(down) up \(up) round \(round)")
                }
                XCTAssertEqual(changes, up == 1 ? [.online] : [.connecting, .online])
                XCTAssertEqual(score.score, down + up, "back online means a full score")
            }
        }
    }

    func testHysteresis() {
        var score = TrackerScore(down: 3, up: 2, initial: .online)
        // Two failures, then a success: back to a full score, so three more failures are needed.
        score.record(roundSucceeded: false)
        score.record(roundSucceeded: false)
        XCTAssertEqual(score.state, .disconnecting)
        XCTAssertEqual(score.record(roundSucceeded: true), .online)
        XCTAssertEqual(score.score, 5)
        score.record(roundSucceeded: false)
        score.record(roundSucceeded: false)
        XCTAssertEqual(score.state, .disconnecting)
        XCTAssertEqual(score.record(roundSucceeded: false), .offline)
        // Offline: failures change nothing; a success then a failure starts again from 0.
        XCTAssertNil(score.record(roundSucceeded: false))
        XCTAssertEqual(score.score, 0)
        XCTAssertEqual(score.record(roundSucceeded: true), .connecting)
        XCTAssertEqual(score.record(roundSucceeded: false), .offline)
        XCTAssertEqual(score.score, 0)
        XCTAssertEqual(score.record(roundSucceeded: true), .connecting)
        XCTAssertEqual(score.record(roundSucceeded: true), .online)
        // Online and succeeding: no event.
        XCTAssertNil(score.record(roundSucceeded: true))
    }

    func testInitialOffline() {
        var score = TrackerScore(down: 2, up: 3, initial: .offline)
        XCTAssertEqual(score.state, .offline)
        XCTAssertEqual(score.score, 0)
        XCTAssertFalse(score.state.isUsable)
        score.record(roundSucceeded: true)
        score.record(roundSucceeded: true)
        XCTAssertEqual(score.state, .connecting)
        XCTAssertEqual(score.record(roundSucceeded: true), .online)
        XCTAssertTrue(score.state.isUsable)
    }

    func testIntervalsFollowTheState() {
        var configuration = UplinkTracker.Configuration(interface: "wan0", hosts: [IPAddress("10.0.0.1")!],
                                                        interval: .seconds(10))
        XCTAssertEqual(UplinkState.allCases.map { configuration.interval(in: $0) },
                       [.seconds(10), .seconds(5), .seconds(10), .seconds(5)],
                       "failure and recovery intervals: the interval, at most 5 s")
        configuration.interval = .seconds(2)
        for state in UplinkState.allCases { XCTAssertEqual(configuration.interval(in: state), .seconds(2)) }
        configuration.interval = .seconds(10)
        XCTAssertEqual(configuration.effectiveTimeout, .seconds(4), "mwan3's timeout default, bounded by the interval")
        configuration.failureInterval = .seconds(2)
        configuration.recoveryInterval = .seconds(3)
        XCTAssertEqual(configuration.interval(in: .online), .seconds(10))
        XCTAssertEqual(configuration.interval(in: .disconnecting), .seconds(2))
        XCTAssertEqual(configuration.interval(in: .offline), .seconds(10))
        XCTAssertEqual(configuration.interval(in: .connecting), .seconds(3))
        configuration.keepFailureInterval = true
        XCTAssertEqual(configuration.interval(in: .offline), .seconds(2))
        configuration.interval = .milliseconds(500)
        XCTAssertEqual(configuration.effectiveTimeout, .milliseconds(500))
    }

    func testConfigurationErrors() {
        let host = IPAddress("10.0.0.1")!
        let bad: [(UplinkTracker.Configuration, String)] = [
            (.init(interface: "wan0", hosts: []), "track hosts"),
            (.init(interface: "wan0", hosts: [host], reliability: 2), "reliability"),
            (.init(interface: "wan0", hosts: [host], reliability: 0), "reliability"),
            (.init(interface: "wan0", hosts: [host], count: 0), "count"),
            (.init(interface: "wan0", hosts: [host], down: 0), "down"),
            (.init(interface: "wan0", hosts: [host], up: 0), "up"),
            (.init(interface: "wan0", hosts: [host], interval: .zero), "interval"),
            (.init(interface: "wan0", hosts: [host], failureInterval: .milliseconds(1)), "failure interval"),
            (.init(interface: "wan0", hosts: [host], initialState: .connecting), "initial state"),
            (.init(interface: "wan0", hosts: [host], timeout: .zero), "probe timeout"),
            (.init(interface: "wan0", hosts: [host], source: IPAddress("fd00::1")!), "source"),
            (.init(interface: "wan0", hosts: [host], quality: UplinkQuality(failureLoss: 101)), "failure loss"),
            (.init(interface: "wan0", hosts: [host], quality: UplinkQuality(failureLoss: 5, recoveryLoss: 10)),
             "recovery thresholds"),
            (.init(interface: "wan0", hosts: [host], quality: UplinkQuality(window: 0)), "quality window"),
            (.init(interface: "wan0", hosts: [host], checks: UplinkChecks(ports: [0])), "check ports"),
            (.init(interface: "wan0", hosts: [host], checks: UplinkChecks(host: host, pathMTUSize: 1501)),
             "path-MTU probe size"),
            (.init(interface: "wan0", hosts: [host], checks: UplinkChecks(host: host, otherFamilyHost: host)),
             "other-family host"),
            (.init(interface: "wan0", hosts: [host], checks: UplinkChecks(dnsName: "no spaces")), "DNS check name"),
            (.init(interface: "wan0", hosts: [host], flapLimit: -1), "flap limit"),
            (.init(interface: "wan0", hosts: [host], flapWindow: .zero), "flap window"),
        ]
        for (configuration, name) in bad {
            XCTAssertThrowsError(try configuration.validate()) { error in
                guard case let .invalidConfiguration(what, _) = error as? ReachabilityError else {
                    return XCTFail("\(error)")
                }
                XCTAssertEqual(what, name)
            }
        }
        XCTAssertThrowsError(try UplinkTracker.Configuration(interface: "a-name-longer-than-15", hosts: [host]).validate()) {
            guard case .invalidInterfaceName = $0 as? ReachabilityError else { return XCTFail("\($0)") }
        }
        XCTAssertNoThrow(try UplinkTracker.Configuration(interface: "wan0", hosts: [host, host], reliability: 2).validate())
    }
}

final class ProbeMethodTests: XCTestCase {
    func testParsing() throws {
        XCTAssertEqual(try ProbeMethod(parsing: "icmp"), .icmp)
        XCTAssertEqual(try ProbeMethod(parsing: "tcp:443"), .tcp(port: 443))
        XCTAssertEqual(try ProbeMethod(parsing: "http"), .http(HTTPProbeURL(host: nil, port: 80, path: "/generate_204")))
        XCTAssertEqual(try ProbeMethod(parsing: "http:/hotspot-detect"), .http(HTTPProbeURL(host: nil, path: "/hotspot-detect")))
        XCTAssertEqual(try ProbeMethod(parsing: "http:http://portal.test:8080/gen_204"),
                       .http(HTTPProbeURL(host: "portal.test", port: 8080, path: "/gen_204")))
        XCTAssertEqual(try ProbeMethod(parsing: "http:http://[fd00::1]:81"), .http(HTTPProbeURL(host: "[fd00::1]", port: 81, path: "/")))
        XCTAssertEqual(try ProbeMethod(parsing: "http:http://10.0.0.1"), .http(HTTPProbeURL(host: "10.0.0.1", path: "/")))
        XCTAssertEqual(try ProbeMethod(parsing: "dns:probe.test"), .dns(name: "probe.test", type: .a))
        XCTAssertEqual(try ProbeMethod(parsing: "dns", defaultName: "example.test"), .dns(name: "example.test", type: .a))
        XCTAssertEqual(ProbeMethod.tcp(port: 22).description, "tcp:22")
        XCTAssertEqual(HTTPProbeURL(host: "portal.test", port: 8080, path: "/x").description, "http://portal.test:8080/x")

        for bad in ["", "icmp:1", "tcp", "tcp:", "tcp:0", "tcp:65536", "tcp:http", "http:https://x.test/", "http:ftp://x",
                    "http:http://", "http:http://user@host/", "http:http://host:0/", "http:http://host:99999/",
                    "http:http://[fd00::1/", "http:http://[10.0.0.1]/", "http:http://bad host/", "http:/a b", "dns",
                    "dns:", "dns:bad..name", "udp:53", "ICMP"] {
            XCTAssertThrowsError(try ProbeMethod(parsing: bad), bad) { error in
                guard case .invalidProbe = error as? ReachabilityError else { return XCTFail("\(bad): \(error)") }
            }
        }
    }

    func testVerdicts() {
        func result(_ method: ProbeMethod, _ outcome: ProbeOutcome) -> ProbeResult {
            ProbeResult(address: IPAddress("10.0.0.1")!, method: method, transport: .tcpConnect, fallbackReason: nil,
                        port: 80, outcome: outcome, httpStatus: nil, roundTrip: nil, resolvedAddress: nil,
                        ignoredDatagrams: 0)
        }
        XCTAssertEqual(result(.icmp, .answered).verdict, .answered)
        XCTAssertEqual(result(.icmp, .refused).verdict, .answered, "a reset proves the host is there")
        XCTAssertEqual(result(.tcp(port: 80), .refused).verdict, .failed, "but the port asked about is closed")
        let http = ProbeMethod.http(HTTPProbeURL(host: nil))
        XCTAssertEqual(result(http, .captivePortal(status: 302, location: "http://portal.test/")).verdict, .captivePortal)
        XCTAssertEqual(result(http, .captivePortal(status: 200, location: nil)).verdict, .captivePortal)
        for status in [100, 404, 500, 511] {
            XCTAssertEqual(result(http, .unexpectedStatus(status)).verdict, .failed, "\(status) is no portal")
        }
        for outcome: ProbeOutcome in [.timedOut, .unreachable(.hostUnreachable), .malformedAnswer, .canceled, .noAddress(rcode: 3)] {
            XCTAssertEqual(result(.icmp, outcome).verdict, .failed, "\(outcome)")
        }
        // The Location is that of a portal's redirect, nil for anything else.
        XCTAssertEqual(result(http, .captivePortal(status: 307, location: "/login")).location, "/login")
        XCTAssertNil(result(http, .captivePortal(status: 302, location: nil)).location)
        XCTAssertNil(result(http, .answered).location)
        XCTAssertNil(result(http, .unexpectedStatus(301)).location)
    }

    /// Android's NetworkMonitor and Chromium's captive-portal detector: 204 or
    /// an empty 2xx answers; a redirect or a page is a portal; 1xx, 4xx, 5xx fail.
    func testHTTPAnswersReadAsAndroidAndChromiumDo() {
        let location = "http://portal.invalid/login"
        let table: [(status: Int, body: HTTPBody, location: String?, outcome: ProbeOutcome, verdict: ProbeVerdict)] = [
            (204, .empty, nil, .answered, .answered),
            (204, .present, location, .answered, .answered),              // a 204 has no body, whatever follows
            (200, .empty, nil, .answered, .answered),                     // a proxy's 204 turned into an empty 200
            (299, .empty, nil, .answered, .answered),
            (200, .present, nil, .captivePortal(status: 200, location: nil), .captivePortal),   // a login page
            (200, .present, location, .captivePortal(status: 200, location: nil), .captivePortal),
            (206, .present, nil, .captivePortal(status: 206, location: nil), .captivePortal),
            (200, .malformed, nil, .malformedAnswer, .failed),           // broken chunked framing
            (302, .empty, location, .captivePortal(status: 302, location: location), .captivePortal),
            (301, .present, nil, .captivePortal(status: 301, location: nil), .captivePortal),
            (307, .empty, "/login", .captivePortal(status: 307, location: "/login"), .captivePortal),
            (304, .empty, nil, .captivePortal(status: 304, location: nil), .captivePortal),
            (399, .malformed, nil, .captivePortal(status: 399, location: nil), .captivePortal),
            (100, .empty, nil, .unexpectedStatus(100), .failed),
            (199, .present, nil, .unexpectedStatus(199), .failed),
            (400, .present, nil, .unexpectedStatus(400), .failed),
            (404, .present, location, .unexpectedStatus(404), .failed),
            (404, .empty, nil, .unexpectedStatus(404), .failed),
            (500, .present, nil, .unexpectedStatus(500), .failed),
            (511, .present, nil, .unexpectedStatus(511), .failed),
            (599, .empty, nil, .unexpectedStatus(599), .failed),
        ]
        for row in table {
            let outcome = ProbeOutcome.http(status: row.status, body: row.body, location: row.location)
            XCTAssertEqual(outcome, row.outcome, "\(row.status) \(row.body)")
            let result = ProbeResult(address: IPAddress("10.0.0.1")!, method: .http(HTTPProbeURL(host: nil)),
                                     transport: .http, fallbackReason: nil, port: 80, outcome: outcome,
                                     httpStatus: row.status, roundTrip: .milliseconds(1), resolvedAddress: nil,
                                     ignoredDatagrams: 0)
            XCTAssertEqual(result.verdict, row.verdict, "\(row.status) \(row.body)")
        }
        XCTAssertEqual(ProbeOutcome.captivePortal(status: 302, location: location).description,
                       "captive-portal 302 → http://portal.invalid/login")
        XCTAssertEqual(ProbeOutcome.captivePortal(status: 200, location: nil).description, "captive-portal 200")
        XCTAssertEqual(ProbeOutcome.unexpectedStatus(404).description, "unexpected-status 404")
    }

    func testICMPSocketChoice() {
        let closed = GroupRange(low: 1, high: 0)  // the kernel's default
        XCTAssertFalse(closed.contains(0))
        XCTAssertFalse(closed.contains(1))
        XCTAssertEqual(ICMPPermissions(raw: true, pingGroupRange: closed, groups: [0]).transports, [.icmpRaw, .tcpConnect])
        XCTAssertEqual(ICMPPermissions(raw: false, pingGroupRange: closed, groups: [0]).transports, [.tcpConnect])
        let open = GroupRange(low: 0, high: 2_147_483_647)  // systemd's default
        XCTAssertEqual(ICMPPermissions(raw: false, pingGroupRange: open, groups: [1000]).transports, [.icmpDatagram, .tcpConnect])
        XCTAssertEqual(ICMPPermissions(raw: true, pingGroupRange: open, groups: [1000]).transports,
                       [.icmpRaw, .icmpDatagram, .tcpConnect])
        // A supplementary group is enough, as for the kernel.
        let narrow = GroupRange(low: 100, high: 100)
        XCTAssertEqual(ICMPPermissions(raw: false, pingGroupRange: narrow, groups: [1000, 100]).transports,
                       [.icmpDatagram, .tcpConnect])
        XCTAssertEqual(ICMPPermissions(raw: false, pingGroupRange: nil, groups: [0]).transports, [.tcpConnect])
    }
}
