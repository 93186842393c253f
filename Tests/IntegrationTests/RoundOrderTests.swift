import Synchronization
import XCTest
@testable import ReachabilityCore
@testable import ReachabilityKernel
import ReachabilityTesting

/// What a monitor's round reads in which order, on a simulated network (the
/// same evaluation code as on a kernel; the hook stands between two reads).
final class RoundOrderTests: XCTestCase {
    /// A round reads the path facts, then its targets' answers: a link that
    /// came up in between (here: plugged in by the hook, at that moment) is in
    /// the answer but not in the facts. Published so, the change would say
    /// "reachable over eth0" with no interface available (CLITests saw it on
    /// a veth pair under load); the facts are read again first (issue 41).
    func testFactsReadBeforeALinkCameUpAreReadAgain() async throws {
        let net = SimulatedNetwork()
        let wired = net.uplink("eth0", .wired)
        let wifi = net.uplink("wlan0", .wifi)
        wired.unplug()
        let target = try Target(parsing: "10.1.0.7")
        let monitor = try ReachabilityMonitor(targets: [target], namespace: net.namespace)
        let published = Mutex<[TargetEvaluation]>([])
        monitor.onChange { change in published.withLock { $0.append(change.evaluation) } }
        try monitor.start()
        await net.settled()
        XCTAssertEqual(monitor.currentEvaluations.first?.isReachable, false)
        let plugged = Mutex(false)
        MonitorLoop.pathFactsHook = { _ in
            guard !plugged.withLock({ $0 }) else { return }
            plugged.withLock { $0 = true }
            wired.plugIn()
        }
        defer { MonitorLoop.pathFactsHook = nil }
        wifi.unplug()   // a link's change: the round reads the path facts first
        await net.settled()
        XCTAssertTrue(plugged.withLock { $0 })
        let answer = try XCTUnwrap(monitor.currentEvaluations.first)
        XCTAssertTrue(answer.isReachable)
        XCTAssertEqual(answer.primary?.link?.name, "eth0")
        XCTAssertEqual(answer.availableInterfaces.map(\.name), ["eth0"])
        // Every change published over eth0 lists eth0 among the interfaces.
        let overEth0 = published.withLock { $0 }.filter { $0.primary?.link?.name == "eth0" && $0.isReachable }
        XCTAssertFalse(overEth0.isEmpty)
        for evaluation in overEth0 {
            XCTAssertEqual(evaluation.availableInterfaces.map(\.name), ["eth0"], "published: \(evaluation.availableInterfaces)")
        }
        monitor.stop()
        try await net.finish()
    }
}
