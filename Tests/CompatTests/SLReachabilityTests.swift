// SLReachability on the real kernel: it observes by itself, each of its three
// notifications only on a change of its value, the radio generation in the
// mask, allowUseWWAN and the process's switch as wwanRefused.

import Foundation
import ReachabilityCompatSupport
import SLReachability
import XCTest

final class SLReachabilityTests: CompatTestCase {
    /// The notifications `reachability` posts, by short name, in order.
    private func observe(_ reachability: SLReachability) -> Arrivals<String> {
        let posted = Arrivals<String>()
        for (name, short) in [(kSLReachabilityReachStatusChanged, "status"), (kSLReachabilityWWANChanged, "wwan"),
                              (kSLReachabilityMaskChanged, "mask")] {
            let token = NotificationCenter.default.addObserver(forName: Notification.Name(name), object: reachability,
                                                               queue: nil) { note in
                XCTAssertNil(note.userInfo)
                posted.add(short)
            }
            addTeardownBlock { NotificationCenter.default.removeObserver(token) }
        }
        return posted
    }

    func testFailoverToLTEAndTheSwitches() throws {
        let ns = try makeDualUplinkNamespace()
        addTeardownBlock { CompatEnvironment.setRadioTechnology(nil, for: "wwan0") }
        CompatEnvironment.setRadioTechnology("lte", for: "wwan0")
        let reachability: SLReachability = try XCTUnwrap(SLReachability.forInternetConnection())
        XCTAssertEqual(reachability.reachStatus, .reachableViaWiFi, "read at creation")
        XCTAssertEqual(reachability.netWorkMask, .reachableWiFi)
        XCTAssertEqual(reachability.wwanType, .netWorkStatusWWAN4G, "the radio, whatever the path")
        XCTAssertTrue(reachability.isAllowUseWWAN)
        let posted = observe(reachability)

        ns.run("link set eth0 down")   // it observes by itself: no start call
        XCTAssertEqual(posted.waitRunningMain(for: 2).sorted(), ["mask", "status"])
        XCTAssertEqual(reachability.reachStatus, .reachableViaWWAN)
        XCTAssertEqual(reachability.netWorkMask, .reachableWWAN4G)

        reachability.allowUseWWAN = false
        XCTAssertEqual(posted.waitRunningMain(for: 4).suffix(2).sorted(), ["mask", "wwan"], "no status notification: the link is still WWAN")
        XCTAssertEqual(reachability.netWorkMask, .wwanRefused)
        XCTAssertEqual(reachability.wwanType, .netWorkStatusWWANRefused)
        XCTAssertEqual(reachability.reachStatus, .reachableViaWWAN)
        reachability.allowUseWWAN = true
        XCTAssertEqual(reachability.netWorkMask, .reachableWWAN4G)

        setWWANAllowed(false)   // the process's switch: the path is not reachable, and refused
        XCTAssertEqual(posted.waitRunningMain(for: 9).suffix(3).sorted(), ["mask", "status", "wwan"])
        XCTAssertEqual(reachability.netWorkMask, .wwanRefused)
        XCTAssertEqual(reachability.reachStatus, .notReachable)
        setWWANAllowed(true)
        XCTAssertEqual(posted.waitRunningMain(for: 12).suffix(3).sorted(), ["mask", "status", "wwan"])
        XCTAssertEqual(reachability.netWorkMask, .reachableWWAN4G)
        CompatEnvironment.setRadioTechnology("umts", for: "wwan0")   // the modem falls back to 3G
        XCTAssertEqual(posted.waitRunningMain(for: 14).suffix(2).sorted(), ["mask", "wwan"])
        XCTAssertEqual(reachability.netWorkMask, .reachableWWAN3G)
        XCTAssertEqual(posted.waitRunningMain(for: 15, timeout: 0.5).count, 14, "each notification only on a change")
    }
}
