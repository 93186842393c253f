// swift-tools-version:5.9
// An app shared between iOS and Linux: Reachability.swift on Apple's
// platforms, our ReachabilitySwift on Linux, in one package graph.
import Foundation
import PackageDescription

// This package sits in Tests/Consumers of swift-reachability's checkout; a
// path dependency is known by its directory's name, whatever the clone is called.
let checkout = URL(fileURLWithPath: Context.packageDirectory).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
let ours = checkout.lastPathComponent.lowercased()
let apple: [Platform] = [.macOS, .iOS, .tvOS, .watchOS, .visionOS]

let package = Package(
    name: "ReachabilitySwiftApp",
    dependencies: [
        .package(path: "../StandIns/Reachability.swift"),
        .package(path: checkout.path),
    ],
    targets: [
        .executableTarget(name: "ReachabilitySwiftApp", dependencies: [
            .product(name: "Reachability", package: "Reachability.swift", condition: .when(platforms: apple)),
            .product(name: "ReachabilityCompat", package: ours, condition: .when(platforms: [.linux])),
        ]),
    ]
)
