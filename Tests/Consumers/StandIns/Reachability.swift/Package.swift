// swift-tools-version:5.3
// A stand-in for Reachability.swift 5 (ashleymills/Reachability.swift@21d1dc41,
// tag v5.2.4, Package.swift): the same package name, product, targets and
// paths, and one line of source.
import PackageDescription

let package = Package(
    name: "Reachability",
    products: [
        .library(name: "Reachability", targets: ["Reachability"]),
    ],
    targets: [
        .target(name: "Reachability", dependencies: [], path: "Sources"),
        .testTarget(name: "ReachabilityTests", dependencies: ["Reachability"], path: "Tests"),
    ]
)
