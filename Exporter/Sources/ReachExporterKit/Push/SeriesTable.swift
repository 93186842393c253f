import Synchronization

/// The exporter's series as remote write sends them: each distinct series of
/// a snapshot (the same snapshot /metrics renders, so that what is pushed is
/// what a scrape would have read) gets a number and its labels, encoded
/// once, with the configuration's external labels added (a series' own label
/// of the same name wins, as in Prometheus).
///
/// A series that leaves the snapshot (a modem re-probed under a new index
/// takes its forty series with it) gets Prometheus' stale marker once, as a
/// scrape's would, and is forgotten: its number is given to a new series
/// once no queue holds a sample of it, so that label churn does not grow
/// the table for the life of the process.
struct SeriesTable {
    /// A series: its name (the family's, with a histogram's suffix) and its labels.
    struct Key: Hashable {
        var name: String
        var labels: [SeriesLabel]
    }

    /// Each number's labels, encoded (empty for a number not in use).
    private(set) var encodedLabels: [[UInt8]] = []
    private var numbers: [Key: UInt32] = [:]
    private let externalLabels: [(name: String, value: String)]
    /// The round in which each number was last in a snapshot.
    private var lastSeen: [UInt64] = []
    private var round: UInt64 = 0
    /// Series of this round's snapshot, each once.
    private var seen = 0
    /// Numbers of series that left, and the time of their stale marker.
    private var retired: [(number: UInt32, timestamp: Int64)] = []
    /// Numbers free for new series.
    private var free: [UInt32] = []

    /// Prometheus' stale marker (its `value.StaleNaN`): a NaN of its own.
    static let staleMarker = Double(bitPattern: 0x7FF0_0000_0000_0002)

    init(externalLabels: [(name: String, value: String)]) {
        self.externalLabels = externalLabels
    }

    /// Series numbers held: those in the last snapshot and those that left
    /// while a queue may still hold a sample of them.
    var count: Int { encodedLabels.count - free.count }

    /// Every sample of `snapshot`, numbered, then a stale marker for each
    /// series that was in the last round and is not in this one (taken at
    /// the snapshot's time). Numbers of series that left before
    /// `oldestQueued` (the oldest sample any queue holds; nil: none) are
    /// given back first.
    mutating func samples(of snapshot: SeriesSnapshot, oldestQueued: Int64? = nil) -> [(series: UInt32, value: Double)] {
        if !retired.isEmpty {
            var kept: [(number: UInt32, timestamp: Int64)] = []
            for entry in retired {
                if let oldestQueued, oldestQueued <= entry.timestamp {
                    kept.append(entry)   // a queue may still hold its stale marker
                } else {
                    encodedLabels[Int(entry.number)] = []
                    free.append(entry.number)
                }
            }
            retired = kept
        }
        round += 1
        seen = 0
        var samples: [(series: UInt32, value: Double)] = []
        for part in snapshot.parts {
            for family in part.families {
                for sample in family.samples {
                    samples.append((number(Key(name: sample.name(in: family), labels: sample.labels)), sample.value.double))
                }
            }
        }
        if seen < numbers.count {   // some series of the last round are not in this one
            var gone: [Key] = []
            for (key, number) in numbers where lastSeen[Int(number)] != round { gone.append(key) }
            for key in gone {
                guard let number = numbers.removeValue(forKey: key) else { continue }
                samples.append((number, Self.staleMarker))
                retired.append((number, snapshot.timestamp))
            }
        }
        return samples
    }

    /// The series' number, made on first sight with its encoded labels.
    private mutating func number(_ key: Key) -> UInt32 {
        if let number = numbers[key] {
            if lastSeen[Int(number)] != round { lastSeen[Int(number)] = round; seen += 1 }
            return number
        }
        var labels = [(name: "__name__", value: key.name)] + key.labels.map { (name: $0.name, value: $0.value) }
        for external in externalLabels where !labels.contains(where: { $0.name == external.name }) { labels.append(external) }
        let number: UInt32
        if let reused = free.popLast() {
            number = reused
            encodedLabels[Int(number)] = WriteRequest.encodedLabels(labels)
            lastSeen[Int(number)] = round
        } else {
            number = UInt32(encodedLabels.count)
            encodedLabels.append(WriteRequest.encodedLabels(labels))
            lastSeen.append(round)
        }
        numbers[key] = number
        seen += 1
        return number
    }
}

/// The series numbers and labels, shared by the sampler and every writer.
final class SharedSeriesTable: Sendable {
    let table: Mutex<SeriesTable>
    init(_ table: SeriesTable) { self.table = Mutex(table) }
}
