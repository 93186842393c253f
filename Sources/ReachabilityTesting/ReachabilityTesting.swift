// ReachabilityTesting: test code that uses Reachability against any network
// situation, without root. Two tiers (the article "Testing code that uses
// Reachability"):
//
// - Simulation/: `SimulatedNetwork`, kernel facts held in memory; the engine's
//   own evaluation code and decision tables answer from them, its monitor and
//   trackers run on them with a test clock.
// - Sandbox/: `NetworkSandbox`, the real kernel in network namespaces, as
//   root or inside a user namespace (`unshare -Urnm swift test`).

@_exported import LinuxReachability
