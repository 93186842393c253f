// Host names inside another namespace, on the real kernel with real name
// servers: each namespace's own /etc/netns/NAME configuration (as `ip netns
// exec` shows it), a bound on resolver threads, and the namespace held open
// by a resolver thread that outlives its caller.

import CTestSupport
import Dispatch
import Foundation
import LinuxReachability
@testable import ReachabilityCore
@testable import ReachabilityKernel
import ReachabilityTestSupport
import Synchronization
import XCTest

final class ResolverTests: NamespaceTestCase {
    func testEachNamespaceResolvesWithItsOwnNameServerAndHostsFile() async throws {
        // Two clients, each with its own dnsmasq (at its own 10.9.0.2) giving another answer for one name.
        let a = try makeUplink(), b = try makeUplink()
        _ = try startDnsmasq(in: a.responder, address: "10.9.0.2", records: ["gw.test": "10.9.0.77"], readyFrom: a.client)
        _ = try startDnsmasq(in: b.responder, address: "10.9.0.2", records: ["gw.test": "10.9.0.88"], readyFrom: b.client)
        try configureNetns(a.client, ["resolv.conf": "nameserver 10.9.0.2\n", "hosts": "10.9.0.99 only-in-a.test\n"])
        try configureNetns(b.client, ["resolv.conf": "nameserver 10.9.0.2\n"])

        let inA = try ReachabilityEvaluator(namespace: .named(a.client.name))
        let inB = try ReachabilityEvaluator(namespace: .named(b.client.name))
        let answerA = try await inA.evaluate(.host("gw.test"), resolveTimeout: .seconds(5))
        let answerB = try await inB.evaluate(.host("gw.test"), resolveTimeout: .seconds(5))
        XCTAssertNil(answerA.error, "\(String(describing: answerA.error))")
        XCTAssertEqual(answerA.addresses.map(\.address), [IPAddress("10.9.0.77")!], "A's dnsmasq")
        XCTAssertEqual(answerB.addresses.map(\.address), [IPAddress("10.9.0.88")!], "B's dnsmasq")
        let hostsA = try await inA.evaluate(.host("only-in-a.test"), resolveTimeout: .seconds(5))
        XCTAssertEqual(hostsA.addresses.map(\.address), [IPAddress("10.9.0.99")!], "A's /etc/netns hosts file")
        let hostsB = try await inB.evaluate(.host("only-in-a.test"), resolveTimeout: .seconds(5))
        XCTAssertNotNil(hostsB.error, "B has no such entry: \(hostsB.addresses)")

        // The monitor's resolver threads read the same configuration.
        let (_, recorder) = try startMonitor(b.client, [.host("gw.test")])
        XCTAssertEqual(recorder.all.first?.evaluation.addresses.map(\.address), [IPAddress("10.9.0.88")!])
        // And the process's own threads still read the host's files.
        XCTAssertFalse((try? String(contentsOfFile: "/etc/resolv.conf", encoding: .utf8))?.contains("10.9.0.2") ?? false)
    }

    func testResolverThreadsAreBoundedAndHoldTheirNamespace() async throws {
        let ns = try makeNamespace()
        let queued = (0 ..< 4).map { "queued\($0).test" }
        try configureNetns(ns, ["hosts": queued.enumerated().map { "10.1.0.\(10 + $0.offset) \($0.element)\n" }.joined()])
        let gate = DispatchSemaphore(value: 0)
        let waiting = Atomic<Int>(0)
        HostResolver.beforeLookUp = { _ in
            waiting.wrappingAdd(1, ordering: .relaxed)
            gate.wait()
        }
        defer {
            HostResolver.beforeLookUp = nil
            for _ in 0 ..< HostResolver.maximumInFlight + queued.count { gate.signal() }
        }
        var evaluator: ReachabilityEvaluator? = try ReachabilityEvaluator(namespace: .named(ns.name))
        let fd = try XCTUnwrap(evaluator?.namespaceFD)
        let identity = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)")
        XCTAssertTrue(identity.hasSuffix(ns.name), "the namespace's file: \(identity)")

        // Every lookup times out while its thread is held in the resolver.
        var outcomes: [String] = []
        for i in 0 ..< HostResolver.maximumInFlight {
            let answer = try await evaluator!.evaluate(.host("held\(i).test"), resolveTimeout: .milliseconds(20))
            outcomes.append(answer.error.map { "\($0)" } ?? "answered")
        }
        XCTAssertTrue(outcomes.allSatisfy { $0.contains("timed out") }, "\(outcomes)")
        // Lookups past the bound wait for a thread: they neither start one nor fail.
        let answers = Mutex<[String: [IPAddress]]>([:])
        for name in queued {
            try HostResolver.startLookUp(name, in: evaluator!.namespaceHandle) { result in
                answers.withLock { $0[name] = (try? result.get()) ?? [] }
            }
        }
        XCTAssertTrue(eventually(timeout: 5) { waiting.load(ordering: .relaxed) == HostResolver.maximumInFlight })
        XCTAssertEqual(HostResolver.threadsInFlight, HostResolver.maximumInFlight)
        XCTAssertEqual(HostResolver.lookUpsQueued, queued.count)
        XCTAssertEqual(resolverThreads(), HostResolver.maximumInFlight, "resolver threads in /proc/self/task")
        XCTAssertTrue(answers.withLock { $0.isEmpty }, "\(answers.withLock { $0 })")

        // The evaluator goes; the held threads still hold the namespace: its fd is not closed (or reused).
        evaluator = nil
        let after = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)")
        XCTAssertEqual(after, identity, "the namespace fd stays open while a resolver thread holds it")

        // Each held thread that ends hands its place to the longest-queued lookup.
        for _ in 0 ..< HostResolver.maximumInFlight + queued.count { gate.signal() }
        var mostThreads = 0
        let deadline = Date().addingTimeInterval(10)
        while HostResolver.threadsInFlight > 0 && Date() < deadline {
            mostThreads = max(mostThreads, HostResolver.threadsInFlight)
            usleep(500)
        }
        XCTAssertEqual(HostResolver.threadsInFlight, 0)
        XCTAssertLessThanOrEqual(mostThreads, HostResolver.maximumInFlight)
        XCTAssertEqual(HostResolver.lookUpsQueued, 0)
        XCTAssertEqual(waiting.load(ordering: .relaxed), HostResolver.maximumInFlight + queued.count)
        XCTAssertEqual(answers.withLock { $0 }, Dictionary(uniqueKeysWithValues: queued.enumerated().map {
            ($0.element, [IPAddress("10.1.0.\(10 + $0.offset)")!])
        }))
        let closed = Date().addingTimeInterval(5)
        while (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)")) == identity && Date() < closed {
            usleep(2_000)
        }
        XCTAssertNotEqual(try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)"), identity,
                          "closed once the last thread let go")
    }

    /// The library's resolver threads alive now, by their name in /proc.
    private func resolverThreads() -> Int {
        Int(test_live_threads(ThreadRole.resolver.rawValue, 0))
    }
}
