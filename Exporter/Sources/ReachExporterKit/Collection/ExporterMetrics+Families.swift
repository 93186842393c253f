import LinuxReachability

/// The families a snapshot holds, made from the recorded state: the target
/// and uplink series again only after a change, the counters every time.
extension ExporterMetrics {
    func collect(into snapshot: inout SeriesSnapshot) {
        let (families, generation, page) = state.withLock { state in
            if state.made?.generation != state.generation {
                state.made = (state.generation, stateFamilies(state))
            }
            return (state.made?.families ?? [], state.generation, state.page)
        }
        snapshot.append(families, version: SeriesSnapshot.Version(source: source, generation: generation))
        snapshot.append(counterFamilies(totals.withLock { $0 }))
        snapshot.status = page
    }

    /// The targets', the uplinks' and ModemManager's families.
    private func stateFamilies(_ state: State) -> [MetricFamily] {
        var reachable = MetricFamily(name: "reach_target_reachable", help: "1 when a packet for the target can leave (SCNetworkReachability's reachable), else 0.", kind: .gauge)
        var status = MetricFamily(name: "reach_target_status", help: "1 for the target's current status, 0 for the others.", kind: .gauge)
        var flags = MetricFamily(name: "reach_target_flags", help: "The target's SCNetworkReachabilityFlags, as a number.", kind: .gauge)
        var accessibility = MetricFamily(name: "reach_target_accessibility", help: "1 for the target's current accessibility (validation), 0 for the others.", kind: .gauge)
        var changes = MetricFamily(name: "reach_target_changes_total", help: "Changes of the target's answer since the exporter started.", kind: .counter)
        var lastChange = MetricFamily(name: "reach_target_last_change_timestamp_seconds", help: "When the target's answer last changed (Unix time; the start for the initial answer).", kind: .gauge)
        for (row, labels) in labels.targets {
            let page = state.page.targets[row], values = state.targets[row]
            reachable.samples.append(Sample(labels: labels.target, value: .double(values.reachable ? 1 : 0)))
            status.samples += Self.oneHot(labels.status, current: Self.statuses.firstIndex(of: page.status))
            flags.samples.append(Sample(labels: labels.target, value: .double(Double(values.flags))))
            accessibility.samples += Self.oneHot(labels.accessibility, current: Self.accessibilities.firstIndex(of: page.accessibility))
            changes.samples.append(Sample(labels: labels.target, value: .integer(Int64(page.changes))))
            lastChange.samples.append(Sample(labels: labels.target, value: .double(page.lastChange ?? 0)))
        }
        var uplinkState = MetricFamily(name: "reach_uplink_state", help: "1 for the uplink's current state (as mwan3track), 0 for the others.", kind: .gauge)
        var score = MetricFamily(name: "reach_uplink_score", help: "The uplink's score: 0 offline ... down + up online.", kind: .gauge)
        var roundTrip = MetricFamily(name: "reach_probe_rtt_seconds", help: "Round trip of each answered probe through the uplink.", kind: .histogram)
        var probes = MetricFamily(name: "reach_probe_total", help: "Probes sent through the uplink, by outcome.", kind: .counter)
        var verdict = MetricFamily(name: "reach_uplink_verdict", help: "1 for the uplink's current verdict (what it is good for), 0 for the others.", kind: .gauge)
        var failovers = MetricFamily(name: "reach_uplink_failovers_total", help: "Failovers of the uplink (its verdict went from usable to not usable) since the tracker started.", kind: .counter)
        var loss = MetricFamily(name: "reach_uplink_loss_ratio", help: "Lost probes in the uplink's quality window (0-1) after the last round, over the probes so far while it fills; NaN when it is empty (after an outage).", kind: .gauge)
        var latency = MetricFamily(name: "reach_uplink_latency_seconds", help: "Median round trip of the answered probes in the uplink's quality window after the last round; NaN until enough answered.", kind: .gauge)
        for (row, labels) in labels.uplinks {
            let page = state.page.uplinks[row], roundTrips = state.roundTrips[row]
            uplinkState.samples += Self.oneHot(labels.state, current: UplinkState.allCases.firstIndex { $0.rawValue == page.state })
            score.samples.append(Sample(labels: labels.uplink, value: .double(Double(page.score ?? 0))))
            for (index, count) in roundTrips.buckets.enumerated() {
                roundTrip.samples.append(Sample(suffix: "_bucket", labels: labels.buckets[index], value: .integer(count)))
            }
            roundTrip.samples.append(Sample(suffix: "_bucket", labels: labels.buckets[roundTrips.buckets.count], value: .integer(roundTrips.count)))
            roundTrip.samples.append(Sample(suffix: "_sum", labels: labels.uplink, value: .seconds(roundTrips.sum)))
            roundTrip.samples.append(Sample(suffix: "_count", labels: labels.uplink, value: .integer(roundTrips.count)))
            probes.samples.append(Sample(labels: labels.success, value: .integer(Int64(page.answered))))
            probes.samples.append(Sample(labels: labels.failure, value: .integer(Int64(page.failed))))
            verdict.samples += Self.oneHot(labels.verdict, current: UplinkVerdict.allCases.firstIndex { $0.rawValue == page.verdict })
            failovers.samples.append(Sample(labels: labels.uplink, value: .integer(Int64(page.failovers))))
            loss.samples.append(Sample(labels: labels.uplink, value: .double(page.lossRatio ?? .nan)))
            latency.samples.append(Sample(labels: labels.uplink, value: page.medianLatency.map { .seconds($0) } ?? .double(.nan)))
        }
        var families = [reachable, status, flags, accessibility, changes, lastChange, uplinkState, score, roundTrip, probes,
                        verdict, failovers, loss, latency]
        families.append(MetricFamily(
            name: "reach_modemmanager_availability",
            help: "1 for ModemManager's current availability (as `reach modems` says it), 0 for the others.", kind: .gauge,
            samples: Self.oneHot(labels.modemManager, current: Self.modemManagerAvailabilities.firstIndex(of: state.modemManager))))
        if !state.page.modems.isEmpty { families += modemFamilies(state.page.modems) }
        return families
    }

    /// The modems' families, a series of each for every modem published now.
    private func modemFamilies(_ modems: [StatusSnapshot.ModemRow]) -> [MetricFamily] {
        var technology = MetricFamily(name: "reach_modem_access_technology", help: "1 for the modem's current radio technology (the highest of its access technologies), 0 for the others.", kind: .gauge)
        var generation = MetricFamily(name: "reach_modem_generation", help: "1 for the generation of the modem's current radio technology, 0 for the others.", kind: .gauge)
        var registration = MetricFamily(name: "reach_modem_registration", help: "1 for the modem's current 3GPP registration, 0 for the others.", kind: .gauge)
        var signalQuality = MetricFamily(name: "reach_modem_signal_quality_percent", help: "The modem's signal quality (0-100) as ModemManager last read it; NaN before.", kind: .gauge)
        for modem in modems {
            let labels = [SeriesLabel("modem", modem.modem), SeriesLabel("interface", modem.interface)]
            func oneHot(_ states: [String], _ current: String) -> [Sample] {
                states.map { Sample(labels: labels + [SeriesLabel("state", $0)], value: .double($0 == current ? 1 : 0)) }
            }
            technology.samples += oneHot(Self.modemTechnologies, modem.technology)
            generation.samples += oneHot(Self.modemGenerations, modem.generation)
            registration.samples += oneHot(Self.modemRegistrations, modem.registration)
            signalQuality.samples.append(Sample(labels: labels, value: .double(modem.signalQuality.map(Double.init) ?? .nan)))
        }
        return [technology, generation, registration, signalQuality]
    }

    /// The build and the running totals: made at every snapshot.
    private func counterFamilies(_ totals: Totals) -> [MetricFamily] {
        func counter(_ name: String, _ help: String, _ value: UInt64) -> MetricFamily {
            MetricFamily(name: name, help: help, kind: .counter, samples: [Sample(labels: [], value: .integer(Int64(clamping: value)))])
        }
        return [
            MetricFamily(name: "reach_build_info", help: "The exporter's version; always 1.", kind: .gauge,
                         samples: [Sample(labels: labels.build, value: .double(1))]),
            counter("reach_modemmanager_dropped_properties_total",
                    "Property values ModemManager sent that were dropped (a wrong D-Bus type, an unknown technology bit or state).",
                    totals.modemManagerDropped),
            counter("reach_monitor_events_total", "Netlink notifications the monitor read.", totals.monitor.events),
            counter("reach_monitor_overflows_total", "Times the monitor's socket overflowed (ENOBUFS) and everything was evaluated again.",
                    totals.monitor.overflows),
            counter("reach_monitor_dropped_foreign_total", "Datagrams dropped because they did not come from the kernel.",
                    totals.monitor.droppedForeign),
            counter("reach_monitor_reevaluations_total", "Evaluation rounds the monitor ran after notifications.",
                    totals.monitor.reevaluations),
        ]
    }

    /// A one-hot family's samples: the state at `current` 1, every other 0 (all 0 when none is current).
    private static func oneHot(_ labels: [[SeriesLabel]], current: Int?) -> [Sample] {
        labels.indices.map { Sample(labels: labels[$0], value: .double($0 == current ? 1 : 0)) }
    }

    /// Every series' labels, made once at the start: a snapshot after a
    /// change makes the families again, not their labels.
    struct Labels: Sendable {
        struct TargetLabels: Sendable {
            var target: [SeriesLabel]
            /// By `statuses` and by `accessibilities`.
            var status: [[SeriesLabel]]
            var accessibility: [[SeriesLabel]]
        }

        struct UplinkLabels: Sendable {
            var uplink: [SeriesLabel]
            /// By `UplinkState.allCases`.
            var state: [[SeriesLabel]]
            /// By `UplinkVerdict.allCases`.
            var verdict: [[SeriesLabel]]
            /// By `rttBuckets`, then `+Inf`.
            var buckets: [[SeriesLabel]]
            var success: [SeriesLabel]
            var failure: [SeriesLabel]
        }

        /// By target row, the first row of each target only.
        var targets: [(row: Int, labels: TargetLabels)]
        var uplinks: [(row: Int, labels: UplinkLabels)]
        var modemManager: [[SeriesLabel]]
        var build: [SeriesLabel]

        init(targets: [Target], uplinks: [String], targetRows: [Target: Int],
             uplinkRows: [String: Int], version: String) {
            self.targets = targets.enumerated().compactMap { row, target in
                guard targetRows[target] == row else { return nil }
                let label = SeriesLabel("target", target.description)
                return (row, TargetLabels(target: [label],
                                          status: ExporterMetrics.statuses.map { [label, SeriesLabel("status", $0)] },
                                          accessibility: ExporterMetrics.accessibilities.map { [label, SeriesLabel("state", $0)] }))
            }
            let bounds = ExporterMetrics.rttBuckets.map { SampleValue.seconds($0).text } + ["+Inf"]
            self.uplinks = uplinks.enumerated().compactMap { row, interface in
                guard uplinkRows[interface] == row else { return nil }
                let label = SeriesLabel("interface", interface)
                return (row, UplinkLabels(uplink: [label], state: UplinkState.allCases.map { [label, SeriesLabel("state", $0.rawValue)] },
                                    verdict: UplinkVerdict.allCases.map { [label, SeriesLabel("verdict", $0.rawValue)] },
                                    buckets: bounds.map { [label, SeriesLabel("le", $0)] },
                                    success: [label, SeriesLabel("outcome", "success")], failure: [label, SeriesLabel("outcome", "failure")]))
            }
            modemManager = ExporterMetrics.modemManagerAvailabilities.map { [SeriesLabel("state", $0)] }
            build = [SeriesLabel("version", version)]
        }
    }
}
