// The checks that tell a live uplink's dirty failures apart: DNS dead or
// hijacked, a captive portal, a port or a family blocked, a path-MTU black
// hole. Each is one probe through the uplink (Prober.swift sends it); what
// they found becomes `UplinkFindings`, which the model turns into a verdict.
// Traffic goes only to the hosts named here.

/// What an ``UplinkTracker`` checks beyond its rounds, and how often. Every
/// check is optional; a check whose host is nil is not run.
public struct UplinkChecks: Hashable, Sendable {
    /// Between check runs while the uplink is usable. A run also follows
    /// the tracker's start and every return to online.
    public var interval: Duration
    /// The check host: the HTTP check, the port checks and the path-MTU
    /// probe go to it (a server of yours, answering `url` with 204).
    public var host: IPAddress?
    /// The HTTP check's URL on `host` (Android's `/generate_204` on port 80 by default):
    /// 204 or an empty 2xx passes; a redirect or a page is a captive portal.
    public var url: HTTPProbeURL
    /// TCP ports on `host` that must complete a handshake (443 by default);
    /// a reset or silence on one while the HTTP check passes is partial.
    public var ports: [UInt16]
    /// A host of the other family (an IPv6 host when `host` is IPv4), probed
    /// with ICMP: no answer while `host` answers is partial.
    public var otherFamilyHost: IPAddress?
    /// The path-MTU probe's packet size in bytes (IP header included), sent
    /// to `host` with the don't-fragment bit; nil for none. 1,400 by default.
    public var pathMTUSize: Int?
    /// The resolver to ask; nil: the namespace's first `nameserver`.
    public var dnsServer: IPAddress?
    /// A name that exists, asked for an A record; nil: no DNS check.
    public var dnsName: String?
    /// Also ask for a random name under `.invalid` (RFC 6761: it cannot
    /// exist): an address in the answer is a hijacking resolver.
    public var dnsHijack: Bool

    /// Checks as given.
    ///
    /// - Parameters:
    ///   - interval: Between check runs while usable (an hour by default: about 4.5 KB a day at most).
    ///   - host: The check host (``host``).
    ///   - url: The HTTP check's URL (``url``).
    ///   - ports: TCP ports that must connect (``ports``).
    ///   - otherFamilyHost: A host of the other family (``otherFamilyHost``).
    ///   - pathMTUSize: The path-MTU probe's size (``pathMTUSize``).
    ///   - dnsServer: The resolver (``dnsServer``).
    ///   - dnsName: A name that exists (``dnsName``).
    ///   - dnsHijack: Whether to ask for a name that cannot exist (``dnsHijack``).
    public init(interval: Duration = .seconds(3600), host: IPAddress? = nil,
                url: HTTPProbeURL = HTTPProbeURL(host: nil, port: 80, path: "/generate_204"),
                ports: [UInt16] = [443], otherFamilyHost: IPAddress? = nil, pathMTUSize: Int? = 1400,
                dnsServer: IPAddress? = nil, dnsName: String? = nil, dnsHijack: Bool = true) {
        self.interval = interval
        self.host = host
        self.url = url
        self.ports = ports
        self.otherFamilyHost = otherFamilyHost
        self.pathMTUSize = pathMTUSize
        self.dnsServer = dnsServer
        self.dnsName = dnsName
        self.dnsHijack = dnsHijack
    }

    func validate() throws(ReachabilityError) {
        guard interval >= .milliseconds(100), interval <= .seconds(86_400) else {
            throw .invalidConfiguration("check interval", reason: "must be 0.1 s ... 1 day")
        }
        guard !ports.contains(0) else { throw .invalidConfiguration("check ports", reason: "must be 1...65535") }
        if let size = pathMTUSize {
            let header = host?.family == .v6 ? 48 : 28
            guard (header + 1...1500).contains(size) else {
                throw .invalidConfiguration("path-MTU probe size", reason: "must be \(header + 1)...1500 bytes")
            }
        }
        if let host, let other = otherFamilyHost, host.family == other.family {
            throw .invalidConfiguration("other-family host", reason: "\(other) is of the same family as \(host)")
        }
        if let dnsName {
            do { try Target.validateHostName(dnsName) } catch {
                throw .invalidConfiguration("DNS check name", reason: "'\(dnsName)' is not a host name")
            }
        }
        try ProbeMethod.http(url).validate()
    }

    /// Runs every configured check once, one after another, through `send`.
    ///
    /// - Parameters:
    ///   - nameServers: The namespace's resolvers, read when ``dnsServer`` is nil.
    ///   - salt: Makes the `.invalid` name of this run unlike the last.
    ///   - send: Sends one probe with the options of the tracker (the DNS
    ///     server, the path-MTU size and DF set by the caller's closure).
    /// - Returns: The findings, and the probes' bytes on the wire as sent (IP and up).
    func run(nameServers: () -> [IPAddress], salt: UInt64,
             send: (IPAddress, ProbeMethod, _ payload: Int?) -> ProbeResult?) -> UplinkFindings {
        var found = UplinkFindings()
        var notes: [String] = []
        if let name = dnsName, let server = dnsServer ?? nameServers().first {
            if let answer = send(server, .dns(name: name, type: .a), nil), answer.verdict != .answered {
                found.dnsFailing = true
                notes.append("DNS \(server) \(name): \(answer.outcome)")
            } else if dnsHijack {
                let invalid = "reach-\(String(salt, radix: 36)).invalid"
                if let answer = send(server, .dns(name: invalid, type: .a), nil), answer.verdict == .answered {
                    found.dnsHijacked = true
                    notes.append("DNS \(server) answered \(invalid) with \(answer.resolvedAddress.map { "\($0)" } ?? "an address")")
                }
            }
        }
        if let host {
            let http = send(host, .http(url), nil)
            switch http?.outcome {
            case let .captivePortal(status, location)?:
                found.captive = true
                notes.append("HTTP \(status)" + (location.map { " → \($0)" } ?? " with a page"))
            case .answered?, nil:
                break
            case let outcome?:
                found.partial = true
                notes.append("HTTP \(host):\(url.port) \(outcome)")
            }
            for port in ports {
                if let answer = send(host, .tcp(port: port), nil), answer.verdict != .answered {
                    found.partial = true
                    notes.append("port \(port) \(answer.outcome)")
                }
            }
            if let size = pathMTUSize, !found.captive {
                let header = host.family == .v6 ? 48 : 28
                // A small echo first: the big one's silence means something only when the small one answers.
                if let small = send(host, .icmp, nil), small.verdict == .answered,
                   let big = send(host, .icmp, size - header), big.outcome == .timedOut {
                    found.pathMTUBlackHole = true
                    notes.append("\(size)-byte probe lost, \(small.transport) echo answered, no fragmentation needed")
                }
            }
        }
        if let other = otherFamilyHost, let answer = send(other, .icmp, nil), answer.verdict != .answered {
            found.partial = true
            notes.append("\(other.family == .v6 ? "IPv6" : "IPv4") \(other) \(answer.outcome)")
        }
        found.detail = notes.isEmpty ? nil : notes.joined(separator: "; ")
        return found
    }
}
