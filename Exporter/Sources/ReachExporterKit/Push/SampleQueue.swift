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
