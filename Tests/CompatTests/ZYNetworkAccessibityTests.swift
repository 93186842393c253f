// ZYNetworkAccessibity on the real kernel: checking until started, the first
// state on the main queue, restricted when only a refused WWAN link is left,
// notified only on change, stop back to checking.

import Foundation
import ReachabilityCore
import SystemConfiguration
@testable import ZYNetworkAccessibity
import XCTest

final class ZYNetworkAccessibityTests: CompatTestCase {
    func testAccessibleThenRestrictedOnlyOnChangeAndStopReturnsToChecking() throws {
        let ns = try makeDualUplinkNamespace()
        XCTAssertEqual(ZYNetworkAccessibity.currentState(), .checking)
        let states = Arrivals<ZYNetworkAccessibleState>()
        ZYNetworkAccessibity.setStateDidUpdateNotifier { state in
            XCTAssertTrue(Thread.isMainThread)
            states.add(state)
        }
        let notes = Arrivals<Bool>()
        let tokens = [Notification.Name.ZYNetworkAccessibityChanged, .ZYNetworkAccessibilityChanged].map { name in
            NotificationCenter.default.addObserver(forName: name, object: nil, queue: nil) { notes.add($0.object == nil) }
        }
        defer {
            ZYNetworkAccessibity.stop()
            ZYNetworkAccessibility.setStateDidUpdateNotifier(nil)
            tokens.forEach(NotificationCenter.default.removeObserver)
        }
        ZYNetworkAccessibity.start()
        XCTAssertEqual(states.waitRunningMain(for: 1), [.accessible])
        ns.run("link set eth0 down")   // failover to WWAN: still accessible, nothing new
        setWWANAllowed(false)           // only a refused WWAN link left
        XCTAssertEqual(states.waitRunningMain(for: 2), [.accessible, .restricted])
        XCTAssertEqual(ZYNetworkAccessibility.currentState(), .restricted)
        XCTAssertEqual(notes.waitRunningMain(for: 4), [true, true, true, true], "both spellings, object nil")
        ns.run("link set eth0 up", "route add default via 10.10.0.2")
        XCTAssertEqual(states.waitRunningMain(for: 3), [.accessible, .restricted, .accessible], "reachable again over eth0")
        ZYNetworkAccessibity.stop()
        XCTAssertEqual(ZYNetworkAccessibity.currentState(), .checking)
    }

    func testAStopWhileStartIsUnderWayLeavesNothingWatching() throws {
        _ = try makeWiredNamespace()
        let before = runningLibraryThreads(.monitor)
        nonisolated(unsafe) var scheduled: SCNetworkReachability?
        ZYNetworkAccessibity.testHookBeforeStore = { reachability in
            scheduled = reachability
            ZYNetworkAccessibity.stop()
        }
        defer {
            ZYNetworkAccessibity.testHookBeforeStore = nil
            ZYNetworkAccessibity.stop()
        }
        ZYNetworkAccessibity.start()
        XCTAssertEqual(scheduled?.isScheduled, false, "stop() during start(): still scheduled")
        XCTAssertEqual(runningLibraryThreads(.monitor), before)
        XCTAssertEqual(ZYNetworkAccessibity.currentState(), .checking)
    }

    func testTheRule() {
        XCTAssertEqual(ZYNetworkAccessibity.state(reachable: true, cellular: .restricted), .accessible)
        XCTAssertEqual(ZYNetworkAccessibity.state(reachable: false, cellular: .restricted), .restricted)
        XCTAssertEqual(ZYNetworkAccessibity.state(reachable: false, cellular: .notRestricted), .accessible)
        XCTAssertEqual(ZYNetworkAccessibity.state(reachable: false, cellular: .restrictedStateUnknown), .accessible,
                       "no WWAN link at all: nothing refuses this process")
    }
}
