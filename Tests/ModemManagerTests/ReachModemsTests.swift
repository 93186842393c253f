import Foundation
import ReachabilityTestSupport
import XCTest

/// `reach modems` against the stand-in, as a user runs it: across a
/// technology change, and with nothing on the bus.
final class ReachModemsTests: XCTestCase {
    override func setUpWithError() throws {
        try PrivateBus.requirePrograms()
    }

    /// `reach modems ARGS` with the bus at `address`: status and standard output.
    private func modems(_ arguments: [String], bus address: String) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = try reachBinary()
        process.arguments = ["modems"] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = address
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    func testReachModemsAcrossATechnologyChange() throws {
        let bus = try PrivateBus()
        let absent = try modems([], bus: bus.address)
        XCTAssertEqual(absent.status, 1)
        XCTAssertEqual(absent.output, "ModemManager: unavailable: ModemManager is not running\n")
        try bus.startServiceAndWait()
        try bus.addModem(0, ["AccessTechnologies", "u", "16384", "Ports", "a(su)", "2 wwan0 2 cdc-wdm0 6", "State", "i", "11",
                             "SignalQuality", "(ub)", "72 true"],
                         modem3gpp: ["RegistrationState", "u", "1", "OperatorName", "s", "Acme", "OperatorCode", "s", "26201"])
        let lte = try modems([], bus: bus.address)
        XCTAssertEqual(lte.status, 0)
        XCTAssertEqual(lte.output, """
            ModemManager: available
              /org/freedesktop/ModemManager1/Modem/0  wwan0  lte (4G)  connected  home  Acme 26201  signal 72%

            """)
        try bus.setModem(0, ["AccessTechnologies", "u", "16"])
        try bus.setModem(0, ["RegistrationState", "u", "5"], interface: "org.freedesktop.ModemManager1.Modem.Modem3gpp")
        let edge = try modems(["--json"], bus: bus.address)
        XCTAssertEqual(edge.status, 0)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(edge.output.utf8)) as? [String: Any])
        XCTAssertEqual(object["availability"] as? String, "available")
        let modem = try XCTUnwrap((object["modems"] as? [[String: Any]])?.first)
        XCTAssertEqual(modem["technology"] as? String, "edge")
        XCTAssertEqual(modem["generation"] as? String, "2G")
        XCTAssertEqual(modem["registration"] as? String, "roaming")
        XCTAssertEqual(modem["roaming"] as? Bool, true)
        XCTAssertEqual(modem["interfaces"] as? [String], ["wwan0"])
        XCTAssertEqual(object["dropped"] as? Int, 0)
    }
}
