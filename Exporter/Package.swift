// swift-tools-version:6.1
// reach-exporter: a Prometheus exporter for fleets of gateways, in a package
// of its own, so that a user of the library resolves none of swift-nio,
// swift-service-lifecycle or swift-log. It depends on
// the library's package by path and uses only its public products.
import Foundation
import PackageDescription

// A path dependency is known by its directory's name (a clone may be called
// anything), so the library's package is named from where this manifest sits.
let root = URL(fileURLWithPath: Context.packageDirectory).deletingLastPathComponent().lastPathComponent.lowercased()

let package = Package(
    name: "reach-exporter",
    products: [
        .executable(name: "reach-exporter", targets: ["reach-exporter"]),
    ],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/apple/swift-nio", from: "2.70.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.27.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        // libyaml (Debian's, shared): the YAML configuration, read without
        // Foundation (Yams needs it, and with it ICU's data: 60 MB of program).
        .systemLibrary(
            name: "CYAML",
            path: "Sources/CYAML",
            pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"])]
        ),
        // libsystemd's sd-daemon (Debian's, shared): systemd's notify protocol
        // and watchdog (sd_notify, sd_watchdog_enabled). The program links
        // libsystemd already, for ModemManager's sd-bus.
        .systemLibrary(
            name: "CReachExporterSystemd",
            path: "Sources/CReachExporterSystemd",
            pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]
        ),
        // The exporter as a library: configuration (YAML, flags), collection
        // (the monitor and trackers into one registry of series), the HTTP
        // server (swift-nio's HTTP/1), the push (remote write), the status
        // page, systemd's notifications (Running a fleet, in the Reachability
        // documentation). The program and the tests import it; it is not a
        // product.
        .target(
            name: "ReachExporterKit",
            dependencies: [
                .product(name: "LinuxReachability", package: root),
                .product(name: "ReachabilityModemManager", package: root),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                "CYAML",
                "CReachExporterSystemd",
            ]
        ),
        // The program: its command line, and the services wired together and
        // run until SIGTERM (swift-service-lifecycle's signals and shutdown).
        .executableTarget(
            name: "reach-exporter",
            dependencies: [
                "ReachExporterKit",
                .product(name: "LinuxReachability", package: root),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The exporter's library in process (ExporterMetrics' one-hot series
        // under concurrent scrapes). The exporter run as an operator runs it
        // (namespaces, a real Prometheus) is tested from the library's
        // integration tests, which own the namespace fixtures
        // (Tests/IntegrationTests/ExporterTests.swift; `make test-fleet`).
        .testTarget(
            name: "ReachExporterTests",
            dependencies: [
                "ReachExporterKit", .product(name: "ReachabilityCore", package: root),
                // A receiver on loopback whose answers the test holds (RemoteWriteDeliveryTests).
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ]
)
