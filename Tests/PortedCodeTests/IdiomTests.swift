// The idiom corpus (Idioms/), run: each idiom compiled with at most its
// import line changed, and here it answers on a namespace with a wired
// uplink (eth0 with the default route), then with the link down, then with
// it up and the route back. Idioms that watch are waited on through their
// own callbacks; one-shot idioms are asked once the kernel's change has been
// seen by a path monitor of the driver's own (`KernelWatch`), so that no
// answer is read before the change it should reflect.

import Foundation
import Network
import XCTest

/// What an idiom said, in order, and expectations for the answers a test waits for.
final class IdiomAnswers<Value: Equatable>: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Value] = []
    private var waiters: [(wanted: Value, expectation: XCTestExpectation)] = []

    func add(_ value: Value) {
        let ready = lock.withLock { () -> [XCTestExpectation] in
            values.append(value)
            let ready = waiters.filter { $0.wanted == value }.map(\.expectation)
            waiters.removeAll { $0.wanted == value }
            return ready
        }
        for expectation in ready { expectation.fulfill() }
    }

    var all: [Value] { lock.withLock { values } }

    /// Fulfilled when `wanted` is the latest answer (now, or when it arrives).
    func expectation(_ wanted: Value) -> XCTestExpectation {
        let expectation = XCTestExpectation(description: "the answer \(wanted)")
        let now = lock.withLock { () -> Bool in
            if values.last == wanted { return true }
            waiters.append((wanted, expectation))
            return false
        }
        if now { expectation.fulfill() }
        return expectation
    }
}

/// The kernel's state as a path monitor of the driver's own sees it.
final class KernelWatch {
    let statuses = IdiomAnswers<NWPath.Status>()
    private let monitor = NWPathMonitor()

    init() {
        let statuses = self.statuses
        monitor.pathUpdateHandler = { statuses.add($0.status) }
        monitor.start(queue: DispatchQueue(label: "IdiomTests.KernelWatch"))
    }

    func cancel() { monitor.cancel() }
}

final class IdiomTests: XCTestCase {
    /// Safety net only: every wait ends with the callback it waits for.
    private let timeout: TimeInterval = 10
    /// An address past the default route (TEST-NET-3): the idioms' hosts, as
    /// the namespace has no name server for "www.apple.com".
    private let remoteHost = "203.0.113.10"

    private var ns: NamespaceFixture!
    private var kernel: KernelWatch!

    override func setUpWithError() throws {
        ns = try NamespaceFixture()
        try ns.addLink("eth0", peer: "eb", address: "10.10.0.1/24")
        try ns.ip("route add default via 10.10.0.2")
        kernel = KernelWatch()
        settle(.satisfied)
    }

    override func tearDown() {
        kernel?.cancel()
        ns?.remove()
        super.tearDown()
    }

    private func settle(_ status: NWPath.Status) {
        wait(for: [kernel.statuses.expectation(status)], timeout: timeout)
    }

    private func linkDown() throws {
        try ns.ip("link set eth0 down")
    }

    /// The link back and, as after any link down, the default route again.
    private func linkUp() throws {
        try ns.ip("link set eth0 up")
        try ns.ip("route add default via 10.10.0.2")
    }

    /// Runs the watching idiom's answers through wired → down → up.
    private func checkAcrossLinkDownAndUp<Value: Equatable>(_ answers: IdiomAnswers<Value>, reachable: Value,
                                                          notReachable: Value) throws {
        wait(for: [answers.expectation(reachable)], timeout: timeout)
        try linkDown()
        wait(for: [answers.expectation(notReachable)], timeout: timeout)
        try linkUp()
        wait(for: [answers.expectation(reachable)], timeout: timeout)
    }

    /// Asks the one-shot idiom on the wired namespace, after link down, after up.
    func checkOneShot<Value: Equatable>(reachable: Value, notReachable: Value, _ ask: () -> Value,
                                                file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(ask(), reachable, "wired", file: file, line: line)
        try linkDown()
        settle(.unsatisfied)
        XCTAssertEqual(ask(), notReachable, "link down", file: file, line: line)
        try linkUp()
        settle(.satisfied)
        XCTAssertEqual(ask(), reachable, "link up again", file: file, line: line)
    }

    // MARK: 1. isConnectedToNetwork()

    func testIsConnectedToNetwork() throws {
        try checkOneShot(reachable: true, notReachable: false) { NetworkConnectivity.isConnectedToNetwork() }
    }

    func testIsConnectedToNetworkVariants() throws {
        try checkOneShot(reachable: [true, true], notReachable: [false, false]) {
            [ReachabilityCheck.isConnectedToNetwork(), ReachabilityCheck.hasInternet()]
        }
    }

    // MARK: 2. Factories in an extension of SCNetworkReachability

    func testFactoriesInAnExtension() throws {
        try checkOneShot(reachable: ["wifi", "reachable"], notReachable: ["offline", "offline"]) {
            [InternetStatusText.current(), InternetStatusText.current(host: remoteHost)]
        }
    }

    // MARK: 3. SetCallback with a global function, SetDispatchQueue

    func testCallbackWithAGlobalFunctionAndAnUnretainedContext() throws {
        let observer = try XCTUnwrap(ReachabilityObserver())
        let answers = IdiomAnswers<ReachabilityObserver.Status>()
        observer.statusChanged = { answers.add($0) }
        XCTAssertTrue(observer.start())
        defer { observer.stop() }
        try checkAcrossLinkDownAndUp(answers, reachable: .wifi, notReachable: .offline)
    }

    // MARK: 4. The NWPathMonitor singleton

    func testThePathMonitorSingletonWithTheHandlerSetAfterStart() throws {
        let answers = IdiomAnswers<String>()
        NetworkMonitor.shared.onUpdate = { monitor in
            answers.add(monitor.isConnected ? "connected \(monitor.connectionType)" : "offline \(monitor.connectionType)")
        }
        NetworkMonitor.shared.startMonitoring()
        // The singleton's monitor cannot start again once cancelled: this is its only test.
        defer { NetworkMonitor.shared.stopMonitoring() }
        try checkAcrossLinkDownAndUp(answers, reachable: "connected ethernet", notReachable: "offline unknown")
    }

    // MARK: 5. Retroactive conformances

    func testRetroactiveConformancesOfPathAndMonitor() throws {
        let service = ConnectivityService()
        let answers = IdiomAnswers<ConnectivityService.State>()
        service.start(on: DispatchQueue(label: "IdiomTests.service")) { answers.add($0) }
        defer { service.stop() }
        try checkAcrossLinkDownAndUp(answers, reachable: .wifiOrEthernet, notReachable: .offline)
    }

    // MARK: 6. internal import Network, an AsyncStream wrapper

    func testAStreamWrapperWhoseTerminationCancelsTheMonitor() async throws {
        let online = "online over Wi-Fi or wire"
        let seen = IdiomAnswers<String>()
        let ended = expectation(description: "the loop ended")
        let ns = try XCTUnwrap(self.ns)
        let loop = Task {
            var steps = ["down", "up"]
            for await path in NetworkPathStream().paths() {
                let text = NetworkPathStream.describe(path)
                seen.add(text)
                if text == online && steps.first == "down" {
                    steps.removeFirst()
                    try ns.ip("link set eth0 down")
                } else if text == "offline" && steps.first == "up" {
                    steps.removeFirst()
                    try ns.ip("link set eth0 up")
                    try ns.ip("route add default via 10.10.0.2")
                } else if text == online && steps.isEmpty {
                    break   // ends the stream: onTermination cancels its monitor
                }
            }
            ended.fulfill()
        }
        await fulfillment(of: [ended], timeout: timeout)
        loop.cancel()   // the safety net's way out, when the loop is still waiting
        try await loop.value
        XCTAssertEqual(seen.all.first, online)
        XCTAssertEqual(seen.all.last, online)
        XCTAssertTrue(seen.all.contains("offline"), "\(seen.all)")
    }

    // MARK: 7. for await over a temporary monitor

    func testForAwaitOverATemporaryMonitor() async throws {
        let kernel = try XCTUnwrap(self.kernel)
        let ns = try XCTUnwrap(self.ns)
        var answer = await ConnectivityProbe.current()
        XCTAssertEqual(answer, .wifiOrEthernet, "wired")
        let statuses = await ConnectivityProbe.firstPaths(1)
        XCTAssertEqual(statuses, [.satisfied])

        try ns.ip("link set eth0 down")
        await fulfillment(of: [kernel.statuses.expectation(.unsatisfied)], timeout: timeout)
        answer = await ConnectivityProbe.current()
        XCTAssertEqual(answer, .offline, "link down")

        try ns.ip("link set eth0 up")
        try ns.ip("route add default via 10.10.0.2")
        await fulfillment(of: [kernel.statuses.expectation(.satisfied)], timeout: timeout)
        answer = await ConnectivityProbe.current()
        XCTAssertEqual(answer, .wifiOrEthernet, "link up again")
    }

    // MARK: 8. #if canImport(Network) and @available gates

    func testAMonitorWrapperBehindAvailabilityGates() throws {
        let answers = IdiomAnswers<String>()
        let watcher = ConnectionWatcherFactory.makeWatcher { reachable, local in
            answers.add(reachable ? (local ? "wifi or wired" : "other") : "offline")
        }
        XCTAssertNotNil(watcher, "Network exists here, and the platform passes #available")
        defer { ConnectionWatcherFactory.stop(watcher) }
        try checkAcrossLinkDownAndUp(answers, reachable: "wifi or wired", notReachable: "offline")
    }

    // MARK: 9. Reachability.swift 5.x and 4.x

    /// Why the two idioms that observe `.reachabilityChanged` with
    /// `object: reachability` cannot pass with Swift 6.0.
    static let swift60NotificationObjects = "Swift 6.0's Foundation on Linux never matches an observer's object: "
        + "to a Swift class that is not an NSObject (fixed in Swift 6.1's Foundation), and Reachability.swift's "
        + "Reachability is not one: such an observer gets no notification (the module's documentation says so)"

    func testReachabilitySwift5NotificationObserver() throws {
        #if compiler(<6.1)
        throw XCTSkip(Self.swift60NotificationObjects)
        #endif
        let observer = try ReachabilityStatusObserver()
        let answers = IdiomAnswers<String>()
        observer.statusChanged = { answers.add($0) }
        try observer.start()
        defer { observer.stop() }
        try checkAcrossLinkDownAndUp(answers, reachable: "WiFi", notReachable: "No Connection")
    }

    func testReachabilitySwift4FailableInitAndNoneConnection() throws {
        #if compiler(<6.1)
        throw XCTSkip(Self.swift60NotificationObjects)
        #endif
        let monitor = LegacyReachabilityMonitor()
        let answers = IdiomAnswers<String>()
        monitor.statusChanged = { answers.add($0) }
        monitor.start()
        defer { monitor.stop() }
        try checkAcrossLinkDownAndUp(answers, reachable: "WiFi", notReachable: "No Connection")
    }

    // MARK: 10. Alamofire 5 and 4 listeners

    func testAlamofire5ListenerWithAnExhaustiveSwitch() throws {
        let reachability = APIReachability(host: remoteHost)
        let answers = IdiomAnswers<String>()
        reachability.onChange = { answers.add($0) }
        reachability.startListening()
        defer { reachability.stopListening() }
        try checkAcrossLinkDownAndUp(answers, reachable: "wifi", notReachable: "offline")
    }

    func testAlamofire4ListenerWithAnExhaustiveSwitch() throws {
        let manager = NetworkStatusManager(host: remoteHost)
        XCTAssertNotNil(manager.manager)
        let answers = IdiomAnswers<String>()
        manager.onChange = { answers.add($0) }
        manager.startNetworkReachabilityObserver()
        defer { manager.stopNetworkReachabilityObserver() }
        try checkAcrossLinkDownAndUp(answers, reachable: "wifi", notReachable: "offline")
    }

    // MARK: 11. AFNetworking's status block

    func testAFNetworkingStatusBlockOnTheSharedManager() throws {
        let watcher = AFReachabilityWatcher()
        let answers = IdiomAnswers<String>()
        watcher.onChange = { answers.add($0) }
        watcher.start()
        defer { watcher.stop() }
        try checkAcrossLinkDownAndUp(answers, reachable: "wifi", notReachable: "offline")
    }
}
