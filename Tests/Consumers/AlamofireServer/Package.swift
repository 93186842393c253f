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
            .product(name: "ReachabilityCompat", package: ours),
        ]),
    ]
)
