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

/// One receiver's samples waiting to be sent, oldest first, bounded by count
/// (the oldest dropped beyond `capacity`) and by age (`sampleAgeLimit`).
/// A ring of 24-byte entries: 50,000 samples (the default) are 1.2 MB.
///
/// Each sample has a sequence number (the oldest's is `headSequence`, the
/// next ones follow), so that the answer to a batch removes that batch and
/// nothing else: while a batch is in flight, appends to a full queue may
/// push its samples out (they are counted when the answer says what became
/// of them: delivered, rejected, or lost), and newer samples, never sent,
/// stay.
struct SampleQueue {
    struct Sample {
        var series: UInt32
        var timestamp: Int64   // ms since the Unix epoch
        var value: Double
    }

    let capacity: Int
    private var ring: [Sample] = []
    private var head = 0
    private(set) var count = 0
    /// The sequence number of the oldest sample.
    private(set) var headSequence: UInt64 = 0
    /// The sequence numbers of the batch `take` handed out, until `finish`.
    private var inFlight: Range<UInt64>?
    /// Samples of the batch in flight that appends pushed out of the queue.
    private(set) var overtaken = 0

    init(capacity: Int) { self.capacity = capacity }

    var isEmpty: Bool { count == 0 }
    var oldestTimestamp: Int64? { count == 0 ? nil : ring[head].timestamp }

    /// Appends `samples` taken at `timestamp`; returns how many of the oldest
    /// were dropped to make room (not counting samples of the batch in
    /// flight: `overtaken` counts those, and `finish` says what they became).
    mutating func append(_ samples: [(series: UInt32, value: Double)], at timestamp: Int64) -> Int {
        var dropped = 0
        for sample in samples {
            if count == capacity {
                if inFlight?.contains(headSequence) == true { overtaken += 1 } else { dropped += 1 }
                removeFirst(1)
            }
            let entry = Sample(series: sample.series, timestamp: timestamp, value: sample.value)
            if count < ring.count {
                ring[(head + count) % ring.count] = entry
            } else {   // every slot holds a sample, and there are fewer than capacity: grow
                if head != 0 { ring = first(count); head = 0 }
                ring.append(entry)
            }
            count += 1
        }
        return dropped
    }

    /// The oldest `limit` samples (at most), oldest first.
    func first(_ limit: Int) -> [Sample] {
        (0 ..< min(limit, count)).map { ring[(head + $0) % ring.count] }
    }

    /// The oldest `limit` samples (at most), oldest first, as the batch in
    /// flight until `finish`.
    mutating func take(_ limit: Int) -> [Sample] {
        let batch = first(limit)
        inFlight = headSequence ..< headSequence + UInt64(batch.count)
        overtaken = 0
        return batch
    }

    /// The answer to the batch in flight: its samples still queued leave when
    /// `removing` (delivered or rejected), stay when not (to be sent again).
    /// Returns how many were still queued and how many appends had pushed
    /// out meanwhile (`left + overtaken` is the batch's size).
    mutating func finish(removing: Bool) -> (left: Int, overtaken: Int) {
        guard let batch = inFlight else { return (0, 0) }
        inFlight = nil
        let left = batch.upperBound > headSequence ? Int(batch.upperBound - max(batch.lowerBound, headSequence)) : 0
        if removing { removeFirst(left) }
        let pushedOut = overtaken
        overtaken = 0
        return (left, pushedOut)
    }

    mutating func removeFirst(_ n: Int) {
        let n = min(n, count)
        head = ring.isEmpty ? 0 : (head + n) % ring.count
        count -= n
        headSequence += UInt64(n)
        if count == 0 {   // empty: start again at the front; an outage's ring is given back
            head = 0
            ring.removeAll(keepingCapacity: ring.count <= 4096)
        }
    }

    /// Drops samples older than `limit` ms; returns how many.
    mutating func removeOlder(than limit: Int64) -> Int {
        var n = 0
        while n < count, ring[(head + n) % ring.count].timestamp < limit { n += 1 }
        removeFirst(n)
        return n
    }
}
