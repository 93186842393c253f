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
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
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
        .testTarget(
            name: "IntegrationTests",
            dependencies: ["Reachability", "ReachabilityCore", "CReachability", "CTestSupport"]
        ),
    ]
)
