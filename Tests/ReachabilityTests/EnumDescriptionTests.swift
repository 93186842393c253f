import XCTest
@testable import ReachabilityCore
@testable import ReachabilityKernel

/// Every enum of the API describes itself with its case's name (what printing
/// it showed through reflection before it had a description), so it prints
/// the same in a build without reflection metadata (firmware-minimal.flags).
final class EnumDescriptionTests: XCTestCase {
    private func assertNames<Value: CustomStringConvertible>(_ values: [Value], _ names: [String],
                                                            file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(values.map(\.description), names, file: file, line: line)
        XCTAssertEqual(values.map { "\($0)" }, names, file: file, line: line)
    }

    func testCasesPrintAsTheirNames() {
        assertNames(InterfaceKind.allCases, ["wired", "wifi", "wwan", "tunnel", "loopback", "other"])
        assertNames(UplinkState.allCases, ["online", "disconnecting", "offline", "connecting"])
        assertNames(RadioGeneration.allCases, ["g2", "g3", "g4", "g5"])
        assertNames(RadioTechnology.allCases,
                    ["gsm", "gprs", "edge", "cdma1x", "umts", "hsdpa", "hsupa", "hspa", "hspaPlus", "evdo", "tdscdma", "evdoRevA", "evdoRevB",
                     "ehrpd", "lte", "nrNSA", "nr"])
        assertNames(ProbeVerdict.allCases, ["notProbed", "answered", "failed", "captivePortal"])
        assertNames(RestrictionReason.allCases, ["prohibited", "wwanRefused", "probeFailed"])
        assertNames(UnsatisfiedReason.allCases, ["notAvailable", "prohibited", "wwanRefused", "interventionRequired"])
        assertNames([OperState.unknown, .notPresent, .down, .lowerLayerDown, .testing, .dormant, .up],
                    ["unknown", "notPresent", "down", "lowerLayerDown", "testing", "dormant", "up"])
        assertNames([RouteVerdict.unicast, .local, .broadcast, .multicast, .anycast, .unreachable, .blackhole, .prohibit,
                     .noRoute, .throw, .failed],
                    ["unicast", "local", "broadcast", "multicast", "anycast", "unreachable", "blackhole", "prohibit",
                     "noRoute", "throw", "failed"])
        assertNames([NetworkStatus.notReachable, .reachableViaWiFi, .reachableViaWWAN],
                    ["notReachable", "reachableViaWiFi", "reachableViaWWAN"])
        assertNames([PathStatus.satisfied, .unsatisfied, .requiresConnection], ["satisfied", "unsatisfied", "requiresConnection"])
    }

    /// Where the raw value is not the case's name, the description is the name.
    func testCasesWhoseRawValueDiffersStillPrintAsTheirNames() {
        assertNames([DNSRecordType.a, .aaaa], ["a", "aaaa"])
        XCTAssertEqual(DNSRecordType.aaaa.rawValue, "AAAA")
        assertNames([ProbeTransport.icmpRaw, .icmpDatagram, .tcpConnect, .http, .dns],
                    ["icmpRaw", "icmpDatagram", "tcpConnect", "http", "dns"])
        XCTAssertEqual(ProbeTransport.icmpRaw.rawValue, "icmp-raw")
        assertNames([IPAddress.Family.v4, .v6], ["v4", "v6"])
        XCTAssertEqual(IPAddress.Family.v4.rawValue, "ipv4")
        XCTAssertEqual(ProbeMethod.dns(name: "example.org", type: .aaaa).description, "dns:example.org/aaaa")
    }
}
