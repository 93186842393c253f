// CoreTelephony on the real kernel: CTCellularData's state from the WWAN
// links, the process's WWAN switch and kernel prohibit rules; CTTelephonyNetworkInfo
// from RadioSource.processDefault.

@testable import CoreTelephony
import Foundation
import LinuxReachability
import ReachabilityCompatSupport
import Synchronization
import XCTest

final class CoreTelephonyTests: CompatTestCase {
    private func watch(_ data: CTCellularData) -> Arrivals<CTCellularDataRestrictedState> {
        let arrivals = Arrivals<CTCellularDataRestrictedState>()
        data.cellularDataRestrictionDidUpdateNotifier = { arrivals.add($0) }
        return arrivals
    }

    func testNoWWANLinkIsUnknownAndTheNotifierGetsItOnce() throws {
        let ns = try makeCompatNamespace()
        ns.addVethPair("eth0", peer: "eb", address: "10.10.0.1/24")
        let data = CTCellularData()
        XCTAssertEqual(data.restrictedState, .restrictedStateUnknown)
        let states = watch(data)
        XCTAssertEqual(states.wait(for: 1), [.restrictedStateUnknown])
        // A WWAN link appears (down, as a modem's before it connects): it exists, and is allowed.
        ns.run("link add wwan0 type veth peer name wb")
        XCTAssertEqual(states.wait(for: 2), [.restrictedStateUnknown, .notRestricted])
    }

    func testTheWWANSwitchRestrictsAndAllowsAtOnceWithoutDuplicates() throws {
        _ = try makeWWANNamespace()
        let data = CTCellularData()
        let states = watch(data)
        XCTAssertEqual(states.wait(for: 1), [.notRestricted], "called once with the current state when set")
        ReachabilityPolicy.processDefault.allowsWWAN = false
        XCTAssertEqual(states.wait(for: 2), [.notRestricted, .restricted])
        XCTAssertEqual(data.restrictedState, .restricted)
        // The same policy again, and another field of it: no new state, no call.
        ReachabilityPolicy.processDefault.allowsWWAN = false
        ReachabilityPolicy.processDefault.meteredInterfaces = ["eth9"]
        ReachabilityPolicy.processDefault.allowsWWAN = true
        XCTAssertEqual(states.wait(for: 3), [.notRestricted, .restricted, .notRestricted])
        XCTAssertEqual(states.wait(for: 4, timeout: 0.3), [.notRestricted, .restricted, .notRestricted],
                       "no duplicate state")
    }

    func testAKernelProhibitForTheWWANLinksSourceRestricts() throws {
        let ns = try makeWWANNamespace()
        let data = CTCellularData()
        let states = watch(data)
        XCTAssertEqual(states.wait(for: 1), [.notRestricted])
        ns.run("rule add from 10.20.0.1 prohibit")
        XCTAssertEqual(states.wait(for: 2), [.notRestricted, .restricted])
        ns.run("rule del from 10.20.0.1 prohibit")
        XCTAssertEqual(states.wait(for: 3), [.notRestricted, .restricted, .notRestricted])
    }

    func testALinkDownIsStillALinkAndADeletedOneIsNot() throws {
        let ns = try makeWWANNamespace()
        let data = CTCellularData()
        let states = watch(data)
        XCTAssertEqual(states.wait(for: 1), [.notRestricted])
        ns.run("link set wwan0 down")
        XCTAssertTrue(ns.waitForState("wwan0", "DOWN"))
        ns.run("link set wwan0 up")
        ns.run("link del wwan0")
        XCTAssertEqual(states.wait(for: 2), [.notRestricted, .restrictedStateUnknown],
                       "down and up change nothing; deleted, there is no WWAN link")
    }

    func testANilNotifierStopsCalls() throws {
        _ = try makeWWANNamespace()
        let data = CTCellularData()
        let states = watch(data)
        XCTAssertEqual(states.wait(for: 1), [.notRestricted])
        data.cellularDataRestrictionDidUpdateNotifier = nil
        ReachabilityPolicy.processDefault.allowsWWAN = false
        XCTAssertEqual(states.wait(for: 2, timeout: 0.3), [.notRestricted])
        XCTAssertEqual(data.restrictedState, .restricted, "the state itself is still read")
    }

    // MARK: Radio access technology

    func testARadioChangeCallsTheNotifierAndPostsEachNotificationOnce() throws {
        let service = "wwan-ct\(getpid())"
        addTeardownBlock { RadioSource.processDefault.set(nil, for: service) }
        let info = CTTelephonyNetworkInfo()
        let other = CTTelephonyNetworkInfo()   // a second instance: notifications are still posted once
        XCTAssertNil(info.serviceCurrentRadioAccessTechnology?[service])
        let updates = Arrivals<String>()
        info.serviceRadioAccessTechnologyDidUpdateNotifier = { updates.add($0) }
        let posted = Arrivals<String>()
        var tokens: [NSObjectProtocol] = []
        for name in [NSNotification.Name.CTServiceRadioAccessTechnologyDidChange, .CTRadioAccessTechnologyDidChange] {
            tokens.append(NotificationCenter.default.addObserver(forName: name, object: nil, queue: nil) { note in
                if (note.object as? String) == service { posted.add("\(note.name.rawValue) \(service)") }
            })
        }
        defer { tokens.forEach(NotificationCenter.default.removeObserver) }

        RadioSource.processDefault.set(.lte, for: service)
        XCTAssertEqual(updates.wait(for: 1), [service])
        XCTAssertEqual(posted.wait(for: 2).sorted(), ["CTRadioAccessTechnologyDidChangeNotification \(service)",
                                                     "CTServiceRadioAccessTechnologyDidChangeNotification \(service)"])
        XCTAssertEqual(info.serviceCurrentRadioAccessTechnology?[service], CTRadioAccessTechnologyLTE)
        XCTAssertEqual(other.serviceCurrentRadioAccessTechnology?[service], CTRadioAccessTechnologyLTE)

        // The same technology again changes nothing; 5G NSA does.
        RadioSource.processDefault.set(.lte, for: service)
        RadioSource.processDefault.set(.nrNSA, for: service)
        XCTAssertEqual(updates.wait(for: 2), [service, service])
        XCTAssertEqual(posted.wait(for: 4).count, 4)
        XCTAssertEqual(updates.wait(for: 3, timeout: 0.3).count, 2, "no call for an unchanged technology")
        XCTAssertEqual(posted.all.count, 4)
        XCTAssertEqual(info.serviceCurrentRadioAccessTechnology?[service], CTRadioAccessTechnologyNRNSA)
        _ = other
    }

    /// A second CTTelephonyNetworkInfo's start returns at once while the first
    /// is still starting; a change its maker makes then must be told.
    func testAChangeRightAfterAStartReturnsIsTold() throws {
        let changes = RadioChanges()
        let services = Arrivals<String>()
        _ = changes.add { services.add($0) }
        changes.afterStartClaimed = {
            changes.start()
            RadioSource.processDefault.set(.lte, for: "wwan-race")
        }
        defer {
            changes.afterStartClaimed = nil
            RadioSource.processDefault.set(nil, for: "wwan-race")
        }
        changes.start()
        XCTAssertEqual(services.wait(for: 1), ["wwan-race"], "a change after start() returned was lost")
    }

    func testEveryTechnologyHasApplesName() {
        let names = Set(RadioTechnology.allCases.map(\.coreTelephonyName))
        XCTAssertEqual(names, [CTRadioAccessTechnologyGPRS, CTRadioAccessTechnologyEdge, CTRadioAccessTechnologyWCDMA,
                               CTRadioAccessTechnologyHSDPA, CTRadioAccessTechnologyHSUPA, CTRadioAccessTechnologyCDMA1x,
                               CTRadioAccessTechnologyCDMAEVDORev0, CTRadioAccessTechnologyCDMAEVDORevA,
                               CTRadioAccessTechnologyCDMAEVDORevB, CTRadioAccessTechnologyeHRPD,
                               CTRadioAccessTechnologyLTE, CTRadioAccessTechnologyNRNSA, CTRadioAccessTechnologyNR])
        XCTAssertEqual(RadioTechnology(parsing: "NR5G-NSA"), .nrNSA)
        XCTAssertEqual(RadioTechnology(parsing: "eHRPD"), .ehrpd)
    }

    // MARK: The example

    func testCTWatchAcrossALinkDownAndUpAndARule() throws {
        let ns = try makeWWANNamespace()
        let watch = try runExample("ct-watch", in: ns)
        XCTAssertEqual(watch.waitForLines(2), ["radio: [:]", "cellular data: notRestricted"], watch.stderr)
        let link = try ns.linkControl()
        try link.set("wwan0", up: false)
        XCTAssertTrue(ns.waitForState("wwan0", "DOWN"))
        try link.set("wwan0", up: true)
        ns.run("rule add from 10.20.0.1 prohibit")
        XCTAssertEqual(watch.waitForLines(3).last, "cellular data: restricted", watch.stderr)
        ns.run("rule del from 10.20.0.1 prohibit")
        XCTAssertEqual(watch.waitForLines(4), ["radio: [:]", "cellular data: notRestricted", "cellular data: restricted",
                                               "cellular data: notRestricted"], "link down and up change nothing")
        print("ct-watch output:\n" + watch.lines.map { "  " + $0 }.joined(separator: "\n"))
    }
}
