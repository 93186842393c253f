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
            Prints the initial state, then one line per state change (online, \
            disconnecting, offline, connecting), until interrupted. A round succeeds \
            when --reliability hosts answered one of --count probes each. --down \
            failed rounds in a row take the uplink offline, --up good rounds bring it \
            back. Rounds start every --interval seconds (--failure-interval while \
            disconnecting, --recovery-interval while connecting). This sends packets.
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

    @Option(help: "Seconds each probe waits (default: the interval, at most 4).")
    var timeout: Double?

    @Option(help: "Seconds between round starts while online.")
    var interval: Double = 10

    @Option(name: .customLong("failure-interval"), help: "Seconds between round starts while disconnecting (default: --interval).")
    var failureInterval: Double?

    @Option(name: .customLong("recovery-interval"), help: "Seconds between round starts while connecting (default: --interval).")
    var recoveryInterval: Double?

    @Flag(name: .customLong("keep-failure-interval"), help: "Use --failure-interval while offline too.")
    var keepFailureInterval = false

    @Option(help: "Failed rounds in a row that take the uplink offline.")
    var down: Int = 5

    @Option(help: "Good rounds in a row that bring it back online.")
    var up: Int = 5

    @Option(name: .customLong("initial-state"), help: "online or offline.")
    var initialState: String = "online"

    @Option(help: "Send from this local address.")
    var source: String?

    @Option(help: "Firewall mark of the probes (decimal or 0x hex).", transform: LookupArguments.parseMark)
    var mark: Int64?

    @OptionGroup var kernel: NamespaceOptions

    func run() async throws {
        let configuration = try trackerConfiguration()
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
        return UplinkTracker.Configuration(
            interface: interface, hosts: addresses, method: try ProbeMethod(parsing: method), reliability: reliability,
            count: count, timeout: try timeout.map { try seconds($0, "--timeout") },
            interval: try seconds(interval, "--interval"),
            failureInterval: try failureInterval.map { try seconds($0, "--failure-interval") },
            recoveryInterval: try recoveryInterval.map { try seconds($0, "--recovery-interval") },
            keepFailureInterval: keepFailureInterval, down: down, up: up, initialState: state,
            source: lookup.source, mark: lookup.mark)
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
        parts.append("score \(score)")
        parts.append("round \(round)")
        parts += results.map { "\($0.address) \($0.outcome)" }
        if let error { parts.append("(\(error))") }
        return parts.joinedText(separator: "  ")
    }
}
