import NIOCore
import Reachability
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The monitor and the uplink trackers, feeding `ExporterMetrics`; ready once
/// every target has its first answer and every uplink its initial state.
final class Exporter: Sendable {
    let configuration: ExporterConfiguration
    let metrics: ExporterMetrics
    let monitor: ReachabilityMonitor
    let trackers: [UplinkTracker]

    private struct Readiness {
        var waitingTargets: Set<Target>
        var waitingUplinks: Set<String>
        var waiters: [@Sendable () -> Void] = []
        var isReady: Bool { waitingTargets.isEmpty && waitingUplinks.isEmpty }
    }
    private let readiness: Mutex<Readiness>
    /// Test only (`REACH_EXPORTER_TEST_BLOCK_EVENT_THREAD=1`, read by
    /// `ReachExporter.run`): the first change after the initial answers
    /// blocks the monitor's event thread until `stop()`, as a callback that
    /// never returns would. The watchdog test makes the thread stuck with it.
    private let blocksEventThread: Bool
    /// Set by `stop()`: releases the blocked event thread, so that stopping joins it.
    private let stopping = Atomic<Bool>(false)

    /// Makes the monitor and trackers (nothing runs yet): a namespace that
    /// cannot be opened or a bad tracker configuration fails here.
    init(configuration: ExporterConfiguration, version: String,
         blocksEventThread: Bool = false) throws(ReachabilityError) {
        self.configuration = configuration
        self.blocksEventThread = blocksEventThread
        metrics = ExporterMetrics(targets: configuration.targets, uplinks: configuration.uplinks.map(\.interface),
                                  version: version)
        monitor = try ReachabilityMonitor(targets: configuration.targets, namespace: configuration.namespace,
                                          configuration: configuration.monitorConfiguration())
        var trackers: [UplinkTracker] = []
        for uplink in configuration.uplinks {
            trackers.append(try UplinkTracker(configuration: uplink, namespace: configuration.namespace))
        }
        self.trackers = trackers
        readiness = Mutex(Readiness(waitingTargets: Set(configuration.targets),
                                    waitingUplinks: Set(configuration.uplinks.map(\.interface))))
    }

    var isReady: Bool { readiness.withLock { $0.isReady } }

    /// Calls `body` once ready (at once when ready already).
    func whenReady(_ body: @escaping @Sendable () -> Void) {
        let now = readiness.withLock { state -> Bool in
            if state.isReady { return true }
            state.waiters.append(body)
            return false
        }
        if now { body() }
    }

    func start() throws(ReachabilityError) {
        let metrics = self.metrics
        monitor.onChange { [self] change in
            metrics.record(change)
            if change.isInitial { arrived { $0.waitingTargets.remove(change.target) } }
        }
        if blocksEventThread {
            monitor.onChange { [self] change in
                guard !change.isInitial else { return }
                while !stopping.load(ordering: .acquiring) { usleep(10_000) }
            }
        }
        for tracker in trackers {
            tracker.onRound { metrics.record(round: $0) }
            tracker.onEvent { [self] event in
                metrics.record(state: event)
                if event.isInitial { arrived { $0.waitingUplinks.remove(event.interface) } }
            }
        }
        try monitor.start()
        for tracker in trackers { try tracker.start() }
    }

    func stop() {
        stopping.store(true, ordering: .releasing)
        for tracker in trackers { tracker.stop() }
        monitor.stop()
    }

    /// The text exposition, with the monitor's counters brought up to date.
    func scrape() -> (state: ByteBuffer, counters: ByteBuffer) {
        metrics.record(monitor.counters)
        return metrics.render()
    }

    private func arrived(_ update: (inout Readiness) -> Void) {
        let waiters = readiness.withLock { state -> [@Sendable () -> Void] in
            update(&state)
            guard state.isReady else { return [] }
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter() }
    }
}
