import LinuxReachability

/// What `reach-exporter` watches and where it listens: the YAML file
/// (`--config`) with the command line on top. Every value is checked before
/// anything is bound or started; a bad one is a `ConfigurationError` naming
/// the key (and the file's line) and what it takes.
package struct ExporterConfiguration: Sendable {
    /// Where /metrics is served. Loopback unless the configuration says otherwise.
    package var listen = ListenAddress(host: "127.0.0.1", port: 9789)
    var targets: [Target] = []
    package var namespace: NetworkNamespace = .current
    var validation: Validation?
    var validationInterval: Duration?
    /// How long a host-name target waits for its name server (the monitor's
    /// `resolveTimeout`, 5 s unless given).
    var resolveTimeout: Duration?
    var uplinks: [UplinkTracker.Configuration] = []
    /// Whether ModemManager's modems are followed (`modemmanager`, true
    /// unless the file says false): their technology and interfaces feed the
    /// classification, and they have series of their own.
    var modemManager = true
    /// How often the exporter's series are sampled for `remote_write` (`push_interval`, 15 s unless given).
    var pushInterval: Duration = .seconds(15)
    /// Labels added to every pushed series, not to /metrics (`external_labels`: the gateway's identity).
    var externalLabels: [(name: String, value: String)] = []
    /// Receivers the series are pushed to (`remote_write`); none: scrape only.
    package var remoteWrites: [RemoteWriteConfiguration] = []

    /// The most targets one exporter watches: 18,000 series, the size start-up,
    /// scrapes and pushes are measured at (docs/benchmarks/exporter.md).
    /// `finish` (and so --check-config, and start-up) refuses more. The limit
    /// was set while swift-prometheus held the series and start-up grew with
    /// the square of the targets, which its message still says (CHANGELOG.md);
    /// the exporter's own series no longer cost that.
    static let maximumTargets = 1000

    /// The keys of the file, for the message about one that is not.
    static let keys = ["listen", "targets", "netns", "validation", "validation_interval", "resolve_timeout", "uplinks", "modemmanager",
                       "push_interval", "external_labels", "remote_write"]
    static let uplinkKeys = ["interface", "hosts", "profile", "method", "interval", "timeout", "failure_interval",
                             "recovery_interval", "down", "up", "reliability", "count", "initial_state",
                             "failure_latency", "failure_loss", "recovery_latency", "recovery_loss", "flap_limit", "checks"]
    /// An uplink's `checks` mapping (`UplinkChecks`).
    static let checkKeys = ["host", "url", "ports", "other_family_host", "pmtu_size", "dns_name", "dns_server", "dns_hijack",
                            "interval"]
    /// An uplink's `profile`: the tracker's defaults (`standard`), a round
    /// every 0.5 s (`fast`), or mwan3track's own defaults (`mwan3`).
    static let uplinkProfiles = ["standard", "fast", "mwan3"]

    /// The monitor's configuration: validation, if asked for, and the resolve timeout.
    func monitorConfiguration() -> ReachabilityMonitor.Configuration {
        var configuration = ReachabilityMonitor.Configuration()
        configuration.validation = validation
        if let validationInterval { configuration.validationInterval = validationInterval }
        if let resolveTimeout { configuration.resolveTimeout = resolveTimeout }
        return configuration
    }
}
