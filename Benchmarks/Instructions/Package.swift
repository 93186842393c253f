// swift-tools-version:6.1
// Instruction counts of the hot paths (compare.sh), against the library of
// the directory named by REACH_ROOT (default: this repository).
import Foundation
import PackageDescription

let rootPath = Context.environment["REACH_ROOT"] ?? URL(fileURLWithPath: Context.packageDirectory)
    .deletingLastPathComponent().deletingLastPathComponent().path
let root = URL(fileURLWithPath: rootPath).lastPathComponent.lowercased()

let package = Package(
    name: "Instructions",
    dependencies: [.package(path: rootPath)],
    targets: [
        .executableTarget(name: "decide-loop", dependencies: [.product(name: "ReachabilityCore", package: root)]),
    ]
)
