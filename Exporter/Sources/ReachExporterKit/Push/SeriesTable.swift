import Synchronization

/// The exporter's series as remote write sends them: each distinct series of
/// the text exposition (the same text /metrics serves, so that what is pushed
/// is what a scrape would have read) gets a number and its labels, encoded
/// once, with the configuration's external labels added (a series' own label
/// of the same name wins, as in Prometheus).
///
/// A series that leaves the exposition (a modem re-probed under a new index
/// takes its forty series with it) gets Prometheus' stale marker once, as a
/// scrape's would, and is forgotten: its number is given to a new series
/// once no queue holds a sample of it, so that label churn does not grow
/// the table for the life of the process.
struct SeriesTable {
    /// Each number's labels, encoded (empty for a number not in use).
    private(set) var encodedLabels: [[UInt8]] = []
    private var numbers: [String: UInt32] = [:]
    private let externalLabels: [(name: String, value: String)]
    /// Lines of the exposition that were not a sample (counted, not sent).
    private(set) var malformed = 0
    /// The round in which each number was last in the exposition.
    private var lastSeen: [UInt64] = []
    private var round: UInt64 = 0
    /// Numbers of series that left, and the time of their stale marker.
    private var retired: [(number: UInt32, timestamp: Int64)] = []
    /// Numbers free for new series.
    private var free: [UInt32] = []

    /// Prometheus' stale marker (its `value.StaleNaN`): a NaN of its own.
    static let staleMarker = Double(bitPattern: 0x7FF0_0000_0000_0002)

    init(externalLabels: [(name: String, value: String)]) {
        self.externalLabels = externalLabels
    }

    /// Series numbers held: those in the exposition and those that left
    /// while a queue may still hold a sample of them.
    var count: Int { encodedLabels.count - free.count }

    /// Every sample of `exposition` (text format 0.0.4), numbered, then a
    /// stale marker for each series that was in the last round and is not in
    /// this one (taken at `timestamp`). Numbers of series that left before
    /// `oldestQueued` (the oldest sample any queue holds; nil: none) are
    /// given back first.
    mutating func samples(of exposition: [UInt8], at timestamp: Int64 = 0,
                          oldestQueued: Int64? = nil) -> [(series: UInt32, value: Double)] {
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
        var samples = parse(exposition)
        if seen < numbers.count {   // some series of the last round are not in this one
            var gone: [String] = []
            for (key, number) in numbers where lastSeen[Int(number)] != round { gone.append(key) }
            for key in gone {
                guard let number = numbers.removeValue(forKey: key) else { continue }
                samples.append((number, Self.staleMarker))
                retired.append((number, timestamp))
            }
        }
        return samples
    }

    /// Series of this round's exposition, each once.
    private var seen = 0

    private mutating func parse(_ exposition: [UInt8]) -> [(series: UInt32, value: Double)] {
        var samples: [(series: UInt32, value: Double)] = []
        var lineStart = 0
        while lineStart < exposition.count {
            var lineEnd = lineStart
            while lineEnd < exposition.count, exposition[lineEnd] != UInt8(ascii: "\n") { lineEnd += 1 }
            if lineEnd > lineStart, exposition[lineStart] != UInt8(ascii: "#") {
                if let sample = sample(exposition[lineStart ..< lineEnd]) { samples.append(sample) } else { malformed += 1 }
            }
            lineStart = lineEnd + 1
        }
        return samples
    }

    /// `name{label="value",...} value`: the series' number (made on first
    /// sight) and the value; nil for a line that is not one.
    private mutating func sample(_ line: ArraySlice<UInt8>) -> (series: UInt32, value: Double)? {
        // The series is everything before the space that follows the name or the closing brace.
        var index = line.startIndex
        var inQuotes = false, inBraces = false
        while index < line.endIndex {
            let byte = line[index]
            if inQuotes {
                if byte == UInt8(ascii: "\\") { index += 1 } else if byte == UInt8(ascii: "\"") { inQuotes = false }
            } else if byte == UInt8(ascii: "\"") {
                inQuotes = true
            } else if byte == UInt8(ascii: "{") {
                inBraces = true
            } else if byte == UInt8(ascii: "}") {
                inBraces = false
            } else if byte == UInt8(ascii: " ") && !inBraces {
                break
            }
            index += 1
        }
        guard index < line.endIndex else { return nil }
        let key = String(decoding: line[line.startIndex ..< index], as: UTF8.self)
        let valueText = line[(index + 1)...].prefix { $0 != UInt8(ascii: " ") }
        guard let value = Double(String(decoding: valueText, as: UTF8.self)) else { return nil }
        if let number = numbers[key] {
            if lastSeen[Int(number)] != round { lastSeen[Int(number)] = round; seen += 1 }
            return (number, value)
        }
        guard let labels = Self.labels(of: line[line.startIndex ..< index]) else { return nil }
        var all = labels
        for external in externalLabels where !all.contains(where: { $0.name == external.name }) { all.append(external) }
        let number: UInt32
        if let reused = free.popLast() {
            number = reused
            encodedLabels[Int(number)] = WriteRequest.encodedLabels(all)
            lastSeen[Int(number)] = round
        } else {
            number = UInt32(encodedLabels.count)
            encodedLabels.append(WriteRequest.encodedLabels(all))
            lastSeen.append(round)
        }
        numbers[key] = number
        seen += 1
        return (number, value)
    }

    /// `__name__` and the labels of `name{a="x",b="y"}`, the values unescaped.
    static func labels(of series: ArraySlice<UInt8>) -> [(name: String, value: String)]? {
        guard let open = series.firstIndex(of: UInt8(ascii: "{")) else {
            return series.isEmpty ? nil : [("__name__", String(decoding: series, as: UTF8.self))]
        }
        var labels = [(name: String, value: String)(("__name__", String(decoding: series[..<open], as: UTF8.self)))]
        var index = open + 1
        while index < series.endIndex, series[index] != UInt8(ascii: "}") {
            if series[index] == UInt8(ascii: ",") { index += 1; continue }
            guard let equals = series[index...].firstIndex(of: UInt8(ascii: "=")), equals + 1 < series.endIndex,
                  series[equals + 1] == UInt8(ascii: "\"") else { return nil }
            let name = String(decoding: series[index ..< equals], as: UTF8.self)
            var value: [UInt8] = []
            index = equals + 2
            while index < series.endIndex, series[index] != UInt8(ascii: "\"") {
                if series[index] == UInt8(ascii: "\\"), index + 1 < series.endIndex {
                    index += 1
                    value.append(series[index] == UInt8(ascii: "n") ? UInt8(ascii: "\n") : series[index])
                } else {
                    value.append(series[index])
                }
                index += 1
            }
            guard index < series.endIndex else { return nil }
            labels.append((name, String(decoding: value, as: UTF8.self)))
            index += 1
        }
        return labels
    }
}

/// The series numbers and labels, shared by the sampler and every writer.
final class SharedSeriesTable: Sendable {
    let table: Mutex<SeriesTable>
    init(_ table: SeriesTable) { self.table = Mutex(table) }
}
