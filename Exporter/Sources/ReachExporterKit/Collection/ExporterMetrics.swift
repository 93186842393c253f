import NIOCore
import Prometheus
import LinuxReachability
import ReachabilityModemManager
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Every series the exporter serves (README, "Fleet", lists them), made up
/// front for each target and uplink so that a scrape shows every state with
/// 0 or 1 from the start. The monitor's and trackers' callbacks set them as
/// answers come; a scrape only renders what is there (`render`), so it never
/// waits for the kernel or a probe.
///
/// A scrape of 1,000 targets is 18,000 series (1.2 MB); rendering them took
/// 6.5 ms, so the rendering of the state series is kept and done again only
/// after an update (`generation`); the monitor's counters, which move with
/// every notification, have a registry of their own rendered at each scrape.
///
/// The modems ModemManager publishes come and go: each one's series are made
/// when it appears and unregistered when it goes (`record(modemManager:modems:)`),
/// so a modem that went away leaves no stale series behind.
///
/// The one-hot families (`reach_target_status`, `reach_target_accessibility`,
/// `reach_uplink_state`, `reach_modemmanager_availability` and the modems'
/// `reach_modem_access_technology`, `reach_modem_generation`,
/// `reach_modem_registration`) are one gauge per value, set one after the other: an
/// update and a rendering of `registry` exclude each other (`state`), so that
/// every scrape has exactly one value of each at 1, never the old and the new
/// one, nor none. Updates wait for a rendering in progress (6.5 ms at 1,000
/// targets, once per scrape after a change); a rendering waits for an update
/// (microseconds).
package final class ExporterMetrics: Sendable {
    /// Target and uplink series: rendered again only when they changed.
    let registry = PrometheusCollectorRegistry()
    /// The monitor's counters and build info: rendered at every scrape.
    let counters = PrometheusCollectorRegistry()
    /// Held by every update of `registry`'s series and by its rendering: the
    /// generation (bumped by every update) and the last rendering, shared
    /// (not copied) with every response until the next update.
    private let state = Mutex<(generation: UInt64, rendered: UInt64, bytes: ByteBuffer)>((1, 0, ByteBuffer()))

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

    private struct TargetSeries {
        let reachable: Gauge
        let status: [String: Gauge]
        let flags: Gauge
        let accessibility: [String: Gauge]
        let changes: Counter
        let lastChange: Gauge
    }

    private struct UplinkSeries {
        let state: [UplinkState: Gauge]
        let score: Gauge
        let rtt: DurationHistogram
        let success: Counter
        let failure: Counter
    }

    /// One modem's series, under its labels: `modem` (the last component of
    /// its object path) and `interface` (the network interfaces it owns, joined by commas).
    private struct ModemSeries {
        let modem: String
        let interface: String
        let technology: [String: Gauge]
        let generation: [String: Gauge]
        let registration: [String: Gauge]
        let signalQuality: Gauge

        var gauges: [Gauge] {
            Array(technology.values) + Array(generation.values) + Array(registration.values) + [signalQuality]
        }
    }

    private let targets: [Target: TargetSeries]
    private let uplinks: [String: UplinkSeries]
    private let modemManagerAvailability: [String: Gauge]
    /// The modems' series by object path; changed only inside `update`.
    private let modems = Mutex<[String: ModemSeries]>([:])
    private let modemManagerDropped: Counter
    /// ModemManager's dropped properties at the last scrape.
    private let lastModemManagerDropped = Mutex<UInt64>(0)
    private let monitorEvents: Counter
    private let monitorOverflows: Counter
    private let monitorDroppedForeign: Counter
    private let monitorReevaluations: Counter
    /// The monitor's counters at the last scrape (Prometheus counters only go up by increments).
    private let lastCounters = Mutex(MonitorCounters())
    /// The status page's view (`GET /`, `StatusPage`): the series cannot be
    /// read back, so the same `record` calls keep each target's and uplink's
    /// state, the modems and the last changes here too.
    private let page: Mutex<StatusSnapshot>
    /// Where each target's and uplink's row is in `page` (the configuration's order).
    private let targetRows: [Target: Int]
    private let uplinkRows: [String: Int]

    init(targets: [Target], uplinks: [String], version: String) {
        page = Mutex(StatusSnapshot(started: WallClock.unixSeconds(),
                                    targets: targets.map { StatusSnapshot.TargetRow(target: $0.description) },
                                    uplinks: uplinks.map { StatusSnapshot.UplinkRow(interface: $0) }))
        targetRows = Dictionary(targets.enumerated().map { ($1, $0) }) { first, _ in first }
        uplinkRows = Dictionary(uplinks.enumerated().map { ($1, $0) }) { first, _ in first }
        let registry = self.registry
        func gauge(_ name: String, _ labels: [(String, String)], _ help: String) -> Gauge {
            registry.makeGauge(descriptor: Self.descriptor(name, help), labels: labels)
        }
        func counter(_ name: String, _ labels: [(String, String)], _ help: String) -> Counter {
            registry.makeCounter(descriptor: Self.descriptor(name, help), labels: labels)
        }
        let counters = self.counters
        func monitorCounter(_ name: String, _ help: String) -> Counter {
            counters.makeCounter(descriptor: Self.descriptor(name, help))
        }
        counters.makeGauge(descriptor: Self.descriptor("reach_build_info", "The exporter's version; always 1."),
                           labels: [("version", version)]).set(to: 1)
        var byTarget: [Target: TargetSeries] = [:]
        for target in targets {
            let label = ("target", target.description)
            byTarget[target] = TargetSeries(
                reachable: gauge("reach_target_reachable", [label], "1 when a packet for the target can leave (SCNetworkReachability's reachable), else 0."),
                status: Dictionary(uniqueKeysWithValues: Self.statuses.map { status in
                    (status, gauge("reach_target_status", [label, ("status", status)], "1 for the target's current status, 0 for the others."))
                }),
                flags: gauge("reach_target_flags", [label], "The target's SCNetworkReachabilityFlags, as a number."),
                accessibility: Dictionary(uniqueKeysWithValues: Self.accessibilities.map { state in
                    (state, gauge("reach_target_accessibility", [label, ("state", state)], "1 for the target's current accessibility (validation), 0 for the others."))
                }),
                changes: counter("reach_target_changes_total", [label], "Changes of the target's answer since the exporter started."),
                lastChange: gauge("reach_target_last_change_timestamp_seconds", [label], "When the target's answer last changed (Unix time; the start for the initial answer).")
            )
            byTarget[target]?.status["unknown"]?.set(to: 1)
            byTarget[target]?.accessibility["unknown"]?.set(to: 1)
        }
        self.targets = byTarget
        var byUplink: [String: UplinkSeries] = [:]
        for interface in uplinks {
            let label = ("interface", interface)
            byUplink[interface] = UplinkSeries(
                state: Dictionary(uniqueKeysWithValues: UplinkState.allCases.map { state in
                    (state, gauge("reach_uplink_state", [label, ("state", state.rawValue)], "1 for the uplink's current state (as mwan3track), 0 for the others."))
                }),
                score: gauge("reach_uplink_score", [label], "The uplink's score: 0 offline ... down + up online."),
                rtt: registry.makeDurationHistogram(
                    descriptor: Self.descriptor("reach_probe_rtt_seconds", "Round trip of each answered probe through the uplink."),
                    labels: [label], buckets: Self.rttBuckets),
                success: counter("reach_probe_total", [label, ("outcome", "success")], "Probes sent through the uplink, by outcome."),
                failure: counter("reach_probe_total", [label, ("outcome", "failure")], "Probes sent through the uplink, by outcome.")
            )
        }
        self.uplinks = byUplink
        modemManagerAvailability = Self.oneHot(Self.modemManagerAvailabilities, in: registry, "reach_modemmanager_availability", [],
                                               "1 for ModemManager's current availability (as `reach modems` says it), 0 for the others.")
        modemManagerAvailability["stopped"]?.set(to: 1)
        modemManagerDropped = monitorCounter("reach_modemmanager_dropped_properties_total",
                                             "Property values ModemManager sent that were dropped (a wrong D-Bus type, an unknown technology bit or state).")
        monitorEvents = monitorCounter("reach_monitor_events_total", "Netlink notifications the monitor read.")
        monitorOverflows = monitorCounter("reach_monitor_overflows_total", "Times the monitor's socket overflowed (ENOBUFS) and everything was evaluated again.")
        monitorDroppedForeign = monitorCounter("reach_monitor_dropped_foreign_total", "Datagrams dropped because they did not come from the kernel.")
        monitorReevaluations = monitorCounter("reach_monitor_reevaluations_total", "Evaluation rounds the monitor ran after notifications.")
    }

    static func descriptor(_ name: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: name, unitName: "", helpText: help)
    }

    /// A one-hot family: a gauge for each of `states` (label `state`), all at 0.
    private static func oneHot(_ states: [String], in registry: PrometheusCollectorRegistry, _ name: String,
                               _ labels: [(String, String)], _ help: String) -> [String: Gauge] {
        Dictionary(uniqueKeysWithValues: states.map { state in
            (state, registry.makeGauge(descriptor: descriptor(name, help), labels: labels + [("state", state)]))
        })
    }

    /// Sets a one-hot family: `current` at 1, every other state at 0.
    private static func set(_ family: [String: Gauge], to current: String) {
        for (state, gauge) in family { gauge.set(to: state == current ? 1 : 0) }
    }

    /// A target's answer (initial or changed).
    func record(_ change: ReachabilityChange) {
        guard let series = targets[change.target] else { return }
        let status = change.status.description
        let accessibility = change.evaluation.accessibility.description
        let now = WallClock.unixSeconds()
        update {
            series.reachable.set(to: change.isReachable ? 1 : 0)
            for (name, gauge) in series.status { gauge.set(to: name == status ? 1 : 0) }
            series.flags.set(Int64(change.flags.rawValue))
            for (name, gauge) in series.accessibility { gauge.set(to: name == accessibility ? 1 : 0) }
            if !change.isInitial { series.changes.increment() }
            series.lastChange.set(now)
        }
        guard let row = targetRows[change.target] else { return }
        let flags = change.flags.description, interface = change.interface
        page.withLock { page in
            let before = page.targets[row]
            page.targets[row].status = status
            page.targets[row].accessibility = accessibility
            page.targets[row].flags = flags
            page.targets[row].interface = interface
            page.targets[row].lastChange = now
            guard !change.isInitial else { return }
            page.targets[row].changes += 1
            // The status when it changed; else the accessibility, which did (a validation failed or came back).
            let onlyAccessibility = before.status == status && before.accessibility != accessibility
            page.changes.append(StatusSnapshot.Change(
                time: now, kind: .target, name: before.target,
                from: onlyAccessibility ? before.accessibility : before.status, to: onlyAccessibility ? accessibility : status,
                detail: (interface.map { "via \($0)" } ?? "no interface") + " · \(accessibility)", flags: flags,
                isAccessibility: onlyAccessibility))
        }
    }

    /// An uplink's state (initial or changed).
    func record(state event: TrackerEvent) {
        guard let series = uplinks[event.interface] else { return }
        update {
            for (state, gauge) in series.state { gauge.set(to: state == event.state ? 1 : 0) }
            series.score.set(Int64(event.score))
        }
        guard let row = uplinkRows[event.interface] else { return }
        let now = WallClock.unixSeconds()
        page.withLock { page in
            let before = page.uplinks[row].state
            page.uplinks[row].state = event.state.rawValue
            page.uplinks[row].score = event.score
            page.uplinks[row].lastChange = now
            guard !event.isInitial else { return }
            page.changes.append(StatusSnapshot.Change(time: now, kind: .uplink, name: event.interface, from: before,
                                                      to: event.state.rawValue, detail: "score \(event.score)"))
        }
    }

    /// One round of an uplink's probes.
    func record(round event: TrackerEvent) {
        guard let series = uplinks[event.interface] else { return }
        update {
            series.score.set(Int64(event.score))
            for result in event.results {
                if result.verdict == .answered {
                    series.success.increment()
                    if let roundTrip = result.roundTrip { series.rtt.record(roundTrip) }
                } else {
                    series.failure.increment()
                }
            }
        }
        guard let row = uplinkRows[event.interface] else { return }
        let answered = event.results.count { $0.verdict == .answered }
        let roundTrip = event.results.last { $0.roundTrip != nil }?.roundTrip
        page.withLock { page in
            page.uplinks[row].score = event.score
            page.uplinks[row].answered += answered
            page.uplinks[row].failed += event.results.count - answered
            if let roundTrip { page.uplinks[row].lastRoundTrip = roundTrip }
            page.uplinks[row].lastError = event.error.map { "\($0)" }
        }
    }

    /// ModemManager's availability and its modems (each with the network
    /// interfaces it owns), as the radio's observer reads them after a
    /// change: a modem seen for the first time gets its series, a modem
    /// whose interfaces changed gets them under its new labels, and a modem
    /// no longer published (or every modem, when ModemManager is not
    /// available) loses them.
    func record(modemManager availability: ModemManagerAvailability, modems published: [(modem: Modem, interfaces: [String])]) {
        let registry = self.registry
        let readings = published.map { modem, interfaces in
            let technology = modem.radioTechnology
            return (path: modem.path, modem: modem.path.split(separator: "/").last.map(String.init) ?? modem.path,
                    interface: interfaces.joined(separator: ","), technology: technology?.rawValue ?? "none",
                    generation: technology.map { "\($0.generation.rawValue)G" } ?? "none",
                    registration: modem.registration?.name ?? "none", signalQuality: modem.signalQuality.map(Double.init) ?? .nan)
        }
        page.withLock { page in
            page.modemManager = availability.description
            page.modems = readings.map { reading in
                StatusSnapshot.ModemRow(modem: reading.modem, interface: reading.interface, technology: reading.technology,
                                        generation: reading.generation, registration: reading.registration,
                                        signalQuality: reading.signalQuality.isNaN ? nil : Int(reading.signalQuality))
            }
        }
        let availability = availability.name
        update {
            Self.set(modemManagerAvailability, to: availability)
            modems.withLock { series in
                var gone = series
                for reading in readings {
                    var current = gone.removeValue(forKey: reading.path)
                    if let old = current, old.modem != reading.modem || old.interface != reading.interface {
                        for gauge in old.gauges { registry.unregisterGauge(gauge) }
                        current = nil
                    }
                    let modemSeries = current ?? Self.modemSeries(modem: reading.modem, interface: reading.interface, in: registry)
                    Self.set(modemSeries.technology, to: reading.technology)
                    Self.set(modemSeries.generation, to: reading.generation)
                    Self.set(modemSeries.registration, to: reading.registration)
                    modemSeries.signalQuality.set(reading.signalQuality)
                    series[reading.path] = modemSeries
                }
                for (path, old) in gone {
                    for gauge in old.gauges { registry.unregisterGauge(gauge) }
                    series[path] = nil
                }
            }
        }
    }

    private static func modemSeries(modem: String, interface: String, in registry: PrometheusCollectorRegistry) -> ModemSeries {
        let labels = [("modem", modem), ("interface", interface)]
        return ModemSeries(
            modem: modem, interface: interface,
            technology: oneHot(modemTechnologies, in: registry, "reach_modem_access_technology", labels,
                               "1 for the modem's current radio technology (the highest of its access technologies), 0 for the others."),
            generation: oneHot(modemGenerations, in: registry, "reach_modem_generation", labels,
                               "1 for the generation of the modem's current radio technology, 0 for the others."),
            registration: oneHot(modemRegistrations, in: registry, "reach_modem_registration", labels,
                                 "1 for the modem's current 3GPP registration, 0 for the others."),
            signalQuality: registry.makeGauge(descriptor: descriptor("reach_modem_signal_quality_percent",
                                                                     "The modem's signal quality (0-100) as ModemManager last read it; NaN before."),
                                              labels: labels))
    }

    /// ModemManager's dropped properties, brought up to date (at each scrape).
    func record(modemManagerDropped dropped: UInt64) {
        lastModemManagerDropped.withLock { last in
            modemManagerDropped.increment(by: Int64(clamping: dropped &- last))
            last = dropped
        }
    }

    /// Sets `registry`'s series as one step for a scrape (`body` only sets
    /// series: it runs under the lock the rendering takes).
    private func update(_ body: () -> Void) {
        state.withLock { state in
            body()
            state.generation &+= 1
        }
    }

    /// The monitor's counters, brought up to date (at each scrape).
    func record(_ counters: MonitorCounters) {
        lastCounters.withLock { last in
            monitorEvents.increment(by: Int64(clamping: counters.events &- last.events))
            monitorOverflows.increment(by: Int64(clamping: counters.overflows &- last.overflows))
            monitorDroppedForeign.increment(by: Int64(clamping: counters.droppedForeign &- last.droppedForeign))
            monitorReevaluations.increment(by: Int64(clamping: counters.reevaluations &- last.reevaluations))
            last = counters
        }
    }

    /// The exposition (text format 0.0.4) of every series: the state series
    /// as last rendered if nothing changed since (the same storage, no copy),
    /// then the counters.
    func render() -> (state: ByteBuffer, counters: ByteBuffer) {
        let state = self.state.withLock { state -> ByteBuffer in
            if state.rendered != state.generation {
                var bytes: [UInt8] = []
                bytes.reserveCapacity(state.bytes.readableBytes + 4096)
                registry.emit(into: &bytes)
                state.bytes = ByteBuffer(bytes: bytes)
                state.rendered = state.generation
            }
            return state.bytes
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(2048)
        counters.emit(into: &bytes)
        return (state, ByteBuffer(bytes: bytes))
    }

    /// What the status page shows, as last recorded (a copy).
    func statusSnapshot() -> StatusSnapshot {
        page.withLock { $0 }
    }
}
