// Alamofire's NetworkReachabilityManager on the real kernel: live status
// without listening, the first status after start, duplicates suppressed,
// failover to WWAN, the WWAN switch, restart, deinit, Alamofire 4's spellings.

import AlamofireReachability
import Foundation
import XCTest

final class AlamofireReachabilityTests: CompatTestCase {
    private typealias Status = NetworkReachabilityManager.NetworkReachabilityStatus

    private func listen(_ manager: NetworkReachabilityManager) -> Arrivals<Status> {
        let statuses = Arrivals<Status>()
        XCTAssertTrue(manager.startListening { statuses.add($0) })
        return statuses
    }

    func testTheStatusIsLiveWithoutListeningAndOptimisticForAName() throws {
        let ns = try makeWiredNamespace()
        let manager = try XCTUnwrap(NetworkReachabilityManager())
        XCTAssertEqual(manager.status, .reachable(.ethernetOrWiFi))
        XCTAssertTrue(manager.isReachable && manager.isReachableOnEthernetOrWiFi && !manager.isReachableOnCellular)
        XCTAssertEqual(manager.flags, .reachable)
        XCTAssertEqual(try XCTUnwrap(NetworkReachabilityManager(host: "localhost")).status, .reachable(.ethernetOrWiFi),
                       "a name unscheduled: the internet's route (Alamofire's own test expects this)")
        // A URL passed by mistake: as Apple's configd, an object whose lookup fails (issue 40).
        XCTAssertEqual(NetworkReachabilityManager(host: "https://example.com")?.status, .notReachable, "a URL is no host")
        ns.run("route del default")
        XCTAssertEqual(manager.status, .notReachable)
    }

    func testTheFirstStatusAfterStartThenFailoverAndTheSwitchWithoutDuplicates() throws {
        let ns = try makeDualUplinkNamespace()
        let manager = try XCTUnwrap(NetworkReachabilityManager())
        let statuses = listen(manager)
        XCTAssertEqual(statuses.waitRunningMain(for: 1), [.reachable(.ethernetOrWiFi)], "the current status, on the main queue")
        ns.run("link set eth0 down")
        XCTAssertEqual(statuses.waitRunningMain(for: 2).last, .reachable(.cellular))
        XCTAssertTrue(manager.isReachableOnCellular)
        setWWANAllowed(false)
        XCTAssertEqual(statuses.waitRunningMain(for: 3).last, .notReachable, "cellular data off")
        setWWANAllowed(true)
        ns.run("link set eth0 up", "route add default via 10.10.0.2")
        XCTAssertEqual(statuses.waitRunningMain(for: 5), [.reachable(.ethernetOrWiFi), .reachable(.cellular), .notReachable,
                                                          .reachable(.cellular), .reachable(.ethernetOrWiFi)])
    }

    func testNewFlagsWithTheSameStatusAreNotDelivered() throws {
        let ns = try makeWiredNamespace()
        let manager = try XCTUnwrap(NetworkReachabilityManager(host: "10.10.0.9"))
        let statuses = listen(manager)
        XCTAssertEqual(statuses.waitRunningMain(for: 1), [.reachable(.ethernetOrWiFi)])
        XCTAssertEqual(manager.flags, [.reachable, .isDirect])
        ns.run("route add 10.10.0.9/32 via 10.10.0.2")   // no longer direct: new flags, the same status
        ns.run("link set eth0 down")
        XCTAssertEqual(statuses.waitRunningMain(for: 2), [.reachable(.ethernetOrWiFi), .notReachable],
                       "Alamofire suppresses a status equal to the last one")
    }

    func testARestartDeliversTheCurrentStatusAgain() throws {
        _ = try makeWiredNamespace()
        let manager = try XCTUnwrap(NetworkReachabilityManager())
        let first = listen(manager)
        XCTAssertEqual(first.waitRunningMain(for: 1), [.reachable(.ethernetOrWiFi)])
        manager.stopListening()
        let second = listen(manager)
        XCTAssertEqual(second.waitRunningMain(for: 1), [.reachable(.ethernetOrWiFi)])
        XCTAssertEqual(first.all.count, 1, "the first listener was replaced")
        manager.stopListening()
    }

    func testAManagerReleasedWhileListeningGoesAndCallsNothing() throws {
        let ns = try makeWiredNamespace()
        let statuses = Arrivals<Status>()
        weak var released: NetworkReachabilityManager?
        let reachabilityQueue: DispatchQueue
        do {
            let manager = try XCTUnwrap(NetworkReachabilityManager())
            manager.startListening { statuses.add($0) }
            released = manager
            reachabilityQueue = manager.reachabilityQueue
        }
        _ = statuses.waitRunningMain(for: 1)
        // The initial-status block holds the manager (as Alamofire's does)
        // until it returns, which can be after the listener has run.
        reachabilityQueue.sync {}
        XCTAssertNil(released, "the reachability context holds the manager weakly; deinit stops listening")
        ns.run("link set eth0 down")
        let witness = try XCTUnwrap(NetworkReachabilityManager(host: "10.10.0.1"))
        XCTAssertEqual(witness.status, .reachable(.ethernetOrWiFi))
        XCTAssertEqual(statuses.waitRunningMain(for: 2, timeout: 0.5).count, 1, "nothing after deinit")
    }

    /// The race the test above once lost (issue 41), made to happen every
    /// time: the initial-status block (`reachabilityQueue.async { self... }`,
    /// strong as in Alamofire 5) holds a manager its owner has let go until
    /// that block has run, whether or not the listener has already run. A
    /// block queued first holds it back here; the test above waits for it
    /// (`reachabilityQueue.sync {}`) before it checks the weak reference.
    func testTheInitialStatusBlockHoldsAReleasedManagerUntilItHasRun() throws {
        _ = try makeWiredNamespace()
        let statuses = Arrivals<Status>()
        weak var released: NetworkReachabilityManager?
        let gate = DispatchSemaphore(value: 0)
        let reachabilityQueue: DispatchQueue
        do {
            let manager = try XCTUnwrap(NetworkReachabilityManager())
            reachabilityQueue = manager.reachabilityQueue
            reachabilityQueue.async { gate.wait() }
            manager.startListening { statuses.add($0) }
            released = manager
        }
        XCTAssertNotNil(released, "the queued initial-status block holds the manager")
        gate.signal()
        reachabilityQueue.sync {}
        XCTAssertNil(released, "once that block has run, nothing holds it")
        XCTAssertEqual(statuses.waitRunningMain(for: 1), [.reachable(.ethernetOrWiFi)],
                       "a manager released right after startListening still gives its initial status, as Alamofire's")
    }

    func testAlamofire4Spellings() throws {
        let ns = try makeDualUplinkNamespace()
        let manager = try XCTUnwrap(NetworkReachabilityManager())
        let statuses = Arrivals<String>()
        manager.listenerQueue = DispatchQueue(label: "alamofire4")
        manager.listener = { status in
            switch status {
            case .reachable(.wwan): statuses.add("wwan")
            case .reachable(.ethernetOrWiFi): statuses.add("ethernetOrWiFi")
            case .notReachable: statuses.add("notReachable")
            case .unknown: statuses.add("unknown")
            default: statuses.add("other")
            }
        }
        XCTAssertTrue(manager.startListening())
        XCTAssertEqual(statuses.wait(for: 1), ["ethernetOrWiFi"], "on listenerQueue: no main queue needed")
        ns.run("link set eth0 down")
        XCTAssertEqual(statuses.wait(for: 2), ["ethernetOrWiFi", "wwan"])
        XCTAssertEqual(manager.networkReachabilityStatus, .reachable(.cellular))
        manager.stopListening()
    }
}
