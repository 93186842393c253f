import XCTest
import CReachability
@testable import Reachability

final class InterfaceKindTests: XCTestCase {
    func kind(_ facts: InterfaceFacts, _ overrides: [String] = []) throws -> InterfaceKind {
        InterfaceKind(facts: facts, overrides: try overrides.map { try InterfaceKindOverride(parsing: $0) })
    }

    func testLoopback() throws {
        XCTAssertEqual(try kind(InterfaceFacts(name: "lo", rawFlags: creach_iff_loopback | creach_iff_up, hardwareType: 772)), .loopback)
        XCTAssertEqual(try kind(InterfaceFacts(name: "lo2", hardwareType: 772)), .loopback)
    }

    func testWWANFromEachFact() throws {
        XCTAssertEqual(try kind(InterfaceFacts(name: "usb0", hardwareType: 1, deviceType: "wwan")), .wwan)
        XCTAssertEqual(try kind(InterfaceFacts(name: "x0", hardwareType: 519)), .wwan)           // ARPHRD_RAWIP
        XCTAssertEqual(try kind(InterfaceFacts(name: "usb1", hardwareType: 1, driver: "qmi_wwan")), .wwan)
        XCTAssertEqual(try kind(InterfaceFacts(name: "wwan0", hardwareType: 1, linkKind: "veth")), .wwan)
        XCTAssertEqual(try kind(InterfaceFacts(name: "rmnet_data0", hardwareType: 65534)), .wwan)
        XCTAssertEqual(try kind(InterfaceFacts(name: "usb1", hardwareType: 1, driver: "cdc_ether")), .wired)
    }

    func testWiFi() throws {
        XCTAssertEqual(try kind(InterfaceFacts(name: "wlan0", hardwareType: 1, isWireless: true)), .wifi)
        XCTAssertEqual(try kind(InterfaceFacts(name: "wlp2s0", hardwareType: 1, deviceType: "wlan")), .wifi)
    }

    func testTunnels() throws {
        XCTAssertEqual(try kind(InterfaceFacts(name: "wg0", hardwareType: 65534, linkKind: "wireguard")), .tunnel)
        XCTAssertEqual(try kind(InterfaceFacts(name: "tap0", hardwareType: 1, linkKind: "tun")), .tunnel)
        XCTAssertEqual(try kind(InterfaceFacts(name: "gre1", hardwareType: 778)), .tunnel)
        XCTAssertEqual(try kind(InterfaceFacts(name: "sit1", hardwareType: 776, linkKind: "sit")), .tunnel)
    }

    func testWiredAndOther() throws {
        XCTAssertEqual(try kind(InterfaceFacts(name: "eth0", hardwareType: 1)), .wired)
        XCTAssertEqual(try kind(InterfaceFacts(name: "veth0", hardwareType: 1, linkKind: "veth")), .wired)
        XCTAssertEqual(try kind(InterfaceFacts(name: "br0", hardwareType: 1, linkKind: "bridge")), .wired)
        XCTAssertEqual(try kind(InterfaceFacts(name: "ppp0", hardwareType: 512, linkKind: "ppp")), .other)
        XCTAssertEqual(try kind(InterfaceFacts(name: "ib0", hardwareType: 32)), .other)
    }

    func testOrderWWANBeforeWiFiBeforeTunnel() throws {
        // A WWAN DEVTYPE on a wireless-looking device is WWAN; a tun named wwan0 is WWAN.
        XCTAssertEqual(try kind(InterfaceFacts(name: "x", hardwareType: 1, deviceType: "wwan", isWireless: true)), .wwan)
        XCTAssertEqual(try kind(InterfaceFacts(name: "wwan0", hardwareType: 65534, linkKind: "tun")), .wwan)
        XCTAssertEqual(try kind(InterfaceFacts(name: "wl0", hardwareType: 1, linkKind: "tun", isWireless: true)), .wifi)
    }

    func testOverridesWinAndFirstMatchWins() throws {
        let eth = InterfaceFacts(name: "eth1", hardwareType: 1)
        XCTAssertEqual(try kind(eth, ["eth1=wwan"]), .wwan)
        XCTAssertEqual(try kind(eth, ["eth*=wifi", "eth1=wwan"]), .wifi)
        XCTAssertEqual(try kind(eth, ["usb*=wwan"]), .wired)
        XCTAssertEqual(try kind(InterfaceFacts(name: "wwan0", hardwareType: 1), ["wwan0=wired"]), .wired)
        XCTAssertEqual(try kind(InterfaceFacts(name: "lo", rawFlags: creach_iff_loopback), ["l?=tunnel"]), .tunnel)
    }

    func testOverrideParsing() throws {
        let rule = try InterfaceKindOverride(parsing: "wg*=tunnel")
        XCTAssertEqual(rule.pattern, "wg*")
        XCTAssertEqual(rule.kind, .tunnel)
        XCTAssertEqual(rule.description, "wg*=tunnel")
        for bad in ["eth0", "eth0=", "=wwan", "eth0=banana", "eth0=WWAN"] {
            XCTAssertThrowsError(try InterfaceKindOverride(parsing: bad), bad) { error in
                guard case .invalidKindOverride = error as? ReachabilityError else { return XCTFail("\(bad): \(error)") }
            }
        }
    }
}
