// The iOS-style code of this target, run: it compiled unchanged (Swift 5
// mode), and it answers. The first tests read the machine's own network, so
// they assert what holds on any machine (an answer, the first call once);
// ApiReachabilityManagerTests makes a namespace (NamespaceFixture).

import CoreTelephony
import Foundation
import Network
import ReachabilityCompatSupport
import SystemConfiguration
import XCTest

final class PortedCodeTests: XCTestCase {
    func testTheReachabilityClassAnswersAndSchedules() throws {
        let reachability = try XCTUnwrap(LegacyReachability())
        _ = reachability.currentStatus
        XCTAssertTrue(reachability.startNotifier(queue: DispatchQueue(label: "ported")))
        XCTAssertTrue(reachability.refDescription.contains("context = LegacyReachability"), reachability.refDescription)
        reachability.stopNotifier()
        XCTAssertEqual(Unmanaged.passRetained("text" as CFString).takeRetainedValue(), "text")
    }

    func testTheRunLoopFunctionsOfAFileThatImportsCoreFoundation() throws {
        var zero = sockaddr_in()
        zero.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        zero.sin_family = sa_family_t(AF_INET)
        let ref = try XCTUnwrap(withUnsafePointer(to: &zero) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { SCNetworkReachabilityCreateWithAddress(nil, $0) }
        })
        XCTAssertTrue(scheduleOnCurrentRunLoop(ref))
        XCTAssertTrue(unscheduleFromCurrentRunLoop(ref))
        XCTAssertFalse(unscheduleFromCurrentRunLoop(ref), "not scheduled any more")
        XCTAssertTrue(scheduleTheSwiftWay(ref, on: .current))
        XCTAssertTrue(unscheduleFromCurrentRunLoop(ref), "the same run loop and mode, however named")
        XCTAssertTrue(scheduleTheSwiftWay(ref, on: .current))
        XCTAssertTrue(unscheduleTheSwiftWay(ref, from: .current))
    }

    func testThePathMonitorGivesAFirstPath() {
        let watcher = PathWatcher()
        let first = expectation(description: "first path")
        watcher.start { first.fulfill() }
        wait(for: [first], timeout: 5)
        watcher.monitor.cancel()
        XCTAssertNotNil(watcher.lastStatus)
    }

    func testTheCellularNotifierIsCalledOnce() {
        let watcher = CellularWatcher()
        let first = expectation(description: "first state")
        watcher.start { first.fulfill() }
        wait(for: [first], timeout: 5)
        _ = watcher.technology
        watcher.cellularData.cellularDataRestrictionDidUpdateNotifier = nil
    }
}

/// The articles' manager on the real kernel: its own formula gives "mobile
/// data switched off" exactly where iOS would.
final class ApiReachabilityManagerTests: XCTestCase {
    private func settle(_ manager: ApiReachabilityManager, until condition: @escaping (ApiReachabilityManager) -> Bool) {
        let done = expectation(description: "the manager's state")
        done.assertForOverFulfill = false
        manager.onUpdate = { if condition(manager) { done.fulfill() } }
        if condition(manager) { done.fulfill() }
        wait(for: [done], timeout: 5)   // runs the main run loop, where both deliver
        manager.onUpdate = nil
    }

    func testSwitchedOffOnlyOnAWWANOnlyPathWithCellularDataRefused() throws {
        let ns = try NamespaceFixture()
        defer { ns.remove() }
        try ns.addLink("wwan0", peer: "wb", address: "10.20.0.1/24")
        try ns.ip("route add default via 10.20.0.2")

        CompatEnvironment.allowsWWAN = false
        let refused = ApiReachabilityManager()
        refused.startMonitoring()
        settle(refused) { $0.isMobileDataRestricted && !$0.isNetworkAvailable }
        XCTAssertTrue(refused.isMobileDataSwitchedOff, "WWAN only, refused: iOS's 'mobile data off for this app'")

        CompatEnvironment.allowsWWAN = true
        settle(refused) { !$0.isMobileDataRestricted && $0.isNetworkAvailable }
        XCTAssertFalse(refused.isMobileDataSwitchedOff, "WWAN allowed")
        refused.stopMonitoring()

        // A wired uplink beside the refused WWAN: restricted, but the network is there.
        try ns.addLink("eth0", peer: "eb", address: "10.10.0.1/24")
        try ns.ip("route replace default via 10.10.0.2")
        CompatEnvironment.allowsWWAN = false
        let wired = ApiReachabilityManager()
        wired.startMonitoring()
        settle(wired) { $0.isMobileDataRestricted && $0.isNetworkAvailable }
        XCTAssertFalse(wired.isMobileDataSwitchedOff, "a wired path: not switched off")
        wired.stopMonitoring()
    }
}
