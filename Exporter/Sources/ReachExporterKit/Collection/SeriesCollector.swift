/// Something that has series: at each collection it adds its families (and
/// what the status page shows of it) to the snapshot being made, as they are
/// at that moment. A collector brings up to date, there, whatever it keeps
/// as running totals elsewhere (the monitor's counters), so that nothing has
/// to be refreshed from outside before a snapshot.
package protocol SeriesCollector: Sendable {
    func collect(into snapshot: inout SeriesSnapshot)
}
