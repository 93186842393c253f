import ReachabilityModel

/// The clock a monitor or tracker reads: CLOCK_MONOTONIC, or a simulation's.
package struct RuntimeClock: Sendable {
    package let simulation: (any KernelSimulation)?

    package init(simulation: (any KernelSimulation)?) { self.simulation = simulation }

    @inline(__always)
    package func now() -> UInt64 { simulation?.nanoseconds ?? monotonicNanoseconds() }

    package var instant: MonotonicInstant { MonotonicInstant(nanoseconds: now()) }
}
