// What the compat tests share: arrivals of callbacks, namespaces the compat
// modules read (with the process defaults restored), the example programs.

import Foundation
import ReachabilityTesting   // runCommand, ipExecutable
import LinuxReachability
import ReachabilityCompatSupport
import ReachabilityTestSupport
import Synchronization
import XCTest

/// What a callback gave, in order, with a semaphore per arrival.
final class Arrivals<Value: Sendable>: Sendable {
    private let values = Mutex<[Value]>([])
    private let arrived = DispatchSemaphore(value: 0)

    func add(_ value: Value) {
        values.withLock { $0.append(value) }
        arrived.signal()
    }

    var all: [Value] { values.withLock { $0 } }

    /// Waits until `count` values arrived in all (at most `timeout` seconds); returns them.
    @discardableResult
    func wait(for count: Int, timeout: TimeInterval = 5) -> [Value] {
        wait(until: { $0.count >= count }, timeout: timeout)
    }

    /// Waits until the values that arrived satisfy `done` (at most `timeout` seconds); returns them.
    @discardableResult
    func wait(until done: ([Value]) -> Bool, timeout: TimeInterval = 5) -> [Value] {
        let deadline = DispatchTime.now() + timeout
        while !done(all), arrived.wait(timeout: deadline) == .success {}
        return all
    }

    /// The same for values delivered on the main queue: runs the main run
    /// loop (which drains the main queue) while it waits. Call on the main thread.
    @discardableResult
    func waitRunningMain(for count: Int, timeout: TimeInterval = 5) -> [Value] {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while all.count < count && Date() < deadline { _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 0.005)) }
        return all
    }
}

class CompatTestCase: NamespaceTestCase {
    /// A namespace the compat modules read, with the process defaults restored when the test ends.
    func makeCompatNamespace(kinds: [String] = [], file: StaticString = #filePath, line: UInt = #line) throws -> TestNamespace {
        let ns = try makeNamespace(file: file, line: line)
        let saved = (CompatEnvironment.namespace, CompatEnvironment.kindOverrides, ReachabilityPolicy.processDefault)
        CompatEnvironment.namespace = .named(ns.name)
        CompatEnvironment.kindOverrides = try kinds.map { (text) throws(ReachabilityError) in try InterfaceKindOverride(parsing: text) }
        addTeardownBlock {
            CompatEnvironment.namespace = saved.0
            CompatEnvironment.kindOverrides = saved.1
            ReachabilityPolicy.processDefault = saved.2
        }
        return ns
    }

    /// eth0 (10.10.0.1/24) carrying the default route via 10.10.0.2.
    func makeWiredNamespace() throws -> TestNamespace { try makeUplinkNamespace("eth0", peer: "eb", prefix: "10.10.0") }

    /// wwan0 (10.20.0.1/24, a veth named as a modem is, so classified WWAN)
    /// carrying the default route via 10.20.0.2.
    func makeWWANNamespace() throws -> TestNamespace { try makeUplinkNamespace("wwan0", peer: "wb", prefix: "10.20.0") }

    /// A gateway's two uplinks: eth0 with the default route, and wwan0 with a
    /// less preferred one (metric 100), which takes over when eth0 goes down.
    func makeDualUplinkNamespace() throws -> TestNamespace {
        let ns = try makeWiredNamespace()
        ns.addVethPair("wwan0", peer: "wb", address: "10.20.0.1/24")
        ns.run("route add default via 10.20.0.2 metric 100")
        return ns
    }

    /// The process's cellular-data switch, restored by makeCompatNamespace's teardown.
    func setWWANAllowed(_ allowed: Bool) { CompatEnvironment.allowsWWAN = allowed }

    private func makeUplinkNamespace(_ link: String, peer: String, prefix: String) throws -> TestNamespace {
        let ns = try makeCompatNamespace()
        ns.addVethPair(link, peer: peer, address: "\(prefix).1/24")
        ns.run("route add default via \(prefix).2")
        return ns
    }

    /// A built example program (`sc-watch`, `nw-watch`, `ct-watch`), next to the test bundle.
    func exampleBinary(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> URL {
        try builtProgram(name, file: file, line: line)
    }

    /// `program` run inside `ns` (`ip netns exec`) with `environment` added,
    /// its output collected; with `input`, `send(_:)` writes to it.
    func runExample(_ name: String, _ arguments: [String] = [], in ns: TestNamespace, environment: [String] = [],
                    input: Bool = false) throws -> RunningProcess {
        let program = try exampleBinary(name)
        let command = environment.isEmpty ? [program.path] : ["/usr/bin/env"] + environment + [program.path]
        let process = try RunningProcess(ipExecutable!, ["netns", "exec", ns.name] + command + arguments, input: input)
        addTeardownBlock { process.terminate() }
        return process
    }
}

