import ArgumentParser
import LinuxReachability
#if canImport(Glibc)
import Glibc
#endif

/// `reach watch [TARGET...]`: each target's state, then one line per change.
struct Watch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print each target's state, then a line for every change, until interrupted.",
        discussion: """
            Changes come from kernel notifications (link, address, route and rule \
            changes); nothing is polled, and no packet is sent but --validate's probes. \
            A line is printed whenever the target's answer changes: its status, flags, \
            interface, route type (unreachable, blackhole, prohibit...), accessibility, \
            mask or validation verdict (the first one included), or for a host name or \
            'internet' whether an address of each family is reachable, by which \
            interface and route type; a human line only when its text changes. Nothing \
            else prints a line on its own (gateway, source, table, operstate, \
            availableInterfaces, supportsDNS, a validation with the same verdict); \
            the next line shows their current values. With --json each line \
            is one object with the fields of `check`, plus `time_ns` (CLOCK_MONOTONIC) \
            and `initial` (true for the state when watching began).
            """
    )

    @Argument(help: "Addresses, host names, or 'internet' (the default).")
    var targets: [String] = []

    @OptionGroup var lookup: LookupArguments

    @OptionGroup var resolve: ResolveArguments

    @OptionGroup(title: "Validation") var validation: ValidationArguments

    @OptionGroup var kernel: KernelOptions

    func run() async throws {
        let parsed = try parseTargets(targets.isEmpty ? ["internet"] : targets)
        let monitor = try kernel.makeMonitor(parsed, options: try lookup.options(), resolveTimeout: resolve.duration(),
                                             validation: validation)
        let changes = monitor.changes()
        let termination = stopOnSIGTERM { monitor.stop() }
        defer { termination.cancel() }
        try termination.start { try monitor.start() }
        for await change in changes { change.print(json: kernel.json) }
    }
}

/// `reach watch` of addresses, host names and `internet` (the default), with
/// no option but `--json`, as `QuickCheck` does for `check`: no argument
/// parser, no async runtime and no Dispatch thread, so a long-running `reach
/// watch` keeps the smaller resident set (docs/benchmarks/peers.md), and each
/// line is written on the monitor's thread as the change is published, not
/// handed to a task first (sooner to a reader of the pipe).
/// The lines are those of `Watch` (the same monitor defaults: a name may take
/// 5 s to resolve, as `--resolve-timeout` says; the same printing, in the
/// monitor's order); SIGTERM stops the monitor and exits 0, SIGINT keeps its
/// default. CLITests compare the two paths line for line.
enum QuickWatch {
    /// Runs until SIGTERM and returns the exit status, or nil when the parser
    /// must handle the arguments.
    static func run(_ arguments: [String]) -> Int32? {
        guard let (targets, json) = QuickCheck.parse(arguments, command: "watch", defaultTargets: [.internet],
                                                     hostNames: true) else { return nil }
        // Blocked before the monitor's thread exists (it inherits the mask), so
        // only `sigwait` below takes SIGTERM; one that comes before the start
        // stays pending until then, so it stops the monitor too.
        var terminate = sigset_t()
        sigemptyset(&terminate)
        sigaddset(&terminate, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &terminate, nil)
        do {
            let monitor = try ReachabilityMonitor(targets: targets)
            monitor.onChange { change in change.print(json: json) }
            TestHooks.pauseBeforeStart()
            try monitor.start()
            var received: Int32 = 0
            while sigwait(&terminate, &received) != 0 {}
            monitor.stop()   // joins the monitor's thread: every line is out
            return 0
        } catch {
            Reach.fail(error.description)
        }
    }
}

/// `reach wait [TARGET...]`: block until every target is reachable.
struct Wait: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Wait until every target is reachable (for boot scripts, like nm-online).",
        discussion: """
            Exit status: 0 as soon as every target is reachable, 1 when --timeout \
            passes first (or SIGTERM stops it), 2 on bad input. Prints nothing unless --json is given \
            (then the last state of each target) or it times out (then the \
            targets still not reachable, on standard error).
            """
    )

    @Argument(help: "Addresses, host names, or 'internet' (the default).")
    var targets: [String] = []

    @OptionGroup var lookup: LookupArguments

    @OptionGroup var resolve: ResolveArguments

    @Option(help: "Give up after this many seconds (0: wait for ever).")
    var timeout: Double = 30

    @OptionGroup var kernel: KernelOptions

    func validate() throws {
        guard timeout >= 0 && timeout <= 86_400 else { throw ValidationError("--timeout must be 0...86400 seconds") }
    }

    func run() async throws {
        let parsed = try parseTargets(targets.isEmpty ? ["internet"] : targets)
        // Without --resolve-timeout a lookup may take 5 s, or the whole deadline when it is shorter.
        let resolveTimeout = resolve.duration(or: timeout > 0 ? min(5, timeout) : 5)
        let monitor = try kernel.makeMonitor(parsed, options: try lookup.options(), resolveTimeout: resolveTimeout)
        let changes = monitor.changes()
        // SIGTERM ends the wait as the timeout does (the stream ends), and the
        // command finishes what it prints: the JSON lines whole, then exit 1.
        let termination = stopOnSIGTERM { monitor.stop() }
        defer { termination.cancel() }
        try termination.start { try monitor.start() }
        let timer = timeout > 0 ? Task {
            try? await Task.sleep(for: .milliseconds(Int64(timeout * 1000)))
            monitor.stop()  // ends the stream below
        } : nil
        var latest: [Target: ReachabilityChange] = [:]
        var done = false
        for await change in changes {
            latest[change.target] = change
            if latest.count == monitor.targets.count && latest.values.allSatisfy(\.isReachable) {
                done = true
                break
            }
        }
        timer?.cancel()
        monitor.stop()
        if kernel.json {
            for target in monitor.targets { if let change = latest[target] { writeLine(change.jsonText) } }
        }
        if !done {
            var standardError = StandardError()
            let waiting = monitor.targets.filter { latest[$0]?.isReachable != true }.map(\.description)
            let why = termination.sawSIGTERM ? "stopped by SIGTERM" : "timed out after \(timeout) s"
            print("reach: \(why); not reachable: \(waiting.joined(separator: ", "))", to: &standardError)
            throw ExitCode(1)
        }
    }
}

extension ReachabilityChange {
    /// The evaluation's object with the change's `time_ns` and `initial`.
    var jsonText: JSONText {
        evaluation.writeJSON(to: JSONObject()) { object in
            object.field("time_ns", Int64(clamping: time.nanoseconds))
            object.field("initial", isInitial)
        }
    }

    /// `watch`'s lines for this change (`Watch`'s discussion states the
    /// rule): none when only the path's facts changed (an interface joined
    /// or left `availableInterfaces`, a name server became reachable or not:
    /// the monitor reports that as NWPathMonitor does, but the target's
    /// answer is the same), nor a human line that would repeat the previous one.
    func print(json: Bool) {
        guard changesAnswer else { return }
        if json {
            writeLine(jsonText)
        } else {
            humanLines.forEach(printLine)
        }
    }

    /// `12.345678  initial  10.1.0.2  reachable.wired  ...`; nothing for a
    /// change of what the line does not show.
    var humanLines: [String] {
        let lines = evaluation.humanLines
        // A WWAN line's radio is read as it is printed, so the previous
        // answer's lines show today's technology too: a change of the mask
        // (4G → 3G) is a line even when the texts read the same.
        if !isInitial, let previous, previous.humanLines == lines,
           previous.addresses.map(\.mask) == evaluation.addresses.map(\.mask) { return [] }
        return ["\(time)  \(isInitial ? "initial" : "changed")  \(lines.first ?? "")"] + lines.dropFirst()
    }
}

/// One line, written at once with write(2): watchers read `reach watch`
/// through pipes. Not `print`, whose first call casts its argument
/// dynamically (a scan of every protocol conformance in the binary, the
/// argument parser's and Foundation's included: `reach check`'s start-up).
func printLine(_ line: String) {
    writeLine(bytes: Array(line.utf8))
}
