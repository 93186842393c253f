import Foundation
import ReachabilityTestSupport
import XCTest
import LinuxReachability
import ReachabilityCore
import ReachabilityModemManager

/// ReachabilityModemManager over the real protocol: a private dbus-daemon and
/// a ModemManager stand-in that publishes ModemManager's interfaces
/// (modemmanager_standin.py), driven through its mock methods; then Debian's
/// real ModemManager with no modem.
final class ModemManagerRadioTests: XCTestCase {
    private let modem = "org.freedesktop.ModemManager1.Modem"
    private let modem3gpp = "org.freedesktop.ModemManager1.Modem.Modem3gpp"

    override func setUpWithError() throws {
        try PrivateBus.requirePrograms()
    }

    /// A bus with the stand-in, and a radio that feeds `source`, available with no modem yet.
    private func started(_ source: RadioSource, denying destination: String? = nil, debianPolicy: Bool = false,
                         callTimeout: Duration = .seconds(5)) throws -> (PrivateBus, ModemManagerRadio) {
        let bus = try PrivateBus(denying: destination, debianPolicy: debianPolicy)
        let radio = ModemManagerRadio(busAddress: bus.address, retryInterval: .milliseconds(50), callTimeout: callTimeout)
        addTeardownBlock { radio.stop() }
        try radio.follow(into: source)
        radio.wait("the service is absent before it starts") { $0.availability == .unavailable(.serviceAbsent) }
        try bus.startService()
        radio.wait("the stand-in answers") { $0.availability == .available }
        return (bus, radio)
    }

    func testAModemsTechnologyAndInterfacesReachTheRadioSource() throws {
        let source = RadioSource()
        let (bus, radio) = try started(source)
        XCTAssertEqual(radio.modems, [])
        // `started` waited for the radio's table to say available; its sources
        // are told after the table changes: wait for the source it asserts on.
        radio.wait("the source is told") { _ in source.modemFacts != nil }
        XCTAssertEqual(source.modemFacts, RadioSource.ModemFacts(provider: "ModemManager", technologies: [:], interfaces: []))
        try bus.addModem(0, ["AccessTechnologies", "u", "16384", "Ports", "a(su)", "2 wwan0 2 cdc-wdm0 6", "State", "i", "11"],
                         modem3gpp: ["RegistrationState", "u", "1", "OperatorName", "s", "Acme", "OperatorCode", "s", "26201"])
        // The radio's table takes the modem before its sources are told (its
        // observers are called after): wait for the source, which is asked below.
        radio.wait("the modem appears") { $0.modems.count == 1 && source.modemFacts?.interfaces.isEmpty == false }
        let first = try XCTUnwrap(radio.modems.first)
        XCTAssertEqual(first.accessTechnologies, .lte)
        XCTAssertEqual(first.radioTechnology, .lte)
        XCTAssertEqual(first.state, .connected)
        XCTAssertEqual(first.registration, .home)
        XCTAssertEqual(first.operatorName, "Acme")
        XCTAssertEqual(first.operatorCode, "26201")
        XCTAssertEqual(first.ports, [ModemPort(name: "wwan0", type: 2), ModemPort(name: "cdc-wdm0", type: 6)])
        XCTAssertEqual(radio.interfaces(of: first), ["wwan0"], "the QMI control port is no network interface")
        XCTAssertEqual(source.technology(for: "wwan0"), .lte)
        XCTAssertEqual(source.origin(for: "wwan0"), .modem(provider: "ModemManager"))
        XCTAssertTrue(source.isModemInterface("wwan0"))
        XCTAssertFalse(source.isModemInterface("cdc-wdm0"))
        // The application's own setting wins, and says so.
        source.set(.edge, for: "wwan0")
        XCTAssertEqual(source.technology(for: "wwan0"), .edge)
        XCTAssertEqual(source.origin(for: "wwan0"), .application)
        source.set(nil, for: "wwan0")
        XCTAssertEqual(source.technology(for: "wwan0"), .lte)
        XCTAssertEqual(radio.counters.dropped, 0)
    }

    /// LTE → UMTS → EDGE → LTE, LTE with 5G NR (EN-DC), then home → roaming:
    /// each change once, in order.
    func testTechnologyAndRegistrationFollowTheModem() throws {
        let source = RadioSource()
        let (bus, radio) = try started(source)
        try bus.addModem(0, ["AccessTechnologies", "u", "16384", "Ports", "a(su)", "1 wwan0 2"], modem3gpp: ["RegistrationState", "u", "1"])
        radio.wait("LTE") { _ in source.technology(for: "wwan0") == .lte }
        for (bits, technology) in [(32, RadioTechnology.umts), (16, .edge), (16384, .lte), (16384 | 32768, .nrNSA), (32768, .nr)] {
            try bus.setModem(0, ["AccessTechnologies", "u", "\(bits)"])
            radio.wait("\(technology)") { _ in source.technology(for: "wwan0") == technology }
        }
        try bus.setModem(0, ["RegistrationState", "u", "5"], interface: modem3gpp)
        radio.wait("roaming") { $0.modems.first?.registration == .roaming }
        XCTAssertEqual(radio.modems.first?.registration?.isRoaming, true)
        XCTAssertEqual(radio.counters.dropped, 0)
    }

    /// A bearer's interface is the modem's too (a PPP or multiplexed data port
    /// that is not among its ports); the modem leaves and comes back.
    func testABearerAndAModemThatLeavesAndComesBack() throws {
        let source = RadioSource()
        let (bus, radio) = try started(source)
        try bus.addModem(0, ["AccessTechnologies", "u", "32", "Ports", "a(su)", "1 ttyUSB2 3"])
        radio.wait("the modem appears") { $0.modems.count == 1 }
        XCTAssertEqual(source.modemFacts?.interfaces, [])
        try bus.mock("AddBearer", "uus", ["0", "1", "ppp0"])
        radio.wait("the bearer's interface") { _ in source.isModemInterface("ppp0") }
        XCTAssertEqual(source.technology(for: "ppp0"), .umts)
        try bus.mock("RemoveModem", "u", ["0"])
        radio.wait("the modem leaves") { $0.modems.isEmpty }
        XCTAssertNil(source.technology(for: "ppp0"))
        XCTAssertFalse(source.isModemInterface("ppp0"))
        try bus.addModem(0, ["AccessTechnologies", "u", "16384", "Ports", "a(su)", "1 wwan0 2"])
        radio.wait("the modem comes back") { _ in source.technology(for: "wwan0") == .lte }
    }

    /// The service stops (its facts go: not stale ones) and starts again (read again, no polling).
    func testTheServiceRestarts() throws {
        let source = RadioSource()
        let (bus, radio) = try started(source)
        try bus.addModem(0, ["AccessTechnologies", "u", "16384", "Ports", "a(su)", "1 wwan0 2"])
        radio.wait("LTE") { _ in source.technology(for: "wwan0") == .lte }
        bus.stopService()
        radio.wait("the service left") { $0.availability == .unavailable(.serviceAbsent) }
        XCTAssertNil(source.modemFacts)
        XCTAssertNil(source.technology(for: "wwan0"))
        try bus.startService()
        radio.wait("the service is back") { $0.availability == .available }
        XCTAssertEqual(radio.modems, [])
        try bus.addModem(3, ["AccessTechnologies", "u", "16", "Ports", "a(su)", "1 wwan0 2"])
        radio.wait("EDGE") { _ in source.technology(for: "wwan0") == .edge }
        XCTAssertEqual(radio.counters.reads, 2)
    }

    /// A bearer whose properties ModemManager does not give (a hung daemon,
    /// or one slow with many bearers): the radio's thread does not wait for
    /// them. The stand-in holds the call and, once it has it, changes the
    /// modem: that change is seen while the call is still unanswered, and
    /// the answer, when it comes, is taken (the call was not given up: its
    /// timeout is an hour here, so that no machine is too slow for the test).
    func testABearerCallThatIsNotAnsweredDoesNotStallTheRadio() throws {
        let source = RadioSource()
        let (bus, radio) = try started(source, callTimeout: .seconds(3600))
        try bus.addModem(0, ["AccessTechnologies", "u", "16384", "Ports", "a(su)", "1 wwan0 2"])
        radio.wait("the modem appears") { _ in source.technology(for: "wwan0") == .lte }
        try bus.mock("AddSilentBearer", "uus", ["0", "1", "ppp0"])
        radio.wait("the change the stand-in makes once it holds the bearer's call") { $0.modems.first?.signalQuality == 77 }
        XCTAssertFalse(source.isModemInterface("ppp0"), "the bearer's call is unanswered")
        try bus.mock("AnswerFirstBearerCall", "", [])
        radio.wait("the bearer's interface, from the answer to the call the radio made") { _ in source.isModemInterface("ppp0") }
        XCTAssertEqual(source.technology(for: "ppp0"), .lte)
        // stop() does not wait for a call either: one is held (the radio asks for no bearer twice meanwhile).
        try bus.mock("AddSilentBearer", "uus", ["0", "2", "ppp1"])
        radio.stop()
        XCTAssertEqual(radio.availability, .stopped)
    }

    /// A radio source unfollowed while a change is on its way to it (after
    /// the change decided whom it tells, before it tells them): it ends with
    /// no modem facts, as unfollow says, not the change's.
    func testASourceUnfollowedDuringAChangeKeepsNoFacts() throws {
        let source = RadioSource()
        let (bus, radio) = try started(source)
        let fired = NSLock()
        nonisolated(unsafe) var first = true
        radio.testHooks.beforeSourcesAreTold = { [unowned radio] in
            guard fired.withLock({ defer { first = false }; return first }) else { return }
            radio.unfollow(source)
        }
        try bus.addModem(0, ["AccessTechnologies", "u", "16384", "Ports", "a(su)", "1 wwan0 2"])
        // The table takes the modem before the hook runs: wait for all that is asserted.
        radio.wait("the modem appears") { $0.modems.count == 1 && !$0.feeds(source) && source.modemFacts == nil }
        XCTAssertFalse(radio.feeds(source))
        XCTAssertNil(source.modemFacts, "a source no longer followed holds the modem's facts")
        XCTAssertNil(source.technology(for: "wwan0"))
    }

    /// Another user on Debian's system bus sends ModemManager's signals
    /// straight to the radio's connection (the policy lets anyone send a
    /// signal to anyone): a modem made of eth0, a modem changed, added and
    /// removed, then ModemManager said gone. None is believed. Each time a
    /// change of the real stand-in, sent after the spoofer's signals were
    /// routed, is the barrier: when the radio has it, it has seen them.
    func testSpoofedSignalsFromAnotherUserAreNotBelieved() throws {
        guard getuid() == 0 else {
            try PrivateBus.skipOrFail("the spoofer runs as another user: the test needs root to switch to it")
            return
        }
        let source = RadioSource()
        let (bus, radio) = try started(source, debianPolicy: true)
        try bus.addModem(0, ["AccessTechnologies", "u", "16384", "Ports", "a(su)", "1 wwan0 2", "SignalQuality", "(ub)", "40 true"])
        radio.wait("the modem appears") { _ in source.technology(for: "wwan0") == .lte }

        let modemSignals = try bus.spoof("modem")
        XCTAssertEqual(modemSignals, 4, "one connection of this process on the bus: the radio's")
        try bus.setModem(0, ["SignalQuality", "(ub)", "41 true"])
        radio.wait("the stand-in's change after the spoofed ones") { $0.modems.first?.signalQuality == 41 }
        XCTAssertEqual(radio.modems.map(\.path), ["/org/freedesktop/ModemManager1/Modem/0"])
        XCTAssertEqual(source.technology(for: "wwan0"), .lte)
        XCTAssertNil(source.technology(for: "eth0"))
        XCTAssertFalse(source.isModemInterface("eth0"), "eth0 was made a modem's port by another user")
        XCTAssertEqual(radio.counters.spoofed, UInt64(modemSignals))
        XCTAssertEqual(radio.counters.lastSpoofSender?.hasPrefix(":"), true, "the spoofer's unique name")

        let ownerSignals = try bus.spoof("owner")
        try bus.setModem(0, ["SignalQuality", "(ub)", "42 true"])
        radio.wait("the stand-in's change, or the spoofed departure") {
            $0.modems.first?.signalQuality == 42 || $0.availability != .available
        }
        XCTAssertEqual(radio.availability, .available, "another user said ModemManager was gone")
        XCTAssertEqual(source.technology(for: "wwan0"), .lte)
        XCTAssertEqual(radio.counters.spoofed, UInt64(modemSignals + ownerSignals))
        XCTAssertEqual(radio.counters.dropped, 0)
    }

    /// No bus: a typed state, the radio source without facts, and the radio
    /// picks the bus up when it appears (tried again every retryInterval).
    func testNoBusIsAStateAndTheBusIsPickedUpWhenItComes() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("reach-nobus-\(UUID().uuidString)")
        let radio = ModemManagerRadio(busAddress: "unix:path=\(directory.path)/bus", retryInterval: .milliseconds(50))
        addTeardownBlock { radio.stop() }
        let source = RadioSource()
        source.set(.lte, for: "wwan9")
        try radio.follow(into: source)
        radio.wait("no bus") { $0.availability == .unavailable(.noBus(errno: ENOENT)) }
        XCTAssertNil(source.modemFacts)
        XCTAssertEqual(source.technology(for: "wwan9"), .lte, "the application's setting keeps working")
        XCTAssertEqual(ModemManagerUnavailable.noBus(errno: ENOENT).description, "no system bus (No such file or directory)")
        // The bus comes, then the service: each is picked up.
        let bus = try PrivateBus(in: directory)
        radio.wait("the bus is picked up") { $0.availability == .unavailable(.serviceAbsent) }
        try bus.startService()
        radio.wait("the service is picked up") { $0.availability == .available }
        try bus.addModem(0, ["AccessTechnologies", "u", "16384", "Ports", "a(su)", "1 wwan0 2"])
        radio.wait("LTE") { _ in source.technology(for: "wwan0") == .lte }
    }

    /// The bus policy refuses this process the service: a typed state.
    func testABusPolicyThatRefusesIsAState() throws {
        let bus = try PrivateBus(denying: "org.freedesktop.ModemManager1")
        try bus.startService()
        let radio = ModemManagerRadio(busAddress: bus.address, retryInterval: .milliseconds(50))
        addTeardownBlock { radio.stop() }
        try radio.follow(into: RadioSource())
        radio.wait("refused") { radio in
            if case .unavailable(.accessDenied) = radio.availability { return true }
            return false
        }
    }

    /// A wrong D-Bus type, unknown technology bits, an unknown state: each a
    /// counted drop with its typed reason; the previous value stays.
    func testMalformedPropertiesAreCountedDrops() throws {
        let source = RadioSource()
        let (bus, radio) = try started(source)
        try bus.addModem(0, ["AccessTechnologies", "u", "16384", "Ports", "a(su)", "1 wwan0 2", "State", "i", "8",
                             "SignalQuality", "(ub)", "60 true"])
        radio.wait("LTE") { _ in source.technology(for: "wwan0") == .lte }
        XCTAssertEqual(source.technology(for: "wwan0"), .lte, "the source holds \(String(describing: source.modemFacts))")
        let cases: [([String], ModemPropertyError)] = [
            (["SignalQuality", "(ub)", "150 true"], .signalQualityOutOfRange(150)),
            (["AccessTechnologies", "s", "lte"], .wrongType(property: "AccessTechnologies", expected: "u", got: "s")),
            (["AccessTechnologies", "u", "\(1 << 20 | 16384)"], .unknownAccessTechnologies(1 << 20 | 16384)),
            (["State", "i", "99"], .unknownState(99)),
            (["Ports", "a(ss)", "1 wwan0 net"], .wrongType(property: "Ports", expected: "a(su)", got: "a(ss)")),
        ]
        for (index, (property, error)) in cases.enumerated() {
            try bus.setModem(0, property)
            radio.wait("drop \(index + 1)") { $0.counters.dropped == UInt64(index + 1) }
            XCTAssertEqual(radio.counters.lastDrop, error)
        }
        XCTAssertEqual(source.technology(for: "wwan0"), .lte)
        XCTAssertEqual(radio.modems.first?.state, .registered)
        XCTAssertEqual(radio.modems.first?.ports, [ModemPort(name: "wwan0", type: 2)])
        XCTAssertEqual(radio.modems.first?.signalQuality, 60, "a percentage over 100 is dropped, not clamped")
        // And the next good value is taken.
        try bus.setModem(0, ["AccessTechnologies", "u", "32"])
        radio.wait("UMTS") { _ in source.technology(for: "wwan0") == .umts }
    }

    /// Ports read in place (no copy while they are the same) still follow
    /// every change: one more, another instead, the same again, fewer.
    func testPortsFollowEveryChange() throws {
        let source = RadioSource()
        let (bus, radio) = try started(source)
        try bus.addModem(0, ["AccessTechnologies", "u", "16384", "Ports", "a(su)", "1 wwan0 2"])
        radio.wait("wwan0") { _ in source.modemFacts?.interfaces == ["wwan0"] }
        for (ports, interfaces) in [("2 wwan0 2 usb0 2", Set(["wwan0", "usb0"])), ("2 wwan0 2 eth1 2", ["wwan0", "eth1"]),
                                    ("2 wwan0 2 eth1 2", ["wwan0", "eth1"]), ("1 eth1 2", ["eth1"]), ("0", [])] {
            try bus.setModem(0, ["Ports", "a(su)", ports])
            radio.wait("ports \(ports)") { _ in source.modemFacts?.interfaces == interfaces }
        }
        XCTAssertEqual(radio.counters.dropped, 0)
    }

    /// Nothing runs before `follow(into:)`: no thread, no connection; then
    /// one thread. (Counted from before: the compat tests in this process
    /// follow the shared radio, as iOS code using them does. Counted by the
    /// library (`runningLibraryThreads(_:)` says why not by name).)
    func testNoThreadUntilFollowed() throws {
        let before = runningLibraryThreads(.modems)
        let radio = ModemManagerRadio(busAddress: "unix:path=/nonexistent")
        XCTAssertEqual(radio.availability, .stopped)
        XCTAssertEqual(runningLibraryThreads(.modems), before)
        try radio.follow(into: RadioSource())
        XCTAssertTrue(radio.waitForFirstAnswer(timeout: .seconds(10)), "the thread answers: no bus")
        XCTAssertEqual(runningLibraryThreads(.modems), before + 1)
        radio.stop()
        XCTAssertEqual(runningLibraryThreads(.modems), before)
    }

    /// Debian's ModemManager itself, with no modem attached: it publishes none,
    /// and the radio stays quiet (no drop, no modem, no facts but an empty set).
    func testTheRealModemManagerWithNoModem() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/sbin/ModemManager") else {
            try PrivateBus.skipOrFail("/usr/sbin/ModemManager is missing (make setup installs modemmanager)")
            return
        }
        guard getuid() == 0 else { throw XCTSkip("ModemManager needs root to start") }
        let bus = try PrivateBus()
        let radio = ModemManagerRadio(busAddress: bus.address, retryInterval: .milliseconds(50))
        addTeardownBlock { radio.stop() }
        let source = RadioSource()
        try radio.follow(into: source)
        radio.wait("the service is absent before it starts") { $0.availability == .unavailable(.serviceAbsent) }
        try bus.startService(real: true)
        radio.wait(timeout: 30, "ModemManager answers") { $0.availability == .available }
        XCTAssertEqual(radio.modems, [])
        XCTAssertEqual(source.modemFacts?.interfaces, [])
        XCTAssertEqual(radio.counters.dropped, 0)
    }
}

/// The technology table (ModemAccessTechnologies.radioTechnology), as documented.
final class ModemAccessTechnologiesTests: XCTestCase {
    func testTheTable() {
        let table: [(ModemAccessTechnologies, RadioTechnology?)] = [
            ([], nil), (.pots, nil), (.gsm, .gsm), (.gsmCompact, .gsm), (.gprs, .gprs), ([.gsm, .gprs], .gprs),
            (.edge, .edge), (.umts, .umts), (.hsdpa, .hsdpa), (.hsupa, .hsupa), ([.hsdpa, .hsupa], .hspa),
            (.hspa, .hspa), (.hspaPlus, .hspaPlus), ([.umts, .hspaPlus], .hspaPlus), (.cdma1xRTT, .cdma1x),
            (.evdo0, .evdo), (.evdoA, .evdoRevA), (.evdoB, .evdoRevB), (.lte, .lte), (.lteCatM, .lte), (.lteNBIoT, .lte),
            ([.lte, .nr5G], .nrNSA), (.nr5G, .nr), ([.umts, .lte], .lte), ([.edge, .umts], .umts),
        ]
        for (bits, technology) in table {
            XCTAssertEqual(bits.radioTechnology, technology, "\(bits.names)")
        }
        XCTAssertEqual(ModemAccessTechnologies(rawValue: 16384 | 32768).names, ["lte", "5gnr"])
    }
}
