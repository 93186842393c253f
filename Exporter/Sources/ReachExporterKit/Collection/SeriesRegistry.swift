/// The exporter's one registry: its collectors (the monitor and trackers'
/// series, the push's own), asked in order at each snapshot. `/metrics`,
/// the status page and remote write all read its snapshots, as
/// node_exporter's outputs read its one registry.
package final class SeriesRegistry: SeriesSource {
    private let collectors: [any SeriesCollector]

    package init(_ collectors: [any SeriesCollector]) {
        self.collectors = collectors
    }

    package func snapshot() -> SeriesSnapshot {
        var snapshot = SeriesSnapshot(timestamp: WallClock.unixMilliseconds())
        for collector in collectors { collector.collect(into: &snapshot) }
        return snapshot
    }
}
