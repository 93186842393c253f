import ArgumentParser
import LinuxReachability
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// `reach track --interface IF --host H...`: an mwan3track-style up/down tracker.
struct Track: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Probe hosts through one interface in rounds and print online/offline changes (like mwan3track).",
        discussion: """
            Prints the initial state and verdict, then one line per change of state \
            (online, disconnecting, offline, connecting) or verdict (healthy, degraded, \
            partial, pmtu-black-hole, dns-failing, dns-hijacked, captive, unusable, \
            flapping, down), until interrupted. A round succeeds when --reliability hosts \
            answered one of --count probes each. --down failed rounds in a row take the \
            uplink offline, --up good rounds bring it back. Rounds start every --interval \
            seconds (--failure-interval while disconnecting, --recovery-interval while \
            connecting). --profile standard (the default) stays under 1 MB a day per \
            IPv4 host; fast detects a dead upstream within 2.6 s and costs 29 MB a \
            day; mwan3 is mwan3track's own defaults. --check-host and --dns-name add the \
            checks that tell DNS failures, captive portals, blocked ports and path-MTU \
            black holes apart. This sends packets.
            """
    )

    @Option(help: "The interface to probe through (SO_BINDTODEVICE).")
    var interface: String

    @Option(name: .customLong("host"), help: ArgumentHelp("A host to probe (mwan3 track_ip); repeatable.", valueName: "ADDRESS"))
    var hosts: [String] = []

    @Option(help: ArgumentHelp("icmp, tcp:PORT, http, http:URL, dns:NAME (mwan3 track_method).", valueName: "METHOD"))
    var method: String = "icmp"

    @Option(help: "Hosts that must answer for a round to succeed.")
    var reliability: Int = 1

    @Option(help: "Probes per host per round.")
    var count: Int = 1

    @Option(help: ArgumentHelp("standard (50 s rounds, 5 s while failing, down 3, up 3), fast (0.5 s, timeout 0.7 s), or mwan3 (mwan3track's defaults).", valueName: "PROFILE"))
    var profile: String = "standard"

    @Option(help: "Seconds each probe waits (default: the profile's).")
    var timeout: Double?

    @Option(help: "Seconds between round starts while online (default: the profile's).")
    var interval: Double?

    @Option(name: .customLong("failure-interval"), help: "Seconds between round starts while disconnecting (default: the profile's, or --interval).")
    var failureInterval: Double?

    @Option(name: .customLong("recovery-interval"), help: "Seconds between round starts while connecting (default: the profile's, or --interval).")
    var recoveryInterval: Double?

    @Flag(name: .customLong("keep-failure-interval"), help: "Use --failure-interval while offline too.")
    var keepFailureInterval = false

    @Option(help: "Failed rounds in a row that take the uplink offline (default: the profile's).")
    var down: Int?

    @Option(help: "Good rounds in a row that bring it back online (default: the profile's).")
    var up: Int?

    @Option(name: .customLong("failure-latency"), help: "Median round trip in ms that fails a round (mwan3 failure_latency; default 800).")
    var failureLatency: Int?

    @Option(name: .customLong("failure-loss"), help: "Loss in percent over the quality window that fails a round (mwan3 failure_loss; default 20).")
    var failureLoss: Int?

    @Option(name: .customLong("recovery-latency"), help: "Median in ms at or under which a failed uplink recovers (mwan3 recovery_latency; default 500).")
    var recoveryLatency: Int?

    @Option(name: .customLong("recovery-loss"), help: "Loss in percent at or under which it recovers (mwan3 recovery_loss; default 10).")
    var recoveryLoss: Int?

    @Option(name: .customLong("quality-window"), help: "Probes the loss is read over (default 50).")
    var qualityWindow: Int?

    @Option(name: .customLong("check-host"), help: ArgumentHelp("A host for the HTTP (captive portal), port and path-MTU checks.", valueName: "ADDRESS"))
    var checkHost: String?

    @Option(name: .customLong("check-url"), help: ArgumentHelp("The HTTP check's path, or http://HOST[:PORT]/PATH (default /generate_204).", valueName: "URL"))
    var checkURL: String?

    @Option(name: .customLong("check-port"), help: ArgumentHelp("A TCP port of the check host that must connect; repeatable (default 443).", valueName: "PORT"))
    var checkPorts: [UInt16] = []

    @Option(name: .customLong("check-other-family"), help: ArgumentHelp("A host of the other family to probe (an IPv6 host beside IPv4 ones).", valueName: "ADDRESS"))
    var otherFamilyHost: String?

    @Option(name: .customLong("pmtu-size"), help: "The path-MTU probe's size in bytes, 0 for none (default 1400).")
    var pathMTUSize: Int?

    @Option(name: .customLong("dns-name"), help: "A name that exists, to check the resolver with.")
    var dnsName: String?

    @Option(name: .customLong("dns-server"), help: ArgumentHelp("The resolver to check (default: the first nameserver).", valueName: "ADDRESS"))
    var dnsServer: String?

    @Flag(name: .customLong("no-dns-hijack-check"), help: "Do not ask for a .invalid name to detect a hijacking resolver.")
    var noHijackCheck = false

    @Option(name: .customLong("check-interval"), help: "Seconds between check runs (default: 3600, or 10 with --profile fast).")
    var checkInterval: Double?

    @Option(name: .customLong("flap-limit"), help: "Failovers within a minute that hold the uplink as flapping (0: no damping; default 3).")
    var flapLimit: Int?

    @Option(name: .customLong("initial-state"), help: "online or offline.")
    var initialState: String = "online"

    @Option(help: "Send from this local address.")
    var source: String?

    @Option(help: "Firewall mark of the probes (decimal or 0x hex).", transform: LookupArguments.parseMark)
    var mark: Int64?

    @OptionGroup var kernel: NamespaceOptions

    func run() async throws {
        let configuration = try trackerConfiguration()
        try configuration.validate()   // bad values before a missing namespace: they are the caller's to fix
        let namespace = try kernel.parsedNamespace()
        // A tracker of a link that does not exist would report "online
        // (initial)", fail every round and go offline: that is bad input.
        guard try ReachabilityEvaluator(namespace: namespace).interfaces().contains(where: { $0.link.name == interface }) else {
            throw ReachabilityError.unknownInterface(interface)
        }
        let tracker = try UplinkTracker(configuration: configuration, namespace: namespace)
        // The handler first: the stream hands out the initial event at once,
        // and a SIGTERM sent once its line is out must stop the command, not
        // kill it. The tracker's stream outlives a stop (a tracker can start
        // again): after the stop, the printing task is cancelled, which ends
        // it; a SIGTERM before the task exists is seen again by `start`.
        let printing = Mutex<Task<Void, Never>?>(nil)
        let termination = stopOnSIGTERM {
            tracker.stop()
            printing.withLock { $0 }?.cancel()
        }
        defer { termination.cancel() }
        let events = tracker.events()
        let json = kernel.json
        let task = Task {
            for await event in events { printLine(json ? event.json.rendered : event.humanLine) }
        }
        printing.withLock { $0 = task }
        try termination.start { try tracker.start() }
        await task.value
    }

    func trackerConfiguration() throws -> UplinkTracker.Configuration {
        guard !hosts.isEmpty else { throw ValidationError("give at least one --host") }
        let addresses = try hosts.map { (text) throws(ReachabilityError) in try IPAddress(parsing: text) }
        // The same host twice would be probed twice and counted twice toward --reliability.
        for (index, address) in addresses.enumerated() where addresses[..<index].contains(address) {
            throw ValidationError("--host \(address) is given twice")
        }
        let lookup = try LookupOptions.validated(uid: nil, mark: mark, interface: interface, source: source)
        guard let state = UplinkState(rawValue: initialState), state == .online || state == .offline else {
            throw ValidationError("--initial-state must be online or offline")
        }
        var configuration: UplinkTracker.Configuration
        switch profile {
        case "standard": configuration = UplinkTracker.Configuration(interface: interface, hosts: addresses)
        case "fast": configuration = .fast(interface: interface, hosts: addresses)
        case "mwan3": configuration = .mwan3(interface: interface, hosts: addresses)
        default: throw ValidationError("--profile must be standard, fast or mwan3")
        }
        configuration.method = try ProbeMethod(parsing: method)
        configuration.reliability = reliability
        configuration.count = count
        if let timeout { configuration.timeout = try seconds(timeout, "--timeout") }
        if let interval {
            configuration.interval = try seconds(interval, "--interval")
            // An interval given alone is the only cadence, as mwan3's failure_interval defaults to it.
            if failureInterval == nil { configuration.failureInterval = nil }
            if recoveryInterval == nil { configuration.recoveryInterval = nil }
        }
        if let failureInterval { configuration.failureInterval = try seconds(failureInterval, "--failure-interval") }
        if let recoveryInterval { configuration.recoveryInterval = try seconds(recoveryInterval, "--recovery-interval") }
        configuration.keepFailureInterval = keepFailureInterval
        if let down { configuration.down = down }
        if let up { configuration.up = up }
        configuration.initialState = state
        configuration.source = lookup.source
        configuration.mark = lookup.mark
        if var quality = configuration.quality {
            if let failureLatency { quality.failureLatency = .milliseconds(failureLatency) }
            if let failureLoss { quality.failureLoss = failureLoss }
            if let recoveryLatency { quality.recoveryLatency = .milliseconds(recoveryLatency) }
            if let recoveryLoss { quality.recoveryLoss = recoveryLoss }
            if let qualityWindow { quality.window = qualityWindow }
            configuration.quality = quality
        }
        if let flapLimit { configuration.flapLimit = flapLimit }
        configuration.checks = try checks(fast: profile == "fast")
        return configuration
    }

    private func checks(fast: Bool) throws -> UplinkChecks? {
        guard checkHost != nil || dnsName != nil || otherFamilyHost != nil else {
            if checkURL != nil || !checkPorts.isEmpty || pathMTUSize != nil || dnsServer != nil || checkInterval != nil {
                throw ValidationError("--check-url, --check-port, --pmtu-size, --dns-server and --check-interval need --check-host, --check-other-family or --dns-name")
            }
            return nil
        }
        var checks = UplinkChecks(interval: fast ? .seconds(10) : .seconds(3600))
        checks.host = try checkHost.map { (text) throws(ReachabilityError) in try IPAddress(parsing: text) }
        if let checkURL {
            guard case let .http(url) = try ProbeMethod(parsing: "http:\(checkURL)") else { throw ValidationError("--check-url") }
            checks.url = url
        }
        if !checkPorts.isEmpty { checks.ports = checkPorts }
        checks.otherFamilyHost = try otherFamilyHost.map { (text) throws(ReachabilityError) in try IPAddress(parsing: text) }
        if let pathMTUSize { checks.pathMTUSize = pathMTUSize == 0 ? nil : pathMTUSize }
        checks.dnsName = dnsName
        checks.dnsServer = try dnsServer.map { (text) throws(ReachabilityError) in try IPAddress(parsing: text) }
        checks.dnsHijack = !noHijackCheck
        if let checkInterval { checks.interval = try seconds(checkInterval, "--check-interval") }
        return checks
    }

    private func seconds(_ value: Double, _ option: String) throws -> Duration {
        guard value.isFinite, value > 0, value <= 86_400 else { throw ValidationError("\(option) must be more than 0 and at most 86400 seconds") }
        return .milliseconds(Int64((value * 1000).rounded()))
    }
}

extension TrackerEvent {
    var json: JSON {
        .object([
            ("interface", .string(interface)),
            ("state", .string(state.rawValue)),
            ("previous", .optional(previous?.rawValue)),
            ("initial", .bool(isInitial)),
            ("score", .int(Int64(score))),
            ("round", .int(Int64(round))),
            ("time_ns", .int(Int64(clamping: time.nanoseconds))),
            ("verdict", .string(verdict.rawValue)),
            ("previous_verdict", .optional(previousVerdict?.rawValue)),
            ("usable", .bool(verdict.isUsable)),
            ("detail", .optional(detail)),
            ("failovers", .int(Int64(failovers))),
            ("quality", quality.map { quality in
                .object([
                    ("samples", .int(Int64(quality.samples))),
                    ("lost", .int(Int64(quality.lost))),
                    ("loss_percent", quality.lossPercent.map { .int(Int64($0)) } ?? .null),
                    ("median_ms", quality.medianLatency.map { .int(Int64(clamping: $0.nanosecondsValue / 1_000_000)) } ?? .null),
                ])
            } ?? .null),
            ("probes", .array(results.map { result in
                .object([
                    ("address", .string(result.address.description)),
                    ("transport", .string(result.transport.rawValue)),
                    ("outcome", .string(result.outcome.name)),
                    ("rtt_ns", result.roundTrip.map { .int(Int64(clamping: $0.nanosecondsValue)) } ?? .null),
                ])
            })),
            ("error", .optional(error?.description)),
        ])
    }

    /// `12.345678  wan0  offline  (was disconnecting)  score 0  round 7  10.9.0.2 timed-out`
    var humanLine: String {
        var parts = [time.description, interface, state.rawValue]
        parts.append(previous.map { "(was \($0.rawValue))" } ?? "(initial)")
        parts.append(verdict.rawValue + (previousVerdict.map { $0 == verdict ? "" : " (was \($0.rawValue))" } ?? ""))
        if let detail { parts.append("[\(detail)]") }
        parts.append("score \(score)")
        parts.append("round \(round)")
        parts += results.map { "\($0.address) \($0.outcome)" }
        if let error { parts.append("(\(error))") }
        return parts.joinedText(separator: "  ")
    }
}
