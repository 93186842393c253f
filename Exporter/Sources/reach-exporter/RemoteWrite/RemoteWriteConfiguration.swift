/// One `remote_write` receiver, configured as Prometheus configures its own
/// (the same keys and defaults where Prometheus has them; "Running a fleet",
/// "Pushing through NAT"). Files (password, token, certificates) are read when
/// the exporter starts, so that a missing one is a configuration error.
struct RemoteWriteConfiguration: Sendable {
    /// Where to POST: `http` or `https`, host (a name or an address, IPv6 in brackets), port, path.
    var url: RemoteURL
    /// The `remote` label of the exporter's own push series; the URL's host:port unless given.
    var name: String
    /// One request's time: connecting, TLS, sending, the answer (Prometheus: 30s).
    var remoteTimeout: Duration = .seconds(30)
    var headers: [(name: String, value: String)] = []
    var authorization: Authorization?
    var tls = TLS()
    var queue = Queue()

    enum Authorization: Sendable {
        case basic(username: String, password: Secret)
        case bearer(Secret)
    }

    /// A password or a token: inline, or a file read at start (and again at
    /// each new connection, so that a rotated file is picked up).
    enum Secret: Sendable {
        case inline(String)
        case file(String)
    }

    struct TLS: Sendable {
        var caFile: String?
        var certFile: String?
        var keyFile: String?
        /// The name sent (SNI) and verified; the URL's host unless given.
        var serverName: String?
        var insecureSkipVerify = false
    }

    /// The queue of one receiver (Prometheus' `queue_config` keys; the sizes
    /// chosen for a gateway, documented in "Pushing through NAT").
    struct Queue: Sendable {
        /// Samples held at most: 50,000 is an hour of 200 series every 15 s,
        /// about 1.2 MB. Beyond it the oldest are dropped (`queue_full`).
        var capacity = 50_000
        /// Samples older than this are dropped (`too_old`) rather than sent:
        /// a receiver's head block takes samples of about the last hour.
        var sampleAgeLimit: Duration = .seconds(3600)
        /// Samples in one request (Prometheus: 2,000).
        var maxSamplesPerSend = 2_000
        /// Backoff after a failure that is retried, doubled up to `maxBackoff`,
        /// with jitter (Prometheus: 30ms and 5s).
        var minBackoff: Duration = .milliseconds(30)
        var maxBackoff: Duration = .seconds(5)
        /// Whether 429 Too Many Requests is retried (else dropped as another 4xx).
        var retryOnHTTP429 = true
    }

    static let keys = ["url", "name", "remote_timeout", "headers", "basic_auth", "bearer_token", "bearer_token_file",
                       "tls_config", "queue_config"]
    static let tlsKeys = ["ca_file", "cert_file", "key_file", "server_name", "insecure_skip_verify"]
    static let queueKeys = ["capacity", "sample_age_limit", "max_samples_per_send", "min_backoff", "max_backoff",
                            "retry_on_http_429"]
    /// Headers a configuration may not set: the protocol's own.
    static let reservedHeaders = ["host", "authorization", "content-encoding", "content-type", "content-length",
                                  "user-agent", "x-prometheus-remote-write-version", "connection"]
}

/// `http://HOST[:PORT]/PATH` or `https://...`; what a remote_write URL takes.
struct RemoteURL: Sendable, Equatable, CustomStringConvertible {
    var secure: Bool
    /// A name or an address (an IPv6 address without its brackets).
    var host: String
    var port: Int
    /// The path and query, `/` at least.
    var path: String

    init(parsing text: String) throws(ConfigurationError) {
        // Errors show the URL without its user information: a password in it is not repeated to the journal.
        let shown = escapingControlCharacters(Self.redacted(text))
        let rest: Substring
        if text.hasPrefix("https://") {
            (secure, rest) = (true, text.dropFirst(8))
        } else if text.hasPrefix("http://") {
            (secure, rest) = (false, text.dropFirst(7))
        } else {
            throw ConfigurationError("url '\(shown)': takes http:// or https://")
        }
        let authority = rest.prefix { $0 != "/" && $0 != "?" }
        let tail = rest[authority.endIndex...]
        path = tail.isEmpty ? "/" : (tail.hasPrefix("/") ? String(tail) : "/" + tail)
        guard !authority.contains("@") else {
            throw ConfigurationError("url '\(shown)': credentials go in basic_auth, not in the URL")
        }
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw ConfigurationError("url '\(shown)': an unclosed '['") }
            host = String(authority[authority.index(after: authority.startIndex) ..< close])
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") { portText = after.dropFirst() } else if !after.isEmpty {
                throw ConfigurationError("url '\(shown)': expected ':PORT' after the address")
            }
        } else if let colon = authority.firstIndex(of: ":") {
            host = String(authority[..<colon])
            portText = authority[authority.index(after: colon)...]
        } else {
            host = String(authority)
        }
        guard !host.isEmpty else { throw ConfigurationError("url '\(shown)': no host") }
        if let portText {
            guard let number = Int(portText), (1 ... 65535).contains(number) else {
                throw ConfigurationError("url '\(shown)': the port must be 1...65535")
            }
            port = number
        } else {
            port = secure ? 443 : 80
        }
    }

    /// `text` with the user information of its authority (`user:password@`)
    /// replaced by `<redacted>@`: what a message may show of a URL.
    static func redacted(_ text: String) -> String {
        let start = afterScheme(text) ?? text.startIndex
        let end = text[start...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? text.endIndex
        guard let at = text[start ..< end].lastIndex(of: "@") else { return text }
        return String(text[..<start]) + "<redacted>" + String(text[at...])
    }

    /// Where what follows `scheme://` starts; nil without one. (Not
    /// firstRange(of:): _StringProcessing's, 1 MB of regex engine.)
    private static func afterScheme(_ text: String) -> String.Index? {
        var index = text.startIndex
        while index < text.endIndex {
            if text[index...].hasPrefix("://") { return text.index(index, offsetBy: 3) }
            if !(text[index].isLetter || text[index].isNumber || "+-.".contains(text[index])) { return nil }
            index = text.index(after: index)
        }
        return nil
    }

    /// Scheme, host and port: what one connection reaches.
    var origin: String { "\(secure ? "https" : "http")://\(authority)" }

    /// Where a redirect's `Location` leads from this URL: an absolute
    /// http(s) URL, `//host/path` (this scheme), `/path` or a path relative
    /// to this one's directory; nil for anything else (a URL with user
    /// information, another scheme).
    func resolving(_ location: String) -> RemoteURL? {
        if location.hasPrefix("http://") || location.hasPrefix("https://") { return try? RemoteURL(parsing: location) }
        if location.hasPrefix("//") { return try? RemoteURL(parsing: (secure ? "https:" : "http:") + location) }
        guard !location.isEmpty, Self.afterScheme(location) == nil else { return nil }
        var next = self
        if location.hasPrefix("/") {
            next.path = location
        } else {
            let directory = path.prefix { $0 != "?" }
            next.path = String(directory[...(directory.lastIndex(of: "/") ?? directory.startIndex)]) + location
        }
        return next
    }

    /// host:port, an IPv6 host in brackets.
    var authority: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
    var description: String { "\(secure ? "https" : "http")://\(authority)\(path)" }
}

extension ExporterConfiguration {
    /// `remote_write:`'s entries; names must differ (they label the series).
    static func remoteWrites(_ node: YAMLNode, _ reader: NodeReader) throws(ConfigurationError) -> [RemoteWriteConfiguration] {
        var remotes: [RemoteWriteConfiguration] = []
        for (index, item) in try reader.sequence(node, "remote_write").enumerated() {
            let remote = try remoteWrite(item, "remote_write[\(index)]", reader)
            guard !remotes.contains(where: { $0.name == remote.name }) else {
                throw reader.error(item, "remote_write[\(index)]: the name '\(remote.name)' is given twice (set 'name' to tell them apart)")
            }
            remotes.append(remote)
        }
        return remotes
    }

    private static func remoteWrite(_ node: YAMLNode, _ path: String, _ reader: NodeReader) throws(ConfigurationError) -> RemoteWriteConfiguration {
        let keys = try reader.mapping(node, path, keys: RemoteWriteConfiguration.keys)
        guard let urlNode = keys["url"] else { throw reader.error(node, "\(path): needs 'url'") }
        let urlText = try reader.string(urlNode, "\(path).url")
        let url = try reader.at(urlNode) { () throws(ConfigurationError) in try RemoteURL(parsing: urlText) }
        var remote = RemoteWriteConfiguration(url: url, name: url.authority)
        if let node = keys["name"] {
            remote.name = try reader.string(node, "\(path).name")
            guard !remote.name.isEmpty, remote.name.utf8.allSatisfy({ $0 > 0x20 && $0 != 0x7F }) else {
                throw reader.error(node, "\(path).name: takes a word without spaces")
            }
        }
        if let node = keys["remote_timeout"] { remote.remoteTimeout = try reader.duration(node, "\(path).remote_timeout") }
        if let node = keys["headers"] {
            for (name, value) in try stringMapping(node, "\(path).headers", reader) {
                guard !name.isEmpty, name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ":") }),
                      value.utf8.allSatisfy({ $0 >= 0x20 && $0 != 0x7F }) else {
                    throw reader.error(node, "\(path).headers: '\(name)' is not a header name and value of printable text")
                }
                guard !RemoteWriteConfiguration.reservedHeaders.contains(name.lowercased()) else {
                    throw reader.error(node, "\(path).headers: '\(name)' is the protocol's own (basic_auth and bearer_token set Authorization)")
                }
                remote.headers.append((name, value))
            }
        }
        if let node = keys["basic_auth"] {
            let auth = try reader.mapping(node, "\(path).basic_auth", keys: ["username", "password", "password_file"])
            guard let userNode = auth["username"] else { throw reader.error(node, "\(path).basic_auth: needs 'username'") }
            let username = try reader.string(userNode, "\(path).basic_auth.username")
            guard !username.contains(":") else { throw reader.error(userNode, "\(path).basic_auth.username: may not hold ':'") }
            let password = try secret(auth["password"], auth["password_file"], node, "\(path).basic_auth", "password", reader)
            remote.authorization = .basic(username: username, password: password)
        }
        if keys["bearer_token"] != nil || keys["bearer_token_file"] != nil {
            guard remote.authorization == nil else {
                throw reader.error(node, "\(path): basic_auth and bearer_token are one or the other")
            }
            remote.authorization = .bearer(try secret(keys["bearer_token"], keys["bearer_token_file"], node, path, "bearer_token", reader))
        }
        if let node = keys["tls_config"] {
            let tls = try reader.mapping(node, "\(path).tls_config", keys: RemoteWriteConfiguration.tlsKeys)
            for (key, keyPath) in [("ca_file", \RemoteWriteConfiguration.TLS.caFile), ("cert_file", \.certFile),
                                   ("key_file", \.keyFile), ("server_name", \.serverName)] {
                if let value = tls[key] { remote.tls[keyPath: keyPath] = try reader.string(value, "\(path).tls_config.\(key)") }
            }
            if let value = tls["insecure_skip_verify"] {
                remote.tls.insecureSkipVerify = try reader.bool(value, "\(path).tls_config.insecure_skip_verify")
            }
            guard (remote.tls.certFile == nil) == (remote.tls.keyFile == nil) else {
                throw reader.error(node, "\(path).tls_config: cert_file and key_file go together")
            }
            guard url.secure else { throw reader.error(node, "\(path).tls_config: the url is http://, not https://") }
        }
        if let node = keys["queue_config"] {
            let queue = try reader.mapping(node, "\(path).queue_config", keys: RemoteWriteConfiguration.queueKeys)
            func positive(_ key: String, _ limit: Int) throws(ConfigurationError) -> Int? {
                guard let value = queue[key] else { return nil }
                let number = try reader.integer(value, "\(path).queue_config.\(key)")
                guard (1 ... limit).contains(number) else {
                    throw reader.error(value, "\(path).queue_config.\(key): takes 1...\(limit), not \(number)")
                }
                return number
            }
            if let value = try positive("capacity", 10_000_000) { remote.queue.capacity = value }
            if let value = try positive("max_samples_per_send", 100_000) { remote.queue.maxSamplesPerSend = value }
            if let value = queue["sample_age_limit"] { remote.queue.sampleAgeLimit = try reader.duration(value, "\(path).queue_config.sample_age_limit") }
            if let value = queue["min_backoff"] { remote.queue.minBackoff = try reader.duration(value, "\(path).queue_config.min_backoff") }
            if let value = queue["max_backoff"] { remote.queue.maxBackoff = try reader.duration(value, "\(path).queue_config.max_backoff") }
            if let value = queue["retry_on_http_429"] { remote.queue.retryOnHTTP429 = try reader.bool(value, "\(path).queue_config.retry_on_http_429") }
            guard remote.queue.minBackoff <= remote.queue.maxBackoff else {
                throw reader.error(node, "\(path).queue_config: min_backoff is longer than max_backoff")
            }
        }
        return remote
    }

    /// `key` inline or `key_file`, exactly one of them.
    private static func secret(_ inline: YAMLNode?, _ file: YAMLNode?, _ node: YAMLNode, _ path: String, _ key: String,
                               _ reader: NodeReader) throws(ConfigurationError) -> RemoteWriteConfiguration.Secret {
        switch (inline, file) {
        case let (inline?, nil): return .inline(try reader.string(inline, "\(path).\(key)"))
        case let (nil, file?): return .file(try reader.string(file, "\(path).\(key)_file"))
        case (nil, nil): throw reader.error(node, "\(path): needs '\(key)' or '\(key)_file'")
        case (_?, _?): throw reader.error(node, "\(path): '\(key)' and '\(key)_file' are one or the other")
        }
    }

    /// A mapping of scalars, in the order written.
    static func stringMapping(_ node: YAMLNode, _ path: String, _ reader: NodeReader) throws(ConfigurationError) -> [(String, String)] {
        guard case let .mapping(entries) = node.value else { throw reader.error(node, "\(path): expected a mapping of names to values") }
        var result: [(String, String)] = []
        for (key, value) in entries {
            let name = try reader.string(key, path)
            guard !result.contains(where: { $0.0 == name }) else { throw reader.error(key, "\(path): '\(name)' is given twice") }
            result.append((name, try reader.string(value, "\(path).\(name)")))
        }
        return result
    }
}
