import LinuxReachability
import ReachabilityModemManager
import Synchronization

/// The state behind every series the monitor, the trackers and ModemManager
/// give (README, "Fleet", lists them), recorded as their callbacks bring
/// answers, collected into families at a snapshot (``collect(into:)``). A
/// snapshot only reads what is there, so it never waits for the kernel or a
/// probe. Every target and uplink has its series from the start, each state
/// at 0 or 1.
///
/// The state series are made again from the state only after it changed
/// (`generation`), and their part of the snapshot says so
/// (``SeriesSnapshot/Version``), so that `/metrics` serves their text again
/// until the next change. The monitor's counters, which move with every
/// notification, are a part of their own, made at every snapshot.
///
/// The modems ModemManager publishes come and go: their series are those of
/// the modems published now, so a modem that went away leaves no stale
/// series behind.
///
/// The one-hot families (`reach_target_status`, `reach_target_accessibility`,
/// `reach_uplink_state`, `reach_uplink_verdict`, `reach_modemmanager_availability` and the modems'
/// `reach_modem_access_technology`, `reach_modem_generation`,
/// `reach_modem_registration`) are made from one value each, under the lock
/// every update takes: every snapshot has exactly one value of each at 1,
/// never the old and the new one, nor none.
///
/// The status page's rows are the same state (``statusSnapshot()``), with
/// what the series do not carry: each target's interface, each uplink's last
/// round trip and error, the last changes.
final class ExporterMetrics: SeriesCollector {
    static let statuses = ["unknown", "notReachable"] + InterfaceKind.allCases.map { "reachable.\($0.rawValue)" }
    /// `unknown` is the exporter's own "not evaluated yet" (as the status's
    /// `unknown`), set until a target's first answer; `noNetwork` is the
    /// library's `Accessibility.noNetwork` (no usable network at all).
    static let accessibilities = ["unknown", "accessible", "captive", "noNetwork"] + RestrictionReason.allCases.map { "restricted.\($0.rawValue)" }
    /// ModemManager's availability (`ModemManagerAvailability`, without the reason).
    static let modemManagerAvailabilities = ["stopped", "starting", "available", "unavailable"]
    /// A modem's technology (`RadioTechnology`'s names, as `reach modems` prints them);
    /// `none` while ModemManager gives none.
    static let modemTechnologies = RadioTechnology.allCases.map(\.rawValue) + ["none"]
    /// Its technology's generation, as `reach modems` prints it (`4G`); `none` as above.
    static let modemGenerations = RadioGeneration.allCases.map { "\($0.rawValue)G" } + ["none"]
    /// Its 3GPP registration (`RegistrationState`'s names, as mmcli's); `none`
    /// for a modem without the 3GPP interface.
    static let modemRegistrations = RegistrationState.allCases.map(\.name) + ["none"]
    /// Probe RTT buckets (seconds): a LAN gateway to a satellite link.
    static let rttBuckets: [Duration] = [.milliseconds(1), .microseconds(2500), .milliseconds(5), .milliseconds(10),
                                         .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250),
                                         .milliseconds(500), .seconds(1), .microseconds(2_500_000)]

    /// What the series of a target hold beside its status page row.
    struct TargetValues {
        var reachable = false
        var flags: UInt32 = 0
    }

    /// An uplink's probe round trips, as a histogram over `rttBuckets`
    /// (each bucket counts the round trips at most its bound).
    struct RoundTrips {
        var buckets = [Int64](repeating: 0, count: ExporterMetrics.rttBuckets.count)
        var sum = Duration.zero
        var count: Int64 = 0

        mutating func record(_ roundTrip: Duration) {
            for (index, bound) in ExporterMetrics.rttBuckets.enumerated() where bound >= roundTrip { buckets[index] += 1 }
            sum += roundTrip
            count += 1
        }
    }

    /// Everything recorded, changed only under the lock.
    struct State {
        /// The targets, uplinks and modems as the status page shows them, and the last changes.
        var page: StatusSnapshot
        /// By target row.
        var targets: [TargetValues]
        /// By uplink row.
        var roundTrips: [RoundTrips]
        /// `reach_modemmanager_availability`'s state (`modemManagerAvailabilities`).
        var modemManager = "stopped"
        /// Bumped by every update.
        var generation: UInt64 = 1
        /// The state series as last made, and the generation they were made at.
        var made: (generation: UInt64, families: [MetricFamily])?
    }

    /// The running totals read at each snapshot (``record(_:)``, ``record(modemManagerDropped:)``).
    struct Totals {
        var monitor = MonitorCounters()
        var modemManagerDropped: UInt64 = 0
    }

    let version: String
    /// This collector's ``SeriesSnapshot/Version/source``.
    let source = SeriesSnapshot.newSource()
    let state: Mutex<State>
    let totals = Mutex(Totals())
    /// Where each target's and uplink's row is (the configuration's order; the first of a name given twice).
    let targetRows: [Target: Int]
    let uplinkRows: [String: Int]
    /// Every series' labels, made once (``Labels``).
    let labels: Labels

    init(targets: [Target], uplinks: [String], version: String) {
        self.version = version
        targetRows = Dictionary(targets.enumerated().map { ($1, $0) }) { first, _ in first }
        uplinkRows = Dictionary(uplinks.enumerated().map { ($1, $0) }) { first, _ in first }
        labels = Labels(targets: targets, uplinks: uplinks, targetRows: targetRows, uplinkRows: uplinkRows, version: version)
        state = Mutex(State(page: StatusSnapshot(started: WallClock.unixSeconds(),
                                                 targets: targets.map { StatusSnapshot.TargetRow(target: $0.description) },
                                                 uplinks: uplinks.map { StatusSnapshot.UplinkRow(interface: $0) }),
                            targets: Array(repeating: TargetValues(), count: targets.count),
                            roundTrips: Array(repeating: RoundTrips(), count: uplinks.count)))
    }

    /// A target's answer (initial or changed).
    func record(_ change: ReachabilityChange) {
        guard let row = targetRows[change.target] else { return }
        let status = change.status.description
        let accessibility = change.evaluation.accessibility.description
        let flags = change.flags.description, interface = change.interface
        let now = WallClock.unixSeconds()
        update { state in
            state.targets[row] = TargetValues(reachable: change.isReachable, flags: change.flags.rawValue)
            let before = state.page.targets[row]
            state.page.targets[row].status = status
            state.page.targets[row].accessibility = accessibility
            state.page.targets[row].flags = flags
            state.page.targets[row].interface = interface
            state.page.targets[row].lastChange = now
            guard !change.isInitial else { return }
            state.page.targets[row].changes += 1
            // The status when it changed; else the accessibility, which did (a validation failed or came back).
            let onlyAccessibility = before.status == status && before.accessibility != accessibility
            state.page.changes.append(StatusSnapshot.Change(
                time: now, kind: .target, name: before.target,
                from: onlyAccessibility ? before.accessibility : before.status, to: onlyAccessibility ? accessibility : status,
                detail: (interface.map { "via \($0)" } ?? "no interface") + " · \(accessibility)", flags: flags,
                isAccessibility: onlyAccessibility))
        }
    }

    /// An uplink's state and verdict (initial, or either changed).
    func record(state event: TrackerEvent) {
        guard let row = uplinkRows[event.interface] else { return }
        let now = WallClock.unixSeconds()
        update { state in
            let before = state.page.uplinks[row]
            state.page.uplinks[row].state = event.state.rawValue
            state.page.uplinks[row].score = event.score
            state.page.uplinks[row].verdict = event.verdict.rawValue
            state.page.uplinks[row].detail = event.detail
            state.page.uplinks[row].failovers = max(before.failovers, event.failovers)
            state.page.uplinks[row].lastChange = now
            guard !event.isInitial else { return }
            let verdict = event.verdict.rawValue
            let why = event.detail.map { " · \($0)" } ?? ""
            if before.state == event.state.rawValue && before.verdict != verdict {
                // The verdict alone changed (the port check failed, mwan3's score is still online).
                state.page.changes.append(StatusSnapshot.Change(time: now, kind: .uplink, name: event.interface,
                                                                from: before.verdict, to: verdict,
                                                                detail: "\(event.state.rawValue), score \(event.score)" + why,
                                                                isVerdict: true))
            } else {
                state.page.changes.append(StatusSnapshot.Change(time: now, kind: .uplink, name: event.interface,
                                                                from: before.state, to: event.state.rawValue,
                                                                detail: "score \(event.score) · verdict \(verdict)" + why))
            }
        }
    }

    /// One round of an uplink's probes, with the quality window as it left it.
    func record(round event: TrackerEvent) {
        guard let row = uplinkRows[event.interface] else { return }
        let answered = event.results.count { $0.verdict == .answered }
        let roundTrip = event.results.last { $0.roundTrip != nil }?.roundTrip
        // Over the probes so far while the window fills (the verdict reads loss only over a full one).
        let loss = event.quality.flatMap { $0.samples > 0 ? Double($0.lost) / Double($0.samples) : nil }
        let latency = event.quality?.medianLatency
        update { state in
            for result in event.results where result.verdict == .answered {
                if let roundTrip = result.roundTrip { state.roundTrips[row].record(roundTrip) }
            }
            state.page.uplinks[row].score = event.score
            state.page.uplinks[row].answered += answered
            state.page.uplinks[row].failed += event.results.count - answered
            if let roundTrip { state.page.uplinks[row].lastRoundTrip = roundTrip }
            state.page.uplinks[row].lastError = event.error.map { "\($0)" }
            state.page.uplinks[row].failovers = max(state.page.uplinks[row].failovers, event.failovers)
            state.page.uplinks[row].lossRatio = loss
            state.page.uplinks[row].medianLatency = latency
        }
    }

    /// ModemManager's availability and its modems (each with the network
    /// interfaces it owns), as the radio's observer reads them after a
    /// change: the modems' series are those of the modems published now
    /// (none when ModemManager is not available).
    func record(modemManager availability: ModemManagerAvailability, modems published: [(modem: Modem, interfaces: [String])]) {
        let rows = published.map { modem, interfaces in
            let technology = modem.radioTechnology
            return StatusSnapshot.ModemRow(
                modem: modem.path.split(separator: "/").last.map(String.init) ?? modem.path,
                interface: interfaces.joined(separator: ","), technology: technology?.rawValue ?? "none",
                generation: technology.map { "\($0.generation.rawValue)G" } ?? "none",
                registration: modem.registration?.name ?? "none", signalQuality: modem.signalQuality.map { Int($0) })
        }
        update { state in
            state.modemManager = availability.name
            state.page.modemManager = availability.description
            state.page.modems = rows
        }
    }

    /// ModemManager's dropped properties since the process started (brought up to date at each snapshot).
    func record(modemManagerDropped dropped: UInt64) {
        totals.withLock { $0.modemManagerDropped = dropped }
    }

    /// The monitor's counters (brought up to date at each snapshot).
    func record(_ counters: MonitorCounters) {
        totals.withLock { $0.monitor = counters }
    }

    /// Changes the state as one step for a snapshot.
    private func update(_ body: (inout State) -> Void) {
        state.withLock { state in
            body(&state)
            state.generation &+= 1
        }
    }

    /// What the status page shows, as last recorded (a copy).
    func statusSnapshot() -> StatusSnapshot {
        state.withLock { $0.page }
    }
}
