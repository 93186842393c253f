// swift-tools-version:6.0
import Foundation
import PackageDescription

// A path dependency is known by its directory's name (a clone may be called
// anything), so the library's package is named from where this manifest sits.
let root = URL(fileURLWithPath: Context.packageDirectory).deletingLastPathComponent().deletingLastPathComponent()
    .lastPathComponent.lowercased()

// What the library adds to a firmware-sized program (issue 14): a minimal
// program that watches `internet` and prints its changes, and a hello world
// built the same way. `measure.sh` builds both static and stripped and
// compares size, RSS and threads. `hello-collections` is the hello world that
// keeps values of its own types in an Array, a Dictionary and a Set, as any
// program past a hello world does: measure.sh reads its RSS too (the Swift
// runtime makes those collections' metadata at run time; the hello world never
// does, the library does, as would the program it is linked into).
// `parse-hello` (built only by make
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
        // embed-watch with ModemManager's facts (measure.sh, WITH_MODEMS=1).
        .executableTarget(name: "embed-watch-modems", dependencies: [.product(name: "ReachabilityCore", package: root),
                                                                     .product(name: "ReachabilityModemManager", package: root)]),
        .executableTarget(name: "describe", dependencies: [.product(name: "ReachabilityCore", package: root)]),
        .executableTarget(name: "hello"),
        .executableTarget(name: "hello-collections"),
        .executableTarget(name: "parse-hello", dependencies: [.product(name: "ArgumentParser", package: "swift-argument-parser")]),
    ]
)
