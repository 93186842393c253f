import ArgumentParser
import Dispatch
import LinuxReachability
import ReachabilityModemManager
#if canImport(Glibc)
import Glibc
#endif

@main
struct Reach: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reach",
        abstract: "Can a packet for this target leave the machine, over which link, and why?",
        discussion: """
            Answers from the kernel's routing table (no packets are sent), with the \
            SCNetworkReachability flags iOS developers know.
            Exit status: 0 every target reachable, 1 some target not reachable, \
            2 bad input or the kernel could not be asked.
            """,
        version: ReachabilityPackage.version,
        subcommands: [Overview.self, Check.self, Watch.self, Wait.self, Probe.self, Track.self, Modems.self],
        defaultSubcommand: Overview.self
    )

    /// Exit codes are part of the interface: 0 reachable, 1 not, 2 bad input —
    /// so parsing errors, which ArgumentParser would exit with 64, become 2
    /// with a one-line message.
    ///
    /// `main` is synchronous so that `reach check ADDRESS|internet`, which a
    /// script may run every few seconds, is answered by `QuickCheck` on this
    /// thread without the argument parser or the async runtime (the larger
    /// part of its start-up: docs/benchmarks/peers.md), and `reach watch` of
    /// the same by `QuickWatch` (a smaller resident set). Everything else runs
    /// as before, in a task, with this thread parked in `dispatchMain`.
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let status = QuickCheck.run(arguments) ?? QuickWatch.run(arguments) { Glibc.exit(status) }
        Task {
            await parseAndRun()
            Glibc.exit(0)
        }
        dispatchMain()
    }

    static func parseAndRun() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let error as ReachabilityError {
            fail(error.description)
        } catch {
            let code = exitCode(for: error)
            if code == .success || error is ExitCode || error is CleanExit {
                exit(withError: error)
            }
            let message = self.message(for: error).split(separator: "\n").first.map(String.init) ?? "\(error)"
            fail(message)
        }
    }

    static func fail(_ message: String) -> Never {
        var standardError = StandardError()
        print("reach: \(message)", to: &standardError)
        Glibc.exit(2)
    }
}

/// Where to ask and how to print: the options of every command. `probe` and
/// `track` take only these (they send packets; interface kinds and the
/// application's policy do not change what a probe does).
struct NamespaceOptions: ParsableArguments {
    @Option(name: .customLong("netns"), help: "Ask the kernel of this network namespace (a name in /run/netns, or a path).")
    var namespace: String?

    @Flag(help: "One JSON object per line.")
    var json = false

    func makeProber() throws -> Prober {
        try Prober(namespace: parsedNamespace())
    }

    func parsedNamespace() throws -> NetworkNamespace {
        try namespace.map { (text) throws(ReachabilityError) in try NetworkNamespace(parsing: text) } ?? .current
    }
}

/// The options of the commands that evaluate targets: the namespace, how
/// interfaces are classified, and the application's policy.
struct KernelOptions: ParsableArguments {
    @OptionGroup var scope: NamespaceOptions

    @Option(name: .customLong("kind"), help: ArgumentHelp("Classify interfaces matching a glob as a kind (wired, wifi, wwan, tunnel, loopback, other); repeatable.", valueName: "NAME=KIND"))
    var kinds: [String] = []

    @OptionGroup(title: "Policy") var policy: PolicyArguments

    var json: Bool { scope.json }

    func makeEvaluator() throws -> ReachabilityEvaluator {
        try ReachabilityEvaluator(namespace: parsedNamespace(), kindOverrides: parsedKinds(), policy: policy.policy(),
                                  radio: policy.radioSource())
    }

    func makeMonitor(_ targets: [Target], options: LookupOptions, resolveTimeout: Duration,
                     validation: ValidationArguments? = nil) throws -> ReachabilityMonitor {
        var configuration = ReachabilityMonitor.Configuration()
        configuration.resolveTimeout = resolveTimeout
        if let validation { try validation.apply(to: &configuration) }
        return try ReachabilityMonitor(targets: targets, options: options, namespace: parsedNamespace(),
                                       kindOverrides: parsedKinds(), policy: policy.policy(), radio: policy.radioSource(),
                                       configuration: configuration)
    }

    private func parsedKinds() throws -> [InterfaceKindOverride] {
        try kinds.map { (text) throws(ReachabilityError) in try InterfaceKindOverride(parsing: text) }
    }

    func parsedNamespace() throws -> NetworkNamespace {
        try scope.parsedNamespace()
    }
}

/// What the application allows, and how it treats its interfaces.
struct PolicyArguments: ParsableArguments {
    @Option(name: .customLong("allow-wwan"), help: "Whether WWAN (cellular) may be used: true (the default) or false. Refused WWAN is 'restricted.wwanRefused'.")
    var allowWWAN: Bool?

    @Flag(name: .customLong("no-wwan"), help: "WWAN (cellular) may not be used: a target reachable only over WWAN is not reachable (exit 1), its mask wwanRefused, its reason wwanRefused.")
    var noWWAN = false

    @Option(help: ArgumentHelp("Interfaces (glob) to use sparingly, like Low Data Mode: isConstrained; repeatable.", valueName: "GLOB"))
    var constrained: [String] = []

    @Option(name: .customLong("on-demand"), help: ArgumentHelp("Interfaces (glob) brought up on demand: connectionOnDemand; repeatable.", valueName: "GLOB"))
    var onDemand: [String] = []

    @Option(name: .customLong("on-traffic"), help: ArgumentHelp("Interfaces (glob) brought up by traffic: connectionOnTraffic; repeatable.", valueName: "GLOB"))
    var onTraffic: [String] = []

    @Option(help: ArgumentHelp("Interfaces (glob) that cost per byte, besides WWAN: isExpensive; repeatable.", valueName: "GLOB"))
    var metered: [String] = []

    @Option(help: ArgumentHelp("A modem device the kernel cannot name as one (path or glob, e.g. /dev/ttyACM0): PPP links are WWAN when a modem is present and no PPPoE/L2TP session; repeatable.", valueName: "PATH"))
    var modem: [String] = []

    @Option(help: ArgumentHelp("The radio technology of a WWAN interface (GPRS, EDGE, UMTS, HSPA, LTE, NR ...) for the mask's 2G...5G bits, or 'modemmanager': each modem's, from ModemManager on the system bus (an IF=TECH given too wins for its interface); repeatable.", valueName: "IF=TECH|modemmanager"))
    var radio: [String] = []

    func validate() throws {
        if noWWAN && allowWWAN == true {
            throw ValidationError("--no-wwan and --allow-wwan true contradict each other: give one")
        }
        for path in modem where !path.hasPrefix("/") || path.utf8.contains(0) {
            throw ValidationError("--modem takes an absolute device path or glob (/dev/ttyUSB2, /dev/ttyACM*), not '\(path)'")
        }
    }

    func policy() -> ReachabilityPolicy {
        ReachabilityPolicy(allowsWWAN: (allowWWAN ?? true) && !noWWAN, onDemandInterfaces: onDemand, onTrafficInterfaces: onTraffic,
                           meteredInterfaces: metered, modemDevices: modem, constrainedInterfaces: constrained)
    }

    func radioSource() throws -> RadioSource {
        var technologies: [String: RadioTechnology] = [:]
        var followsModemManager = false
        for text in radio {
            if text.lowercased() == "modemmanager" {
                followsModemManager = true
                continue
            }
            guard let equals = text.firstIndex(of: "="), let technology = RadioTechnology(parsing: String(text[text.index(after: equals)...])) else {
                throw ValidationError("--radio takes IF=TECH with TECH one of GSM, GPRS, EDGE, UMTS, HSPA, HSPA+, LTE, NR ..., not '\(text)'")
            }
            let name = String(text[..<equals])
            try LookupOptions.validateInterfaceName(name)
            technologies[name] = technology
        }
        let source = RadioSource(technologies)
        OutputRadio.source = source
        if followsModemManager {
            // The first answer reads ModemManager's facts (or knows they are
            // unavailable: then the answers have none, as without the option).
            try ModemManagerRadio.shared.follow(into: source)
            _ = ModemManagerRadio.shared.waitForFirstAnswer(timeout: .seconds(5))
            OutputRadio.modemManager = .shared
        }
        return source
    }
}

struct StandardError: TextOutputStream {
    mutating func write(_ string: String) {
        var bytes = Array(string.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { Glibc.write(2, $0.baseAddress! + offset, $0.count - offset) }
            if written <= 0 { if written < 0 && errno == EINTR { continue }; return }
            offset += written
        }
    }
}

/// `watch --validate`: NetworkManager-style validation of reachable targets.
struct ValidationArguments: ParsableArguments {
    @Option(name: .customLong("validate"), help: ArgumentHelp("Validate reachable targets with a probe through their output interface: http[:URL] (expects 204; a redirect or a page is a captive portal), dns[:NAME], icmp:HOST, tcp:HOST:PORT. Sent after each change to reachable and every --validate-interval.", valueName: "METHOD"))
    var method: String?

    @Option(name: .customLong("validate-interval"), help: "Seconds between validations of a reachable target (default: 60).")
    var interval: Double?

    var validateInterval: Double { interval ?? 60 }

    func validate() throws {
        guard validateInterval.isFinite, validateInterval >= 0.1, validateInterval <= 86_400 else {
            throw ValidationError("--validate-interval must be 0.1...86400 seconds")
        }
        guard method != nil || interval == nil else {
            throw ValidationError("--validate-interval needs --validate (the probe to repeat)")
        }
    }

    func apply(to configuration: inout ReachabilityMonitor.Configuration) throws {
        guard let method else { return }
        configuration.validation = try Validation(parsing: method)
        configuration.validationInterval = .milliseconds(Int64((validateInterval * 1000).rounded()))
    }
}
