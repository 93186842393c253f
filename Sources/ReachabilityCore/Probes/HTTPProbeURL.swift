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

    /// A URL from its parts, unchecked: a probe throws
    /// `ReachabilityError.invalidProbe(_:reason:)` for port 0 or a NUL in
    /// `host` or `path`.
    ///
    /// - Parameters:
    ///   - host: The name the `Host` header carries; nil names the probed address.
    ///   - port: The TCP port the request is sent to; 80 by default.
    ///   - path: The path of the GET, query included; `/generate_204` by default.
    public init(host: String?, port: UInt16 = 80, path: String = "/generate_204") {
        self.host = host
        self.port = port
        self.path = path
    }

    /// Parses `http://HOST[:PORT][/PATH]` or `/PATH`.
    ///
    /// - Parameter text: The URL, in visible ASCII without spaces. HOST is a
    ///   name, an IPv4 address or a bracketed IPv6 address; `/PATH` alone
    ///   names the probed address.
    /// - Throws: `ReachabilityError.invalidProbe(_:reason:)` for `https://`,
    ///   user information, a bad host or port, or text of neither form.
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
