// `reach --radio modemmanager` as a user runs it on a gateway: a modem in
// Ethernet mode (`usb0`, a veth here) whose facts ModemManager publishes (the
// stand-in on a private system bus, PrivateBus.swift). `check --json` and
// `watch` show the WWAN path's technology and registration; without
// ModemManager the link is what the kernel says.

import Foundation
import ReachabilityTesting   // runCommand
import ReachabilityTestSupport
import XCTest

final class ReachRadioTests: NamespaceTestCase {
    private let lte = "16384", umts = "32", edge = "16"

    override func setUpWithError() throws {
        try super.setUpWithError()
        try PrivateBus.requirePrograms()
    }

    /// A namespace whose default route leaves by `usb0`.
    private func gateway() throws -> TestNamespace {
        let ns = try makeNamespace()
        ns.addVethPair("usb0", peer: "ub", address: "10.30.0.1/24")
        ns.run("route add default via 10.30.0.2")
        return ns
    }

    /// `reach check internet --radio modemmanager --json` in `ns` with the bus at `address`.
    private func check(in ns: TestNamespace, bus address: String) throws -> [String: Any] {
        let result = try runCommand(URL(fileURLWithPath: "/usr/bin/env"),
                                    ["DBUS_SYSTEM_BUS_ADDRESS=\(address)", try reachBinary().path, "check", "internet",
                                     "--radio", "modemmanager", "--netns", ns.name, "--json"])
        print("reach check internet --radio modemmanager --json:\n  " + result.stdout)
        return try jsonObject(result.stdout)
    }

    func testCheckAndWatchShowTheModemsTechnologyAndRegistration() throws {
        let ns = try gateway()
        let bus = try PrivateBus()
        try bus.startServiceAndWait()
        try bus.addModem(0, ["AccessTechnologies", "u", lte, "Ports", "a(su)", "1 usb0 2", "State", "i", "11",
                             "SignalQuality", "(ub)", "72 true"],
                         modem3gpp: ["RegistrationState", "u", "1", "OperatorName", "s", "Acme", "OperatorCode", "s", "26201"])
        let object = try check(in: ns, bus: bus.address)
        XCTAssertEqual(object["interfaceKind"] as? String, "wwan", "the modem owns usb0")
        XCTAssertEqual(object["mask"] as? String, "wwan4G")
        let radio = try XCTUnwrap(object["radio"] as? [String: Any])
        XCTAssertEqual(radio["technology"] as? String, "lte")
        XCTAssertEqual(radio["generation"] as? String, "4G")
        XCTAssertEqual(radio["origin"] as? String, "ModemManager")
        XCTAssertEqual(radio["modem"] as? String, "/org/freedesktop/ModemManager1/Modem/0")
        XCTAssertEqual(radio["registration"] as? String, "home")
        XCTAssertEqual(radio["roaming"] as? Bool, false)
        XCTAssertEqual(radio["operatorName"] as? String, "Acme")
        XCTAssertEqual(radio["operatorCode"] as? String, "26201")
        XCTAssertEqual(radio["signalQuality"] as? Int, 72)

        let watch = try startReach(["watch", "internet", "--radio", "modemmanager", "--netns", ns.name],
                                   under: ["netns", "exec", ns.name, "/usr/bin/env", "DBUS_SYSTEM_BUS_ADDRESS=\(bus.address)"])
        // Each change: the target's line and one per address (8.8.8.8's shows the radio).
        XCTAssertEqual(watch.waitForLines(3).filter { $0.hasSuffix("radio lte (4G) home") }.count, 1, "\(watch.lines) \(watch.stderr)")
        // Registration alone changes no answer: the next line, at the next
        // technology, shows it.
        try bus.setModem(0, ["RegistrationState", "u", "5"], interface: "org.freedesktop.ModemManager1.Modem.Modem3gpp")
        for (index, (bits, text)) in [(umts, "radio umts (3G) roaming"), (edge, "radio edge (2G) roaming"),
                                      (lte, "radio lte (4G) roaming")].enumerated() {
            try bus.setModem(0, ["AccessTechnologies", "u", bits])
            let lines = watch.waitForLines(3 * (index + 2))
            XCTAssertEqual(lines.count, 3 * (index + 2), "\(lines) \(watch.stderr)")
            XCTAssertEqual(lines.suffix(3).filter { $0.hasSuffix(text) }.count, 1, "\(lines)")
        }
        print("reach watch internet --radio modemmanager:\n" + watch.lines.map { "  " + $0 }.joined(separator: "\n"))
    }

    /// A gateway without ModemManager (a bus, no service): `usb0` is what the
    /// kernel says (a veth: wired), with no radio, and reach says nothing more.
    func testWithoutModemManagerTheLinkIsTheKernels() throws {
        let ns = try gateway()
        let bus = try PrivateBus()
        let object = try check(in: ns, bus: bus.address)
        XCTAssertEqual(object["interfaceKind"] as? String, "wired")
        XCTAssertEqual(object["mask"] as? String, "wired")
        XCTAssertTrue(object["radio"] is NSNull, "\(object["radio"] ?? "absent")")
        let result = try runCommand(URL(fileURLWithPath: "/usr/bin/env"),
                                    ["DBUS_SYSTEM_BUS_ADDRESS=\(bus.address)", try reachBinary().path, "check", "internet",
                                     "--radio", "modemmanager", "--netns", ns.name])
        XCTAssertEqual(result.stderr, "", "no error spam")
        print("reach check internet --radio modemmanager (no ModemManager):\n  " + result.stdout)
    }
}
