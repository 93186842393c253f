import Logging
import LinuxReachability
import ReachabilityModemManager
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The monitor and the uplink trackers, feeding `ExporterMetrics`, whose
/// series it adds to each snapshot (the registry's first collector); ready
/// once every target has its first answer and every uplink its initial state.
/// ModemManager's modems (unless the configuration says `modemmanager:
/// false`) feed the process's radio source, so that the monitor and the
/// trackers classify WWAN links and their technology from the modems, and
/// their own series; readiness never waits for them.
package final class Exporter: Sendable {
    let configuration: ExporterConfiguration
    let metrics: ExporterMetrics
    let monitor: ReachabilityMonitor
    let trackers: [UplinkTracker]
    /// Tracked uplinks whose interface the namespace did not have at start (warned about, shown on the page).
    package let missingInterfaces: [String]
    /// ModemManager's modems, followed from `start()` when the configuration asks for them.
    let radio: ModemManagerRadio
    private let logger: Logger
    /// The radio's observer, while it is registered; and the availability last logged.
    private let radioFollowing = Mutex<(observer: UInt64?, logged: ModemManagerAvailability)>((nil, .stopped))

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
    /// Test only (`REACH_EXPORTER_TEST_BLOCK_TRACKER=1`): the first uplink's
    /// second round blocks its tracker's thread until `stop()`, as a probe or
    /// an observer that never returns would. The tracker watchdog test.
    private let blocksTrackerThread: Bool
    /// Set by `stop()`: releases the blocked event thread, so that stopping joins it.
    private let stopping = Atomic<Bool>(false)
    /// When each uplink's tracker last finished a round (CLOCK_MONOTONIC ns;
    /// its start before the first): the watchdog's view of the tracker threads.
    private let lastRounds: Mutex<[UInt64]>

    /// Makes the monitor and trackers (nothing runs yet): a namespace that
    /// cannot be opened or a bad tracker configuration fails here.
    package init(configuration: ExporterConfiguration, version: String, radio: ModemManagerRadio = .shared,
         logger: Logger = Logger(label: "reach-exporter"),
         blocksEventThread: Bool = false, blocksTrackerThread: Bool = false) throws(ReachabilityError) {
        self.configuration = configuration
        self.radio = radio
        self.logger = logger
        self.blocksEventThread = blocksEventThread
        self.blocksTrackerThread = blocksTrackerThread
        lastRounds = Mutex(Array(repeating: 0, count: configuration.uplinks.count))
        metrics = ExporterMetrics(targets: configuration.targets, uplinks: configuration.uplinks.map(\.interface),
                                  version: version)
        monitor = try ReachabilityMonitor(targets: configuration.targets, namespace: configuration.namespace,
                                          configuration: configuration.monitorConfiguration())
        var trackers: [UplinkTracker] = []
        for uplink in configuration.uplinks {
            trackers.append(try UplinkTracker(configuration: uplink, namespace: configuration.namespace))
        }
        self.trackers = trackers
        missingInterfaces = missingUplinkInterfaces(configuration) ?? []
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

    package func start() throws(ReachabilityError) {
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
        for (index, tracker) in trackers.enumerated() {
            let blocks = blocksTrackerThread && index == 0
            tracker.onRound { [self] round in
                metrics.record(round: round)
                lastRounds.withLock { $0[index] = MonotonicInstant.now.nanoseconds }
                if blocks && round.round >= 2 {
                    while !stopping.load(ordering: .acquiring) { usleep(10_000) }
                }
            }
            tracker.onEvent { [self] event in
                metrics.record(state: event)
                if event.isInitial { arrived { $0.waitingUplinks.remove(event.interface) } }
            }
        }
        if configuration.modemManager { try followModemManager() }
        try monitor.start()
        let now = MonotonicInstant.now.nanoseconds
        lastRounds.withLock { $0 = $0.map { _ in now } }
        for tracker in trackers { try tracker.start() }
    }

    /// Follows ModemManager into the process's radio source (the monitor's
    /// and the trackers'), its modems into `metrics` after every change
    /// (on the radio's thread: no polling). Its thread connects in the
    /// background: no bus or no service delays nothing, and is logged once
    /// per change of availability, not at every retry.
    private func followModemManager() throws(ReachabilityError) {
        let id = radio.addObserver { [self] in recordModems() }
        radioFollowing.withLock { $0.observer = id }
        try radio.follow(into: .processDefault)
        recordModems()   // starting: the thread has not answered yet
    }

    /// Records the radio's modems; serialised, so that the last record
    /// read the latest state (the start's and the radio thread's may cross).
    private func recordModems() {
        let (availability, count, changed) = radioFollowing.withLock { following in
            let availability = radio.availability
            let modems = radio.modems.map { (modem: $0, interfaces: radio.interfaces(of: $0)) }
            metrics.record(modemManager: availability, modems: modems)
            defer { following.logged = availability }
            return (availability, modems.count, following.logged != availability)
        }
        guard changed else { return }
        switch availability {
        case .available:
            logger.notice("ModemManager available: \(count) modem\(count == 1 ? "" : "s")", source: Logger.exporterSource)
        case let .unavailable(reason):
            logger.notice("ModemManager unavailable (\(reason)): no modem series until it is", source: Logger.exporterSource)
        case .starting, .stopped:
            break
        }
    }

    /// The first running uplink tracker that has finished no round for longer
    /// than a round can take (its longest interval between round starts, then
    /// `count` probes of its timeout one after another) plus `margin`: its
    /// thread is stuck, in a probe or an observer. nil when every one keeps time.
    func stuckTracker(margin: Duration) -> (interface: String, bound: Duration)? {
        let now = MonotonicInstant.now.nanoseconds
        let last = lastRounds.withLock { $0 }
        for (index, tracker) in trackers.enumerated() where tracker.isRunning {
            let uplink = configuration.uplinks[index]
            let longest = max(uplink.interval, uplink.failureInterval ?? uplink.interval,
                              uplink.recoveryInterval ?? uplink.interval)
            let bound = longest + uplink.effectiveTimeout * uplink.count + margin
            if now &- min(last[index], now) > bound.clampedNanoseconds { return (uplink.interface, bound) }
        }
        return nil
    }


    package func stop() {
        stopping.store(true, ordering: .releasing)
        if let id = radioFollowing.withLock({ following in defer { following.observer = nil }; return following.observer }) {
            radio.removeObserver(id)
            radio.stop()
        }
        for tracker in trackers { tracker.stop() }
        monitor.stop()
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
