// What an active probe asks and what it found: the methods, the options they
// leave by, their outcomes, and the pure choice of an ICMP socket from what
// the process may do. The sockets themselves are in Prober.swift.

/// How to probe an address.
public enum ProbeMethod: Hashable, Sendable, CustomStringConvertible {
    /// ICMP echo: a raw socket with `CAP_NET_RAW`, else a ping socket when
    /// `net.ipv4.ping_group_range` admits one of our groups, else a TCP connect
    /// to `ProbeOptions.fallbackPort` (a reset counts as an answer: the host is there).
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

    /// `icmp`, `tcp:PORT`, `http`, `http:URL` (`http://HOST[:PORT]/PATH`, or
    /// just `/PATH`), `dns`, `dns:NAME`. A `dns` without a name asks for
    /// `defaultName`; `http` without a URL asks for `/generate_204`.
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

/// The record a DNS probe asks for.
public enum DNSRecordType: String, Hashable, Sendable {
    /// An IPv4 address record (query type 1).
    case a = "A"
    /// An IPv6 address record (query type 28).
    case aaaa = "AAAA"

    var rawType: UInt16 { self == .a ? 1 : 28 }
}

/// An `http://` URL as the captive-portal check uses it: no TLS, no user
/// info, no query beyond what the path carries. `host` nil means "the probed
/// address" (the Host header then carries the address).
public struct HTTPProbeURL: Hashable, Sendable, CustomStringConvertible {
    /// The name the `Host` header carries (the request always goes to the probed address); nil names
    /// the probed address. An IPv6 literal keeps its brackets.
    public var host: String?
    /// The TCP port the request is sent to; 80 by default.
    public var port: UInt16
    /// The path of the GET, query included; `/generate_204` by default.
    public var path: String

    /// A URL from its parts, unchecked: a probe throws `.invalidProbe` for port 0 or a NUL in
    /// `host` or `path`.
    public init(host: String?, port: UInt16 = 80, path: String = "/generate_204") {
        self.host = host
        self.port = port
        self.path = path
    }

    /// `http://HOST[:PORT][/PATH]` or `/PATH`. HOST is a name, an IPv4
    /// address or a bracketed IPv6 address.
    public init(parsing text: String) throws(ReachabilityError) {
        func bad(_ reason: String) -> ReachabilityError { .invalidProbe("http:\(text)", reason: reason) }
        let visible = text.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }
        guard visible else { throw bad("URL must be visible ASCII without spaces") }
        // `--method http://HOST/` splits into `http` and `//HOST/`: a host, not a path.
        guard !text.hasPrefix("//") else { throw bad("'//' starts a host, not a path: write http:http://HOST/PATH") }
        if text.hasPrefix("/") {
            self.init(host: nil, port: 80, path: text)
            return
        }
        guard text.lowercased().hasPrefix("http://") else {
            throw bad(text.lowercased().hasPrefix("https://") ? "https is not supported (a portal check needs plain HTTP)"
                                                              : "expected http://HOST[:PORT]/PATH or /PATH")
        }
        let rest = text.dropFirst("http://".count)
        let authority = rest.prefix { $0 != "/" }
        let path = rest.dropFirst(authority.count)
        guard !authority.isEmpty, !authority.contains("@") else { throw bad("missing or unsupported host") }
        var host = Substring(authority)
        var port: UInt16 = 80
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { throw bad("unclosed '['") }
            let after = host[host.index(after: close)...]
            host = host[host.index(after: host.startIndex)..<close]
            guard IPAddress(String(host))?.family == .v6 else { throw bad("not an IPv6 address in brackets") }
            if !after.isEmpty {
                guard after.hasPrefix(":"), let value = UInt16(after.dropFirst()), value > 0 else { throw bad("bad port") }
                port = value
            }
            self.init(host: "[\(host)]", port: port, path: path.isEmpty ? "/" : String(path))
            return
        }
        if let colon = host.firstIndex(of: ":") {
            guard let value = UInt16(host[host.index(after: colon)...]), value > 0 else { throw bad("bad port") }
            port = value
            host = host[..<colon]
        }
        if IPAddress(String(host)) == nil {
            do { try Target.validateHostName(String(host)) } catch { throw bad("bad host '\(host)'") }
        }
        self.init(host: String(host), port: port, path: path.isEmpty ? "/" : String(path))
    }

    /// The Host header for a request to `address`.
    func hostHeader(for address: IPAddress) -> String {
        let name = host ?? (address.family == .v6 ? "[\(address)]" : address.description)
        return port == 80 ? name : "\(name):\(port)"
    }

    public var description: String {
        guard let host else { return path }
        return "http://\(host)\(port == 80 ? "" : ":\(port)")\(path)"
    }
}

/// Where a probe leaves from and how long it may take.
public struct ProbeOptions: Hashable, Sendable {
    /// Bind the socket to this interface (`SO_BINDTODEVICE`): the probe
    /// leaves by it whatever the routing table prefers.
    public var interface: String?
    /// Send from this address (it must be local; same family as the target).
    public var source: IPAddress?
    /// Firewall mark (`SO_MARK`, needs `CAP_NET_ADMIN`): selects policy routes.
    public var mark: UInt32?
    /// How long to wait for the answer.
    public var timeout: Duration
    /// The port of the TCP connect that stands in for ICMP when no ICMP
    /// socket is allowed.
    public var fallbackPort: UInt16
    /// ICMP payload bytes (ping's `-s`, 56 by default; at most 1024).
    public var payloadSize: Int

    /// Options whose defaults leave the route to the routing table (no interface, source or mark),
    /// wait 2 s, fall back from ICMP to TCP port 80, and send ping's 56 payload bytes.
    public init(interface: String? = nil, source: IPAddress? = nil, mark: UInt32? = nil, timeout: Duration = .seconds(2),
                fallbackPort: UInt16 = 80, payloadSize: Int = 56) {
        self.interface = interface
        self.source = source
        self.mark = mark
        self.timeout = timeout
        self.fallbackPort = fallbackPort
        self.payloadSize = payloadSize
    }

    func validate() throws(ReachabilityError) {
        if let interface { try LookupOptions.validateInterfaceName(interface) }
        guard timeout > .zero, timeout <= .seconds(3600) else {
            throw .invalidConfiguration("probe timeout", reason: "must be more than 0 and at most 3600 s")
        }
        guard (0...1024).contains(payloadSize) else {
            throw .invalidConfiguration("probe payload size", reason: "must be 0...1024 bytes")
        }
        guard fallbackPort > 0 else { throw .invalidConfiguration("fallback port", reason: "must be 1...65535") }
    }
}

/// The socket a probe actually used.
public enum ProbeTransport: String, Hashable, Sendable {
    /// A raw ICMP socket (`SOCK_RAW`, needs `CAP_NET_RAW`); replies are matched by identifier and sequence.
    case icmpRaw = "icmp-raw"
    /// A ping socket (`SOCK_DGRAM`, `IPPROTO_ICMP` or `IPPROTO_ICMPV6`), open to a process with a group
    /// in `net.ipv4.ping_group_range`; the kernel sets the identifier.
    case icmpDatagram = "icmp-datagram"
    /// A TCP connect: a `tcp:PORT` probe, or `.icmp`'s fallback to `ProbeOptions.fallbackPort` when
    /// no ICMP socket could be opened.
    case tcpConnect = "tcp-connect"
    /// A TCP connection carrying one plain-HTTP GET (the captive-portal check).
    case http
    /// A UDP socket to port 53 carrying one DNS query.
    case dns
}

/// What a probe found.
public enum ProbeOutcome: Hashable, Sendable, CustomStringConvertible {
    /// The expected answer: an echo reply, a completed handshake, `204` (or an
    /// empty 2xx), an address.
    case answered
    /// A TCP reset or a UDP port unreachable: the host is there, the port is closed.
    case refused
    /// HTTP answered as a captive portal does: a redirect (3xx; `location` is
    /// its `Location` header, nil when it had none, an empty one, or one
    /// longer than 1023 bytes) or a page (a 2xx other than 204, or a 3xx, with a body;
    /// `location` nil for a 2xx).
    case captivePortal(status: Int, location: String?)
    /// HTTP answered with a status that is neither an answer nor a portal:
    /// 1xx, 4xx, 5xx. The probe failed.
    case unexpectedStatus(Int)
    /// The DNS server answered without an address (`rcode` 0 with no
    /// record, 3 NXDOMAIN, 2 SERVFAIL ...).
    case noAddress(rcode: Int)
    /// No answer within the timeout.
    case timedOut
    /// An ICMP error came back, or the kernel had no usable route (the errno
    /// a socket gets: `ENETUNREACH`, `EHOSTUNREACH`, `EACCES` for prohibit ...).
    case unreachable(SystemErrno)
    /// Something answered, but not in the protocol's terms.
    case malformedAnswer
    /// Stopped before it ended (a tracker being stopped).
    case canceled

    public var description: String {
        switch self {
        case .answered: return "answered"
        case .refused: return "refused"
        case let .captivePortal(status, location?): return "captive-portal \(status) → \(location)"
        case let .captivePortal(status, nil): return "captive-portal \(status)"
        case let .unexpectedStatus(status): return "unexpected-status \(status)"
        case let .noAddress(rcode): return "no-address rcode \(rcode)"
        case .timedOut: return "timed-out"
        case let .unreachable(errno): return "unreachable (\(errno))"
        case .malformedAnswer: return "malformed-answer"
        case .canceled: return "canceled"
        }
    }
}

/// The result of one probe.
public struct ProbeResult: Hashable, Sendable {
    /// The address that was probed.
    public let address: IPAddress
    /// What was asked.
    public let method: ProbeMethod
    /// The socket that was used (for `.icmp`, the raw or ping socket, or the TCP fallback).
    public let transport: ProbeTransport
    /// Why the transport is not the method's first choice (no `CAP_NET_RAW`,
    /// not in `ping_group_range` ...), nil when it is.
    public let fallbackReason: String?
    /// The destination port (TCP, HTTP, DNS), nil for ICMP.
    public let port: UInt16?
    /// What came back: an answer, a refusal, a captive portal, an ICMP error, a timeout ...
    public let outcome: ProbeOutcome
    /// The status code of an HTTP answer (204, 302 ...).
    public let httpStatus: Int?
    /// The `Location` of an HTTP redirect (a 3xx captive portal), nil otherwise.
    public var location: String? {
        if case let .captivePortal(_, location) = outcome { return location }
        return nil
    }
    /// From sending to the answer (or the error that ended the probe); nil on timeout.
    public let roundTrip: Duration?
    /// The first address of a DNS answer.
    public let resolvedAddress: IPAddress?
    /// Datagrams that arrived but were not this probe's answer.
    public let ignoredDatagrams: Int

    /// For the decision tables: answered, failed, or captive portal. A reset
    /// answers an ICMP probe that fell back to TCP (the host is there) but
    /// fails a `tcp:PORT` probe (the port is what was asked about). An HTTP
    /// 1xx, 4xx or 5xx (`.unexpectedStatus`) fails: no portal answers so.
    public var verdict: ProbeVerdict {
        switch outcome {
        case .answered: return .answered
        case .refused: return method == .icmp ? .answered : .failed
        case .captivePortal: return .captivePortal
        default: return .failed
        }
    }
}

/// What the bytes after an HTTP head showed (`creach_http_head.body`, settled).
enum HTTPBody: Hashable, Sendable {
    /// No content: `Content-Length: 0`, a first chunk of size 0, or no byte before the end.
    case empty
    /// Content announced (`Content-Length` > 0, a chunk) or received.
    case present
    /// A chunked body whose first chunk-size line is none.
    case malformed
}

extension ProbeOutcome {
    /// The outcome of a valid HTTP head, as Android's NetworkMonitor and
    /// Chromium's captive-portal detector read it: 204 and an empty 2xx are
    /// answered (a proxy may turn a 204 into an empty 200); a 2xx with a body
    /// (a login page) and any 3xx (a redirect; its `location`) are a captive
    /// portal; 1xx, 4xx and 5xx are `.unexpectedStatus` (failed). A 2xx whose
    /// chunked framing is broken is `.malformedAnswer`.
    static func http(status: Int, body: HTTPBody, location: String?) -> ProbeOutcome {
        switch status {
        case 204:
            return .answered
        case 200...299:
            switch body {
            case .empty: return .answered
            case .present: return .captivePortal(status: status, location: nil)
            case .malformed: return .malformedAnswer
            }
        case 300...399:
            return .captivePortal(status: status, location: location)
        default:
            return .unexpectedStatus(status)
        }
    }
}

/// Which ICMP sockets this process may open, and the order to try them.
public struct ICMPPermissions: Hashable, Sendable {
    /// `CAP_NET_RAW` is effective.
    public let raw: Bool
    /// `net.ipv4.ping_group_range` of the namespace, nil when unreadable.
    public let pingGroupRange: GroupRange?
    /// Our effective gid and supplementary groups.
    public let groups: [UInt32]

    /// Permissions from their parts (tests, or facts read elsewhere); ``Prober``'s `icmpPermissions()`
    /// reads them from the process and the namespace.
    public init(raw: Bool, pingGroupRange: GroupRange?, groups: [UInt32]) {
        self.raw = raw
        self.pingGroupRange = pingGroupRange
        self.groups = groups
    }

    /// Whether the kernel lets us open a ping socket (one of our groups in the range).
    public var datagram: Bool {
        guard let range = pingGroupRange else { return false }
        return groups.contains { range.contains($0) }
    }

    /// The transports for `.icmp`, best first: raw, ping socket, TCP connect.
    public var transports: [ProbeTransport] {
        (raw ? [.icmpRaw] : []) + (datagram ? [.icmpDatagram] : []) + [.tcpConnect]
    }

    /// Why `transport` was used instead of the ones before it.
    func fallbackReason(for transport: ProbeTransport, failures: [String]) -> String? {
        var reasons: [String] = []
        if transport != .icmpRaw && !raw { reasons.append("no CAP_NET_RAW") }
        if transport == .tcpConnect && !datagram {
            let groupList = groups.map(String.init).joined(separator: ",")
            if let range = pingGroupRange {
                reasons.append("groups \(groupList) not in ping_group_range \(range.low) \(range.high)")
            } else {
                reasons.append("ping_group_range unreadable")
            }
        }
        reasons += failures
        return reasons.isEmpty ? nil : reasons.joined(separator: "; ")
    }
}

/// A `LOW HIGH` pair of gids as `net.ipv4.ping_group_range` holds it. The
/// kernel's default, `1 0`, admits nobody (low above high).
public struct GroupRange: Hashable, Sendable {
    /// The lowest gid admitted: the file's first number.
    public let low: UInt32
    /// The highest gid admitted: the file's second number. Below `low`, nobody is admitted.
    public let high: UInt32

    /// A range from the file's two numbers, in its order.
    public init(low: UInt32, high: UInt32) {
        self.low = low
        self.high = high
    }

    /// Whether the kernel lets a process of group `gid` open a ping socket: `low` ≤ `gid` ≤ `high`.
    public func contains(_ gid: UInt32) -> Bool { low <= gid && gid <= high }
}

/// The case's name, as reflection printed it: also in a build without
/// reflection metadata (Tools/Footprint/firmware-minimal.flags).
extension DNSRecordType: CustomStringConvertible {
    public var description: String {
        switch self {
        case .a: return "a"
        case .aaaa: return "aaaa"
        }
    }
}

/// The case's name, as reflection printed it: also in a build without
/// reflection metadata (Tools/Footprint/firmware-minimal.flags).
extension ProbeTransport: CustomStringConvertible {
    public var description: String {
        switch self {
        case .icmpRaw: return "icmpRaw"
        case .icmpDatagram: return "icmpDatagram"
        case .tcpConnect: return "tcpConnect"
        case .http: return "http"
        case .dns: return "dns"
        }
    }
}
