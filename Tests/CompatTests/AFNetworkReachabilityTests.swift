// AFNetworking's reachability manager on the real kernel: unknown until
// started, the current status after start, every callback forwarded, the
// notification's object and userInfo, failover to WWAN, the WWAN switch.

import AFNetworkReachability
import Foundation
import XCTest

final class AFNetworkReachabilityTests: CompatTestCase {
    private func monitor(_ manager: AFNetworkReachabilityManager) -> Arrivals<AFNetworkReachabilityStatus> {
        let statuses = Arrivals<AFNetworkReachabilityStatus>()
        manager.setReachabilityStatusChange { status in
            XCTAssertTrue(Thread.isMainThread, "on the main queue")
            statuses.add(status)
        }
        manager.startMonitoring()
        addTeardownBlock { manager.stopMonitoring() }
        return statuses
    }

    func testUnknownUntilStartedThenTheCurrentStatusWithItsNotification() throws {
        _ = try makeWiredNamespace()
        let manager = AFNetworkReachabilityManager.manager()
        XCTAssertEqual(manager.networkReachabilityStatus, .unknown)
        XCTAssertEqual(manager.localizedNetworkReachabilityStatusString(), "Unknown")
        XCTAssertFalse(manager.isReachable)
        let notes = Arrivals<String>()
        let token = NotificationCenter.default.addObserver(forName: .AFNetworkingReachabilityDidChange, object: manager,
                                                           queue: nil) { note in
            let status = (note.userInfo?[AFNetworkingReachabilityNotificationStatusItem] as? NSNumber)?.intValue
            notes.add("\(note.object.map { $0 as AnyObject === manager } ?? false) \(status.map(String.init) ?? "none")")
        }
        defer { NotificationCenter.default.removeObserver(token) }
        let statuses = monitor(manager)
        XCTAssertEqual(statuses.waitRunningMain(for: 1), [.reachableViaWiFi])
        XCTAssertEqual(notes.waitRunningMain(for: 1), ["true 2"], "object: the manager; userInfo: the status as a number")
        XCTAssertTrue(manager.isReachableViaWiFi)
        XCTAssertEqual(manager.localizedNetworkReachabilityStatusString(), "Reachable via WiFi")
    }

    func testEveryCallbackIsForwardedEvenWithTheSameStatus() throws {
        let ns = try makeWiredNamespace()
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, "10.10.0.9", &address.sin_addr)
        let manager = AFNetworkReachabilityManager(forAddress: &address)
        let statuses = monitor(manager)
        XCTAssertEqual(statuses.waitRunningMain(for: 1), [.reachableViaWiFi])
        ns.run("route add 10.10.0.9/32 via 10.10.0.2")   // new flags (no longer direct), the same status
        XCTAssertEqual(statuses.waitRunningMain(for: 2), [.reachableViaWiFi, .reachableViaWiFi],
                       "AFNetworking does not de-duplicate")
    }

    func testFailoverToWWANAndTheSwitchAndStopKeepsTheStatus() throws {
        let ns = try makeDualUplinkNamespace()
        let manager = AFNetworkReachabilityManager(forDomain: "10.99.0.1")
        let statuses = monitor(manager)
        XCTAssertEqual(statuses.waitRunningMain(for: 1), [.reachableViaWiFi])
        ns.run("link set eth0 down")
        XCTAssertEqual(statuses.waitRunningMain(for: 2).last, .reachableViaWWAN)
        XCTAssertTrue(manager.isReachableViaWWAN)
        setWWANAllowed(false)
        XCTAssertEqual(statuses.waitRunningMain(for: 3).last, .notReachable)
        manager.stopMonitoring()
        setWWANAllowed(true)
        XCTAssertEqual(manager.networkReachabilityStatus, .notReachable, "stopMonitoring keeps the last status")
        XCTAssertEqual(statuses.waitRunningMain(for: 4, timeout: 0.5).count, 3, "nothing after stopMonitoring")
    }
}
