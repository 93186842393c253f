import Logging
import LinuxReachability
import ServiceLifecycle

/// READY=1 once the exporter is ready (every target answered, every uplink
/// has its state) and the port is bound; then WATCHDOG=1 every half
/// `WatchdogSec` while the monitor's event thread and every uplink tracker's
/// thread make progress; STOPPING=1
/// on shutdown. A shutdown before ready (SIGTERM while a name server does not
/// answer) ends the wait at once: no READY=1, an exit without waiting for the
/// lookup's `resolveTimeout`.
package struct SystemdService: Service {
    let notifier: SystemdNotifier
    let exporter: Exporter
    let logger: Logger
    /// True when the services stop for a reload (SIGHUP): RELOADING=1, not STOPPING=1; READY=1 follows.
    var isReloading: @Sendable () -> Bool = { false }

    package init(notifier: SystemdNotifier, exporter: Exporter, logger: Logger, isReloading: @escaping @Sendable () -> Bool = { false }) {
        self.notifier = notifier
        self.exporter = exporter
        self.logger = logger
        self.isReloading = isReloading
    }

    package func run() async throws {
        if await ReadinessWait.ready(exporter) {
            notifier.notify("READY=1\n" + readyStatus)
            if let interval = notifier.watchdogInterval {
                try? await cancelWhenGracefulShutdown { try await watchdog(every: interval) }
            } else {
                try? await gracefulShutdown()
            }
        }
        notifier.notify(isReloading() ? "RELOADING=1" : "STOPPING=1")
    }

    private var readyStatus: String {
        "STATUS=watching " + counted(exporter.configuration.targets.count, "target") + ", "
            + counted(exporter.configuration.uplinks.count, "uplink") + "; serving on \(exporter.configuration.listen)"
    }

    /// WATCHDOG=1 every `interval` while the monitor's event thread answered
    /// the previous ping and every uplink tracker finished a round within the
    /// time a round can take, so that systemd restarts an exporter whose
    /// thread is stuck (a phase flag such as `isRunning` stays true then);
    /// STATUS= says which while it withholds them.
    private func watchdog(every interval: Duration) async throws {
        let liveness = EventThreadLiveness(monitor: exporter.monitor)
        var stuck = false
        while !Task.isCancelled {
            // A monitor that stopped by itself (its namespace went away) gets no more pings.
            if exporter.monitor.isRunning {
                var reason: String?
                if !liveness.answeredLastPing {
                    reason = "the monitor's event thread did not answer within \(interval)"
                } else if let (interface, bound) = exporter.stuckTracker(margin: interval) {
                    reason = "the tracker of \(interface) finished no round within \(bound)"
                }
                if let reason {
                    if !stuck {
                        stuck = true
                        logger.error("stuck: \(reason); no more watchdog pings", source: Logger.exporterSource)
                        notifier.notify("STATUS=stuck: \(reason); watchdog pings withheld")
                    }
                } else {
                    if stuck { logger.notice("every thread answers again; watchdog pings resumed", source: Logger.exporterSource) }
                    notifier.notify(stuck ? "WATCHDOG=1\n" + readyStatus : "WATCHDOG=1")
                    stuck = false
                }
                // One ping outstanding at most: a stuck thread does not pile them up.
                if liveness.answeredLastPing { liveness.ping() }
            }
            try await Task.sleep(for: interval)
        }
    }

    /// "1 target", "2 targets".
    private func counted(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)" + (count == 1 ? "" : "s")
    }
}
