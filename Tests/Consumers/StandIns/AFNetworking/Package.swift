// swift-tools-version:5.0
// A stand-in for AFNetworking 4 (AFNetworking/AFNetworking@d9f589cc,
// Package.swift): the same package name, product, target, path and public
// headers path, and one line of source. A C-language target, as the
// original's Objective-C one: SwiftPM's moduleAliases cannot rename it.
import PackageDescription

let package = Package(
    name: "AFNetworking",
    platforms: [.macOS(.v10_10), .iOS(.v9), .tvOS(.v9), .watchOS(.v2)],
    products: [.library(name: "AFNetworking", targets: ["AFNetworking"])],
    targets: [.target(name: "AFNetworking", path: "AFNetworking", publicHeadersPath: "")]
)
