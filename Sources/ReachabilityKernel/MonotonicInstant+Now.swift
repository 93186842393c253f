import ReachabilityModel
internal import CReachability

extension MonotonicInstant {
    /// `CLOCK_MONOTONIC` now: the one clock of the package (the engine, the
    /// exporter and the benchmarks read it; a simulation's test clock stands
    /// in for it only inside a simulated namespace).
    public static var now: MonotonicInstant { MonotonicInstant(nanoseconds: monotonicNanoseconds()) }
}

/// `MonotonicInstant.now` as a raw count, for deadlines, where the raw value is what is added and compared.
@inline(__always)
package func monotonicNanoseconds() -> UInt64 { creach_monotonic_ns() }
