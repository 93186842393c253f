import Logging
import LinuxReachability

#if canImport(Glibc)
import Glibc
#endif

/// `reach-exporter`'s command line: the monitor, optional validation and
/// uplink trackers, served to Prometheus and pushed with remote write. The
/// program (`main.swift`) reads its options here, loads the configuration
/// they name, and runs it. Exit status: 0 after an orderly shutdown
/// (SIGTERM, SIGINT), 1 when it could not start (port in use, no such
/// namespace), 2 for a bad configuration — found before anything is bound.
///
/// Its seven options are read here rather than by swift-argument-parser,
/// which brings FoundationEssentials and the regex engine with it: 5 MB of
/// a program that has 16 MB in all with TLS (Packaging/README.md).
/// The manual page and the shell completions are files of their own
/// (Exporter/dist/man, Exporter/dist/completions).
package struct ReachExporter: Sendable {
    /// The package's one version (ReachabilityCore's `ReachabilityPackage`).
    package static let version = ReachabilityPackage.version

    package static let help = """
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
    package var checkConfig = false

    /// What the command line asks for: to run (with these options), or to print help or the version.
    package enum Request: Equatable { case run, help, version }

    /// Reads `arguments` (without the program's name): `--name value`,
    /// `--name=value`, the flags; anything else is a usage error (exit 2).
    package static func parse(_ arguments: [String]) throws(ConfigurationError) -> (ReachExporter, Request) {
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

    /// What `--check-config` prints: every key with its value in effect
    /// (defaults included), durations as the file writes them (`2s`), no
    /// credential (URLs redacted, the kind of credential only).
    package static func checkConfigLines(_ configuration: ExporterConfiguration) -> [String] {
        var lines = ["listen \(configuration.listen)", "netns \(configuration.namespace)",
                     "targets \(configuration.targets.map(\.description).joined(separator: " "))",
                     "validation \(configuration.validation.map { StatusPage.redacted($0.description) } ?? "off")"]
        if let interval = configuration.validationInterval { lines.append("validation_interval \(interval.configurationText)") }
        lines.append("resolve_timeout \(configuration.monitorConfiguration().resolveTimeout.configurationText)")
        lines.append("modemmanager \(configuration.modemManager)")
        if !configuration.remoteWrites.isEmpty {
            lines.append("push_interval \(configuration.pushInterval.configurationText)")
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
                         + "remote_timeout \(remote.remoteTimeout.configurationText)")
        }
        for uplink in configuration.uplinks {
            var line = "uplink \(uplink.interface) hosts \(uplink.hosts.map(\.description).joined(separator: " ")) "
                + "method \(uplink.method) interval \(uplink.interval.configurationText) timeout \(uplink.effectiveTimeout.configurationText)"
            if let failure = uplink.failureInterval { line += " failure_interval \(failure.configurationText)" }
            if let recovery = uplink.recoveryInterval { line += " recovery_interval \(recovery.configurationText)" }
            line += " down \(uplink.down) up \(uplink.up) reliability \(uplink.reliability) count \(uplink.count)"
                + " initial_state \(uplink.initialState.rawValue)"
            if let quality = uplink.quality {
                func ms(_ duration: Duration) -> UInt64 { duration.clampedNanoseconds / 1_000_000 }
                line += " failure_latency \(ms(quality.failureLatency)) failure_loss \(quality.failureLoss)"
                    + " recovery_latency \(ms(quality.recoveryLatency)) recovery_loss \(quality.recoveryLoss)"
            }
            line += " flap_limit \(uplink.flapLimit)"
            if let checks = uplink.checks {
                var parts = ["interval \(checks.interval.configurationText)"]
                if let host = checks.host {
                    parts.append("host \(host) url \(checks.url) ports \(checks.ports.map(String.init).joined(separator: ","))")
                    parts.append("pmtu_size \(checks.pathMTUSize ?? 0)")
                }
                if let other = checks.otherFamilyHost { parts.append("other_family_host \(other)") }
                if let name = checks.dnsName {
                    parts.append("dns_name \(name) dns_server \(checks.dnsServer.map(\.description) ?? "resolv.conf") dns_hijack \(checks.dnsHijack)")
                }
                line += " checks " + parts.joined(separator: " ")
            }
            lines.append(line)
        }
        return lines
    }

    /// What the exporter says when it starts (and after a reload): where it
    /// listens, what it watches, where it pushes; an uplink without its interface.
    package static func logStart(_ configuration: ExporterConfiguration, missingInterfaces: [String], logger: Logger) {
        let namespace = configuration.namespace == .current ? "" : " in network namespace \(configuration.namespace)"
        logger.notice("reach-exporter \(version): serving /metrics and the status page on http://\(configuration.listen)/\(namespace)", source: Logger.exporterSource)
        let watching = "watching \(configuration.targets.count) target\(configuration.targets.count == 1 ? "" : "s"): "
            + configuration.targets.map(\.description).joined(separator: ", ")
            + "; validation \(configuration.validation.map { StatusPage.redacted($0.description) } ?? "off")"
        logger.notice("\(watching)", source: Logger.exporterSource)
        for uplink in configuration.uplinks {
            let line = "uplink \(uplink.interface): \(uplink.method) to \(uplink.hosts.map(\.description).joined(separator: ", ")) "
                + "every \(uplink.interval.configurationText), down after \(uplink.down), up after \(uplink.up)"
            logger.notice("\(line)", source: Logger.exporterSource)
        }
        for interface in missingInterfaces {
            logger.warning("\(missingInterfaceWarning(interface, namespace: configuration.namespace))", source: Logger.exporterSource)
        }
        for remote in configuration.remoteWrites {
            let labels = configuration.externalLabels.map { "\($0.name)=\($0.value)" }.joined(separator: ", ")
            let line = "remote_write receiver \(remote.name): pushing to \(StatusPage.redacted(remote.url.description)) "
                + "every \(configuration.pushInterval.configurationText)" + (labels.isEmpty ? " (no external_labels)" : " as \(labels)")
            logger.notice("\(line)", source: Logger.exporterSource)
        }
    }

    /// The file, then the flags on top, then the checks of the whole.
    package func load() throws(ConfigurationError) -> ExporterConfiguration {
        var configuration = ExporterConfiguration()
        if let config {
            configuration = try ExporterConfiguration.parse(yaml: try ConfigurationFile.read(config), source: config)
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

    /// Says `message` on standard error, as the program's last words, and exits with `status`.
    package static func fail(_ message: String, status: Int32) -> Never {
        let line = Array("reach-exporter: \(message)\n".utf8)
        _ = line.withUnsafeBytes { Glibc.write(2, $0.baseAddress, $0.count) }
        Glibc.exit(status)
    }

    /// Says `message` on standard error as a warning.
    package static func warn(_ message: String) {
        let line = Array("reach-exporter: warning: \(message)\n".utf8)
        _ = line.withUnsafeBytes { Glibc.write(2, $0.baseAddress, $0.count) }
    }
}
