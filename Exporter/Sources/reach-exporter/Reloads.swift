import Logging
import ReachExporterKit
import ServiceLifecycle
import Synchronization
import UnixSignals

/// SIGHUP's reloads: the configuration read, waiting for the running
/// services to stop; the services that are running, to be stopped.
actor Reloads {
    private var group: ServiceGroup?
    private let pending = Mutex<ExporterConfiguration?>(nil)

    /// Whether a reload is under way (the services now stopping start again).
    nonisolated var hasPending: Bool { pending.withLock { $0 != nil } }

    nonisolated func takePending() -> ExporterConfiguration? { pending.withLock { state in defer { state = nil }; return state } }

    /// The services now running (nil: none); a reload that came in between stops them at once.
    func register(_ group: ServiceGroup?) async {
        self.group = group
        if let group, hasPending { await group.triggerGracefulShutdown() }
    }

    func received(_ signal: UnixSignal, reload: @Sendable () throws(ConfigurationError) -> ExporterConfiguration,
                  logger: Logger) async {
        guard signal == .sighup else {
            logger.notice("\(signal) ignored (SIGHUP reloads the configuration, SIGTERM stops)")
            return
        }
        let configuration: ExporterConfiguration
        do {
            configuration = try reload()
        } catch {
            logger.error("SIGHUP: not reloaded, the configuration in use is kept: \(error)")
            return
        }
        pending.withLock { $0 = configuration }
        logger.notice("SIGHUP: configuration read; restarting with it")
        await group?.triggerGracefulShutdown()
    }
}
