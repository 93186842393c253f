// Apple's Reachability sample on the real kernel: the status read now, no
// notification for starting, a notification per change on the run loop's
// thread (the instance as object, no userInfo), failover and the switch.

import AppleReachability
import Foundation
import XCTest

final class AppleReachabilityTests: CompatTestCase {
    func testNoNotificationForStartingThenOnePerChangeOnTheRunLoop() throws {
        let ns = try makeDualUplinkNamespace()
        let reachability: Reachability = try XCTUnwrap(Reachability.forInternetConnection())
        XCTAssertEqual(reachability.currentReachabilityStatus(), ReachableViaWiFi)
        XCTAssertFalse(reachability.connectionRequired())
        let notes = Arrivals<String>()
        let token = NotificationCenter.default.addObserver(forName: NSNotification.Name(rawValue: kReachabilityChangedNotification),
                                                           object: nil, queue: nil) { note in
            guard let object = note.object as? Reachability else { return notes.add("another object") }
            XCTAssertTrue(object === reachability)
            XCTAssertNil(note.userInfo)
            XCTAssertTrue(Thread.isMainThread, "on the thread whose run loop it was scheduled on")
            notes.add(object.currentReachabilityStatus() == ReachableViaWWAN ? "WWAN"
                          : object.currentReachabilityStatus() == NotReachable ? "none" : "WiFi")
        }
        defer { NotificationCenter.default.removeObserver(token) }
        XCTAssertTrue(reachability.startNotifier())
        ns.run("link set eth0 down")
        XCTAssertEqual(notes.waitRunningMain(for: 1), ["WWAN"], "the first notification is the first change")
        setWWANAllowed(false)
        XCTAssertEqual(notes.waitRunningMain(for: 2), ["WWAN", "none"])
        XCTAssertEqual(reachability.currentReachabilityStatus(), NotReachable)
        reachability.stopNotifier()
        setWWANAllowed(true)
        XCTAssertEqual(reachability.currentReachabilityStatus(), ReachableViaWWAN)
        XCTAssertEqual(notes.waitRunningMain(for: 3, timeout: 0.5).count, 2, "nothing after stopNotifier")
    }

    func testHostNamesAndAddresses() throws {
        _ = try makeWiredNamespace()
        XCTAssertEqual(try XCTUnwrap(Reachability(hostName: "10.10.0.9")).currentReachabilityStatus(), ReachableViaWiFi)
        // As Apple's configd: any name gives an object; one that is no host name never resolves.
        XCTAssertEqual(Reachability(hostName: "not a host")?.currentReachabilityStatus(), NotReachable)
        var unix = sockaddr()
        unix.sa_family = sa_family_t(AF_UNIX)
        XCTAssertNil(Reachability(address: &unix))
    }
}
