// Validation: is a routed network actually usable? NetworkManager's
// connectivity check and Android's validation, in a library and without a
// daemon: an active probe through the target's current output interface,
// after every change to reachable and periodically while reachable. Its
// verdict feeds the flags (a captive portal sets interventionRequired) and
// accessibility (captive, or restricted(.probeFailed) when the probe failed
// over an up link). The monitor runs it (MonitorLoop); this is what to ask.

/// How a monitor validates a reachable target. Validation traffic goes only
/// to the hosts named here, or to the target itself.
public enum Validation: Hashable, Sendable, CustomStringConvertible {
    /// An HTTP GET that expects 204 (Android's verdicts: 3xx or a 2xx/3xx with
    /// a body is a captive portal; 4xx/5xx failed). A URL without a host
    /// (`/generate_204`) asks the target's own address.
    case http(HTTPProbeURL)
    /// A DNS query for `name` (nil: the target's own host name) sent to
    /// `server` (nil: the namespace's first name server).
    case dns(name: String?, server: IPAddress?)
    /// An ICMP echo to `host` (an address or a name resolved in the namespace).
    case icmp(host: String)
    /// A TCP connect to `host`:`port`.
    case tcp(host: String, port: UInt16)

    /// Parses a validation as `reach watch --validate` takes it.
    ///
    /// - Parameter text: `http` (``http(_:)`` of `/generate_204` at the
    ///   target's own address), `http:URL` (``HTTPProbeURL/init(parsing:)``),
    ///   `dns`, `dns:NAME`, `icmp:HOST` or `tcp:HOST:PORT` (an IPv6 host in
    ///   brackets: `tcp:[fd00::1]:80`).
    /// - Throws: `ReachabilityError.invalidProbe(_:reason:)` for text of none
    ///   of these forms, a bad URL, name or host, or a port that is not 1...65535.
    public init(parsing text: String) throws(ReachabilityError) {
        func bad(_ reason: String) -> ReachabilityError { .invalidProbe(text, reason: reason) }
        let (kind, argument) = text.firstIndex(of: ":").map { (String(text[..<$0]), String(text[text.index(after: $0)...])) }
            ?? (text, nil)
        switch (kind, argument) {
        case ("http", _):
            guard case let .http(url) = try ProbeMethod(parsing: text) else { throw bad("not an HTTP check") }
            self = .http(url)
        case ("dns", nil):
            self = .dns(name: nil, server: nil)
        case let ("dns", name?):
            guard case let .dns(name, _) = try ProbeMethod(parsing: "dns:\(name)") else { throw bad("not a DNS check") }
            self = .dns(name: name, server: nil)
        case let ("icmp", host?):
            try Validation.validateHost(host, in: text)
            self = .icmp(host: host)
        case let ("tcp", rest?):
            guard let colon = rest.lastIndex(of: ":"), let port = UInt16(rest[rest.index(after: colon)...]), port > 0 else {
                throw bad("expected tcp:HOST:PORT with PORT 1...65535")
            }
            var host = String(rest[..<colon])
            if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            try Validation.validateHost(host, in: text)
            self = .tcp(host: host, port: port)
        default:
            throw bad("expected http[:URL], dns[:NAME], icmp:HOST or tcp:HOST:PORT")
        }
    }

    private static func validateHost(_ host: String, in text: String) throws(ReachabilityError) {
        guard IPAddress(host) == nil else { return }
        do { try Target.validateHostName(host) } catch { throw .invalidProbe(text, reason: "bad host '\(host)'") }
    }

    /// The probe it sends.
    var method: ProbeMethod {
        switch self {
        case let .http(url): return .http(url)
        case let .dns(name, _): return .dns(name: name ?? "", type: .a)
        case .icmp: return .icmp
        case let .tcp(_, port): return .tcp(port: port)
        }
    }

    public var description: String {
        switch self {
        case let .http(url): return "http:\(url)"
        case let .dns(name, server): return "dns" + (name.map { ":\($0)" } ?? "") + (server.map { "@\($0)" } ?? "")
        case let .icmp(host): return "icmp:\(host)"
        case let .tcp(host, port): return "tcp:\(host.contains(":") ? "[\(host)]" : host):\(port)"
        }
    }
}

/// A configured validation and how the monitor gets its prober. The prober is
/// named only in `init`, which only `Configuration.validation`'s setter calls:
/// the linker drops the probes from programs that never validate.
struct ValidationProbe: Sendable {
    /// Sends one probe: the address, the probe, its options and an eventfd
    /// (or -1) that cancels its wait.
    typealias Send = @Sendable (IPAddress, ProbeMethod, ProbeOptions, Int32) throws(ReachabilityError) -> ProbeResult

    let validation: Validation
    /// A prober for the monitor's namespace.
    let makeProbe: @Sendable (NetworkNamespace) throws(ReachabilityError) -> Send

    init(_ validation: Validation) {
        self.validation = validation
        makeProbe = { namespace throws(ReachabilityError) in
            let prober = try Prober(namespace: namespace)
            return { address, method, options, wakeFD throws(ReachabilityError) in
                try prober.probe(address, method: method, options: options, wakeFD: wakeFD)
            }
        }
    }
}
