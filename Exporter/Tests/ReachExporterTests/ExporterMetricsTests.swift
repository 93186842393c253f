// ExporterMetrics in process: what a scrape renders while the monitor's and
// the trackers' callbacks record new states on other threads.

import Dispatch
@testable import reach_exporter
@testable import ReachabilityCore
import Synchronization
import XCTest

final class ExporterMetricsTests: XCTestCase {
    let target = Target.address(IPAddress("10.1.0.7")!)

    /// A wired answer (reachable, accessible) or none (not reachable).
    func change(reachable: Bool) -> ReachabilityChange {
        let link = LinkState(index: 3, name: "eth0", rawFlags: LinkFlags([.up, .lowerUp]).rawValue, operState: .up,
                             hardwareType: 1, carrier: true)
        let route = reachable
            ? RouteLookup(verdict: .unicast, family: .v4, interfaceIndex: link.index)
            : RouteLookup(verdict: .unreachable, family: .v4, errno: .hostUnreachable)
        let address = AddressEvaluation(address: IPAddress("10.1.0.7")!, kernelFlags: reachable ? .reachable : [],
                                        route: route, link: reachable ? link : nil,
                                        kind: reachable ? .wired : nil, policy: ReachabilityPolicy(), radio: nil)
        return ReachabilityChange(target: target, evaluation: TargetEvaluation(target: target, addresses: [address]),
                                  previous: nil, isInitial: false, time: MonotonicInstant(nanoseconds: 0))
    }

    func event(_ state: UplinkState) -> TrackerEvent {
        TrackerEvent(interface: "wan0", state: state, previous: state == .online ? .offline : .online,
                     score: state == .online ? 5 : 0, round: 1, results: [], error: nil, time: MonotonicInstant(nanoseconds: 0))
    }

    /// How many series of `family` are at 1 in an exposition.
    func ones(_ family: String, in text: Substring) -> Int {
        text.split(separator: "\n").count { $0.hasPrefix(family + "{") && $0.hasSuffix(" 1.0") }
    }

    /// A state family is one-hot in every scrape: exactly one status, one
    /// accessibility, one uplink state at 1, never two (the old one not yet
    /// cleared) and never none (the new one not yet set), however the
    /// rendering interleaves with the updates.
    func testEveryScrapeHasExactlyOneStateAtOneWhileStatesChange() throws {
        let metrics = ExporterMetrics(targets: [target], uplinks: ["wan0"], version: "test")
        let (up, down) = (change(reachable: true), change(reachable: false))
        let (online, offline) = (event(.online), event(.offline))
        XCTAssertNotEqual(up.status, down.status)
        XCTAssertNotEqual(up.evaluation.accessibility, down.evaluation.accessibility)
        let done = Atomic<Bool>(false)
        let recorded = Atomic<Int>(0)
        let writer = DispatchGroup()
        DispatchQueue.global().async(group: writer) {
            while !done.load(ordering: .relaxed) {
                metrics.record(up)
                metrics.record(state: online)
                metrics.record(down)
                metrics.record(state: offline)
                recorded.add(1, ordering: .relaxed)
            }
        }
        while recorded.load(ordering: .relaxed) == 0 { sched_yield() }

        let scrapes = 2_000
        var torn: [String] = []
        for _ in 0 ..< scrapes {
            let (state, _) = metrics.render()
            let text = Substring(state.getString(at: state.readerIndex, length: state.readableBytes) ?? "")
            let counts = ["reach_target_status", "reach_target_accessibility", "reach_uplink_state"].map { ones($0, in: text) }
            if counts != [1, 1, 1] { torn.append("\(counts)") }
        }
        done.store(true, ordering: .relaxed)
        writer.wait()
        XCTAssertEqual(torn.count, 0, "\(torn.count) of \(scrapes) scrapes not one-hot ([status, accessibility, uplink state] at 1: \(torn.prefix(5)))")
        print("ExporterMetricsTests: \(scrapes) scrapes during \(recorded.load(ordering: .relaxed)) flaps, \(torn.count) not one-hot")
    }
}
