import LinuxReachability

extension ExporterConfiguration {
    /// Reads the YAML text of a configuration file (`source` names it in messages).
    static func parse(yaml text: String, source: String) throws(ConfigurationError) -> ExporterConfiguration {
        let root: YAMLNode?
        do {
            root = try YAMLDocument.compose(text)
        } catch {
            throw ConfigurationError("\(source): not valid YAML: \(error)")
        }
        var configuration = ExporterConfiguration()
        guard let root else { return configuration }   // an empty file: the defaults
        let reader = NodeReader(source: source)
        let top = try reader.mapping(root, "the top level", keys: keys)
        if let node = top["listen"] {
            configuration.listen = try reader.at(node) { () throws(ConfigurationError) in
                try ListenAddress(parsing: try reader.string(node, "listen"))
            }
        }
        if let node = top["targets"] {
            configuration.targets = try reader.sequence(node, "targets").map { (item) throws(ConfigurationError) in
                let text = try reader.string(item, "targets")
                return try reader.at(item) { () throws(ConfigurationError) in try parsed("target", text) { () throws(ReachabilityError) in try Target(parsing: text) } }
            }
        }
        if let node = top["netns"] {
            let text = try reader.string(node, "netns")
            configuration.namespace = try reader.at(node) { () throws(ConfigurationError) in
                try parsed("netns", text) { () throws(ReachabilityError) in try NetworkNamespace(parsing: text) }
            }
        }
        if let node = top["validation"] {
            let text = try reader.string(node, "validation")
            configuration.validation = try reader.at(node) { () throws(ConfigurationError) in
                try parsed("validation", text) { () throws(ReachabilityError) in try Validation(parsing: text) }
            }
        }
        if let node = top["validation_interval"] {
            configuration.validationInterval = try reader.duration(node, "validation_interval")
        }
        if let node = top["resolve_timeout"] {
            configuration.resolveTimeout = try reader.duration(node, "resolve_timeout")
        }
        if let node = top["modemmanager"] {
            configuration.modemManager = try reader.bool(node, "modemmanager")
        }
        if let node = top["push_interval"] {
            configuration.pushInterval = try reader.duration(node, "push_interval")
            guard configuration.pushInterval >= .seconds(1) else { throw reader.error(node, "push_interval: at least 1s") }
        }
        if let node = top["external_labels"] {
            for (name, value) in try stringMapping(node, "external_labels", reader) {
                guard isLabelName(name), !name.hasPrefix("__") else {
                    throw reader.error(node, "external_labels: '\(name)' is not a label name ([a-zA-Z_][a-zA-Z0-9_]*, not __)")
                }
                guard !value.isEmpty else { throw reader.error(node, "external_labels: '\(name)' has no value") }
                configuration.externalLabels.append((name, value))
            }
        }
        if let node = top["remote_write"] {
            configuration.remoteWrites = try remoteWrites(node, reader)
        }
        if let node = top["uplinks"] {
            for (index, item) in try reader.sequence(node, "uplinks").enumerated() {
                configuration.uplinks.append(try uplink(item, "uplinks[\(index)]", reader))
            }
        }
        return configuration
    }

    private static func uplink(_ node: YAMLNode, _ path: String, _ reader: NodeReader) throws(ConfigurationError) -> UplinkTracker.Configuration {
        let keys = try reader.mapping(node, path, keys: uplinkKeys)
        guard let interfaceNode = keys["interface"] else { throw reader.error(node, "\(path): needs 'interface'") }
        guard let hostsNode = keys["hosts"] else { throw reader.error(node, "\(path): needs 'hosts' (addresses to probe)") }
        let interface = try reader.string(interfaceNode, "\(path).interface")
        let hosts = try reader.sequence(hostsNode, "\(path).hosts").map { (item) throws(ConfigurationError) -> IPAddress in
            let text = try reader.string(item, "\(path).hosts")
            guard let address = IPAddress(text) else { throw reader.error(item, "\(path).hosts: '\(text)' is not an IP address") }
            return address
        }
        var configuration = UplinkTracker.Configuration(interface: interface, hosts: hosts)
        if let node = keys["method"] {
            let text = try reader.string(node, "\(path).method")
            configuration.method = try reader.at(node) { () throws(ConfigurationError) in
                try parsed("\(path).method", text) { () throws(ReachabilityError) in try ProbeMethod(parsing: text) }
            }
        }
        if let node = keys["interval"] { configuration.interval = try reader.duration(node, "\(path).interval") }
        if let node = keys["timeout"] { configuration.timeout = try reader.duration(node, "\(path).timeout") }
        if let node = keys["failure_interval"] { configuration.failureInterval = try reader.duration(node, "\(path).failure_interval") }
        if let node = keys["recovery_interval"] { configuration.recoveryInterval = try reader.duration(node, "\(path).recovery_interval") }
        if let node = keys["down"] { configuration.down = try reader.integer(node, "\(path).down") }
        if let node = keys["up"] { configuration.up = try reader.integer(node, "\(path).up") }
        if let node = keys["reliability"] { configuration.reliability = try reader.integer(node, "\(path).reliability") }
        if let node = keys["count"] { configuration.count = try reader.integer(node, "\(path).count") }
        if let node = keys["initial_state"] {
            let text = try reader.string(node, "\(path).initial_state")
            guard let state = UplinkState(rawValue: text), state == .online || state == .offline else {
                throw reader.error(node, "\(path).initial_state: takes online or offline, not '\(text)'")
            }
            configuration.initialState = state
        }
        do {
            try configuration.validate()
        } catch {
            throw reader.error(node, "\(path): \(error)")
        }
        return configuration
    }

    /// Checks what the file and the flags gave together: targets (default
    /// `internet`), no interface tracked twice.
    mutating func finish() throws(ConfigurationError) {
        if targets.isEmpty { targets = [.internet] }
        guard targets.count <= Self.maximumTargets else {
            throw ConfigurationError("\(targets.count) targets: at most \(Self.maximumTargets) (each target's series are registered "
                                     + "at start-up, in a time that grows with the square of their number)")
        }
        var seen = Set<Target>()
        for target in targets where !seen.insert(target).inserted {
            throw ConfigurationError("target \(target) is given twice")
        }
        var interfaces = Set<String>()
        for uplink in uplinks where !interfaces.insert(uplink.interface).inserted {
            throw ConfigurationError("uplink \(uplink.interface) is given twice")
        }
        if validationInterval != nil && validation == nil {
            throw ConfigurationError("validation_interval needs validation")
        }
    }
}
