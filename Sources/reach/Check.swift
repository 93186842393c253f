import ArgumentParser
import Reachability

/// `reach check TARGET...`: one answer per target.
struct Check: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Evaluate targets: an IPv4/IPv6 address, a host name, or 'internet'.",
        discussion: "Exit status: 0 when every target is reachable, 1 when any is not, 2 on bad input."
    )

    @Argument(help: "Addresses, host names, or 'internet'.")
    var targets: [String]

    @OptionGroup var lookup: LookupArguments

    @Option(help: "Seconds to wait for a host name to resolve.")
    var timeout: Int = 5

    @OptionGroup var kernel: KernelOptions

    func validate() throws {
        guard !targets.isEmpty else { throw ValidationError("give at least one target") }
        guard timeout > 0 && timeout <= 3600 else { throw ValidationError("--timeout must be 1...3600 seconds") }
    }

    func run() async throws {
        // Check every argument before asking the kernel anything.
        let parsed = try parseTargets(targets)
        let options = try lookup.options()
        let evaluator = try kernel.makeEvaluator()
        var allReachable = true
        for target in parsed {
            let answer = try await evaluator.evaluate(target, options: options, resolveTimeout: .seconds(timeout))
            allReachable = allReachable && answer.isReachable
            if kernel.json {
                print(answer.json.rendered)
            } else {
                answer.humanLines.forEach { print($0) }
            }
        }
        if !allReachable { throw ExitCode(1) }
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
