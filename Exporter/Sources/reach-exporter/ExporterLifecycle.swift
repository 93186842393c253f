import Logging
import NIOPosix
import LinuxReachability
import ReachExporterKit
import ServiceLifecycle
import UnixSignals

#if canImport(Glibc)
import Glibc
#endif

/// The services of one configuration, wired together and run: the exporter
/// (monitor and trackers), one registry of its series and the push's, the
/// HTTP server and the push reading that registry, systemd's notifications.
enum ExporterLifecycle {
    /// Runs until SIGTERM or SIGINT. SIGHUP reads the configuration again
    /// (`reload`: the file and the flags), as Prometheus and node_exporter
    /// do: a bad one is logged and the one in use is kept; a good one
    /// replaces it (the services stop and start again with it, the port is
    /// bound again; systemd hears RELOADING=1, then READY=1). A new one that
    /// cannot start (its port in use) is logged, and the previous one runs
    /// again. SIGUSR1 and SIGUSR2 are logged and ignored.
    static func run(_ initial: ExporterConfiguration,
                    reload: @escaping @Sendable () throws(ConfigurationError) -> ExporterConfiguration) async throws {
        var logger = Logger(label: "reach-exporter")
        logger.logLevel = .notice
        let reloads = Reloads()
        let signals = await UnixSignalsSequence(trapping: .sighup, .sigusr1, .sigusr2)
        let listener = Task { [logger] in
            for await signal in signals { await reloads.received(signal, reload: reload, logger: logger) }
        }
        defer { listener.cancel() }
        var configuration = initial, previous: ExporterConfiguration?
        while true {
            do {
                try await runOnce(configuration, logger: logger, reloads: reloads)
            } catch let failure as StartFailure {
                guard let last = previous else { throw failure.error }
                logger.error("the reloaded configuration cannot start: \(failure.error); going back to the previous one")
                (configuration, previous) = (last, nil)
                continue
            }
            guard let next = reloads.takePending() else { return }
            (configuration, previous) = (next, configuration)
        }
    }

    /// One life of the services with one configuration, until a shutdown or a reload.
    private static func runOnce(_ configuration: ExporterConfiguration, logger: Logger, reloads: Reloads) async throws {
        let exporter: Exporter
        do {
            exporter = try Exporter(configuration: configuration, version: ReachExporter.version, logger: logger,
                                    blocksEventThread: getenv("REACH_EXPORTER_TEST_BLOCK_EVENT_THREAD") != nil,
                                    blocksTrackerThread: getenv("REACH_EXPORTER_TEST_BLOCK_TRACKER") != nil)
        } catch {
            throw StartFailure(error: error)
        }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let push = configuration.remoteWrites.isEmpty ? nil
            : RemotePush(configuration: configuration, group: group, version: ReachExporter.version, logger: logger)
        // One registry: /metrics, the status page and the push read its snapshots.
        let registry = SeriesRegistry([exporter] + (push.map { [$0] } ?? []))
        let server: MetricsServer
        do {
            server = try await MetricsServer.bind(configuration.listen, exporter: exporter, registry: registry, group: group,
                                                  logger: logger)
        } catch {
            try? await group.shutdownGracefully()
            throw StartFailure(error: ListenError(description: "cannot listen on \(configuration.listen): \(plainReason(error))"))
        }
        ReachExporter.logStart(configuration, missingInterfaces: exporter.missingInterfaces, logger: logger)
        var running: [any Service] = [server, SystemdService(notifier: SystemdNotifier(), exporter: exporter, logger: logger,
                                                             isReloading: { reloads.hasPending })]
        if let push { running += push.services(sampling: registry) }
        do {
            try exporter.start()
        } catch {
            exporter.stop()
            try? await server.channel.close()
            try? await group.shutdownGracefully()
            throw StartFailure(error: error)
        }
        let services = ServiceGroup(
            services: running,
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger)
        await reloads.register(services)
        do {
            try await services.run()
        } catch {
            await reloads.register(nil)
            exporter.stop()
            try? await group.shutdownGracefully()
            throw error
        }
        await reloads.register(nil)
        exporter.stop()
        try await group.shutdownGracefully()
    }
}

/// The server could not bind its address.
struct ListenError: Error, CustomStringConvertible {
    let description: String
}

/// A configuration that could not start (its port in use, its namespace gone).
struct StartFailure: Error {
    let error: any Error
}
