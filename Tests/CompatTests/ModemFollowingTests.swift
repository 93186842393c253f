// The facades follow ModemManager with no call by the application, as iOS's
// follow the modem: CTTelephonyNetworkInfo's technologies and notifications,
// SLReachability's mask (and the WWAN kind of a modem's `usb0`), and sl-watch
// as a user runs it. A private system bus with the ModemManager stand-in
// (PrivateBus.swift) stands for the gateway's.

import Foundation
import LinuxReachability
import ReachabilityCompatSupport
import ReachabilityModemManager
import ReachabilityTestSupport
import SLReachability
import XCTest

final class ModemFollowingTests: CompatTestCase {
    private let lte = "16384", umts = "32", edge = "16"

    override func setUpWithError() throws {
        try super.setUpWithError()
        try PrivateBus.requirePrograms()
    }

    /// A bus with the stand-in and modem 0 on LTE behind `port`; the compat
    /// modules follow it from their next use on (restored when the test ends).
    private func modemOnLTE(port: String) throws -> (PrivateBus, ModemManagerRadio) {
        let bus = try PrivateBus()
        try bus.startServiceAndWait()
        try bus.addModem(0, ["AccessTechnologies", "u", lte, "Ports", "a(su)", "1 \(port) 2", "State", "i", "11"],
                         modem3gpp: ["RegistrationState", "u", "1"])
        let radio = ModemManagerRadio(busAddress: bus.address, retryInterval: .milliseconds(50))
        let saved = CompatEnvironment.modemManager
        CompatEnvironment.modemManager = radio
        addTeardownBlock {
            CompatEnvironment.modemManager = saved
            radio.stop()
        }
        return (bus, radio)
    }

    /// `CompatEnvironment.modemManager = nil` while the first use is
    /// following it (decided, not yet done): nothing is followed after.
    func testModemManagerSetToNilDuringTheFirstUseFollowsNothing() throws {
        let bus = try PrivateBus()
        try bus.startServiceAndWait()
        let radio = ModemManagerRadio(busAddress: bus.address, retryInterval: .milliseconds(50))
        let saved = CompatEnvironment.modemManager
        CompatEnvironment.modemManager = radio
        addTeardownBlock {
            CompatEnvironment.beforeFollowing = nil
            CompatEnvironment.modemManager = saved
            radio.stop()
        }
        CompatEnvironment.beforeFollowing = { CompatEnvironment.modemManager = nil }
        CompatEnvironment.followModems()
        XCTAssertNil(CompatEnvironment.modemManager)
        XCTAssertFalse(radio.feeds(.processDefault), "ModemManager is followed after modemManager was set to nil")
    }

    func testCoreTelephonyFollowsTheModemWithNoCallAndTellsEachChangeOnce() throws {
        _ = try makeWWANNamespace()
        let (bus, _) = try modemOnLTE(port: "wwan0")
        addTeardownBlock { RadioSource.processDefault.set(nil, for: "wwan0") }
        let info = CTTelephonyNetworkInfo()   // nothing else: as iOS code does it
        XCTAssertEqual(info.serviceCurrentRadioAccessTechnology, ["wwan0": CTRadioAccessTechnologyLTE], "read at creation")
        XCTAssertEqual(info.dataServiceIdentifier, "wwan0")
        XCTAssertEqual(RadioSource.processDefault.origin(for: "wwan0"), .modem(provider: "ModemManager"))

        let told = Arrivals<String>()
        info.serviceRadioAccessTechnologyDidUpdateNotifier = { service in
            told.add("notifier \(service) \(info.serviceCurrentRadioAccessTechnology?[service] ?? "-")")
        }
        for name in [Notification.Name.CTServiceRadioAccessTechnologyDidChange, .CTRadioAccessTechnologyDidChange] {
            let token = NotificationCenter.default.addObserver(forName: name, object: nil, queue: nil) { note in
                told.add("\(name.rawValue) \(note.object as? String ?? "?")")
            }
            addTeardownBlock { NotificationCenter.default.removeObserver(token) }
        }
        let perChange = { (technology: String) in
            Set(["notifier wwan0 \(technology)", "CTServiceRadioAccessTechnologyDidChangeNotification wwan0",
                 "CTRadioAccessTechnologyDidChangeNotification wwan0"])
        }
        // Signal and registration alone are no technology change: told nothing.
        // Each technology change after them is told three times (notifier and
        // two notifications), so that the count after the last is the barrier.
        try bus.setModem(0, ["SignalQuality", "(ub)", "40 true"])
        try bus.setModem(0, ["RegistrationState", "u", "5"], interface: "org.freedesktop.ModemManager1.Modem.Modem3gpp")
        var expected = 0
        for (bits, technology) in [(umts, CTRadioAccessTechnologyWCDMA), (edge, CTRadioAccessTechnologyEdge), (lte, CTRadioAccessTechnologyLTE)] {
            try bus.setModem(0, ["AccessTechnologies", "u", bits])
            expected += 3
            let all = told.wait(for: expected)
            XCTAssertEqual(all.count, expected, "told of \(technology): \(all)")
            XCTAssertEqual(Set(all.suffix(3)), perChange(technology), "\(all)")
        }
        // The application's own setting wins; a modem change under it is no change.
        RadioSource.processDefault.set(.nr, for: "wwan0")
        XCTAssertEqual(told.wait(for: expected + 3).count, expected + 3)
        XCTAssertEqual(RadioSource.processDefault.origin(for: "wwan0"), .application)
        try bus.setModem(0, ["AccessTechnologies", "u", umts])
        RadioSource.processDefault.set(nil, for: "wwan0")   // back to the modem's: UMTS
        let all = told.wait(for: expected + 6)
        XCTAssertEqual(all.count, expected + 6, "\(all)")
        XCTAssertEqual(Set(all.suffix(3)), perChange(CTRadioAccessTechnologyWCDMA), "the modem's change under NR was not told: \(all)")
    }

    /// A modem in Ethernet mode: `usb0` (a veth here, no WWAN flag or name)
    /// is WWAN because ModemManager says a modem owns it; the mask follows its
    /// technology, each notification once per change; when the modem goes,
    /// `usb0` is an ordinary link again.
    func testSLReachabilitysMaskFollowsTheModem() throws {
        let ns = try makeCompatNamespace()
        ns.addVethPair("usb0", peer: "ub", address: "10.30.0.1/24")
        ns.run("route add default via 10.30.0.2")
        let (bus, radio) = try modemOnLTE(port: "usb0")
        let reachability: SLReachability = try XCTUnwrap(SLReachability.forInternetConnection())
        let another: SLReachability = try XCTUnwrap(SLReachability(hostName: "10.30.0.2"))
        XCTAssertEqual(another.netWorkMask, .reachableWWAN4G)
        XCTAssertEqual(radio.counters.connections, 1, "one bus connection however many objects and monitors")
        XCTAssertEqual(reachability.reachStatus, .reachableViaWWAN, "usb0 is the modem's")
        XCTAssertEqual(reachability.netWorkMask, .reachableWWAN4G)
        let posted = Arrivals<String>()
        for (name, short) in [(kSLReachabilityReachStatusChanged, "status"), (kSLReachabilityWWANChanged, "wwan"),
                              (kSLReachabilityMaskChanged, "mask")] {
            let token = NotificationCenter.default.addObserver(forName: Notification.Name(name), object: reachability,
                                                               queue: nil) { _ in posted.add(short) }
            addTeardownBlock { NotificationCenter.default.removeObserver(token) }
        }
        var count = 0
        for (bits, mask) in [(umts, SLNetWorkStatusMask.reachableWWAN3G), (edge, .reachableWWAN2G), (lte, .reachableWWAN4G)] {
            try bus.setModem(0, ["AccessTechnologies", "u", bits])
            count += 2
            XCTAssertEqual(posted.waitRunningMain(for: count).suffix(2).sorted(), ["mask", "wwan"], "\(mask)")
            XCTAssertEqual(reachability.netWorkMask, mask)
        }
        try bus.mock("RemoveModem", "u", ["0"])
        count += 3
        XCTAssertEqual(posted.waitRunningMain(for: count).suffix(3).sorted(), ["mask", "status", "wwan"])
        XCTAssertEqual(reachability.reachStatus, .reachableViaWiFi, "usb0 without its modem: not WWAN")
        XCTAssertEqual(reachability.netWorkMask, .reachableWiFi)
        XCTAssertEqual(posted.all.count, count, "each notification once per change: \(posted.all)")
    }

    /// REACH_FIRST_MODEM_ANSWER_MS: milliseconds, 0 to an hour; anything else
    /// is said on stderr and the 500 ms stay.
    func testTheFirstModemAnswersBoundComesFromTheEnvironment() {
        defer { unsetenv("REACH_FIRST_MODEM_ANSWER_MS") }
        unsetenv("REACH_FIRST_MODEM_ANSWER_MS")
        XCTAssertEqual(CompatEnvironment.firstModemAnswerFromEnvironment(), .milliseconds(500))
        for (text, expected) in [("1200", Duration.milliseconds(1200)), ("0", .zero), ("3600000", .seconds(3600)),
                                 ("-1", .milliseconds(500)), ("3600001", .milliseconds(500)), ("1.5", .milliseconds(500)),
                                 ("", .milliseconds(500))] {
            setenv("REACH_FIRST_MODEM_ANSWER_MS", text, 1)
            XCTAssertEqual(CompatEnvironment.firstModemAnswerFromEnvironment(), expected, "'\(text)'")
        }
    }

    /// sl-watch as a user runs it on a gateway whose ModemManager is on the
    /// system bus: no radio command on its input, the mask follows the modem.
    func testSLWatchFollowsTheModemOnTheSystemBus() throws {
        let ns = try makeCompatNamespace()
        ns.addVethPair("usb0", peer: "ub", address: "10.30.0.1/24")
        ns.run("route add default via 10.30.0.2")
        let bus = try PrivateBus()
        try bus.startServiceAndWait()
        try bus.addModem(0, ["AccessTechnologies", "u", lte, "Ports", "a(su)", "1 usb0 2"])
        // The first use waits for ModemManager's first answer, 500 ms at
        // most: under load (CI's, once) the stand-in answered later, and the
        // first line said WiFi. This test waits for the answer itself.
        let watch = try runExample("sl-watch", in: ns, environment: ["DBUS_SYSTEM_BUS_ADDRESS=\(bus.address)",
                                                                     "REACH_FIRST_MODEM_ANSWER_MS=600000"])
        XCTAssertEqual(watch.waitForLines(1).first?.hasPrefix("initial: 4G"), true, "\(watch.lines) \(watch.stderr)")
        for (index, bits) in [umts, edge, lte].enumerated() {
            try bus.setModem(0, ["AccessTechnologies", "u", bits])
            _ = watch.waitForLines(index + 2)
        }
        let lines = watch.waitForLines(4)
        XCTAssertEqual(lines.map { String($0.prefix { $0 != "(" }) },
                       ["initial: 4G ", "mask changed: 3G ", "mask changed: 2G ", "mask changed: 4G "], watch.stderr)
        print("sl-watch output:\n" + lines.map { "  " + $0 }.joined(separator: "\n"))
    }
}
