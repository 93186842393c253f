import XCTest
import CReachability
import LinuxReachability
@testable import ReachabilityCore
@testable import ReachabilityKernel

/// Every classification rule from the bytes up: an RTM_NEWLINK as the kernel
/// sends it for links this machine's kernel cannot make (PPP, raw-IP WWAN,
/// Wi-Fi), parsed by the C core, then classified with the sysfs and procfs
/// facts a real box would show. (The same links on a real kernel: make test-kernel.)
final class LinkMessageKindTests: XCTestCase {
    private static let up: UInt32 = 0x1, pointToPoint: UInt32 = 0x10, noARP: UInt32 = 0x80, lowerUp: UInt32 = 0x10000

    /// nlmsghdr (16) + ifinfomsg (16) + IFLA_IFNAME, IFLA_OPERSTATE, IFLA_LINKINFO { IFLA_INFO_KIND }.
    private func newLink(name: String, index: Int32, type: UInt16, flags: UInt32, operstate: UInt8, kind: String?) -> [UInt8] {
        func attribute(_ type: UInt16, _ payload: [UInt8]) -> [UInt8] {
            let length = 4 + payload.count
            var bytes = le(UInt16(length)) + le(type) + payload
            bytes += [UInt8](repeating: 0, count: (4 - length % 4) % 4)
            return bytes
        }
        var body: [UInt8] = [0, 0] + le(type) + le(UInt32(bitPattern: index)) + le(flags) + le(UInt32(0))  // ifinfomsg
        body += attribute(3, Array(name.utf8) + [0])                                              // IFLA_IFNAME
        body += attribute(16, [operstate])                                                        // IFLA_OPERSTATE
        if let kind { body += attribute(18, attribute(1, Array(kind.utf8) + [0])) }               // IFLA_LINKINFO { IFLA_INFO_KIND }
        return le(UInt32(16 + body.count)) + le(UInt16(16)) + le(UInt16(0)) + le(UInt32(0)) + le(UInt32(0)) + body  // RTM_NEWLINK
    }

    private func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value.littleEndian, Array.init) }

    private func parsed(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) throws -> LinkState {
        var link = creach_link()
        let rc = withGuardedBytes(bytes) { creach_parse_link($0, $1, &link) }
        XCTAssertEqual(rc, 0, "creach_parse_link", file: file, line: line)
        return LinkState(link)
    }

    private func kind(_ link: LinkState, deviceType: String? = nil, wireless: Bool = false, driver: String? = nil,
                      ppp: PPPFacts? = nil) -> InterfaceKind {
        InterfaceKind(facts: InterfaceFacts(name: link.name, rawFlags: link.rawFlags, hardwareType: link.hardwareType,
                                            linkKind: link.linkKind, deviceType: deviceType, isWireless: wireless,
                                            driver: driver, ppp: ppp))
    }

    func testPPPFromItsLinkMessage() throws {
        let ppp = try parsed(newLink(name: "ppp0", index: 9, type: 512, flags: Self.up | Self.lowerUp | Self.pointToPoint | Self.noARP,
                                     operstate: 0, kind: "ppp"))
        XCTAssertEqual(ppp.hardwareType, 512)
        XCTAssertEqual(ppp.linkKind, "ppp")
        XCTAssertTrue(ppp.isPointToPoint)
        XCTAssertEqual(kind(ppp, ppp: PPPFacts(modems: ["ttyUSB2"])), .wwan, "pppd over a modem's serial port")
        XCTAssertEqual(kind(ppp, ppp: PPPFacts(pppoeSessions: 1)), .wired, "PPPoE")
        XCTAssertEqual(kind(ppp, ppp: PPPFacts(l2tpSessions: 1)), .tunnel, "L2TP")
        XCTAssertEqual(kind(ppp, ppp: PPPFacts(pppoeSessions: 1, modems: ["ttyUSB2"])), .other, "ambiguous")
        XCTAssertEqual(kind(ppp, ppp: PPPFacts()), .other, "a null-modem line")
        let flags = ReachabilityFlags(route: routeVia(9), link: ppp, kind: kind(ppp, ppp: PPPFacts(modems: ["wwan0at0"])))
        XCTAssertEqual(flags, [.reachable, .isDirect, .transientConnection, .isWWAN], "WR t-----d")
    }

    func testRawIPWWANFromItsLinkMessage() throws {
        let rmnet = try parsed(newLink(name: "mhi_hwip0", index: 4, type: 519, flags: Self.up | Self.lowerUp | Self.noARP,
                                       operstate: 6, kind: nil))
        XCTAssertEqual(kind(rmnet), .wwan, "ARPHRD_RAWIP")
        let usb = try parsed(newLink(name: "usb0", index: 5, type: 1, flags: Self.up | Self.lowerUp, operstate: 6, kind: nil))
        XCTAssertEqual(kind(usb, deviceType: "wwan", driver: "cdc_ether"), .wwan, "cdc_ether with the kernel's WWAN flag")
        XCTAssertEqual(kind(usb, driver: "cdc_ether"), .wired, "a plain Ethernet gadget")
        XCTAssertEqual(kind(usb, driver: "rndis_host"), .wired)
        XCTAssertEqual(kind(usb, driver: "qmi_wwan"), .wwan)
    }

    func testWiFiFromItsLinkMessage() throws {
        let dormant = try parsed(newLink(name: "wlan0", index: 3, type: 1, flags: Self.up | Self.lowerUp, operstate: 5, kind: nil))
        XCTAssertEqual(dormant.operState, .dormant)
        XCTAssertEqual(kind(dormant, wireless: true), .wifi, "phy80211")
        XCTAssertEqual(kind(dormant, deviceType: "wlan"), .wifi, "DEVTYPE=wlan")
        let flags = ReachabilityFlags(route: routeVia(3), link: dormant, kind: .wifi)
        XCTAssertTrue(flags.contains([.reachable, .connectionRequired, .interventionRequired]),
                      "dormant (the WPA handshake): \(flags)")
        let vrf = try parsed(newLink(name: "vrf-blue", index: 6, type: 1, flags: Self.up | Self.lowerUp, operstate: 6, kind: "vrf"))
        XCTAssertEqual(kind(vrf), .other, "a VRF master")
    }

    private func routeVia(_ index: Int32) -> RouteLookup {
        var raw = creach_route()
        raw.family = UInt8(AF_INET); raw.type = UInt8(RTN_UNICAST); raw.table = 254; raw.oif = index
        return RouteLookup(raw)
    }
}
