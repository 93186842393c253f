// What an active probe asks and what it found: the methods, the options they
// leave by, their outcomes, and the pure choice of an ICMP socket from what
// the process may do. The sockets themselves are in Prober.swift.

/// How to probe an address.
public enum ProbeMethod: Hashable, Sendable, CustomStringConvertible {
    /// ICMP echo: a raw socket with `CAP_NET_RAW`, else a ping socket when
    /// `net.ipv4.ping_group_range` admits one of our groups, else a TCP connect
    /// to ``ProbeOptions/fallbackPort`` (a reset counts as an answer: the host is there).
    case icmp
    /// A TCP connect to this port; only a completed handshake is an answer.
    case tcp(port: UInt16)
    /// An HTTP GET for a captive-portal check, read as Android and Chromium
    /// read it: `204 No Content`, or a 2xx with an empty body, is answered; a
    /// redirect (3xx, its `Location` kept) or a page (a 2xx or 3xx with a
    /// body) is a captive portal; 1xx, 4xx and 5xx fail (a broken server or
    /// proxy, not a portal).
    case http(HTTPProbeURL)
    /// A DNS query for `name` sent to the probed address (a DNS server);
    /// answered when the response carries at least one address.
    case dns(name: String, type: DNSRecordType)

    /// Parses a method as `reach probe --method` takes it.
    ///
    /// - Parameters:
    ///   - text: `icmp`, `tcp:PORT`, `http`, `http:URL` (`http://HOST[:PORT]/PATH`,
    ///     or just `/PATH`; ``HTTPProbeURL/init(parsing:)``), `dns` or
    ///     `dns:NAME`. `http` without a URL asks for `/generate_204`.
    ///   - defaultName: The name a `dns` without one asks for; nil makes that an error.
    /// - Throws: `ReachabilityError.invalidProbe(_:reason:)` for text of none
    ///   of these forms, a port that is not 1...65535, a bad URL, or a `dns`
    ///   without a name or with one that is not a host name.
    public init(parsing text: String, defaultName: String? = nil) throws(ReachabilityError) {
        let (kind, argument) = text.firstIndex(of: ":").map { (String(text[..<$0]), String(text[text.index(after: $0)...])) }
            ?? (text, nil)
        switch (kind, argument) {
        case ("icmp", nil):
            self = .icmp
        case let ("tcp", port?):
            guard let value = UInt16(port), value > 0 else { throw .invalidProbe(text, reason: "port must be 1...65535") }
            self = .tcp(port: value)
        case ("http", nil):
            self = .http(HTTPProbeURL(host: nil, port: 80, path: "/generate_204"))
        case let ("http", url?):
            self = .http(try HTTPProbeURL(parsing: url))
        case ("dns", let name):
            guard let name = name ?? defaultName else { throw .invalidProbe(text, reason: "dns needs a name: dns:NAME") }
            do { try Target.validateHostName(name) } catch { throw .invalidProbe(text, reason: "\(error)") }
            self = .dns(name: name, type: .a)
        default:
            throw .invalidProbe(text, reason: "expected icmp, tcp:PORT, http[:URL] or dns[:NAME]")
        }
    }

    /// Throws `.invalidProbe` for a method built from its cases that parsing
    /// would have refused: port 0 (a connect to it is refused, a silent wrong
    /// answer), or a NUL in a name, host or path (C would cut the string there).
    func validate() throws(ReachabilityError) {
        switch self {
        case .icmp:
            return
        case let .tcp(port):
            guard port > 0 else { throw .invalidProbe(description, reason: "port must be 1...65535") }
        case let .http(url):
            guard url.port > 0 else { throw .invalidProbe(description, reason: "port must be 1...65535") }
            guard !(url.host?.utf8.contains(0) ?? false), !url.path.utf8.contains(0) else {
                throw .invalidProbe(description, reason: "contains NUL")
            }
        case let .dns(name, _):
            guard !name.utf8.contains(0) else { throw .invalidProbe(description, reason: "contains NUL") }
        }
    }

    public var description: String {
        switch self {
        case .icmp: return "icmp"
        case let .tcp(port): return "tcp:\(port)"
        case let .http(url): return "http:\(url)"
        case let .dns(name, type): return type == .a ? "dns:\(name)" : "dns:\(name)/\(type)"
        }
    }
}
