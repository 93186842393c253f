import ArgumentParser
import Logging
import NIOPosix
import Reachability
import ServiceLifecycle

#if canImport(Glibc)
import Glibc
#endif

/// `reach-exporter`: the monitor, optional validation and uplink trackers,
/// served to Prometheus. Exit status: 0 after an orderly shutdown (SIGTERM,
/// SIGINT), 1 when it could not start (port in use, no such namespace),
/// 2 for a bad configuration — found before anything is bound.
@main
struct ReachExporter: AsyncParsableCommand {
    /// The package's one version (ReachabilityCore's `ReachabilityPackage`).
    static let version = ReachabilityPackage.version

    static let configuration = CommandConfiguration(
        commandName: "reach-exporter",
        abstract: "Serve reachability, accessibility and uplink state to Prometheus (GET /metrics), and a status page (GET /).",
        discussion: """
            Listens on 127.0.0.1:9789 unless --listen or the file's `listen` says otherwise. \
            Flags override the file's listen, netns and validation and add targets. \
            Exit status: 0 after SIGTERM/SIGINT, 1 when it could not start, 2 for a bad configuration.
            """,
        version: version
    )

    @Option(help: ArgumentHelp("A YAML configuration file; the service reads /etc/reach-exporter/config.yml, whose comments list the keys.", valueName: "path"))
    var config: String?

    @Option(help: ArgumentHelp("Where to serve /metrics: HOST:PORT or [IPV6]:PORT (default 127.0.0.1:9789).", valueName: "address"))
    var listen: String?

    @Option(name: .customLong("target"), help: ArgumentHelp("An address, host name or 'internet' to watch; repeatable (default: internet).", valueName: "target"))
    var targets: [String] = []

    @Option(name: .customLong("netns"), help: "Watch this network namespace (a name in /run/netns, or a path).")
    var namespace: String?

    @Option(help: ArgumentHelp("Validate reachable targets: http[:URL], dns[:NAME], icmp:HOST, tcp:HOST:PORT.", valueName: "method"))
    var validate: String?

    @Flag(name: .customLong("check-config"), help: "Check the configuration, print what would run, and exit (0, or 2).")
    var checkConfig = false

    static func main() async {
        let parsed: any ParsableCommand
        do {
            parsed = try parseAsRoot()
        } catch {
            if exitCode(for: error) == .success { exit(withError: error) }
            fail(message(for: error).split(separator: "\n").first.map(String.init) ?? "\(error)", status: 2)
        }
        // `--help` and `-h` parse as argument-parser's own help command, whose
        // run prints the help (as a "clean exit" error): exit 0 with it.
        guard let command = parsed as? ReachExporter else {
            var other = parsed
            do { try other.run() } catch { exit(withError: error) }
            exit()
        }
        let configuration: ExporterConfiguration
        do {
            configuration = try command.load()
        } catch {
            fail(error.description, status: 2)
        }
        if command.checkConfig {
            print("listen \(configuration.listen)")
            print("targets \(configuration.targets.map(\.description).joined(separator: " "))")
            if let validation = configuration.validation { print("validation \(validation)") }
            if let resolveTimeout = configuration.resolveTimeout { print("resolve_timeout \(resolveTimeout)") }
            if !configuration.modemManager { print("modemmanager false") }
            if !configuration.remoteWrites.isEmpty {
                print("push_interval \(configuration.pushInterval)")
                if !configuration.externalLabels.isEmpty {
                    print("external_labels \(configuration.externalLabels.map { "\($0.name)=\($0.value)" }.joined(separator: " "))")
                }
            }
            for remote in configuration.remoteWrites {
                print("remote_write \(remote.name) \(remote.url)")
            }
            for uplink in configuration.uplinks {
                print("uplink \(uplink.interface) hosts \(uplink.hosts.map(\.description).joined(separator: " ")) "
                      + "method \(uplink.method) interval \(uplink.interval)")
            }
            return
        }
        do {
            try await run(configuration)
        } catch let error as ReachabilityError {
            fail(error.description, status: 1)
        } catch {
            fail("\(error)", status: 1)
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

    static func run(_ configuration: ExporterConfiguration) async throws {
        var logger = Logger(label: "reach-exporter")
        logger.logLevel = .notice
        let exporter = try Exporter(configuration: configuration, version: version, logger: logger,
                                    blocksEventThread: getenv("REACH_EXPORTER_TEST_BLOCK_EVENT_THREAD") != nil,
                                    blocksTrackerThread: getenv("REACH_EXPORTER_TEST_BLOCK_TRACKER") != nil)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let server: MetricsServer
        do {
            server = try await MetricsServer.bind(configuration.listen, exporter: exporter, group: group)
        } catch {
            try? await group.shutdownGracefully()
            throw ListenError(description: "cannot listen on \(configuration.listen): \(error)")
        }
        var running: [any Service] = [server, SystemdService(notifier: SystemdNotifier(), exporter: exporter, logger: logger)]
        if !configuration.remoteWrites.isEmpty {
            let push = RemotePush(configuration: configuration, metrics: exporter.metrics, group: group, version: version,
                                  logger: logger, render: { exporter.scrape() })
            exporter.attach(push)
            running += push.services
        }
        try exporter.start()
        let services = ServiceGroup(
            services: running,
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger)
        do {
            try await services.run()
        } catch {
            exporter.stop()
            try? await group.shutdownGracefully()
            throw error
        }
        exporter.stop()
        try await group.shutdownGracefully()
    }

    /// A file's text; a missing or unreadable file is a configuration error.
    static func read(_ path: String) throws(ConfigurationError) -> String {
        guard let file = fopen(path, "r") else {
            throw ConfigurationError("\(path): \(String(cString: strerror(errno)))")
        }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = fread(&chunk, 1, chunk.count, file)
            bytes.append(contentsOf: chunk[..<count])
            if count < chunk.count { break }
            guard bytes.count <= 1 << 20 else { throw ConfigurationError("\(path): larger than 1 MiB") }
        }
        guard ferror(file) == 0 else { throw ConfigurationError("\(path): read error") }
        return String(decoding: bytes, as: UTF8.self)
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
