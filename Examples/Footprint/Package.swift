// swift-tools-version:6.1
import Foundation
import PackageDescription

// A path dependency is known by its directory's name (a clone may be called
// anything), so the library's package is named from where this manifest sits.
let root = URL(fileURLWithPath: Context.packageDirectory).deletingLastPathComponent().deletingLastPathComponent()
    .lastPathComponent.lowercased()

// What the library adds to a firmware-sized program (issue 14): a minimal
// program that watches `internet` and prints its changes, and a hello world
// built the same way. `measure.sh` builds both static and stripped and
// compares size, RSS and threads. `parse-hello` (built only by make
// bench-startup) is the hello world that parses its arguments with
// swift-argument-parser, as `reach` does: what the parser costs at start-up.
// `describe` prints every description the library gives; measure.sh --check
// compares its minimal firmware build with a normal one.
let package = Package(
    name: "Footprint",
    dependencies: [
        .package(path: "../.."),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        .executableTarget(name: "embed-watch", dependencies: [.product(name: "ReachabilityCore", package: root)]),
        .executableTarget(name: "describe", dependencies: [.product(name: "ReachabilityCore", package: root)]),
        .executableTarget(name: "hello"),
        .executableTarget(name: "parse-hello", dependencies: [.product(name: "ArgumentParser", package: "swift-argument-parser")]),
    ]
)
