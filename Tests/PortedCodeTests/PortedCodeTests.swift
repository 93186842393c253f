// The iOS-style code of this target, run: it compiled unchanged (Swift 5
// mode), and it answers. No namespace: it reads the machine's own network,
// so it asserts what holds on any machine (an answer, the first call once).

import CoreTelephony
import Foundation
import Network
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
