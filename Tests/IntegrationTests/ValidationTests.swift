// Validation in the monitor, against real servers in the test's own
// namespaces: nginx (a portal that redirects until "login", then 204; a 500)
// and dnsmasq. The client's uplink leads only into the responder namespace,
// so validation traffic never leaves the test's namespaces.

import Foundation
import LinuxReachability
@testable import ReachabilityCore
@testable import ReachabilityKernel
import ReachabilityTestSupport
import XCTest

final class ValidationTests: NamespaceTestCase {
    private let responder = Target.address(IPAddress("10.9.0.2")!)

    private func startValidatingMonitor(_ uplink: Uplink, _ validation: Validation, targets: [Target]? = nil,
                                        file: StaticString = #filePath, line: UInt = #line) throws -> (ReachabilityMonitor, ChangeRecorder) {
        // A first validation may answer right after the initial state.
        try startMonitor(uplink.client, targets ?? [responder], changesMayFollow: true, configure: {
            $0.validation = validation
            $0.validationInterval = .milliseconds(200)
            $0.validationTimeout = .milliseconds(500)
        }, file: file, line: line)
    }

    private func describe(_ changes: [ReachabilityChange]) -> String {
        changes.map { "\($0.status) \($0.flags) \($0.evaluation.accessibility) \($0.evaluation.validation?.outcome.description ?? "-")" }
            .joined(separator: "; ")
    }

    func testACaptivePortalThenLoginThenLinkDownAreThreeChanges() throws {
        let uplink = try makeUplink()
        let nginx = try startNginx(in: uplink.responder, addresses: ["10.9.0.2"])
        let (_, recorder) = try startValidatingMonitor(uplink, .http(HTTPProbeURL(host: "10.9.0.2", path: "/portal")))
        XCTAssertEqual(recorder.all.first?.evaluation.accessibility, .accessible, "before the first probe: routed, not yet validated")

        XCTAssertTrue(recorder.wait(timeout: 10) { $0.contains { $0.evaluation.accessibility == .captive } }, describe(recorder.all))
        let captive = try XCTUnwrap(recorder.nonInitial.first)
        XCTAssertEqual(captive.evaluation.accessibility, .captive)
        XCTAssertTrue(captive.flags.contains(.interventionRequired), "\(captive.flags)")
        XCTAssertEqual(captive.status, .reachable(.wired), "routed: the status stays reachable")
        XCTAssertEqual(captive.evaluation.pathStatus, .unsatisfied, "intervention required: NWPath's answer, as for a dormant link")
        XCTAssertEqual(captive.evaluation.unsatisfiedReason, .interventionRequired)
        XCTAssertEqual(captive.evaluation.validation?.httpStatus, 302)
        XCTAssertEqual(captive.evaluation.validation?.location, "http://portal.invalid/login")
        XCTAssertEqual(captive.evaluation.validation?.verdict, .captivePortal)

        try nginx.openPortal()
        XCTAssertTrue(recorder.wait(timeout: 10) { _ in recorder.nonInitial.count >= 2 }, describe(recorder.all))
        let accessible = recorder.nonInitial[1]
        XCTAssertEqual(accessible.evaluation.accessibility, .accessible)
        XCTAssertFalse(accessible.flags.contains(.interventionRequired))
        XCTAssertEqual(accessible.evaluation.validation?.httpStatus, 204)

        uplink.client.run("link set wan0 down")
        XCTAssertTrue(recorder.wait(timeout: 10) { _ in recorder.nonInitial.count >= 3 }, describe(recorder.all))
        let down = recorder.nonInitial[2]
        XCTAssertEqual(down.status, .notReachable)
        XCTAssertNil(down.evaluation.validation, "no verdict for a target that is not reachable")
        XCTAssertEqual(recorder.nonInitial.count, 3, "each transition once: \(describe(recorder.nonInitial))")
    }

    func testAFailedProbeOverAnUpLinkRestricts() throws {
        let uplink = try makeUplink()
        _ = try startNginx(in: uplink.responder, addresses: ["10.9.0.2"])
        let (monitor, recorder) = try startValidatingMonitor(uplink, .http(HTTPProbeURL(host: "10.9.0.2", path: "/error")))
        XCTAssertTrue(recorder.wait(timeout: 10) { _ in !recorder.nonInitial.isEmpty }, describe(recorder.all))
        let failed = recorder.nonInitial[0]
        XCTAssertEqual(failed.evaluation.accessibility, .restricted(.probeFailed), "a 500 is no portal: the probe failed")
        XCTAssertEqual(failed.status, .reachable(.wired))
        XCTAssertFalse(failed.flags.contains(.interventionRequired))
        XCTAssertEqual(failed.evaluation.validation?.httpStatus, 500)
        XCTAssertGreaterThanOrEqual(monitor.counters.validations, 1)
    }

    func testDNSValidationAgainstDnsmasq() throws {
        let uplink = try makeUplink()
        let dnsmasq = try startDnsmasq(in: uplink.responder, address: "10.9.0.2", records: ["gw.test": "10.9.0.77"],
                                       readyFrom: uplink.client)
        let (monitor, recorder) = try startValidatingMonitor(uplink, .dns(name: "gw.test", server: IPAddress("10.9.0.2")!))
        XCTAssertTrue(recorder.wait(timeout: 10) { _ in monitor.counters.validations >= 1 }, "a first, answered validation")
        XCTAssertTrue(recorder.wait(timeout: 10) { _ in !recorder.nonInitial.isEmpty }, describe(recorder.all))
        XCTAssertEqual(recorder.nonInitial.first?.evaluation.validation?.verdict, .answered, "the first verdict is a change")
        XCTAssertEqual(recorder.nonInitial.first?.evaluation.accessibility, .accessible, "answered: still accessible")
        dnsmasq.stop()
        XCTAssertTrue(recorder.wait(timeout: 10) { _ in recorder.nonInitial.count >= 2 }, describe(recorder.all))
        guard let failed = recorder.nonInitial.last else { return }
        XCTAssertEqual(failed.evaluation.accessibility, .restricted(.probeFailed))
        XCTAssertEqual(failed.evaluation.validation?.method, .dns(name: "gw.test", type: .a))
    }

    func testADNSProbeAnsweredKeepsTheTargetAccessibleAndCountsTheVerdict() throws {
        let uplink = try makeUplink()
        _ = try startDnsmasq(in: uplink.responder, address: "10.9.0.2", records: ["gw.test": "10.9.0.77"], readyFrom: uplink.client)
        let (monitor, recorder) = try startValidatingMonitor(uplink, .dns(name: "gw.test", server: IPAddress("10.9.0.2")!))
        let deadline = Date().addingTimeInterval(10)
        while monitor.counters.validations < 2 && Date() < deadline { usleep(10_000) }
        XCTAssertGreaterThanOrEqual(monitor.counters.validations, 2, "validated again every interval")
        XCTAssertEqual(recorder.nonInitial.count, 1,
                       "the first verdict is a change, the same verdict again is not: \(describe(recorder.nonInitial))")
        XCTAssertEqual(monitor.currentEvaluations.first?.accessibility, .accessible)
        XCTAssertEqual(monitor.currentEvaluations.first?.validation?.resolvedAddress, IPAddress("10.9.0.77"))
    }

    /// A validation that keeps succeeding (README audit, issue 30): the
    /// first verdict shows in a line, so `probe` (JSON) and `probe ... answered`
    /// (the human line) show from the first validation on; the same verdict
    /// again prints nothing. The first verdict is in the initial line when the
    /// validation answered before that line was printed (the monitor gives an
    /// observer the latest answer, coalesced), else in the next one. The
    /// responder records each validation (one request each); a 500 afterwards
    /// is the barrier: its line comes right after the first verdict's.
    func testReachWatchValidateShowsTheFirstVerdictAndNoLinePerRepeat() throws {
        let uplink = try makeUplink()
        for json in [true, false] {
            let server = try HTTPResponder(in: uplink.responder, address: "10.9.0.2")
            defer { server.stop() }
            let watch = try startReach(["watch", "--netns", uplink.client.name, "--validate",
                                        "http:" + server.url(path: "/generate_204"),
                                        "--validate-interval", "0.1", "10.9.0.2"] + (json ? ["--json"] : []))
            /// The line's validation verdict, nil when it shows none.
            func verdict(_ line: String) -> String? {
                if json {
                    return ((try? jsonObject(line))?["probe"] as? [String: Any])?["verdict"] as? String
                }
                guard let range = line.range(of: "  probe http:") else { return nil }
                let words = line[range.upperBound...].split(separator: " ")
                return words.count >= 2 ? String(words[1]) : nil
            }
            var lines: [String] = []
            let deadline = Date().addingTimeInterval(10)
            repeat { lines = watch.waitForLines(lines.count + 1, timeout: 0.5) }
                while !lines.contains(where: { verdict($0) != nil }) && Date() < deadline
            guard let first = lines.firstIndex(where: { verdict($0) != nil }) else {
                XCTFail("json \(json): no line shows a verdict: \(lines) \(watch.stderr)")
                watch.terminate()
                continue
            }
            XCTAssertLessThanOrEqual(first, 1, "json \(json): the initial line or the next shows the first verdict: \(lines)")
            XCTAssertEqual(verdict(lines[first]), "answered", "json \(json): \(lines)")
            // Validations go on (one request each) with the same verdict: no line.
            let requests = server.requests.count
            let again = Date().addingTimeInterval(10)
            while server.requests.count < requests + 3 && Date() < again { usleep(5_000) }
            XCTAssertGreaterThanOrEqual(server.requests.count, requests + 3, "validated again every interval")
            XCTAssertEqual(watch.waitForLines(first + 1, timeout: 0).count, first + 1,
                           "json \(json): no line per validation with the same verdict: \(watch.waitForLines(0, timeout: 0))")
            server.response = .status(500)
            lines = watch.waitForLines(first + 2, timeout: 10)
            watch.terminate()
            for line in lines { print("reach watch --validate (json \(json)): \(line)") }
            XCTAssertEqual(lines.count, first + 2, "json \(json): one line for the new verdict: \(lines)")
            guard lines.count == first + 2 else { continue }
            XCTAssertEqual(lines.map(verdict).compactMap { $0 }, ["answered", "failed"],
                           "a line per verdict, none per validation: \(lines)")
            if json {
                let answered = try jsonObject(lines[first])
                XCTAssertEqual((answered["probe"] as? [String: Any])?["httpStatus"] as? Int, 204)
                XCTAssertEqual(answered["accessibility"] as? String, "accessible")
                XCTAssertEqual(try jsonObject(lines[first + 1])["accessibility"] as? String, "restricted.probeFailed")
            } else {
                XCTAssertTrue(lines[first].hasSuffix("probe http:\(server.url(path: "/generate_204")) answered (204)"),
                              lines[first])
                XCTAssertTrue(lines[first + 1].contains("restricted.probeFailed  probe http:"), lines[first + 1])
            }
        }
    }

    func testReachWatchValidateShowsEachTransition() throws {
        let uplink = try makeUplink()
        let nginx = try startNginx(in: uplink.responder, addresses: ["10.9.0.2"])
        let watch = try startReach(["watch", "--netns", uplink.client.name, "--json", "--validate",
                                    "http:http://10.9.0.2/portal", "--validate-interval", "0.2", "10.9.0.2"])
        var lines = watch.waitForLines(2, timeout: 15)
        XCTAssertEqual(lines.count, 2, "initial, then captive: \(lines)")
        try nginx.openPortal()
        lines = watch.waitForLines(3, timeout: 15)
        uplink.client.run("link set wan0 down")
        lines = watch.waitForLines(4, timeout: 15)
        watch.terminate()
        for line in lines { print("reach watch --validate: \(line)") }
        let objects = try lines.map { try jsonObject($0) }
        XCTAssertEqual(objects.map { $0["accessibility"] as? String }, ["accessible", "captive", "accessible", "noNetwork"])
        XCTAssertEqual(objects.map { $0["flagString"] as? String }, ["-R ------d", "-R ---i--d", "-R ------d", "-- -------"])
        let probe = try XCTUnwrap(objects[1]["probe"] as? [String: Any])
        XCTAssertEqual(probe["httpStatus"] as? Int, 302)
        XCTAssertEqual(probe["location"] as? String, "http://portal.invalid/login")
        XCTAssertEqual(probe["verdict"] as? String, "captivePortal")
        XCTAssertEqual(probe["uplink_verdict"] as? String, "captive", "the tracker's word for it")
        XCTAssertEqual((objects[2]["probe"] as? [String: Any])?["httpStatus"] as? Int, 204)
        XCTAssertEqual((objects[2]["probe"] as? [String: Any])?["uplink_verdict"] as? String, "healthy")
        XCTAssertTrue(objects[3]["probe"] is NSNull)
    }
}
