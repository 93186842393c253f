// Host-name lookups past the bound on resolver threads wait in a queue (first
// come, first served) instead of failing: a monitor of more host names than
// there are resolver threads resolves them all, and an async lookup that
// gives up while queued takes its place in the queue with it.

import Dispatch
import Foundation
import LinuxReachability
@testable import ReachabilityCore
@testable import ReachabilityKernel
import ReachabilityTestSupport
import Synchronization
import XCTest

final class ResolverQueueTests: NamespaceTestCase {
    /// Twenty names, each in the namespace's own hosts file, through a
    /// resolver that takes 200 ms a name (the lookup hook): the four past the
    /// sixteen threads wait for one and resolve too, without a network change.
    func testAMonitorOfMoreHostNamesThanResolverThreadsResolvesThemAll() throws {
        let ns = try makeNamespace()
        ns.addVethPair("va", peer: "vb", address: "10.1.0.1/24")
        let names = (0 ..< HostResolver.maximumInFlight + 4).map { "host\($0).test" }
        let hosts = names.enumerated().map { "10.1.0.\(10 + $0.offset) \($0.element)\n" }.joined()
        try configureNetns(ns, ["hosts": hosts])
        HostResolver.beforeLookUp = { _ in usleep(200_000) }   // a slow resolver
        addTeardownBlock { HostResolver.beforeLookUp = nil }

        let (monitor, _) = try startMonitor(ns, names.map { .host($0) }, changesMayFollow: true)
        func unresolved() -> [String] {
            monitor.currentEvaluations.filter { $0.addresses.isEmpty || $0.error != nil }
                .map { "\($0.target): \($0.error.map { "\($0)" } ?? "no answer yet")" }
        }
        XCTAssertTrue(eventually(timeout: 5) { unresolved().isEmpty }, "unresolved: \(unresolved())")
        XCTAssertEqual(monitor.currentEvaluations.map { $0.addresses.map(\.address) },
                       names.indices.map { [IPAddress("10.1.0.\(10 + $0)")!] })
        XCTAssertEqual(HostResolver.lookUpsQueued, 0)
    }

    /// With every resolver thread held (a name server that never answers),
    /// each async lookup waits in the queue, times out there and leaves it:
    /// callers that retry cannot grow the queue, and the lookup never runs.
    func testAResolveThatTimedOutWhileQueuedLeavesNothingQueued() async throws {
        let ns = try makeNamespace()
        let gate = DispatchSemaphore(value: 0)
        let looked = Mutex<[String]>([])
        let released = Atomic<Bool>(false)
        HostResolver.beforeLookUp = { host in
            looked.withLock { $0.append(host) }
            if !released.load(ordering: .relaxed) { gate.wait() }
        }
        func release() {
            guard !released.exchange(true, ordering: .relaxed) else { return }
            for _ in 0 ..< HostResolver.maximumInFlight { gate.signal() }
        }
        defer {
            release()
            HostResolver.beforeLookUp = nil
        }
        let evaluator = try ReachabilityEvaluator(namespace: .named(ns.name))
        for i in 0 ..< HostResolver.maximumInFlight {
            try HostResolver.startLookUp("held\(i).test", in: evaluator.namespaceHandle) { _ in }
        }
        XCTAssertTrue(eventually(timeout: 5) { looked.withLock { $0.count } == HostResolver.maximumInFlight },
                      "held: \(looked.withLock { $0 })")

        for attempt in 0 ..< 20 {
            let answer = try await evaluator.evaluate(.host("queued.test"), resolveTimeout: .milliseconds(20))
            guard case .resolutionTimedOut(host: "queued.test") = answer.error else {
                return XCTFail("attempt \(attempt): \(String(describing: answer.error))")
            }
            XCTAssertEqual(HostResolver.lookUpsQueued, 0, "attempt \(attempt)")
        }
        XCTAssertEqual(HostResolver.threadsInFlight, HostResolver.maximumInFlight)

        release()
        XCTAssertTrue(eventually(timeout: 10) { HostResolver.threadsInFlight == 0 }, "\(HostResolver.threadsInFlight) in flight")
        XCTAssertEqual(looked.withLock { $0 }.filter { $0 == "queued.test" }.count, 0, "lookups whose caller gave up ran")
    }
}
