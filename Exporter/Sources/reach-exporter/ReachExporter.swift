import Logging
import NIOPosix
import LinuxReachability
import ServiceLifecycle
import Synchronization
import UnixSignals

#if canImport(Glibc)
import Glibc
#endif

/// `reach-exporter`: the monitor, optional validation and uplink trackers,
/// served to Prometheus and pushed with remote write. Exit status: 0 after an
/// orderly shutdown (SIGTERM, SIGINT), 1 when it could not start (port in
/// use, no such namespace), 2 for a bad configuration — found before anything
/// is bound.
///
/// Its seven options are read here rather than by swift-argument-parser,
/// which brings FoundationEssentials and the regex engine with it: 5 MB of
/// a program that has 16 MB in all with TLS (issue 43, Packaging/README.md).
/// The manual page and the shell completions are files of their own
/// (Exporter/dist/man, Exporter/dist/completions).
@main
struct ReachExporter {
    /// The package's one version (ReachabilityCore's `ReachabilityPackage`).
    static let version = ReachabilityPackage.version

    static let help = """
        OVERVIEW: Serve reachability, accessibility and uplink state to Prometheus (GET /metrics), and push it (remote_write).

        Listens on 127.0.0.1:9789 unless --listen or the file's `listen` says otherwise. Flags override the file's listen, \
        netns and validation and add targets. Exit status: 0 after SIGTERM/SIGINT, 1 when it could not start, 2 for a bad \
        configuration.

        USAGE: reach-exporter [--config <path>] [--listen <address>] [--target <target> ...] [--netns <netns>] [--validate <method>] [--check-config]

        OPTIONS:
          --config <path>         A YAML configuration file; the service reads /etc/reach-exporter/config.yml, whose
                                  comments list the keys (remote_write among them).
          --listen <address>      Where to serve /metrics: HOST:PORT or [IPV6]:PORT (default 127.0.0.1:9789).
          --target <target>       An address, host name or 'internet' to watch; repeatable (default: internet).
          --netns <netns>         Watch this network namespace (a name in /run/netns, or a path).
          --validate <method>     Validate reachable targets: http[:URL], dns[:NAME], icmp:HOST, tcp:HOST:PORT.
          --check-config          Check the configuration, print what would run, and exit (0, or 2).
          --version               Show the version.
          -h, --help              Show help information.

        """

    var config: String?
    var listen: String?
    var targets: [String] = []
    var namespace: String?
    var validate: String?
    var checkConfig = false

    /// What the command line asks for: to run (with these options), or to print help or the version.
    enum Request: Equatable { case run, help, version }

    /// Reads `arguments` (without the program's name): `--name value`,
    /// `--name=value`, the flags; anything else is a usage error (exit 2).
    static func parse(_ arguments: [String]) throws(ConfigurationError) -> (ReachExporter, Request) {
        var command = ReachExporter()
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            var name = argument, inline: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inline = String(argument[argument.index(after: equals)...])
            }
            func value() throws(ConfigurationError) -> String {
                if let inline { return inline }
                guard index < arguments.count else { throw ConfigurationError("\(name) needs a value (see --help)") }
                defer { index += 1 }
                return arguments[index]
            }
            switch name {
            case "-h", "--help": return (command, .help)
            case "--version": return (command, .version)
            case "--check-config":
                guard inline == nil else { throw ConfigurationError("--check-config takes no value") }
                command.checkConfig = true
            case "--config": command.config = try value()
            case "--listen": command.listen = try value()
            case "--target": command.targets.append(try value())
            case "--netns": command.namespace = try value()
            case "--validate": command.validate = try value()
            default:
                throw ConfigurationError(argument.hasPrefix("-") ? "unknown option '\(name)' (see --help)"
                                         : "unexpected argument '\(argument)' (see --help)")
            }
        }
        return (command, .run)
    }

    static func main() async {
        let command: ReachExporter
        do {
            let request: Request
            (command, request) = try parse(Array(CommandLine.arguments.dropFirst()))
            switch request {
            case .help: print(help, terminator: ""); exit(0)
            case .version: print(version); exit(0)
            case .run: break
            }
        } catch {
            fail(error.description, status: 2)
        }
        let configuration: ExporterConfiguration
        do {
            configuration = try command.load()
        } catch {
            fail(error.description, status: 2)
        }
        if command.checkConfig {
            for line in checkConfigLines(configuration) { print(line) }
            // A warning, not an error: the interface may appear later (a modem, a VPN).
            for interface in missingUplinkInterfaces(configuration) ?? [] {
                let line = Array("reach-exporter: warning: \(missingInterfaceWarning(interface, namespace: configuration.namespace))\n".utf8)
                _ = line.withUnsafeBytes { Glibc.write(2, $0.baseAddress, $0.count) }
            }
            return
        }
        do {
            try await run(configuration, reload: { () throws(ConfigurationError) in try command.load() })
        } catch let error as ReachabilityError {
            fail(error.description, status: 1)
        } catch {
            fail("\(error)", status: 1)
        }
    }

    /// What `--check-config` prints: every key with its value in effect
    /// (defaults included), durations as the file writes them (`2s`), no
    /// credential (URLs redacted, the kind of credential only).
    static func checkConfigLines(_ configuration: ExporterConfiguration) -> [String] {
        let duration = StatusPage.duration
        var lines = ["listen \(configuration.listen)", "netns \(configuration.namespace)",
                     "targets \(configuration.targets.map(\.description).joined(separator: " "))",
                     "validation \(configuration.validation.map { StatusPage.redacted($0.description) } ?? "off")"]
        if let interval = configuration.validationInterval { lines.append("validation_interval \(duration(interval))") }
        lines.append("resolve_timeout \(duration(configuration.monitorConfiguration().resolveTimeout))")
        lines.append("modemmanager \(configuration.modemManager)")
        if !configuration.remoteWrites.isEmpty {
            lines.append("push_interval \(duration(configuration.pushInterval))")
            if !configuration.externalLabels.isEmpty {
                lines.append("external_labels \(configuration.externalLabels.map { "\($0.name)=\($0.value)" }.joined(separator: " "))")
            }
        }
        for remote in configuration.remoteWrites {
            let credential = switch remote.authorization {
            case .basic?: " basic_auth"
            case .bearer?: " bearer_token"
            case nil: ""
            }
            lines.append("remote_write \(remote.name) \(StatusPage.redacted(remote.url.description))\(credential) "
                         + "remote_timeout \(duration(remote.remoteTimeout))")
        }
        for uplink in configuration.uplinks {
            var line = "uplink \(uplink.interface) hosts \(uplink.hosts.map(\.description).joined(separator: " ")) "
                + "method \(uplink.method) interval \(duration(uplink.interval)) timeout \(duration(uplink.effectiveTimeout))"
            if let failure = uplink.failureInterval { line += " failure_interval \(duration(failure))" }
            if let recovery = uplink.recoveryInterval { line += " recovery_interval \(duration(recovery))" }
            line += " down \(uplink.down) up \(uplink.up) reliability \(uplink.reliability) count \(uplink.count)"
                + " initial_state \(uplink.initialState.rawValue)"
            lines.append(line)
        }
        return lines
    }

    /// What the exporter says when it starts (and after a reload): where it
    /// listens, what it watches, where it pushes; an uplink without its interface.
    static func logStart(_ configuration: ExporterConfiguration, missingInterfaces: [String], logger: Logger) {
        let duration = StatusPage.duration
        let namespace = configuration.namespace == .current ? "" : " in network namespace \(configuration.namespace)"
        logger.notice("reach-exporter \(version): serving /metrics and the status page on http://\(configuration.listen)/\(namespace)")
        let watching = "watching \(configuration.targets.count) target\(configuration.targets.count == 1 ? "" : "s"): "
            + configuration.targets.map(\.description).joined(separator: ", ")
            + "; validation \(configuration.validation.map { StatusPage.redacted($0.description) } ?? "off")"
        logger.notice("\(watching)")
        for uplink in configuration.uplinks {
            let line = "uplink \(uplink.interface): \(uplink.method) to \(uplink.hosts.map(\.description).joined(separator: ", ")) "
                + "every \(duration(uplink.interval)), down after \(uplink.down), up after \(uplink.up)"
            logger.notice("\(line)")
        }
        for interface in missingInterfaces {
            logger.warning("\(missingInterfaceWarning(interface, namespace: configuration.namespace))")
        }
        for remote in configuration.remoteWrites {
            let labels = configuration.externalLabels.map { "\($0.name)=\($0.value)" }.joined(separator: ", ")
            let line = "remote_write receiver \(remote.name): pushing to \(StatusPage.redacted(remote.url.description)) "
                + "every \(duration(configuration.pushInterval))" + (labels.isEmpty ? " (no external_labels)" : " as \(labels)")
            logger.notice("\(line)")
        }
    }

    /// The file, then the flags on top, then the checks of the whole.
    func load() throws(ConfigurationError) -> ExporterConfiguration {
        var configuration = ExporterConfiguration()
        if let config {
            configuration = try ExporterConfiguration.parse(yaml: try Self.read(config), source: config)
        }
        if let listen { configuration.listen = try ListenAddress(parsing: listen) }
        for text in targets {
            configuration.targets.append(try parsed("--target", text) { () throws(ReachabilityError) in try Target(parsing: text) })
        }
        if let namespace {
            configuration.namespace = try parsed("--netns", namespace) { () throws(ReachabilityError) in try NetworkNamespace(parsing: namespace) }
        }
        if let validate {
            configuration.validation = try parsed("--validate", validate) { () throws(ReachabilityError) in try Validation(parsing: validate) }
        }
        try configuration.finish()
        try RemotePush.check(configuration)
        return configuration
    }

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
            exporter = try Exporter(configuration: configuration, version: version, logger: logger,
                                    blocksEventThread: getenv("REACH_EXPORTER_TEST_BLOCK_EVENT_THREAD") != nil,
                                    blocksTrackerThread: getenv("REACH_EXPORTER_TEST_BLOCK_TRACKER") != nil)
        } catch {
            throw StartFailure(error: error)
        }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let server: MetricsServer
        do {
            server = try await MetricsServer.bind(configuration.listen, exporter: exporter, group: group, logger: logger)
        } catch {
            try? await group.shutdownGracefully()
            throw StartFailure(error: ListenError(description: "cannot listen on \(configuration.listen): \(plainReason(error))"))
        }
        logStart(configuration, missingInterfaces: exporter.missingInterfaces, logger: logger)
        var running: [any Service] = [server, SystemdService(notifier: SystemdNotifier(), exporter: exporter, logger: logger,
                                                             isReloading: { reloads.hasPending })]
        if !configuration.remoteWrites.isEmpty {
            let push = RemotePush(configuration: configuration, metrics: exporter.metrics, group: group, version: version,
                                  logger: logger, render: { exporter.scrape() })
            exporter.attach(push)
            running += push.services
        }
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

    /// The most a configuration file holds.
    static let maximumFileSize = 1 << 20

    /// A file's text; a missing or unreadable file, one that is not a regular
    /// file (a FIFO's open would wait for a writer for ever: it is opened
    /// without waiting, then refused), or one larger than `maximumFileSize`
    /// is a configuration error.
    static func read(_ path: String) throws(ConfigurationError) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else { throw ConfigurationError("\(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw ConfigurationError("\(path): \(String(cString: strerror(errno)))") }
        guard status.st_mode & S_IFMT == S_IFREG else {
            let kind: String
            switch status.st_mode & S_IFMT {
            case S_IFDIR: kind = "a directory"
            case S_IFIFO: kind = "a FIFO"
            case S_IFSOCK: kind = "a socket"
            case S_IFCHR: kind = "a character device"
            case S_IFBLK: kind = "a block device"
            default: kind = "not a file"
            }
            throw ConfigurationError("\(path): not a regular file (\(kind))")
        }
        // One byte more than allowed is read, so that a larger file is seen
        // whatever its size said (it may grow while being read).
        var bytes = [UInt8](repeating: 0, count: maximumFileSize + 1)
        var count = 0
        while count < bytes.count {
            let got = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + count, $0.count - count) }
            if got < 0 && errno == EINTR { continue }
            guard got >= 0 else { throw ConfigurationError("\(path): \(String(cString: strerror(errno)))") }
            if got == 0 { break }
            count += got
        }
        guard count <= maximumFileSize else { throw ConfigurationError("\(path): larger than 1 MiB") }
        return String(decoding: bytes[..<count], as: UTF8.self)
    }

    static func fail(_ message: String, status: Int32) -> Never {
        let line = Array("reach-exporter: \(message)\n".utf8)
        _ = line.withUnsafeBytes { Glibc.write(2, $0.baseAddress, $0.count) }
        Glibc.exit(status)
    }
}

struct ListenError: Error, CustomStringConvertible {
    let description: String
}

/// A configuration that could not start (its port in use, its namespace gone).
struct StartFailure: Error {
    let error: any Error
}

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

