// ExporterMetrics in process: what a scrape renders while the monitor's and
// the trackers' callbacks record new states on other threads.

import Dispatch
@testable import ReachExporterKit
@testable import ReachabilityCore
import ReachabilityModemManager
import Synchronization
import XCTest

final class ExporterMetricsTests: XCTestCase {
    let target = Target.address(IPAddress("10.1.0.7")!)

    /// A wired answer (reachable, accessible) or none (not reachable).
    func change(reachable: Bool) -> ReachabilityChange {
        wiredChange(target, reachable: reachable, initial: false, interface: "eth0")
    }

    func event(_ state: UplinkState) -> TrackerEvent {
        trackerEvent(state, previous: state == .online ? .offline : .online, verdict: state == .online ? .healthy : .down)
    }

    /// A modem at /org/freedesktop/ModemManager1/Modem/`index` with these
    /// access technologies, registration and signal, owning `interfaces`.
    func modem(_ index: Int, _ technologies: ModemAccessTechnologies, _ registration: RegistrationState?,
               signal: UInt32? = 72, interfaces: [String] = ["wwan0"]) -> (modem: Modem, interfaces: [String]) {
        var modem = Modem(path: "/org/freedesktop/ModemManager1/Modem/\(index)")
        modem.accessTechnologies = technologies
        modem.registration = registration
        modem.signalQuality = signal
        return (modem, interfaces)
    }

    /// How many series of `family` are at 1 in an exposition.
    func ones(_ family: String, in text: Substring) -> Int {
        text.split(separator: "\n").count { $0.hasPrefix(family + "{") && $0.hasSuffix(" 1.0") }
    }

    /// The series of a snapshot, as text.
    func scrape(_ metrics: ExporterMetrics) -> Substring {
        Substring(exposition(metrics))
    }

    /// The series lines (no comments) of `family` in an exposition.
    func lines(_ family: String, in text: Substring) -> [Substring] {
        text.split(separator: "\n").filter { $0.hasPrefix(family + "{") || $0.hasPrefix(family + " ") }
    }

    /// A state family is one-hot in every snapshot: exactly one status, one
    /// accessibility, one uplink state at 1, never two (the old one not yet
    /// cleared) and never none (the new one not yet set), however the
    /// rendering interleaves with the updates.
    func testEveryScrapeHasExactlyOneStateAtOneWhileStatesChange() throws {
        let metrics = ExporterMetrics(targets: [target], uplinks: ["wan0"], version: "test")
        let (up, down) = (change(reachable: true), change(reachable: false))
        let (online, offline) = (event(.online), event(.offline))
        let (lte, edge) = (modem(0, .lte, .home), modem(0, .edge, .roaming))
        XCTAssertNotEqual(up.status, down.status)
        XCTAssertNotEqual(up.evaluation.accessibility, down.evaluation.accessibility)
        let done = Atomic<Bool>(false)
        let recorded = Atomic<Int>(0)
        let writer = DispatchGroup()
        DispatchQueue.global().async(group: writer) {
            while !done.load(ordering: .relaxed) {
                metrics.record(up)
                metrics.record(state: online)
                metrics.record(down)
                metrics.record(state: offline)
                // The modem flips once a flap (LTE at home, EDGE roaming).
                metrics.record(modemManager: .available, modems: [recorded.load(ordering: .relaxed) % 2 == 0 ? lte : edge])
                recorded.add(1, ordering: .relaxed)
            }
        }
        while recorded.load(ordering: .relaxed) == 0 { sched_yield() }

        let scrapes = 2_000
        var torn: [String] = []
        for _ in 0 ..< scrapes {
            let text = scrape(metrics)
            // The series at 1, split once (eight families of a debug build's text).
            let atOne = text.split(separator: "\n").filter { $0.hasSuffix(" 1.0") }
            let counts = ["reach_target_status", "reach_target_accessibility", "reach_uplink_state", "reach_modemmanager_availability",
                          "reach_modem_access_technology", "reach_modem_generation", "reach_modem_registration",
                          "reach_uplink_verdict"].map { family in
                atOne.count { $0.hasPrefix(family + "{") }
            }
            if counts != [1, 1, 1, 1, 1, 1, 1, 1] { torn.append("\(counts)") }
        }
        done.store(true, ordering: .relaxed)
        writer.wait()
        XCTAssertEqual(torn.count, 0, "\(torn.count) of \(scrapes) scrapes not one-hot ([status, accessibility, uplink state] at 1: \(torn.prefix(5)))")
        print("ExporterMetricsTests: \(scrapes) scrapes during \(recorded.load(ordering: .relaxed)) flaps, \(torn.count) not one-hot")
    }

    /// A modem's technology, generation and registration are one-hot with
    /// every state of each listed (`none` when ModemManager gives none), and
    /// follow the modem: LTE at home, EDGE roaming, no technology and no
    /// 3GPP interface.
    func testModemSeriesAreOneHotAndFollowTheModem() throws {
        let metrics = ExporterMetrics(targets: [target], uplinks: [], version: "test")
        var text = scrape(metrics)
        XCTAssertEqual(lines("reach_modemmanager_availability", in: text).filter { $0.hasSuffix(" 1.0") },
                       ["reach_modemmanager_availability{state=\"stopped\"} 1.0"], "before the radio is followed")
        XCTAssertEqual(lines("reach_modem_generation", in: text), [], "no modem, no modem series")
        let labels = "modem=\"0\",interface=\"wwan0\""
        let cases: [((modem: Modem, interfaces: [String]), technology: String, generation: String, registration: String, signal: String)] = [
            (modem(0, [.lte, .umts], .home), "lte", "4G", "home", "72.0"),
            (modem(0, .umts, .home, signal: 40), "umts", "3G", "home", "40.0"),
            (modem(0, .edge, .roaming), "edge", "2G", "roaming", "72.0"),
            (modem(0, [.lte, .nr5G], .roamingSMSOnly), "nrNSA", "5G", "roaming-sms-only", "72.0"),
            (modem(0, [], nil, signal: nil), "none", "none", "none", "nan"),
        ]
        for (modem, technology, generation, registration, signal) in cases {
            metrics.record(modemManager: .available, modems: [modem])
            text = scrape(metrics)
            for (family, states, current) in [("reach_modem_access_technology", ExporterMetrics.modemTechnologies, technology),
                                              ("reach_modem_generation", ExporterMetrics.modemGenerations, generation),
                                              ("reach_modem_registration", ExporterMetrics.modemRegistrations, registration)] {
                XCTAssertTrue(states.contains(current), "\(current) is not one of \(family)'s states")
                let expected = states.map { "\(family){\(labels),state=\"\($0)\"} \($0 == current ? "1.0" : "0.0")" }
                XCTAssertEqual(Set(lines(family, in: text)), Set(expected.map { Substring($0) }), "\(family) for \(current)")
            }
            XCTAssertEqual(lines("reach_modem_signal_quality_percent", in: text), ["reach_modem_signal_quality_percent{\(labels)} \(signal)"])
            XCTAssertEqual(lines("reach_modemmanager_availability", in: text).filter { $0.hasSuffix(" 1.0") },
                           ["reach_modemmanager_availability{state=\"available\"} 1.0"])
        }
        XCTAssertEqual(ExporterMetrics.modemGenerations, ["2G", "3G", "4G", "5G", "none"])
        XCTAssertTrue(ExporterMetrics.modemRegistrations.contains("roaming") && ExporterMetrics.modemRegistrations.contains("home"))
    }

    /// A modem that goes (or changes its interfaces) leaves no stale series:
    /// its series are unregistered, the other modem's stay; unavailable
    /// ModemManager leaves none at all. The dropped properties are a counter.
    func testAModemThatGoesLosesItsSeries() throws {
        let metrics = ExporterMetrics(targets: [target], uplinks: [], version: "test")
        let families = ["reach_modem_access_technology", "reach_modem_generation", "reach_modem_registration",
                        "reach_modem_signal_quality_percent"]
        /// The modem labels (all but `state`) of every modem series.
        func modems(in text: Substring) -> Set<String> {
            Set(families.flatMap { family in
                lines(family, in: text).compactMap { line -> String? in
                    guard let open = line.firstIndex(of: "{"), let close = line.lastIndex(of: "}") else { return nil }
                    let labels = line[line.index(after: open) ..< close]
                    return String(labels[..<(labels.range(of: ",state=")?.lowerBound ?? labels.endIndex)])
                }
            })
        }
        metrics.record(modemManager: .available, modems: [modem(0, .lte, .home), modem(1, .umts, .roaming, interfaces: ["wwan1"])])
        XCTAssertEqual(modems(in: scrape(metrics)), ["modem=\"0\",interface=\"wwan0\"", "modem=\"1\",interface=\"wwan1\""])

        metrics.record(modemManager: .available, modems: [modem(1, .umts, .roaming, interfaces: ["ppp0", "wwan1"])])
        var text = scrape(metrics)
        XCTAssertEqual(modems(in: text), ["modem=\"1\",interface=\"ppp0,wwan1\""], "modem 0 went; modem 1's interfaces changed")
        XCTAssertEqual(ones("reach_modem_generation", in: text), 1)

        metrics.record(modemManager: .unavailable(.serviceAbsent), modems: [])
        text = scrape(metrics)
        XCTAssertEqual(modems(in: text), [])
        XCTAssertFalse(text.contains("reach_modem_"), "no modem family left, not even its HELP: \(text)")
        XCTAssertEqual(lines("reach_modemmanager_availability", in: text).filter { $0.hasSuffix(" 1.0") },
                       ["reach_modemmanager_availability{state=\"unavailable\"} 1.0"])

        // Back: the same modem gets its series again.
        metrics.record(modemManager: .available, modems: [modem(0, .edge, .home)])
        text = scrape(metrics)
        XCTAssertEqual(modems(in: text), ["modem=\"0\",interface=\"wwan0\""])
        XCTAssertEqual(lines("reach_modem_generation", in: text).filter { $0.hasSuffix(" 1.0") },
                       ["reach_modem_generation{modem=\"0\",interface=\"wwan0\",state=\"2G\"} 1.0"])

        metrics.record(modemManagerDropped: 2)
        metrics.record(modemManagerDropped: 5)
        XCTAssertEqual(lines("reach_modemmanager_dropped_properties_total", in: scrape(metrics)),
                       ["reach_modemmanager_dropped_properties_total 5"])
    }
}
