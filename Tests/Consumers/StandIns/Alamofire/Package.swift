// swift-tools-version:5.9
// A stand-in for Alamofire 5 (Alamofire/Alamofire@7595cbcf, tag 5.12.0,
// Package.swift): the same package name, products, targets and paths, and
// one line of source. SwiftPM's graph rule (target names unique across a
// package graph) is about names, and these are the original's.
import PackageDescription

let package = Package(
    name: "Alamofire",
    platforms: [.macOS(.v10_13), .iOS(.v12), .tvOS(.v12), .watchOS(.v4)],
    products: [
        .library(name: "Alamofire", targets: ["Alamofire"]),
        .library(name: "AlamofireDynamic", type: .dynamic, targets: ["Alamofire"]),
    ],
    targets: [
        .target(name: "Alamofire", path: "Source"),
        .testTarget(name: "AlamofireTests", dependencies: ["Alamofire"], path: "Tests"),
    ]
)
