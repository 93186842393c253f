// swift-tools-version:6.0
import PackageDescription

// A downstream package: a gateway's uplink failover, tested with
// ReachabilityTesting in memory (tier 1) and on the real kernel (tier 2).
// It depends only on the library's public products.
let package = Package(
    name: "GatewayFailover",
    products: [
        .library(name: "GatewayFailover", targets: ["GatewayFailover"]),
    ],
    dependencies: [
        .package(name: "swift-reachability", path: "../.."),
    ],
    targets: [
        .target(name: "GatewayFailover", dependencies: [
            .product(name: "LinuxReachability", package: "swift-reachability"),
        ]),
        .testTarget(name: "GatewayFailoverTests", dependencies: [
            "GatewayFailover",
            .product(name: "ReachabilityTesting", package: "swift-reachability"),
        ]),
    ]
)
