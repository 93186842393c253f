// Classification: flags → status, mask, accessibility, over all 512
// combinations of the nine SC flag bits per iteration. In the same run: a
// straightforward boolean port of AFNetworking's rule, and a C table lookup
// (the limit). The hot path must not allocate: CI checks mallocCountTotal
// against Thresholds/ (0).

import Benchmark
import CBenchLimits
import LinuxReachability

/// The nine flag bits (0...5, 16...18) in every combination.
let allFlags: [ReachabilityFlags] = (0..<512).map { index in
    let low = UInt32(index & 0x3F), high = UInt32(index >> 6)
    return ReachabilityFlags(rawValue: low | (high << 16))
}
let rawFlags: [UInt32] = allFlags.map(\.rawValue)
let kinds: [InterfaceKind] = (0..<512).map { [.wired, .wifi, .wwan, .tunnel, .loopback, .other][$0 % 6] }
let verdicts: [RouteVerdict] = (0..<512).map { $0 % 7 == 0 ? .prohibit : .unicast }

/// The value's first byte: consumes the result without adding branches of
/// our own to the measurement (a switch here would cost more than the table).
@inline(__always)
func code<T>(_ value: T) -> UInt64 {
    withUnsafeBytes(of: value) { UInt64($0[0]) }
}

/// AFNetworking's AFNetworkReachabilityStatusForFlags, ported as written: booleans and branches.
@inline(never)
func afNetworkingStatus(_ flags: UInt32) -> UInt64 {
    let isReachable = flags & (1 << 1) != 0
    let needsConnection = flags & (1 << 2) != 0
    let canConnectAutomatically = flags & (1 << 5) != 0 || flags & (1 << 3) != 0
    let canConnectWithoutUserInteraction = canConnectAutomatically && flags & (1 << 4) == 0
    let isNetworkReachable = isReachable && (!needsConnection || canConnectWithoutUserInteraction)
    if !isNetworkReachable { return 0 }
    if flags & (1 << 18) != 0 { return 2 }
    return 1
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal],
        warmupIterations: 100,
        scalingFactor: .one,
        maxDuration: .seconds(2),
        maxIterations: 200_000
    )

    Benchmark("status.swift-table") { benchmark in
        allFlags.withUnsafeBufferPointer { flags in
            kinds.withUnsafeBufferPointer { kinds in
                for _ in benchmark.scaledIterations {
                    var sum: UInt64 = 0
                    for i in 0..<flags.count { sum &+= code(ReachabilityStatus(flags: flags[i], kind: kinds[i])) }
                    blackHole(sum)
                }
            }
        }
    }

    Benchmark("networkStatus.swift-table") { benchmark in
        allFlags.withUnsafeBufferPointer { flags in
            for _ in benchmark.scaledIterations {
                var sum: UInt64 = 0
                for i in 0..<flags.count { sum &+= code(NetworkStatus(flags: flags[i])) }
                blackHole(sum)
            }
        }
    }

    Benchmark("status.afnetworking-port") { benchmark in
        rawFlags.withUnsafeBufferPointer { flags in
            for _ in benchmark.scaledIterations {
                var sum: UInt64 = 0
                for i in 0..<flags.count { sum &+= afNetworkingStatus(flags[i]) }
                blackHole(sum)
            }
        }
    }

    Benchmark("status.c-table-limit") { benchmark in
        rawFlags.withUnsafeBufferPointer { flags in
            for _ in benchmark.scaledIterations {
                blackHole(bench_status_sum(flags.baseAddress, flags.count))
            }
        }
    }

    Benchmark("mask.swift") { benchmark in
        allFlags.withUnsafeBufferPointer { flags in
            kinds.withUnsafeBufferPointer { kinds in
                for _ in benchmark.scaledIterations {
                    var sum: UInt64 = 0
                    for i in 0..<flags.count {
                        let mask = ReachabilityMask(flags: flags[i], kind: kinds[i], allowsWWAN: i & 1 == 0,
                                                    radio: i & 2 == 0 ? .g4 : nil)
                        sum &+= UInt64(mask.rawValue)
                    }
                    blackHole(sum)
                }
            }
        }
    }

    Benchmark("accessibility.swift") { benchmark in
        allFlags.withUnsafeBufferPointer { flags in
            verdicts.withUnsafeBufferPointer { verdicts in
                for _ in benchmark.scaledIterations {
                    var sum: UInt64 = 0
                    for i in 0..<flags.count {
                        let access = Accessibility(verdict: verdicts[i], flags: flags[i], allowsWWAN: i & 1 == 0,
                                                   probe: i & 4 == 0 ? .answered : .notProbed)
                        sum &+= code(access)
                    }
                    blackHole(sum)
                }
            }
        }
    }
}
