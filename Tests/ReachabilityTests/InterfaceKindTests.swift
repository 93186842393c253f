import XCTest
import CReachability
import LinuxReachability
@testable import ReachabilityCore
@testable import ReachabilityKernel

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
        XCTAssertEqual(try kind(InterfaceFacts(name: "ppp0", hardwareType: 512, linkKind: "ppp")), .other)  // no PPP facts
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

    // MARK: PPP links

    /// The PPP rule written out by hand, one row per combination: (PPPoE
    /// sessions, L2TP sessions, modems) -> kind.
    static let pppTable: [(pppoe: Int, l2tp: Int, modems: [String], kind: InterfaceKind)] = [
        (0, 0, [], .other),              // a serial line without a modem: a null-modem cable
        (0, 0, ["ttyUSB2"], .wwan),      // serial, a modem present
        (0, 2, [], .tunnel),             // L2TP only
        (0, 2, ["ttyUSB2"], .other),     // L2TP or the modem: the kernel does not say
        (1, 0, [], .wired),              // PPPoE only
        (1, 0, ["ttyUSB2"], .other),     // PPPoE or the modem
        (1, 2, [], .other),              // PPPoE or L2TP
        (1, 2, ["ttyUSB2"], .other),
        (3, 0, [], .wired),
        (3, 0, ["ttyUSB2"], .other),
        (3, 2, [], .other),
        (3, 2, ["ttyUSB2"], .other),
    ]

    func testPPPRuleTableIsExhaustive() {
        var seen = Set<String>()
        for row in Self.pppTable { seen.insert("\(row.pppoe)/\(row.l2tp)/\(row.modems)") }
        var all = Set<String>()
        for pppoe in [0, 1, 3] { for l2tp in [0, 2] { for modems in [[], ["ttyUSB2"]] { all.insert("\(pppoe)/\(l2tp)/\(modems)") } } }
        XCTAssertEqual(seen, all, "one row per combination")
        XCTAssertEqual(Self.pppTable.count, all.count, "no combination twice")
    }

    func testPPPRule() {
        for row in Self.pppTable {
            let facts = PPPFacts(pppoeSessions: row.pppoe, l2tpSessions: row.l2tp, modems: row.modems)
            XCTAssertEqual(InterfaceKind(ppp: facts), row.kind, "pppoe \(row.pppoe), l2tp \(row.l2tp), modems \(row.modems)")
        }
    }

    func testPPPFactsDecideForARPHRDPPP() throws {
        for row in Self.pppTable {
            let facts = PPPFacts(pppoeSessions: row.pppoe, l2tpSessions: row.l2tp, modems: row.modems)
            XCTAssertEqual(try kind(InterfaceFacts(name: "ppp0", hardwareType: 512, linkKind: "ppp", ppp: facts)), row.kind,
                           "pppoe \(row.pppoe), l2tp \(row.l2tp), modems \(row.modems)")
        }
        // Without PPP facts (sysfs/procfs unreadable) a PPP link is other.
        XCTAssertEqual(try kind(InterfaceFacts(name: "ppp0", hardwareType: 512)), .other)
        // The rule runs before the WWAN name patterns: a PPPoE link named wwan0 is wired.
        XCTAssertEqual(try kind(InterfaceFacts(name: "wwan0", hardwareType: 512, ppp: PPPFacts(pppoeSessions: 1))), .wired)
        // PPP facts on a link that is not ARPHRD_PPP are ignored.
        XCTAssertEqual(try kind(InterfaceFacts(name: "eth0", hardwareType: 1, ppp: PPPFacts(modems: ["ttyUSB2"]))), .wired)
        XCTAssertEqual(try kind(InterfaceFacts(name: "eth0", hardwareType: 1, ppp: PPPFacts(l2tpSessions: 1))), .wired)
    }

    func testPPPOverridesAndLoopbackWin() throws {
        let modem = PPPFacts(modems: ["ttyUSB2"])
        let ppp0 = InterfaceFacts(name: "ppp0", hardwareType: 512, ppp: modem)
        XCTAssertEqual(try kind(ppp0), .wwan, "control")
        XCTAssertEqual(try kind(ppp0, ["ppp0=tunnel"]), .tunnel)
        XCTAssertEqual(try kind(ppp0, ["ppp*=wired", "ppp0=tunnel"]), .wired)
        XCTAssertEqual(try kind(ppp0, ["ppp1=tunnel"]), .wwan, "an override of another name does not apply")
        // Ambiguous facts (PPPoE and a modem): an override by name decides.
        let both = InterfaceFacts(name: "ppp0", hardwareType: 512, ppp: PPPFacts(pppoeSessions: 1, modems: ["ttyUSB2"]))
        XCTAssertEqual(try kind(both), .other, "control")
        XCTAssertEqual(try kind(both, ["ppp0=wwan"]), .wwan)
        // The loopback flag is checked before the PPP rule.
        XCTAssertEqual(try kind(InterfaceFacts(name: "ppp0", rawFlags: creach_iff_loopback, hardwareType: 512, ppp: modem)),
                       .loopback)
    }

    // MARK: Link kinds and drivers

    func testVRFIsOther() throws {
        XCTAssertEqual(try kind(InterfaceFacts(name: "vrf-blue", hardwareType: 1, linkKind: "vrf")), .other)
        XCTAssertEqual(try kind(InterfaceFacts(name: "vrf-blue", hardwareType: 1)), .wired, "control: the link kind decides")
        // Before the WWAN name patterns: a routing domain is no medium, whatever its name.
        XCTAssertEqual(try kind(InterfaceFacts(name: "wwan-vrf", hardwareType: 1, linkKind: "vrf")), .other)
    }

    func testBondVethBridgeStayWired() throws {
        for linkKind in ["bond", "veth", "bridge"] {
            XCTAssertEqual(try kind(InterfaceFacts(name: "x0", hardwareType: 1, linkKind: linkKind)), .wired, linkKind)
        }
    }

    func testOptionDriverOnAnEthernetDeviceIsWired() throws {
        // "option" drives modems' serial ports (see modemSerialDrivers), not net devices.
        XCTAssertEqual(try kind(InterfaceFacts(name: "usb0", hardwareType: 1, driver: "option")), .wired)
        XCTAssertFalse(InterfaceKind.modemDrivers.contains("option"))
        XCTAssertTrue(InterfaceKind.modemSerialDrivers.contains("option1"))
        XCTAssertEqual(try kind(InterfaceFacts(name: "usb0", hardwareType: 1, driver: "qmi_wwan")), .wwan, "control")
    }

    func testGadgetDriversAreWWANOnlyWithDevtypeWWAN() throws {
        for driver in ["cdc_ether", "rndis_host"] {
            XCTAssertEqual(try kind(InterfaceFacts(name: "usb0", hardwareType: 1, deviceType: "wwan", driver: driver)), .wwan, driver)
            XCTAssertEqual(try kind(InterfaceFacts(name: "usb0", hardwareType: 1, driver: driver)), .wired, driver)
            XCTAssertEqual(try kind(InterfaceFacts(name: "usb0", hardwareType: 1, deviceType: "gadget", driver: driver)), .wired,
                           driver)
        }
    }

    func testRawIPIsWWANAndWLANIsWiFi() throws {
        XCTAssertEqual(try kind(InterfaceFacts(name: "mhi0", hardwareType: 519)), .wwan)             // ARPHRD_RAWIP
        XCTAssertEqual(try kind(InterfaceFacts(name: "mhi0", hardwareType: 32)), .other, "control: ARPHRD_INFINIBAND")
        XCTAssertEqual(try kind(InterfaceFacts(name: "wlp1s0", hardwareType: 1, deviceType: "wlan")), .wifi)
        XCTAssertEqual(try kind(InterfaceFacts(name: "wlp1s0", hardwareType: 1, isWireless: true)), .wifi)
        XCTAssertEqual(try kind(InterfaceFacts(name: "wlp1s0", hardwareType: 1)), .wired, "control")
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
