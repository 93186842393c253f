// README's Swift snippets, verbatim, so that the compiler checks them: each
// ```swift block of README.md sits in one function below (its `import` lines
// at the top of this file). The functions are compiled, never called (they
// would watch and probe the real network). ReadmeSnippetTests fails when a
// block of README is not found here word for word, so README cannot drift
// from the API again.

import Dispatch
import LinuxReachability
import ReachabilityTesting

private let queue = DispatchQueue(label: "readme")

private func readmeEvaluation() async throws {
    let evaluator = try ReachabilityEvaluator()                 // or namespace: .named("blue")
    let answer = try evaluator.evaluate(IPAddress("10.1.0.7")!)  // one FIB lookup + link facts
    print(answer.flags, answer.status)                          // -R ------d reachable.wired

    let internet = try await evaluator.evaluate(.internet)
    let host = try await evaluator.evaluate(.host("example.org"), options: LookupOptions(uid: 1000))
    _ = (internet, host)
}

private func readmeProbes() async throws {
    let prober = try Prober(namespace: .named("blue"))
    let result = try await prober.probe(IPAddress("10.1.0.1")!, method: .icmp,
                                        options: ProbeOptions(interface: "wan0", timeout: .seconds(1)))
    print(result.outcome, result.transport, result.roundTrip ?? .zero, result.fallbackReason ?? "")
    let portal = try await prober.probe(IPAddress("10.1.0.1")!, method: .http(HTTPProbeURL(host: "portal.test")))
    if portal.verdict == .captivePortal { /* interventionRequired */ }

    let tracker = try UplinkTracker(configuration: .init(interface: "wan0", hosts: [IPAddress("10.1.0.1")!],
                                                         timeout: .milliseconds(400), interval: .milliseconds(500),
                                                         down: 3, up: 2))
    tracker.onEvent(on: .dispatch(queue)) { event in print(event.interface, event.state) }
    tracker.onRound { round in print(round.results.map(\.roundTrip)) }   // every round, for metrics
    try tracker.start()      // rounds on the tracker's own thread until stop()
}

private func readmeMonitor() async throws {
    let monitor = try ReachabilityMonitor(targets: [.internet, .host("broker.local"), .address(IPAddress("10.1.0.7")!)],
                                          namespace: .named("blue"))
    monitor.whenUnreachable(on: .dispatch(queue)) { change in print("\(change.target) lost") }
    try monitor.start()
    for await change in monitor.changes() {          // initial states first, then changes
        print(change.target, change.isInitial, change.status, change.interface ?? "-")
    }
}

private func readmeTestingYourCode() async throws {
    let net = SimulatedNetwork(.dualUplinkWanLte)          // wan0 wired, wwan0 LTE
    let monitor = try ReachabilityMonitor(targets: [.internet], namespace: net.namespace)
    try monitor.start()
    net["wan0"].setDown()                                  // also unplug(), signalLost(), becomeCaptive(location:),
    await net.settled()                                    // net.policy.allowsWWAN = false, net.with(.down, on:) {...}
    print(monitor.currentEvaluations[0].primary?.link?.name ?? "none")   // wwan0
    monitor.stop()
    try await net.finish()                                 // fails on changes nobody took, timers left armed
}
