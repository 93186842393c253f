// The monitor's steady state (issue 14): notifications that change no answer
// (drain → classify → evaluate → compare, nothing emitted), counted with
// package-benchmark's malloc counter, which sees every thread of the process,
// the monitor's own among them. 10,000 route notifications, one per round:
// a route 203.0.113.0/24 added and deleted in turn through the kernel (C, no
// allocation on this side), each waited for until the monitor has read it.
// CI checks mallocCountTotal against Thresholds/ (0).
//
// Needs root (it makes a network namespace, `reach-bench-steady-<pid>`,
// deleted at the end); without root the benchmark is not registered and says so.

import Benchmark
import CBenchLimits
import Foundation
import LinuxReachability
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

struct SetupError: Error, CustomStringConvertible { let description: String }

/// setns(2) (Glibc declares it only with _GNU_SOURCE).
let setnsFunction: @convention(c) (Int32, Int32) -> Int32 = {
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "setns") else { fatalError("no setns in libc") }
    return unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32) -> Int32).self)
}()

func ip(_ arguments: String) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"]
        .first { FileManager.default.isExecutableFile(atPath: $0) } ?? "/usr/sbin/ip")
    process.arguments = arguments.split(separator: " ").map(String.init)
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw SetupError(description: "ip \(arguments) exited \(process.terminationStatus)") }
}

final class ChangeCount: Sendable { let value = Atomic<Int>(0) }

/// A namespace with va (10.1.0.1/24, up), a netlink socket inside it, and a
/// monitor of 10.1.0.7 that has given its initial answer.
final class Fixture {
    let name = "reach-bench-steady-\(getpid())"
    var fd: Int32 = -1
    var ifindex: UInt32 = 0
    var seq: UInt32 = 0
    let buffer = UnsafeMutableRawPointer.allocate(byteCount: 8192, alignment: 8)
    var monitor: ReachabilityMonitor?
    /// Changes after the initial answer (a steady state has none).
    let changed = ChangeCount()

    init() throws {
        try ip("netns add \(name)")
        try ip("-n \(name) link set lo up")
        try ip("-n \(name) link add va type veth peer name vb")
        // No IPv6 link-local addresses: their DAD would send address
        // notifications (new keys for the event filter) in the middle of the run.
        try ip("-n \(name) link set va addrgenmode none")
        try ip("-n \(name) link set vb addrgenmode none")
        try ip("-n \(name) addr add 10.1.0.1/24 dev va")
        try ip("-n \(name) link set va up")
        try ip("-n \(name) link set vb up")
        // The socket and the index, from a thread inside the namespace.
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var opened: (Int32, UInt32) = (-1, 0)
        let path = "/run/netns/\(name)"
        Thread {
            let ns = open(path, O_RDONLY | O_CLOEXEC)
            if ns >= 0, setnsFunction(ns, 0x4000_0000) == 0 { opened = (bench_nl_open(), if_nametoindex("va")) }
            if ns >= 0 { close(ns) }
            done.signal()
        }.start()
        done.wait()
        (fd, ifindex) = opened
        guard fd >= 0, ifindex > 0 else { throw SetupError(description: "no netlink socket or no va in \(name)") }
        let monitor = try ReachabilityMonitor(targets: [.address(IPAddress("10.1.0.7")!)], namespace: .named(name))
        let initial = DispatchSemaphore(value: 0)
        let changed = self.changed
        monitor.onChange { change in
            if change.isInitial { initial.signal() } else { changed.value.add(1, ordering: .relaxed) }
        }
        try monitor.start()
        guard initial.wait(timeout: .now() + 10) == .success else { throw SetupError(description: "no initial answer") }
        self.monitor = monitor
    }

    /// `count` route notifications, each waited for until the monitor has read it.
    func toggle(_ count: Int) throws {
        guard let monitor else { return }
        for i in 0 ..< count {
            let before = monitor.counters.events
            let error = bench_route_toggle(fd, i % 2 == 0 ? 1 : 0, ifindex, &seq, buffer, 8192)
            guard error == 0 else { throw SetupError(description: "route toggle: errno \(-error)") }
            while monitor.counters.events == before { sched_yield() }
        }
    }

    func tearDown() {
        monitor?.stop()
        if fd >= 0 { close(fd) }
        buffer.deallocate()
        try? ip("netns delete \(name)")
    }
}

let benchmarks: @Sendable () -> Void = {
    guard geteuid() == 0 else {
        // REACH_REQUIRE_NETNS=1 (CI) makes a missing measurement a failure, as in the tests.
        if ProcessInfo.processInfo.environment["REACH_REQUIRE_NETNS"] == "1" {
            fatalError("SteadyState needs root to make a network namespace (REACH_REQUIRE_NETNS=1)")
        }
        print("SteadyState: not registered: it needs root to make a network namespace")
        return
    }
    Benchmark("monitor.steady-state",
              configuration: .init(metrics: [.mallocCountTotal], warmupIterations: 0, scalingFactor: .one,
                                   maxDuration: .seconds(120), maxIterations: 1)) { benchmark in
        let fixture = try Fixture()
        defer { fixture.tearDown() }
        try fixture.toggle(100)   // warm: the first rounds fill caches and buffers
        let before = fixture.monitor!.counters
        benchmark.startMeasurement()
        try fixture.toggle(10_000)
        benchmark.stopMeasurement()
        let after = fixture.monitor!.counters
        guard after.events - before.events >= 10_000, after.overflows == before.overflows, fixture.changed.value.load(ordering: .relaxed) == 0 else {
            throw SetupError(description: "not a steady state: \(after.events - before.events) events, "
                             + "\(after.overflows - before.overflows) overflows, \(fixture.changed.value.load(ordering: .relaxed)) changes")
        }
        print("monitor.steady-state: \(after.events - before.events) events, "
              + "\(after.reevaluations - before.reevaluations) rounds, 0 changes")
    }
}
