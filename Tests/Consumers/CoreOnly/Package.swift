// swift-tools-version:5.9
// A program that uses only the library (the front door), with none of the
// compat modules, the test support or the examples in its build.
import Foundation
import PackageDescription

// This package sits in Tests/Consumers of swift-reachability's checkout; a
// path dependency is known by its directory's name, whatever the clone is called.
let checkout = URL(fileURLWithPath: Context.packageDirectory).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
let ours = checkout.lastPathComponent.lowercased()

let package = Package(
    name: "CoreOnly",
    dependencies: [
        .package(path: checkout.path),
    ],
    targets: [
        .executableTarget(name: "CoreOnly", dependencies: [
            .product(name: "LinuxReachability", package: ours),
        ]),
    ]
)
