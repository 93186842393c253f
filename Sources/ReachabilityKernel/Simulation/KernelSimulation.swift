// The second implementation of the kernel seam: a kernel held in memory
// (ReachabilityTesting's SimulatedNetwork). Where a namespace is
// `.simulated`, the evaluator asks it the questions it asks RouteSocket
// (SimulatedKernelQuestions), monitors and trackers read its clock
// (RuntimeClock). The engine's half (its ring of monitors and trackers,
// probes, the radio source, delivery counting) is ReachabilityCore's
// Simulation/.
// Everything above the seam (the decision tables, the monitor's rounds,
// validation, the tracker's score, delivery to observers) is the code that
// runs on a real kernel (Architecture, "Testing").
import ReachabilityModel

#if canImport(Glibc)
internal import Glibc
#endif

/// What a simulated kernel answers: its kernel-level facts and its clock.
/// Implemented by ReachabilityTesting; the engine only calls it. Calls come from any thread, never with a lock of
/// the simulation held by the engine's caller, and it never calls back into
/// the engine while holding its own lock.
package protocol KernelSimulation: AnyObject, Sendable {
    /// For descriptions: `simulated:NAME`.
    var name: String { get }

    // The evaluator's questions (RouteSocket's, answered from facts).
    func dumpLinks() -> [LinkState]
    func dumpAddresses() -> [InterfaceAddress]
    func link(index: Int32) -> LinkState?
    func interfaceIndex(named name: String) -> Int32?
    /// The FIB's answer, as `RTM_GETROUTE` gives it for these options.
    func lookupRoute(_ address: IPAddress, options: LookupOptions) throws(ReachabilityError) -> RouteLookup
    /// What sysfs would tell of `link` (its kind's facts).
    func interfaceFacts(of link: LinkState) -> InterfaceFacts
    /// The namespace's resolv.conf `nameserver` lines.
    func nameServers() -> [IPAddress]
    /// What getaddrinfo would answer in the namespace.
    func resolve(_ host: String) throws(ReachabilityError) -> [IPAddress]

    /// The policy evaluators follow when they follow the process's default.
    var policy: ReachabilityPolicy { get }

    /// The test clock, in nanoseconds (a `MonotonicInstant`'s scale).
    var nanoseconds: UInt64 { get }

}
