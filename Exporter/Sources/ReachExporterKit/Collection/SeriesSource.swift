/// Where an output takes its snapshots from (``SeriesRegistry``).
package protocol SeriesSource: Sendable {
    /// Every series, collected now.
    func snapshot() -> SeriesSnapshot
}
