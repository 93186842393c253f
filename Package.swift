// swift-tools-version:6.0
import PackageDescription

// The C core is not a product: users see only the Swift library and the CLI.
let package = Package(
    name: "swift-reachability",
    products: [
        // The front door: `import LinuxReachability`. Not `Reachability`, which is
        // Reachability.swift's module (SwiftPM wants target names unique across a
        // package graph, and ports keep that library beside this one).
        .library(name: "LinuxReachability", targets: ["LinuxReachability"]),
        // The same library without Swift concurrency and Dispatch: for
        // firmware-sized programs that take changes through callbacks.
        .library(name: "ReachabilityCore", targets: ["ReachabilityCore"]),
        // The model alone (flags and decision tables on values): for code that
        // decides from facts it has, on any platform.
        .library(name: "ReachabilityModel", targets: ["ReachabilityModel"]),
        // Radio facts from ModemManager on the system bus (sd-bus, libsystemd):
        // a product of its own, so that the engine links no D-Bus library.
        .library(name: "ReachabilityModemManager", targets: ["ReachabilityModemManager"]),
        // Apple's reachability APIs under their own module names, so that code
        // written for iOS compiles unchanged (README, "Porting from iOS"):
        // `import SystemConfiguration`, `import CoreTelephony`, `import Network`.
        // And the libraries built on them, one module each under a name of
        // ours, so that a port changes one import line (`import Alamofire` →
        // `import AlamofireReachability`) and the original can stay in the same
        // package graph: no target here takes an original's target name
        // (Alamofire, AFNetworking, Reachability). Alamofire 4.x and
        // Reachability.swift 4.x have modules of their own, the major versions
        // whose API a switch or an initialiser can tell apart.
        .library(name: "ReachabilityCompat", targets: [
            "SystemConfiguration", "CoreTelephony", "Network", "ReachabilityCompatSupport",
            "AppleReachability", "AFNetworkReachability", "AlamofireReachability", "ReachabilitySwift",
            "SLReachability", "ZYNetworkAccessibity", "Alamofire4", "ReachabilitySwift4",
        ]),
        // For test targets only: a simulated network (kernel facts in memory,
        // driven through the same evaluation code) and NetworkSandbox (the real
        // kernel, in namespaces, unprivileged through user namespaces).
        .library(name: "ReachabilityTesting", targets: ["ReachabilityTesting"]),
        .executable(name: "reach", targets: ["reach"]),
        // The Prometheus exporter is a package of its own (Exporter/), so that
        // a user of the library resolves none of its dependencies.
    ],
    dependencies: [
        // `reach` only.
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // libcap, found through pkg-config; `make` installs libcap-dev when it is missing.
        .systemLibrary(
            name: "CReachabilityLibcap",
            path: "Sources/CReachabilityLibcap",
            pkgConfig: "libcap",
            providers: [.apt(["libcap-dev"])]
        ),
        // libsystemd's sd-bus, for ReachabilityModemManager alone; `make`
        // installs libsystemd-dev when it is missing.
        .systemLibrary(
            name: "CReachabilitySDBus",
            path: "Sources/CReachabilitySDBus",
            pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]
        ),
        // Syscalls and byte parsing only: netlink, sysfs, namespaces, capabilities.
        .target(
            name: "CReachability",
            dependencies: ["CReachabilityLibcap"],
            path: "CSupport",
            cSettings: [
                .define("_GNU_SOURCE"),
            ],
            linkerSettings: [.linkedLibrary("cap")]
        ),
        // The pure model: flags, the decision tables (status, NetworkStatus,
        // PathStatus, mask, accessibility, policy), the kernel facts they take
        // as values (InterfaceKind, RouteVerdict, OperState, LinkState), the
        // tracker's score. No C module, no Glibc: it builds on any Swift
        // platform (.ci/run compiles it with the standard library alone).
        .target(name: "ReachabilityModel"),
        // The kernel seam: the one Swift module that calls the C core for
        // kernel facts. Route, link, address and rule questions
        // (`KernelQuestions`), the event socket (`KernelEvents`), the
        // namespaces, and the runtime primitives they need (locks, waits,
        // the clock). It knows nothing of monitors, targets or probes.
        .target(
            name: "ReachabilityKernel",
            dependencies: ["ReachabilityModel", "CReachability"]
        ),
        // The engine over the kernel seam: evaluation, the monitor and its
        // callbacks, probes and the tracker: no Swift concurrency, no
        // Dispatch. Re-exports the model and the kernel seam's public types.
        .target(
            name: "ReachabilityCore",
            dependencies: ["ReachabilityKernel", "ReachabilityModel", "CReachability"]
        ),
        // ModemManager's modems as radio facts (RadioSource.setModemFacts): its
        // own thread and bus connection, read through sd-bus.
        .target(
            name: "ReachabilityModemManager",
            dependencies: ["ReachabilityCore", "CReachabilitySDBus"]
        ),
        // ReachabilityCore re-exported, plus what needs Swift concurrency or
        // Dispatch: AsyncStream changes, async lookups and probes, `.dispatch(queue)`.
        .target(
            name: "LinuxReachability",
            dependencies: ["ReachabilityCore"]
        ),
        // The compat modules (Sources/Compat): thin views over the one engine,
        // with Foundation and Dispatch. Support holds what the three share (the
        // namespace they read, one evaluator per namespace, delivery on queues).
        .target(
            name: "ReachabilityCompatSupport",
            // ModemManager's facts, followed by default as iOS's frameworks
            // follow the modem (CompatEnvironment.modemManager).
            dependencies: ["LinuxReachability", "ReachabilityModemManager"],
            path: "Sources/Compat/Support"
        ),
        .target(
            name: "SystemConfiguration",
            dependencies: ["ReachabilityCompatSupport"],
            path: "Sources/Compat/SystemConfiguration"
        ),
        .target(
            name: "CoreTelephony",
            dependencies: ["ReachabilityCompatSupport"],
            path: "Sources/Compat/CoreTelephony"
        ),
        .target(
            name: "Network",
            dependencies: ["ReachabilityCompatSupport"],
            path: "Sources/Compat/Network"
        ),
        // The libraries built on Apple's frameworks (Sources/Compat/<module>):
        // each over SystemConfiguration (and CoreTelephony), as the original is.
        .target(name: "AppleReachability", dependencies: ["SystemConfiguration"], path: "Sources/Compat/AppleReachability"),
        .target(name: "AFNetworkReachability", dependencies: ["SystemConfiguration"], path: "Sources/Compat/AFNetworkReachability"),
        .target(name: "AlamofireReachability", dependencies: ["SystemConfiguration"], path: "Sources/Compat/AlamofireReachability"),
        // Swift 5 mode, as the original (its class is not Sendable, its closures are not @Sendable).
        .target(name: "ReachabilitySwift", dependencies: ["SystemConfiguration"], path: "Sources/Compat/ReachabilitySwift",
                swiftSettings: [.swiftLanguageMode(.v5)]),
        .target(name: "SLReachability", dependencies: ["SystemConfiguration", "CoreTelephony"], path: "Sources/Compat/SLReachability"),
        // Alamofire 4.x and Reachability.swift 4.x: one source of truth per
        // major version (their enums and initialisers differ where code sees it).
        .target(name: "Alamofire4", dependencies: ["SystemConfiguration"], path: "Sources/Compat/Alamofire4"),
        .target(name: "ReachabilitySwift4", dependencies: ["SystemConfiguration"], path: "Sources/Compat/ReachabilitySwift4",
                swiftSettings: [.swiftLanguageMode(.v5)]),
        .target(name: "ZYNetworkAccessibity", dependencies: ["SystemConfiguration", "CoreTelephony"],
                path: "Sources/Compat/ZYNetworkAccessibity"),
        // One program per library, written as its README shows its use; each
        // also takes `wwan off` / `wwan on` on standard input (the settings
        // app's switch: CompatEnvironment.allowsWWAN).
        .executableTarget(name: "apple-reach-watch", dependencies: ["AppleReachability", "ReachabilityCompatSupport"],
                          path: "Examples/Compat/apple-reach-watch"),
        .executableTarget(name: "af-watch", dependencies: ["AFNetworkReachability", "ReachabilityCompatSupport"], path: "Examples/Compat/af-watch"),
        .executableTarget(name: "alamofire-watch", dependencies: ["AlamofireReachability", "ReachabilityCompatSupport"],
                          path: "Examples/Compat/alamofire-watch"),
        .executableTarget(name: "rs-watch", dependencies: ["ReachabilitySwift", "ReachabilityCompatSupport"], path: "Examples/Compat/rs-watch"),
        .executableTarget(name: "sl-watch", dependencies: ["SLReachability", "ReachabilityCompatSupport"], path: "Examples/Compat/sl-watch"),
        .executableTarget(name: "zy-watch", dependencies: ["ZYNetworkAccessibity", "ReachabilityCompatSupport"], path: "Examples/Compat/zy-watch"),
        // One program per framework, written as its documentation shows its use:
        // each prints the initial state and every change (built in CI).
        .executableTarget(name: "sc-watch", dependencies: ["SystemConfiguration"], path: "Examples/Compat/sc-watch"),
        .executableTarget(name: "nw-watch", dependencies: ["Network"], path: "Examples/Compat/nw-watch"),
        // ct-watch also plays the modem driver (RadioSource.processDefault).
        .executableTarget(name: "ct-watch", dependencies: ["CoreTelephony", "LinuxReachability"], path: "Examples/Compat/ct-watch"),
        // The engine without Foundation: FoundationFreeTests reads this program's
        // dynamic section (the compat modules may use Foundation; these may not).
        .executableTarget(name: "foundation-free", dependencies: ["LinuxReachability"], path: "Examples/FoundationFree"),
        .executableTarget(
            name: "reach",
            dependencies: [
                "LinuxReachability",
                "ReachabilityModemManager",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Tier 1 (SimulatedNetwork: the engine on kernel facts held in memory)
        // and tier 2 (NetworkSandbox: real namespaces). Test code only; it may
        // use Foundation (tier 2 runs ip, nginx and dnsmasq).
        .target(name: "ReachabilityTesting", dependencies: ["LinuxReachability", "ReachabilityCore"]),
        .testTarget(
            name: "ReachabilityTestingTests",
            dependencies: ["ReachabilityTesting", "LinuxReachability", "Network", "SystemConfiguration", "CoreTelephony",
                           "AlamofireReachability", "ReachabilityCompatSupport"]
        ),
        // What the test targets share (Tests/ReachabilityTestSupport): the
        // namespaces the real-kernel tests make and their base class
        // (NamespaceTestCase), a private system bus with ModemManager on it
        // (PrivateBus, its stand-in and spoofer scripts), the skip that CI
        // turns into a failure, and the built programs the tests run. Not a
        // product, and only test targets depend on it: no user sees it.
        .target(
            name: "ReachabilityTestSupport",
            dependencies: ["LinuxReachability", "CReachability", "ReachabilityTesting",
                           "ReachabilityModemManager"],
            path: "Tests/ReachabilityTestSupport",
            exclude: ["modemmanager_standin.py", "bus_spoofer.py"]
        ),
        .testTarget(
            name: "ReachabilityTests",
            dependencies: ["LinuxReachability", "ReachabilityCore", "ReachabilityKernel", "ReachabilityModel", "CReachability",
                           "ReachabilityTesting", "CTestSupport"],
            // Binary netlink captures, read by path (#filePath) in the parser tests.
            exclude: ["Fixtures"]
        ),
        // What the tests need from C: per-thread setresuid (the RLIMIT_NPROC
        // test) and the live threads of the process (test_live_threads).
        .target(
            name: "CTestSupport",
            path: "Tests/CTestSupport"
        ),
        .testTarget(
            name: "IntegrationTests",
            dependencies: ["LinuxReachability", "ReachabilityCore", "ReachabilityKernel", "CReachability", "CTestSupport",
                           "ReachabilityTesting",
                           // The exporter's modem series (RegistrationState), driven through PrivateBus.
                           "ReachabilityModemManager", "ReachabilityTestSupport"]
        ),
        // ReachabilityModemManager over a real dbus-daemon (a private system
        // bus per test) against a ModemManager stand-in that speaks its
        // interface (python3-dbusmock, ReachabilityTestSupport's
        // modemmanager_standin.py), and against
        // Debian's real ModemManager with no modem.
        .testTarget(
            name: "ModemManagerTests",
            dependencies: ["ReachabilityModemManager", "LinuxReachability", "ReachabilityCore", "ReachabilityTestSupport"]
        ),
        // The compat modules on the real kernel, in namespaces (Tests/CompatTests).
        .testTarget(
            name: "CompatTests",
            dependencies: ["SystemConfiguration", "CoreTelephony", "Network", "ReachabilityCompatSupport",
                           "AppleReachability", "AFNetworkReachability", "AlamofireReachability", "ReachabilitySwift",
                           "SLReachability", "ZYNetworkAccessibity", "LinuxReachability", "ReachabilityKernel", "CTestSupport",
                           // runCommand and ipExecutable (CompatTestCase runs the example programs with them).
                           "ReachabilityTesting",
                           // The facades following ModemManager (ModemFollowingTests, on a PrivateBus).
                           "ReachabilityModemManager", "ReachabilityTestSupport"]
        ),
        // Code written as iOS code is written (imports only Foundation and
        // Apple's framework names, no #if os(Linux)), in Swift 5 language mode
        // as most of it is: it must compile and run unchanged.
        .testTarget(
            name: "PortedCodeTests",
            dependencies: ["SystemConfiguration", "CoreTelephony", "Network", "AlamofireReachability",
                           "ReachabilityCompatSupport", "LinuxReachability",
                           // The idiom corpus (Tests/PortedCodeTests/Idioms): each file imports what its original does.
                           "Alamofire4", "AFNetworkReachability", "ReachabilitySwift", "ReachabilitySwift4", "SLReachability",
                           // NamespaceFixture, the test infrastructure: a TestNamespace, made with `ip`.
                           "ReachabilityTestSupport", "ReachabilityTesting"],
            // Imports are internal unless said otherwise (Swift 6's default),
            // so that an idiom's `internal import Network` sits beside plain imports.
            swiftSettings: [.swiftLanguageMode(.v5), .enableUpcomingFeature("InternalImportsByDefault")]
        ),
    ]
)

// Documentation (`make docs`): swift-docc-plugin only when REACH_DOCS is set,
// so that the library's users never resolve it (SwiftPM resolves every
// declared dependency for every client).
if Context.environment["REACH_DOCS"] != nil {
    package.dependencies.append(.package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"))
}
