/// The exporter's series: the monitor's counters and ModemManager's dropped
/// properties brought up to date, then everything `metrics` holds.
extension Exporter: SeriesCollector {
    package func collect(into snapshot: inout SeriesSnapshot) {
        metrics.record(monitor.counters)
        if configuration.modemManager { metrics.record(modemManagerDropped: radio.counters.dropped) }
        metrics.collect(into: &snapshot)
    }
}
