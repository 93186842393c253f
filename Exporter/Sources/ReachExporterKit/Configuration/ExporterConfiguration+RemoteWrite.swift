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
