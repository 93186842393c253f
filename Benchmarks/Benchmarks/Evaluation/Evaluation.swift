// One evaluation of one address in process (FIB lookup + link facts +
// flags), against the limit (a plain C RTM_GETROUTE + RTM_GETLINK round
// trip) and against running `ip route get` (what a script would do); and
// SystemConfiguration's SCNetworkReachabilityGetFlags on an address object
// for the same address (a facade is a view: goal within 1.2x). The
// address is 127.0.0.1: every machine has it, and the lookup sends nothing.

import Benchmark
import CBenchLimits
import LinuxReachability
import SystemConfiguration
#if canImport(Glibc)
import Glibc
#endif

let loopback = IPAddress("127.0.0.1")!

/// `ip route get 127.0.0.1`, spawned and waited for.
func runIPRouteGet() -> Int32 {
    var pid: pid_t = 0
    let arguments = ["ip", "route", "get", "127.0.0.1"]
    var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    guard posix_spawnp(&pid, "ip", &actions, nil, &argv, environ) == 0 else { return -1 }
    var status: Int32 = 0
    waitpid(pid, &status, 0)
    return status
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal],
        timeUnits: .nanoseconds,
        warmupIterations: 20,
        maxDuration: .seconds(3),
        maxIterations: 100_000
    )

    Benchmark("evaluate.swift") { benchmark, evaluator in
        for _ in benchmark.scaledIterations {
            blackHole(try evaluator.evaluate(loopback).flags)
        }
    } setup: {
        try ReachabilityEvaluator()
    }

    Benchmark("evaluate.sc-getflags") { benchmark, reachability in
        var flags = SCNetworkReachabilityFlags()
        for _ in benchmark.scaledIterations {
            precondition(SCNetworkReachabilityGetFlags(reachability, &flags))
            blackHole(flags)
        }
    } setup: {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { SCNetworkReachabilityCreateWithAddress(nil, $0)! }
        }
    }

    Benchmark("evaluate.c-netlink-limit") { benchmark in
        let fd = bench_nl_open()
        precondition(fd >= 0, "NETLINK_ROUTE socket")
        defer { close(fd) }
        var seq: UInt32 = 0
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: 8192, alignment: 8)
        defer { buffer.deallocate() }
        let address: [UInt8] = [127, 0, 0, 1]
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(bench_route_link(fd, address, &seq, buffer, 8192))
        }
        benchmark.stopMeasurement()
    }

    Benchmark("evaluate.ip-route-get", configuration: .init(metrics: [.wallClock], maxDuration: .seconds(3), maxIterations: 300)) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(runIPRouteGet())
        }
    }
}
