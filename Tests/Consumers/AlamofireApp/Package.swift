// swift-tools-version:5.9
// An app shared between iOS and Linux: Alamofire on Apple's platforms, our
// AlamofireReachability on Linux, in one package graph.
import Foundation
import PackageDescription

// This package sits in Tests/Consumers of swift-reachability's checkout; a
// path dependency is known by its directory's name, whatever the clone is called.
let checkout = URL(fileURLWithPath: Context.packageDirectory).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
let ours = checkout.lastPathComponent.lowercased()
let apple: [Platform] = [.macOS, .iOS, .tvOS, .watchOS, .visionOS]

let package = Package(
    name: "AlamofireApp",
    dependencies: [
        .package(path: "../StandIns/Alamofire"),
        .package(path: checkout.path),
    ],
    targets: [
        .executableTarget(name: "AlamofireApp", dependencies: [
            .product(name: "Alamofire", package: "Alamofire", condition: .when(platforms: apple)),
            .product(name: "ReachabilityCompat", package: ours, condition: .when(platforms: [.linux])),
        ]),
    ]
)
