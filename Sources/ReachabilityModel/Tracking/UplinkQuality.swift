// The quality of a live uplink: loss and latency over a window of probes,
// with mwan3's check_quality thresholds (fail at one pair, recover at a
// lower one) and a level below failure, degraded. Pure: the tracker feeds
// it probe outcomes and asks it once per round.

/// How good a live uplink's probes are.
public enum QualityLevel: String, Hashable, Sendable {
    /// Loss and latency under the degraded thresholds (or too few samples yet).
    case good
    /// At or over a degraded threshold, under the failure ones: poor but usable.
    case degraded
    /// Over a failure threshold for `down` rounds in a row; it stays failed
    /// until loss and latency are at or under the recovery thresholds for `up`
    /// rounds in a row.
    case failed
}

/// Latency and loss thresholds, in mwan3's `check_quality` terms where they
/// exist (`failure_latency`, `failure_loss`, `recovery_latency`,
/// `recovery_loss`). Loss is read over the last ``window`` probes and only
/// once the window is full; latency is the median round trip of the answered
/// probes in it, once ``minimumAnswers`` have answered.
public struct UplinkQuality: Hashable, Sendable {
    /// A median round trip at or over this fails a round (mwan3 `failure_latency`, 1000 ms there).
    public var failureLatency: Duration
    /// Lost probes in the window, in percent, at or over this fail a round (mwan3 `failure_loss`, 40 there).
    public var failureLoss: Int
    /// A failed uplink recovers when the median is at or under this (mwan3 `recovery_latency`, 500 ms).
    public var recoveryLatency: Duration
    /// ... and the loss at or under this, in percent (mwan3 `recovery_loss`, 10).
    public var recoveryLoss: Int
    /// A median at or over this makes a live uplink degraded (no mwan3 option);
    /// it is good again at three quarters of it.
    public var degradedLatency: Duration
    /// A loss at or over this, in percent, makes it degraded (no mwan3 option).
    public var degradedLoss: Int
    /// Probes the loss is read over (the last ones; mwan3 reads one round's `count`).
    public var window: Int
    /// Answered probes in the window before the latency is read.
    public var minimumAnswers: Int

    /// The defaults, chosen for the rows of "Uplinks that fail dirty" (LinuxReachability's documentation): a link
    /// with 5 % loss and 300 ± 150 ms is degraded and never failed (the
    /// chance that 50 probes of it lose 10 or more is 1.6 × 10⁻⁴ per window),
    /// one with 30 % loss or a second of latency fails. mwan3's 40 % would
    /// let 30 % through; its 1,000 ms sits exactly on a one-second link.
    ///
    /// - Parameters:
    ///   - failureLatency: 800 ms.
    ///   - failureLoss: 20 %.
    ///   - recoveryLatency: 500 ms (mwan3's).
    ///   - recoveryLoss: 10 % (mwan3's).
    ///   - degradedLatency: 200 ms (the median of 50 round trips of 300 ± 150 ms
    ///     dips to 243 ms in a long run; a healthy LTE link's stays under 100 ms).
    ///   - degradedLoss: 2 %.
    ///   - window: 50 probes.
    ///   - minimumAnswers: 5.
    public init(failureLatency: Duration = .milliseconds(800), failureLoss: Int = 20,
                recoveryLatency: Duration = .milliseconds(500), recoveryLoss: Int = 10,
                degradedLatency: Duration = .milliseconds(200), degradedLoss: Int = 2,
                window: Int = 50, minimumAnswers: Int = 5) {
        self.failureLatency = failureLatency
        self.failureLoss = failureLoss
        self.recoveryLatency = recoveryLatency
        self.recoveryLoss = recoveryLoss
        self.degradedLatency = degradedLatency
        self.degradedLoss = degradedLoss
        self.window = window
        self.minimumAnswers = minimumAnswers
    }

    /// mwan3track's own `check_quality` defaults (1000 ms / 40 %, recovering at
    /// 500 ms / 10 %), over a window of 50 probes.
    public static let mwan3 = UplinkQuality(failureLatency: .milliseconds(1000), failureLoss: 40)

    /// Why the thresholds cannot work, or nil: percentages out of 0...100,
    /// recovery above failure, degraded above failure, a window out of
    /// 1...1000, negative latencies.
    public var problem: (name: String, reason: String)? {
        for (name, value) in [("failure loss", failureLoss), ("recovery loss", recoveryLoss),
                              ("degraded loss", degradedLoss)] where !(0...100).contains(value) {
            return (name, "must be 0...100 (percent)")
        }
        for (name, value) in [("failure latency", failureLatency), ("recovery latency", recoveryLatency),
                              ("degraded latency", degradedLatency)] where value < .zero {
            return (name, "must not be negative")
        }
        if recoveryLoss > failureLoss || recoveryLatency > failureLatency {
            return ("recovery thresholds", "must be at or under the failure thresholds (the hysteresis)")
        }
        if degradedLoss > failureLoss || degradedLatency > failureLatency {
            return ("degraded thresholds", "must be at or under the failure thresholds")
        }
        guard (1...1000).contains(window) else { return ("quality window", "must be 1...1000 probes") }
        guard (1...window).contains(minimumAnswers) else { return ("minimum answers", "must be 1...window") }
        return nil
    }
}

/// Loss and latency as the window shows them.
public struct QualitySummary: Hashable, Sendable {
    /// Probes in the window.
    public let samples: Int
    /// Lost probes among them.
    public let lost: Int
    /// The median round trip of the answered ones; nil while fewer than the minimum answered.
    public let medianLatency: Duration?

    /// Lost probes in percent, rounded down; nil while the window is not full.
    public let lossPercent: Int?
}

/// The quality state machine: a ring of the last probes and the level, with
/// hysteresis. Its storage is allocated once, at the window's size.
public struct QualityTracker: Sendable {
    /// The thresholds.
    public let thresholds: UplinkQuality
    private let down: Int
    private let up: Int
    /// Round trips in nanoseconds; -1 for a lost probe.
    private var ring: [Int64]
    private var next = 0
    private var count = 0
    private var streak = 0
    /// The level, as the last round left it.
    public private(set) var level: QualityLevel = .good

    /// A tracker that fails after `down` bad rounds in a row and recovers after `up` good ones.
    public init(thresholds: UplinkQuality, down: Int, up: Int) {
        self.thresholds = thresholds
        self.down = max(1, down)
        self.up = max(1, up)
        ring = Array(repeating: 0, count: max(1, thresholds.window))
    }

    /// Adds one probe: its round trip, or nil when it was lost.
    public mutating func record(roundTrip: Duration?) {
        ring[next] = roundTrip.map { Int64(clamping: $0.clampedNanoseconds) } ?? -1
        next = (next + 1) % ring.count
        count = min(count + 1, ring.count)
    }

    /// Forgets the probes (an outage is the score's business, not the
    /// quality's: a link back from one starts a fresh window). The level stays.
    public mutating func clearSamples() {
        next = 0
        count = 0
        streak = 0
    }

    /// The window as it stands.
    public var summary: QualitySummary {
        var answered: [Int64] = []
        answered.reserveCapacity(count)
        var lost = 0
        for index in 0..<count {
            let value = ring[index]
            if value < 0 { lost += 1 } else { answered.append(value) }
        }
        var median: Duration?
        if answered.count >= thresholds.minimumAnswers {
            answered.sort()
            median = .nanoseconds(answered[answered.count / 2])
        }
        return QualitySummary(samples: count, lost: lost, medianLatency: median,
                              lossPercent: count == ring.count ? lost * 100 / count : nil)
    }

    /// Reads the window once, at the end of a round.
    ///
    /// - Returns: The new level when the round changed it, nil otherwise.
    @discardableResult
    public mutating func evaluate() -> QualityLevel? {
        let before = level
        let now = summary
        let t = thresholds
        let loss = now.lossPercent
        let latency = now.medianLatency
        if level == .failed {
            // Recovering needs both readings, and both under the recovery thresholds.
            let recovered = (loss.map { $0 <= t.recoveryLoss } ?? false) && (latency.map { $0 <= t.recoveryLatency } ?? false)
            streak = recovered ? streak + 1 : 0
            if streak >= up {
                streak = 0
                level = isDegraded(now) ? .degraded : .good
            }
        } else {
            let failing = (loss.map { $0 >= t.failureLoss } ?? false) || (latency.map { $0 >= t.failureLatency } ?? false)
            streak = failing ? streak + 1 : 0
            if streak >= down {
                streak = 0
                level = .failed
            } else if level == .degraded {
                // Hysteresis here too: back to good only with no loss read and
                // a median at or under three quarters of the degraded one.
                let quick = now.medianLatency.map { $0 * 4 <= thresholds.degradedLatency * 3 } ?? true
                level = isDegraded(now) || !quick ? .degraded : .good
            } else {
                level = isDegraded(now) ? .degraded : .good
            }
        }
        return level == before ? nil : level
    }

    /// Degraded: a loss at or over the degraded share of a full window, or a slow median.
    private func isDegraded(_ now: QualitySummary) -> Bool {
        let lossy = now.lossPercent.map { now.lost > 0 && $0 >= thresholds.degradedLoss } ?? false
        return lossy || (now.medianLatency.map { $0 >= thresholds.degradedLatency } ?? false)
    }
}

extension QualityTracker {
    /// The quality of an uplink probed through several hosts, as mwan3track
    /// judges it with `check_quality`: each host has its own window, and the
    /// uplink is as good as its `reliability`-th best host. A dead host among
    /// answering ones is the score's business (reliability), not loss on the
    /// link; loss on the link shows in every host's window.
    ///
    /// - Returns: That host's level and window, or nil for no hosts.
    public static func uplink(_ hosts: [QualityTracker], reliability: Int) -> (level: QualityLevel, summary: QualitySummary)? {
        guard !hosts.isEmpty else { return nil }
        let rank: (QualityLevel) -> Int = { $0 == .good ? 0 : $0 == .degraded ? 1 : 2 }
        let ordered = hosts.sorted { rank($0.level) < rank($1.level) }
        let deciding = ordered[min(max(reliability, 1), ordered.count) - 1]
        return (deciding.level, deciding.summary)
    }
}
