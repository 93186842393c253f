// The pure halves of a dirty uplink's verdict: the quality window and its
// hysteresis, the facts-to-verdict order, and flap damping
// (UplinksThatFailDirty.md has the table these decide).

import LinuxReachability
@testable import ReachabilityCore
import ReachabilityModel
import XCTest

final class UplinkQualityTests: XCTestCase {
    private func tracker(_ thresholds: UplinkQuality = UplinkQuality(), down: Int = 3, up: Int = 3) -> QualityTracker {
        QualityTracker(thresholds: thresholds, down: down, up: up)
    }

    /// Feeds `rounds` rounds of one probe each: lost when `lost(round)`, else `rtt` ms.
    private func feed(_ quality: inout QualityTracker, rounds: Range<Int>, rtt: Int = 20,
                      lost: (Int) -> Bool = { _ in false }) -> [QualityLevel] {
        var changes: [QualityLevel] = []
        for round in rounds {
            quality.record(roundTrip: lost(round) ? nil : .milliseconds(rtt))
            if let level = quality.evaluate() { changes.append(level) }
        }
        return changes
    }

    func testACleanLinkStaysGoodAndLossIsReadOnlyOverAFullWindow() {
        var quality = tracker()
        XCTAssertEqual(feed(&quality, rounds: 0..<200), [])
        XCTAssertEqual(quality.summary.lossPercent, 0)
        XCTAssertEqual(quality.summary.medianLatency, .milliseconds(20))
        var fresh = tracker()
        _ = feed(&fresh, rounds: 0..<10)
        XCTAssertNil(fresh.summary.lossPercent, "not before the window is full")
    }

    /// 5 % loss at 300 ms ± 150 ms: degraded, never failed (scenario 5),
    /// with a loss pattern as bad as 4 in every 50 (8 %).
    func testFivePercentLossAndJitterIsDegradedNeverFailed() {
        var quality = tracker()
        var generator = SplitMix(seed: 5)
        var levels = Set<QualityLevel>()
        for probe in 0..<5000 {
            let rtt = 150 + Int(generator.next() % 301)        // 300 ± 150 ms
            quality.record(roundTrip: generator.next() % 100 < 5 ? nil : .milliseconds(rtt))
            quality.evaluate()
            if probe >= 50 { levels.insert(quality.level) }    // from the first full window on
        }
        XCTAssertEqual(levels, [.degraded], "5 % and 300 ms: degraded only")
        var fixed = tracker()
        _ = feed(&fixed, rounds: 0..<1000, rtt: 300) { $0 % 50 < 4 }
        XCTAssertEqual(fixed.level, .degraded)
    }

    /// 30 % loss fails (scenario 6), and coming back needs the recovery
    /// thresholds, not the failure ones: 15 % loss keeps it failed.
    func testThirtyPercentLossFailsAndRecoveryNeedsTheLowerThreshold() {
        var quality = tracker()
        let changes = feed(&quality, rounds: 0..<60) { $0 % 10 < 3 }
        XCTAssertEqual(quality.level, .failed, "\(changes) \(quality.summary)")
        _ = feed(&quality, rounds: 60..<300) { $0 % 20 < 3 }     // 15 %: under failure, over recovery
        XCTAssertEqual(quality.level, .failed, "15 % is not a recovery")
        _ = feed(&quality, rounds: 300..<400)
        XCTAssertEqual(quality.level, .good)
    }

    /// A one-second median fails without waiting for a full window, once five answered.
    func testOneSecondLatencyFailsOnceFiveAnswered() {
        var quality = tracker()
        let changes = feed(&quality, rounds: 0..<7, rtt: 1000)
        XCTAssertEqual(quality.level, .failed)
        XCTAssertEqual(changes.last, .failed)
        _ = feed(&quality, rounds: 7..<100, rtt: 600)
        XCTAssertEqual(quality.level, .failed, "600 ms is over the 500 ms recovery latency")
    }

    func testClearingKeepsTheLevel() {
        var quality = tracker()
        _ = feed(&quality, rounds: 0..<7, rtt: 1000)
        quality.clearSamples()
        XCTAssertEqual(quality.level, .failed)
        XCTAssertEqual(quality.summary.samples, 0)
    }
}

final class UplinkHealthTests: XCTestCase {
    private func at(_ seconds: Int) -> MonotonicInstant { MonotonicInstant(nanoseconds: UInt64(seconds) * 1_000_000_000 + 1) }

    /// The order of the facts: the link first, then quality, then what the checks found.
    func testTheWorstFactDecides() {
        var findings = UplinkFindings()
        XCTAssertEqual(UplinkFacts().verdict, .healthy)
        XCTAssertEqual(UplinkFacts(quality: .degraded).verdict, .degraded)
        findings.partial = true
        XCTAssertEqual(UplinkFacts(findings: findings).verdict, .partial)
        findings.pathMTUBlackHole = true
        XCTAssertEqual(UplinkFacts(findings: findings).verdict, .pathMTUBlackHole)
        findings.dnsFailing = true
        XCTAssertEqual(UplinkFacts(findings: findings).verdict, .dnsFailing)
        findings.dnsHijacked = true
        XCTAssertEqual(UplinkFacts(findings: findings).verdict, .dnsHijacked)
        findings.captive = true
        XCTAssertEqual(UplinkFacts(findings: findings).verdict, .captive)
        XCTAssertEqual(UplinkFacts(quality: .failed, findings: findings).verdict, .unusable)
        XCTAssertEqual(UplinkFacts(state: .connecting, quality: .failed).verdict, .down)
        XCTAssertEqual(UplinkFacts(state: .disconnecting).verdict, .healthy, "disconnecting is still usable, as mwan3's")
        XCTAssertEqual(UplinkFacts(carrier: false).verdict, .down)
        XCTAssertEqual(UplinkFacts(neighbourFailed: true).verdict, .down)
        XCTAssertEqual(Set(UplinkVerdict.allCases.filter(\.isUsable)), [.healthy, .degraded, .partial])
    }

    /// Flapping every two seconds for ten minutes: three failovers, then held
    /// (scenario 13); a quiet minute ends the hold.
    func testFlappingIsDampedToTheLimitAndAQuietWindowEndsIt() {
        var health = UplinkHealth(flapLimit: 3, flapWindow: .seconds(60))
        var verdicts: [UplinkVerdict] = []
        for second in stride(from: 0, to: 600, by: 2) {
            let facts = UplinkFacts(carrier: (second / 2) % 2 == 0)
            if let verdict = health.update(facts, now: at(second)) { verdicts.append(verdict) }
        }
        XCTAssertEqual(health.failoverCount, 3, "\(verdicts)")
        XCTAssertEqual(health.verdict, .flapping)
        XCTAssertEqual(verdicts, [.down, .healthy, .down, .healthy, .flapping])
        XCTAssertNil(health.update(UplinkFacts(), now: at(630)), "still held: the last failure was at 598")
        XCTAssertEqual(health.update(UplinkFacts(), now: at(660)), .healthy)
        XCTAssertEqual(health.update(UplinkFacts(carrier: false), now: at(661)), .down, "a fresh window")
    }

    func testFailoversFartherApartThanTheWindowAreNotFlapping() {
        var health = UplinkHealth(flapLimit: 3, flapWindow: .seconds(60))
        for minute in 0..<10 {
            health.update(UplinkFacts(carrier: false), now: at(minute * 61))
            health.update(UplinkFacts(), now: at(minute * 61 + 1))
        }
        XCTAssertEqual(health.failoverCount, 10)
        XCTAssertEqual(health.verdict, .healthy)
    }

    func testNoDampingWithALimitOfZero() {
        var health = UplinkHealth(flapLimit: 0)
        for second in 0..<100 { health.update(UplinkFacts(carrier: second % 2 == 0), now: at(second)) }
        XCTAssertEqual(health.failoverCount, 50)
        XCTAssertNotEqual(health.verdict, .flapping)
    }

    func testTheKernelTakesTheScoreOfflineAtOnce() {
        var score = TrackerScore(down: 3, up: 3, initial: .online)
        XCTAssertEqual(score.forceOffline(), .offline)
        XCTAssertEqual(score.score, 0)
        XCTAssertNil(score.forceOffline())
        score.record(roundSucceeded: true)
        XCTAssertEqual(score.state, .connecting, "coming back takes up good rounds")
    }
}

/// A small deterministic generator (the tests' own; no Foundation).
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension UplinkQualityTests {
    /// Degraded has hysteresis too: a median that wobbles around the
    /// threshold (231 ms, then 162 ms, as the kernel lane saw at the start of
    /// row 5) does not flip the verdict each round; 150 ms (three quarters) does.
    func testDegradedLatencyHasHysteresis() {
        var quality = QualityTracker(thresholds: UplinkQuality(), down: 3, up: 3)
        for _ in 0..<5 { quality.record(roundTrip: .milliseconds(231)) }
        quality.evaluate()
        XCTAssertEqual(quality.level, .degraded)
        for _ in 0..<6 { quality.record(roundTrip: .milliseconds(162)) }
        quality.evaluate()
        XCTAssertEqual(quality.summary.medianLatency, .milliseconds(162))
        XCTAssertEqual(quality.level, .degraded, "162 ms is under 200 but over 150")
        for _ in 0..<20 { quality.record(roundTrip: .milliseconds(20)) }
        quality.evaluate()
        XCTAssertEqual(quality.level, .good)
    }
}

final class ProbeResultVerdictTests: XCTestCase {
    /// A validation probe read in the tracker's words: what one probe can say.
    func testOneProbesOutcomeAsAnUplinkVerdict() {
        let address = IPAddress("192.0.2.1")!
        func verdict(_ method: ProbeMethod, _ outcome: ProbeOutcome) -> UplinkVerdict? {
            ProbeResult(address: address, method: method, transport: .tcpConnect, fallbackReason: nil, port: nil,
                        outcome: outcome, httpStatus: nil, roundTrip: nil, resolvedAddress: nil,
                        ignoredDatagrams: 0).uplinkVerdict
        }
        let http = ProbeMethod.http(HTTPProbeURL(host: nil, port: 80, path: "/generate_204"))
        let dns = ProbeMethod.dns(name: "check.test", type: .a)
        XCTAssertEqual(verdict(http, .answered), .healthy)
        XCTAssertEqual(verdict(http, .captivePortal(status: 302, location: nil)), .captive)
        XCTAssertEqual(verdict(http, .unexpectedStatus(503)), .partial)
        XCTAssertEqual(verdict(.tcp(port: 443), .refused), .partial)
        XCTAssertEqual(verdict(.icmp, .refused), .healthy, "the TCP fallback's reset: the host is there")
        XCTAssertEqual(verdict(.icmp, .timedOut), .down)
        XCTAssertEqual(verdict(.icmp, .unreachable(SystemErrno(rawValue: 113))), .down)
        XCTAssertEqual(verdict(dns, .noAddress(rcode: 2)), .dnsFailing)
        XCTAssertEqual(verdict(dns, .timedOut), .dnsFailing)
        XCTAssertNil(verdict(.icmp, .canceled))
    }
}
