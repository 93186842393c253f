// Snapshots for the exporter's unit tests: one made of given families, and
// the text /metrics would serve for a collector's.

@testable import ReachExporterKit

/// A snapshot of `families` (one part), taken at `timestamp` (ms).
func snapshot(_ families: [MetricFamily], at timestamp: Int64 = 0) -> SeriesSnapshot {
    var snapshot = SeriesSnapshot(timestamp: timestamp)
    snapshot.append(families)
    return snapshot
}

/// A family of one unlabelled gauge per name: `names[i]` at `i`.
func gauges(_ names: [String]) -> [MetricFamily] {
    names.enumerated().map { index, name in
        MetricFamily(name: name, help: "", kind: .gauge, samples: [Sample(labels: [], value: .double(Double(index)))])
    }
}

/// The exposition of a snapshot of `collector`, as text.
func exposition(_ collector: any SeriesCollector) -> String {
    String(decoding: SeriesRegistry([collector]).snapshot().exposition(), as: UTF8.self)
}

/// A fixed state as the exporter's families hold it: a one-hot gauge whose
/// label value needs every escape, a counter, a histogram of round trips and
/// a NaN gauge. The exposition tests and remote write's read the same one.
func fixedFamilies() -> [MetricFamily] {
    [
        MetricFamily(name: "reach_target_status", help: "1 for the target's current status, 0 for the others.", kind: .gauge, samples: [
            Sample(labels: [SeriesLabel("target", "gw\"x\\y\nz"), SeriesLabel("status", "reachable.wired")], value: .double(1)),
            Sample(labels: [SeriesLabel("target", "internet"), SeriesLabel("status", "notReachable")], value: .double(0)),
        ]),
        MetricFamily(name: "reach_monitor_events_total", help: "Netlink notifications the monitor read.", kind: .counter,
                     samples: [Sample(labels: [], value: .integer(42))]),
        MetricFamily(name: "reach_probe_rtt_seconds", help: "Round trip of each answered probe through the uplink.", kind: .histogram, samples: [
            Sample(suffix: "_bucket", labels: [SeriesLabel("interface", "wan0"), SeriesLabel("le", "0.0025")], value: .integer(1)),
            Sample(suffix: "_bucket", labels: [SeriesLabel("interface", "wan0"), SeriesLabel("le", "+Inf")], value: .integer(2)),
            Sample(suffix: "_sum", labels: [SeriesLabel("interface", "wan0")], value: .seconds(.microseconds(3750))),
            Sample(suffix: "_count", labels: [SeriesLabel("interface", "wan0")], value: .integer(2)),
        ]),
        MetricFamily(name: "reach_modem_signal_quality_percent", help: "The modem's signal quality (0-100) as ModemManager last read it; NaN before.",
                     kind: .gauge, samples: [Sample(labels: [SeriesLabel("modem", "0"), SeriesLabel("interface", "")], value: .double(.nan))]),
    ]
}
