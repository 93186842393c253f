// swift-tools-version: 6.1
// The benchmarks: their own package, so that users of the library never build
// package-benchmark. `make bench` (at the top) runs them and writes the report.

import Foundation
import PackageDescription

// A path dependency is known by its directory's name (a clone may be called
// anything), so the library's package is named from where this manifest sits.
let root = URL(fileURLWithPath: Context.packageDirectory).deletingLastPathComponent().lastPathComponent.lowercased()
let reachability: Target.Dependency = .product(name: "LinuxReachability", package: root)
// SystemConfiguration and Network, beside the engine (issue 28: a facade is a view, not a second cost).
let compat: Target.Dependency = .product(name: "ReachabilityCompat", package: root)

let benchmark: [Target.Dependency] = [.product(name: "Benchmark", package: "benchmark")]
let plugins: [Target.PluginUsage] = [.plugin(name: "BenchmarkPlugin", package: "benchmark")]

let package = Package(
    name: "ReachabilityBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: "../"),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // The limits the Swift code is measured against, in plain C: a status
        // table lookup, and one RTM_GETROUTE + RTM_GETLINK round trip.
        .target(name: "CBenchLimits", path: "Sources/CBenchLimits", cSettings: [.define("_GNU_SOURCE")]),
        .executableTarget(
            name: "Classification",
            dependencies: [reachability, "CBenchLimits"] + benchmark,
            path: "Benchmarks/Classification", plugins: plugins),
        .executableTarget(
            name: "Evaluation",
            dependencies: [reachability, compat, "CBenchLimits"] + benchmark,
            path: "Benchmarks/Evaluation", plugins: plugins),
        // The monitor's steady state under package-benchmark's malloc counter
        // (root: it makes a network namespace).
        .executableTarget(
            name: "SteadyState",
            dependencies: [reachability, "CBenchLimits"] + benchmark,
            path: "Benchmarks/SteadyState", plugins: plugins),
        // Kernel-timed measurements (latency of a real link flap, RSS against
        // routes): a plain executable that needs root and network namespaces.
        .executableTarget(
            name: "Monitor",
            dependencies: [reachability, compat, "CBenchLimits"],
            path: "Benchmarks/Monitor"),
    ]
)
