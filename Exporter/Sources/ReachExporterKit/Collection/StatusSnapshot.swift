/// The status page's facts (`ExporterMetrics.statusSnapshot()`, and each
/// ``SeriesSnapshot/status``): each target
/// and uplink as last recorded, in the configuration's order; ModemManager
/// and its modems; the last changes. Times are Unix seconds.
struct StatusSnapshot: Sendable {
    struct TargetRow: Sendable, Equatable {
        var target: String
        /// `reach_target_status`'s and `reach_target_accessibility`'s names;
        /// `unknown` before the first answer.
        var status = "unknown"
        var accessibility = "unknown"
        var flags: String?
        var interface: String?
        /// The last answer (the first one until it changes); nil before it.
        var lastChange: Double?
        var changes = 0
    }

    struct UplinkRow: Sendable, Equatable {
        var interface: String
        /// `reach_uplink_state`'s names; `unknown` before the initial state.
        var state = "unknown"
        var score: Int?
        var lastChange: Double?
        var answered = 0
        var failed = 0
        var lastRoundTrip: Duration?
        /// Why the last round's probes could not be sent (no such interface ...); nil when they were.
        var lastError: String?
        /// `reach_uplink_verdict`'s names (`UplinkVerdict`'s raw values); `unknown` before the initial state.
        var verdict = "unknown"
        /// Why the verdict is what it is (the event's `detail`); nil when healthy.
        var detail: String?
        /// Failovers since the tracker started (`reach_uplink_failovers_total`).
        var failovers = 0
        /// Lost probes in the quality window, 0...1, as the last round left it;
        /// nil while the window is not full, or without quality thresholds.
        var lossRatio: Double?
        /// The median round trip of the window as the last round left it; nil while too few answered.
        var medianLatency: Duration?
    }

    struct ModemRow: Sendable, Equatable {
        var modem: String
        var interface: String
        var technology: String
        var generation: String
        var registration: String
        var signalQuality: Int?
    }

    struct Change: Sendable, Equatable {
        enum Kind: String, Sendable { case target, uplink }
        var time: Double
        var kind: Kind
        var name: String
        var from: String
        var to: String
        var detail: String
        /// A target's new flags (`-R -------`).
        var flags: String? = nil
        /// A target's accessibility changed and its status did not: `from` and `to` are accessibilities.
        var isAccessibility = false
        /// An uplink's verdict changed and its state did not: `from` and `to` are verdicts.
        var isVerdict = false
    }

    /// The last `capacity` changes: the oldest is overwritten by the newest.
    struct ChangeRing: Sendable {
        static let capacity = 50
        private var storage: [Change] = []
        private var next = 0
        /// Changes since the start, including those overwritten.
        private(set) var total = 0

        mutating func append(_ change: Change) {
            if storage.count < Self.capacity {
                storage.append(change)
            } else {
                storage[next] = change
            }
            next = (next + 1) % Self.capacity
            total += 1
        }

        /// Newest first.
        var newestFirst: [Change] {
            guard storage.count == Self.capacity else { return storage.reversed() }
            return Array(storage[..<next].reversed()) + Array(storage[next...].reversed())
        }
    }

    var started: Double
    var targets: [TargetRow]
    var uplinks: [UplinkRow]
    var modemManager = "stopped"
    var modems: [ModemRow] = []
    var changes = ChangeRing()
}
