// Reachability.swift on the real kernel: the first check inside
// startNotifier, closures and the notification on the main queue,
// duplicates suppressed by flags (not by connection), allowsCellularConnection,
// failover and the switch, stop and restart.

import Foundation
import ReachabilitySwift
import XCTest

final class ReachabilitySwiftTests: CompatTestCase {
    private func watch(_ reachability: Reachability) -> Arrivals<String> {
        let events = Arrivals<String>()
        reachability.whenReachable = { events.add("reachable \($0.connection)") }
        reachability.whenUnreachable = { _ in events.add("unreachable") }
        return events
    }

    func testTheFirstCheckIsInStartNotifierAndFailoverAndTheSwitchFollow() throws {
        let ns = try makeDualUplinkNamespace()
        let reachability = try Reachability()
        let events = watch(reachability)
        let notes = Arrivals<Bool>()
        let id = ObjectIdentifier(reachability)
        let token = NotificationCenter.default.addObserver(forName: .reachabilityChanged, object: nil, queue: nil) { note in
            notes.add(note.object.map { ObjectIdentifier($0 as AnyObject) } == id && note.userInfo == nil)
        }
        defer { NotificationCenter.default.removeObserver(token) }
        XCTAssertEqual(reachability.description, "unavailable flags")
        try reachability.startNotifier()
        XCTAssertEqual(reachability.description, "-R -------", "read before startNotifier returned")
        XCTAssertEqual(events.waitRunningMain(for: 1), ["reachable WiFi"])
        XCTAssertEqual(notes.waitRunningMain(for: 1), [true])
        ns.run("link set eth0 down")
        XCTAssertEqual(events.waitRunningMain(for: 2).last, "reachable Cellular")
        setWWANAllowed(false)
        XCTAssertEqual(events.waitRunningMain(for: 3).last, "unreachable")
        XCTAssertEqual(reachability.connection, .unavailable)
        reachability.stopNotifier()
        try reachability.startNotifier()
        setWWANAllowed(true)
        XCTAssertEqual(events.waitRunningMain(for: 4), ["reachable WiFi", "reachable Cellular", "unreachable", "reachable Cellular"],
                       "a restart with the same flags delivers nothing; the next change does")
        reachability.stopNotifier()
    }

    func testNewFlagsWithTheSameConnectionAreDelivered() throws {
        let ns = try makeWiredNamespace()
        let reachability = try Reachability(hostname: "10.10.0.9")
        let events = watch(reachability)
        try reachability.startNotifier()
        XCTAssertEqual(events.waitRunningMain(for: 1), ["reachable WiFi"])
        ns.run("route add 10.10.0.9/32 via 10.10.0.2")   // no longer direct
        XCTAssertEqual(events.waitRunningMain(for: 2), ["reachable WiFi", "reachable WiFi"],
                       "Reachability.swift compares flags, not connections")
        reachability.stopNotifier()
    }

    func testCellularCanBeRefusedByTheObjectAndTheQueueChosen() throws {
        _ = try makeWWANNamespace()
        let reachability = try Reachability(notificationQueue: nil)
        reachability.allowsCellularConnection = false
        let events = watch(reachability)
        try reachability.startNotifier()
        XCTAssertEqual(events.all, ["unreachable"], "no notification queue: on the serial queue, before startNotifier returned")
        XCTAssertEqual(reachability.connection, .unavailable)
        reachability.allowsCellularConnection = true
        XCTAssertEqual(reachability.connection, .cellular)
        reachability.stopNotifier()
        // As Apple's configd: any name but "" gives an object (no
        // failedToCreateWithHostname); one that is no host name is never reachable.
        XCTAssertEqual(try Reachability(hostname: "not a host").connection, .unavailable)
    }
}
