// swift-tools-version:6.1
import PackageDescription

// The C core is not a product: users see only the Swift library and the CLI.
let package = Package(
    name: "swift-reachability",
    products: [
        .library(name: "Reachability", targets: ["Reachability"]),
        // The same library without Swift concurrency and Dispatch: for
        // firmware-sized programs that take changes through callbacks.
        .library(name: "ReachabilityCore", targets: ["ReachabilityCore"]),
        .executable(name: "reach", targets: ["reach"]),
        // The Prometheus exporter: its own product, so that neither the library
        // nor `reach` links swift-nio, swift-prometheus or Yams.
        .executable(name: "reach-exporter", targets: ["reach-exporter"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // reach-exporter only.
        .package(url: "https://github.com/apple/swift-nio", from: "2.70.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.0.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.0.0"),
    ],
    targets: [
        // libcap, found through pkg-config; `make` installs libcap-dev when it is missing.
        .systemLibrary(
            name: "CLibcap",
            path: "Sources/CLibcap",
            pkgConfig: "libcap",
            providers: [.apt(["libcap-dev"])]
        ),
        // Syscalls and byte parsing only: netlink, sysfs, namespaces, capabilities.
        .target(
            name: "CReachability",
            dependencies: ["CLibcap"],
            path: "CSupport",
            cSettings: [
                .define("_GNU_SOURCE"),
            ],
            linkerSettings: [.linkedLibrary("cap")]
        ),
        // Kernel facts → flags → decisions, the monitor and its callbacks,
        // probes and the tracker: no Swift concurrency, no Dispatch.
        .target(
            name: "ReachabilityCore",
            dependencies: ["CReachability"]
        ),
        // ReachabilityCore re-exported, plus what needs Swift concurrency or
        // Dispatch: AsyncStream changes, async lookups and probes, `.dispatch(queue)`.
        .target(
            name: "Reachability",
            dependencies: ["ReachabilityCore"]
        ),
        .executableTarget(
            name: "reach",
            dependencies: [
                "Reachability",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The Prometheus exporter (README, "Fleet"): swift-nio's HTTP/1 server,
        // swift-prometheus' exposition, swift-service-lifecycle's signals and
        // shutdown, a YAML configuration through Yams.
        .executableTarget(
            name: "reach-exporter",
            dependencies: [
                "Reachability",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Yams", package: "Yams"),
            ]
        ),
        .testTarget(
            name: "ReachabilityTests",
            dependencies: ["Reachability", "ReachabilityCore", "CReachability"],
            // Binary netlink captures, read by path (#filePath) in the parser tests.
            exclude: ["Fixtures"]
        ),
        // Raw syscalls the integration tests need (per-thread setresuid for the RLIMIT_NPROC test).
        .target(
            name: "CTestSupport",
            path: "Tests/CTestSupport"
        ),
        // The exporter's own types, in process (ExporterMetrics' one-hot series
        // under concurrent scrapes): the executable target imported for testing.
        .testTarget(
            name: "ReachExporterTests",
            dependencies: ["reach-exporter", "ReachabilityCore", "CReachability"]
        ),
        .testTarget(
            name: "IntegrationTests",
            dependencies: ["Reachability", "ReachabilityCore", "CReachability", "CTestSupport"]
        ),
    ]
)
