// The text /metrics serves, written from a snapshot: a fixed state's exact
// bytes (the forms Prometheus and the fleet tests read), and the state
// series' text kept from one scrape to the next until a change.

import NIOCore
@testable import ReachExporterKit
@testable import ReachabilityCore
import XCTest

final class ExpositionTests: XCTestCase {
    /// Each family's HELP and TYPE, then its samples in order: labels in the
    /// order given, values escaped (`\"`, `\\`, `\n`); gauges as Swift writes
    /// a double, counts as integers, a sum of durations in seconds.
    func testAFixedSnapshotRendersExactly() {
        let text = String(decoding: snapshot(fixedFamilies()).exposition(), as: UTF8.self)
        XCTAssertEqual(text, #"""
            # HELP reach_target_status 1 for the target's current status, 0 for the others.
            # TYPE reach_target_status gauge
            reach_target_status{target="gw\"x\\y\nz",status="reachable.wired"} 1.0
            reach_target_status{target="internet",status="notReachable"} 0.0
            # HELP reach_monitor_events_total Netlink notifications the monitor read.
            # TYPE reach_monitor_events_total counter
            reach_monitor_events_total 42
            # HELP reach_probe_rtt_seconds Round trip of each answered probe through the uplink.
            # TYPE reach_probe_rtt_seconds histogram
            reach_probe_rtt_seconds_bucket{interface="wan0",le="0.0025"} 1
            reach_probe_rtt_seconds_bucket{interface="wan0",le="+Inf"} 2
            reach_probe_rtt_seconds_sum{interface="wan0"} 0.00375
            reach_probe_rtt_seconds_count{interface="wan0"} 2
            # HELP reach_modem_signal_quality_percent The modem's signal quality (0-100) as ModemManager last read it; NaN before.
            # TYPE reach_modem_signal_quality_percent gauge
            reach_modem_signal_quality_percent{modem="0",interface=""} nan

            """#)
    }

    /// A sum of durations is written to its last non-zero digit, whole seconds with ".0".
    func testDurationsAreWrittenInSeconds() {
        XCTAssertEqual(SampleValue.seconds(.zero).text, "0.0")
        XCTAssertEqual(SampleValue.seconds(.seconds(3)).text, "3.0")
        XCTAssertEqual(SampleValue.seconds(.microseconds(2500)).text, "0.0025")
        XCTAssertEqual(SampleValue.seconds(.nanoseconds(5_508_284_001)).text, "5.508284001")
        XCTAssertEqual(ExporterMetrics.rttBuckets.map { SampleValue.seconds($0).text },
                       ["0.001", "0.0025", "0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5", "1.0", "2.5"])
    }

    /// The state series' text is written once per change: two scrapes with
    /// no change between them share it (the same storage), and a change
    /// writes it again, with the change in it.
    func testTheStateSeriesTextIsKeptUntilAChange() {
        let target = Target.address(IPAddress("10.1.0.7")!)
        let metrics = ExporterMetrics(targets: [target], uplinks: [], version: "test")
        let registry = SeriesRegistry([metrics]), cache = ExpositionCache()
        func address(_ buffer: ByteBuffer) -> UnsafeRawPointer? { buffer.withUnsafeReadableBytes { $0.baseAddress } }
        let first = cache.exposition(of: registry.snapshot()), second = cache.exposition(of: registry.snapshot())
        XCTAssertEqual(first.count, 2, "the state series, then the counters")
        XCTAssertEqual(address(first[0]), address(second[0]), "no change: the same text")
        XCTAssertEqual(first[0], second[0])
        metrics.record(wiredChange(target, reachable: true, initial: true, interface: "eth0"))
        let third = cache.exposition(of: registry.snapshot())
        XCTAssertNotEqual(address(first[0]), address(third[0]))
        let text = third[0].getString(at: third[0].readerIndex, length: third[0].readableBytes) ?? ""
        XCTAssertTrue(text.contains("reach_target_reachable{target=\"10.1.0.7\"} 1.0\n"), text)
        XCTAssertEqual(String(buffer: third[0]) + String(buffer: third[1]), exposition(metrics))
    }
}
