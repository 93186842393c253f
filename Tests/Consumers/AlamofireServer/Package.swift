// swift-tools-version:5.9
// A Linux server that uses Alamofire for HTTP and our
// NetworkReachabilityManager for reachability, both imported in one file.
import Foundation
import PackageDescription

// This package sits in Tests/Consumers of swift-reachability's checkout; a
// path dependency is known by its directory's name, whatever the clone is called.
let checkout = URL(fileURLWithPath: Context.packageDirectory).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
let ours = checkout.lastPathComponent.lowercased()

let package = Package(
    name: "AlamofireServer",
    dependencies: [
        .package(path: "../StandIns/Alamofire"),
        .package(path: checkout.path),
    ],
    targets: [
        .executableTarget(name: "AlamofireServer", dependencies: [
            .product(name: "Alamofire", package: "Alamofire"),
            // Alamofire compiles parts of itself under `#if canImport(SystemConfiguration)`
            // and `#if canImport(Network)`: in one build folder our modules of those
            // names would be found by its compilation whenever they were built first
            // (a rebuild of Alamofire: "missing required module 'CReachability'").
            // Renamed here, no module of those names exists in this build
            // ("Porting from iOS", a Linux server with Alamofire).
            .product(name: "ReachabilityCompat", package: ours, moduleAliases: [
                "SystemConfiguration": "ReachabilitySystemConfiguration",
                "Network": "ReachabilityNetwork",
                "CoreTelephony": "ReachabilityCoreTelephony",
            ]),
        ]),
    ]
)
