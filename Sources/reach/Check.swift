import ArgumentParser
import LinuxReachability

/// `reach check TARGET...`: one answer per target.
struct Check: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Evaluate targets: an IPv4/IPv6 address, a host name, or 'internet'.",
        discussion: "Exit status: 0 when every target is reachable, 1 when any is not, 2 on bad input."
    )

    @Argument(help: "Addresses, host names, or 'internet'.")
    var targets: [String]

    @OptionGroup var lookup: LookupArguments

    @OptionGroup var resolve: ResolveArguments

    /// The old spelling of --resolve-timeout (check has no deadline of its own).
    @Option(name: .customLong("timeout"), help: .hidden)
    var deprecatedTimeout: Double?

    @OptionGroup var kernel: KernelOptions

    func validate() throws {
        guard !targets.isEmpty else { throw ValidationError("give at least one target") }
    }

    func run() async throws {
        // Check every argument before asking the kernel anything.
        let parsed = try parseTargets(targets)
        let options = try lookup.options()
        let resolveTimeout = try resolve.duration(deprecated: deprecatedTimeout, command: "check")
        let evaluator = try kernel.makeEvaluator()
        var allReachable = true
        for target in parsed {
            let answer = try await evaluator.evaluate(target, options: options, resolveTimeout: resolveTimeout)
            allReachable = allReachable && answer.isReachable
            Check.print(answer, json: kernel.json)
        }
        if !allReachable { throw ExitCode(1) }
    }

    static func print(_ answer: TargetEvaluation, json: Bool) {
        if json {
            writeLine(answer.writeJSON(to: JSONObject()))
        } else {
            answer.humanLines.forEach(printLine)
        }
    }
}

/// `reach check` of addresses and `internet`, with no option but `--json`:
/// the common call from a script, answered without the argument parser or the
/// async runtime (start-up 2.0× GLib's monitor through them; see
/// docs/benchmarks/peers.md); `QuickWatch` does the same for `reach watch`.
/// Only an argument list it understands entirely is taken: help, host names,
/// any other option, `--`, and every bad input go to the parser, which
/// answers them as always. The answer is the one `Check`
/// gives (the same evaluator defaults, the same printing); CLITests compare the
/// two paths byte for byte.
enum QuickCheck {
    /// The targets and --json of `command`, or nil when the parser must handle
    /// the arguments. Without a target, `defaultTargets` (none: the parser
    /// says that a target is needed). A host name is taken only with
    /// `hostNames` (`watch`: its monitor resolves it; `check` resolves with
    /// the parser's options).
    static func parse(_ arguments: [String], command: String = "check",
                      defaultTargets: [Target] = [], hostNames: Bool = false) -> (targets: [Target], json: Bool)? {
        guard arguments.first == command else { return nil }
        var targets: [Target] = []
        var json = false
        for argument in arguments.dropFirst() {
            if argument == "--json" {
                guard !json else { return nil }
                json = true
                continue
            }
            guard !argument.hasPrefix("-"), let target = try? Target(parsing: argument),
                  hostNames || target.addressesWithoutLookup != nil else { return nil }
            targets.append(target)
        }
        if targets.isEmpty { targets = defaultTargets }
        return targets.isEmpty ? nil : (targets, json)
    }

    /// The exit status, or nil when the parser must handle the arguments.
    static func run(_ arguments: [String]) -> Int32? {
        guard let (targets, json) = parse(arguments) else { return nil }
        do {
            let evaluator = try ReachabilityEvaluator()
            var allReachable = true
            for target in targets {
                let answer = try evaluator.evaluate(target, at: target.addressesWithoutLookup ?? [], options: LookupOptions())
                allReachable = allReachable && answer.isReachable
                Check.print(answer, json: json)
            }
            return allReachable ? 0 : 1
        } catch {
            Reach.fail(error.description)
        }
    }
}

/// How long a host name may take to resolve: one name and one meaning in
/// every subcommand that resolves (`--timeout` is each command's own deadline).
struct ResolveArguments: ParsableArguments {
    @Option(name: .customLong("resolve-timeout"),
            help: ArgumentHelp("Seconds a host name may take to resolve (fractions allowed; default 5).", valueName: "seconds"))
    var resolveTimeout: Double?

    func validate() throws {
        if let resolveTimeout { try ResolveArguments.check(resolveTimeout, "--resolve-timeout") }
    }

    private static func check(_ value: Double, _ option: String) throws {
        guard value.isFinite, value > 0, value <= 3600 else {
            throw ValidationError("\(option) must be more than 0 and at most 3600 seconds")
        }
    }

    /// The resolve timeout: --resolve-timeout, else `fallback`.
    func duration(or fallback: Double = 5) -> Duration {
        .milliseconds(Int64(((resolveTimeout ?? fallback) * 1000).rounded(.up)))
    }

    /// Also honours the old spelling (`check --timeout`), with a line on stderr saying so.
    func duration(deprecated old: Double?, command: String) throws -> Duration {
        guard let old else { return duration() }
        var standardError = StandardError()
        print("reach: \(command) --timeout is deprecated: use --resolve-timeout (how long a host name may take to resolve)",
              to: &standardError)
        guard resolveTimeout == nil else { return duration() }
        try ResolveArguments.check(old, "--timeout")
        return duration(or: old)
    }
}

/// The lookup selectors `check`, `watch` and `wait` share.
struct LookupArguments: ParsableArguments {
    @Option(help: "Look up as a socket of this uid would (policy rules on uidrange).")
    var uid: Int64?

    @Option(help: "Look up with this firewall mark (decimal or 0x hex; policy rules on fwmark).", transform: LookupArguments.parseMark)
    var mark: Int64?

    @Option(help: "Look up as a socket bound to this interface would.")
    var interface: String?

    @Option(help: "Look up as if sent from this source address.")
    var source: String?

    func options() throws -> LookupOptions {
        try LookupOptions.validated(uid: uid, mark: mark, interface: interface, source: source)
    }

    static func parseMark(_ text: String) throws -> Int64 {
        let value = text.lowercased().hasPrefix("0x") ? Int64(text.dropFirst(2), radix: 16) : Int64(text)
        guard let value else { throw ValidationError("--mark takes a number, decimal or 0x hex, not '\(text)'") }
        return value
    }
}

/// Every argument checked before the kernel is asked anything.
func parseTargets(_ texts: [String]) throws -> [Target] {
    try texts.map { (text) throws(ReachabilityError) in try Target(parsing: text) }
}
