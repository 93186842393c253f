import Synchronization

/// Every series of one collection, with what the status page shows beside
/// them, taken at one moment: what `/metrics` renders, what the status page
/// reads and what remote write pushes. ``SeriesRegistry/snapshot()`` makes
/// it, each collector filling in its part (``SeriesCollector``).
///
/// A part that a collector marks with a ``Version`` holds the same families
/// for as long as its version stays, so that an output may keep what it made
/// of them (``ExpositionCache`` keeps the text of the state series until the
/// next change).
package struct SeriesSnapshot: Sendable {
    /// When it was collected: milliseconds since the Unix epoch (remote write's sample time).
    var timestamp: Int64
    /// The collectors' parts, in the registry's order.
    private(set) var parts: [Part] = []
    /// The targets, uplinks and modems as the status page shows them: facts
    /// the series do not carry (interfaces, the last changes), recorded with them.
    var status = StatusSnapshot(started: 0, targets: [], uplinks: [])
    /// Each remote_write receiver's queue and last outcome (none configured: empty).
    var remotes: [RemoteWriteStatus] = []

    /// One collector's families, and its version when it has one.
    struct Part: Sendable {
        var version: Version?
        var families: [MetricFamily]
    }

    /// Identifies a part's families: the same `source` and `generation`, the same families.
    struct Version: Hashable, Sendable {
        /// The collector, unique in the process (``SeriesSnapshot/newSource()``).
        var source: UInt64
        /// Bumped by every change of the collector's families.
        var generation: UInt64
    }

    init(timestamp: Int64) {
        self.timestamp = timestamp
    }

    /// Every family, in order.
    var families: [MetricFamily] { parts.flatMap(\.families) }

    /// Adds a collector's families (`version`: see ``Version``).
    mutating func append(_ families: [MetricFamily], version: Version? = nil) {
        parts.append(Part(version: version, families: families))
    }

    /// A number for a collector's ``Version/source``, never handed out before in this process.
    static func newSource() -> UInt64 {
        sources.add(1, ordering: .relaxed).newValue
    }
}

/// The last ``SeriesSnapshot/Version/source`` handed out.
private let sources = Atomic<UInt64>(0)
