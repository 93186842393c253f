import ArgumentParser
import LinuxReachability
#if canImport(Glibc)
import Glibc
#endif

/// `reach probe TARGET`: one active probe, and what answered it.
struct Probe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Send one active probe: ICMP echo, TCP connect, an HTTP captive-portal check, or a DNS query.",
        discussion: """
            Unlike check, this sends packets. --method icmp uses a raw socket with \
            CAP_NET_RAW, else a ping socket when net.ipv4.ping_group_range admits our \
            group, else a TCP connect to --fallback-port; the output says which, and why. \
            http[:URL] reads the answer as Android and Chromium do: 204 No Content, or a 2xx \
            with an empty body, is answered; a redirect (3xx, with its Location) or a page \
            (a 2xx or 3xx with a body) is a captive portal; 1xx, 4xx and 5xx fail. dns asks \
            the name server (--server, else the first nameserver of resolv.conf) for TARGET; \
            dns:NAME asks TARGET, a name server, for NAME.
            Exit status: 0 answered, 1 not answered (or a captive portal), 2 bad input.
            """
    )

    @Argument(help: "An address or host name (with --method dns: the name to look up).")
    var target: String

    @Option(help: ArgumentHelp("icmp, tcp:PORT, http, http:URL, dns, dns:NAME.", valueName: "METHOD"))
    var method: String = "icmp"

    @Option(help: "Send through this interface (SO_BINDTODEVICE).")
    var interface: String?

    @Option(help: "Send from this local address.")
    var source: String?

    @Option(help: "Firewall mark of the probe (decimal or 0x hex; needs CAP_NET_ADMIN).", transform: LookupArguments.parseMark)
    var mark: Int64?

    @Option(help: "Seconds to wait for the answer.")
    var timeout: Double = 2

    @Option(name: .customLong("fallback-port"), help: "TCP port for --method icmp when no ICMP socket is allowed (default: 80).")
    var fallbackPort: UInt16?

    @Option(help: "The DNS server for --method dns (default: the first nameserver of resolv.conf).")
    var server: String?

    @OptionGroup var resolve: ResolveArguments

    @OptionGroup var kernel: NamespaceOptions

    func validate() throws {
        guard timeout > 0 && timeout <= 3600 else { throw ValidationError("--timeout must be more than 0 and at most 3600 seconds") }
        guard fallbackPort != 0 else { throw ValidationError("--fallback-port must be 1...65535") }
        // Options another method would ignore are refused, not dropped silently.
        if fallbackPort != nil && method != "icmp" {
            throw ValidationError("--fallback-port is for --method icmp (its TCP fallback), not \(method)")
        }
        if server != nil && method != "dns" {
            throw ValidationError(method.hasPrefix("dns:")
                ? "--server is for --method dns: with dns:NAME the target is the server"
                : "--server is for --method dns (the name server to ask), not \(method)")
        }
    }

    func run() async throws {
        // Everything is checked before a packet leaves.
        let isNameLookup = method == "dns"
        let probeMethod = try ProbeMethod(parsing: method, defaultName: isNameLookup ? target : nil)
        let options = try probeOptions()
        let prober = try kernel.makeProber()
        let addresses: [IPAddress]
        if isNameLookup {
            addresses = [try server.map { (text) throws(ReachabilityError) in try IPAddress(parsing: text) }
                ?? nameServer(namespace: kernel.parsedNamespace())]
        } else {
            switch try Target(parsing: target) {
            case let .address(address): addresses = [address]
            case let .host(name): addresses = try await prober.resolve(name, timeout: resolve.duration())
            case .internet: throw ValidationError("probe needs an address or a host name: 'internet' is a route lookup (reach check)")
            }
        }
        guard let address = addresses.first(where: { options.source == nil || $0.family == options.source!.family }) ?? addresses.first else {
            throw ReachabilityError.resolutionFailed(host: target, reason: "no address")
        }
        let result = try await prober.probe(address, method: probeMethod, options: options)
        if kernel.json {
            printLine(result.json(target: target, interface: interface).rendered)
        } else {
            printLine(result.humanLine(target: target))
        }
        if result.verdict != .answered { throw ExitCode(1) }
    }

    private func probeOptions() throws -> ProbeOptions {
        let lookup = try LookupOptions.validated(uid: nil, mark: mark, interface: interface, source: source)
        return ProbeOptions(interface: lookup.interface, source: lookup.source, mark: lookup.mark,
                            timeout: .milliseconds(Int64((timeout * 1000).rounded(.up))), fallbackPort: fallbackPort ?? 80)
    }
}

/// The first `nameserver` the namespace's programs use (`NetworkNamespace.nameServers()`:
/// for `--netns NAME`, /etc/netns/NAME/resolv.conf when it exists, as `ip netns exec` shows it).
func nameServer(namespace: NetworkNamespace) throws -> IPAddress {
    guard let first = namespace.nameServers().first else {
        throw ValidationError("no nameserver in \(namespace.resolvConfPath); give --server")
    }
    return first
}

extension ProbeResult {
    var answered: Bool { verdict == .answered }

    func json(target: String, interface: String?) -> JSON {
        .object([
            ("target", .string(target)),
            ("address", .string(address.description)),
            ("method", .string(method.description)),
            ("transport", .string(transport.rawValue)),
            ("fallback", .optional(fallbackReason)),
            ("port", port.map { .int(Int64($0)) } ?? .null),
            ("interface", .optional(interface)),
            ("answered", .bool(answered)),
            ("verdict", .string(verdict.rawValue)),
            ("outcome", .string(outcome.name)),
            ("httpStatus", httpStatus.map { .int(Int64($0)) } ?? .null),
            ("location", .optional(location)),
            ("dnsRcode", dnsRcode.map { .int(Int64($0)) } ?? .null),
            ("resolved", .optional(resolvedAddress?.description)),
            ("error", .optional(outcome.errno?.description)),
            ("rtt_ns", roundTrip.map { .int(Int64(clamping: $0.nanosecondsValue)) } ?? .null),
            ("ignored", .int(Int64(ignoredDatagrams))),
        ])
    }

    /// The DNS answer's rcode: 0 for an answer with an address, the
    /// server's for one without; nil for another method or no answer.
    var dnsRcode: Int? {
        guard case .dns = method else { return nil }
        return outcome == .answered ? 0 : outcome.dnsRcode
    }

    /// `10.9.0.2  answered  0.081 ms  icmp-raw`,
    /// `10.9.0.2  captive-portal 302 → http://portal.test/  0.412 ms  http port 80`
    func humanLine(target: String) -> String {
        // A Location is the server's text: no control character reaches the terminal.
        // A reset to an ICMP probe's TCP fallback proves the host is there: it
        // is answered (exit 0), and the text says so, with how.
        let said = verdict == .answered && outcome == .refused ? "answered (reset)" : outcome.description.printable
        var parts = [target == address.description ? target : "\(target) (\(address))", said]
        if let roundTrip { parts.append(formatMilliseconds(roundTrip)) }
        parts.append(port.map { "\(transport.rawValue) port \($0)" } ?? transport.rawValue)
        if let resolvedAddress { parts.append("-> \(resolvedAddress)") }
        if let fallbackReason { parts.append("(fallback: \(fallbackReason))") }
        return parts.joinedText(separator: "  ")
    }
}

extension ProbeOutcome {
    /// The outcome's name without its details: `answered`, `timed-out`, `unexpected-status` ...
    var name: String {
        switch self {
        case .answered: return "answered"
        case .refused: return "refused"
        case .captivePortal: return "captive-portal"
        case .unexpectedStatus: return "unexpected-status"
        case .noAddress: return "no-address"
        case .timedOut: return "timed-out"
        case .unreachable: return "unreachable"
        case .malformedAnswer: return "malformed-answer"
        case .canceled: return "canceled"
        }
    }

    var dnsRcode: Int? { if case let .noAddress(rcode) = self { return rcode } else { return nil } }
    var errno: SystemErrno? { if case let .unreachable(errno) = self { return errno } else { return nil } }
}

extension String {
    /// Control characters (C0, DEL, C1) as `\u{XX}`, the rest as is.
    var printable: String {
        var out = ""
        for scalar in unicodeScalars {
            if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
                out += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

extension Duration {
    var nanosecondsValue: Int64 {
        let (seconds, attoseconds) = components
        return seconds &* 1_000_000_000 &+ attoseconds / 1_000_000_000
    }
}

func formatMilliseconds(_ duration: Duration) -> String {
    let micros = duration.nanosecondsValue / 1000
    let fraction = String(micros % 1000)
    return "\(micros / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction) ms"
}
