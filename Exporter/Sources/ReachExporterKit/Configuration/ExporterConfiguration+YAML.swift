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
        var checks: UplinkChecks?, checkInterval: Duration?
        if let node = keys["checks"] { (checks, checkInterval) = try uplinkChecks(node, "\(path).checks", reader) }
        var configuration: UplinkTracker.Configuration
        switch try keys["profile"].map({ (node) throws(ConfigurationError) in try reader.string(node, "\(path).profile") }) {
        case nil, "standard":
            configuration = UplinkTracker.Configuration(interface: interface, hosts: hosts, checks: checks)
        case "fast":
            // The fast profile runs its checks every 10 s; a `checks.interval` given still wins.
            configuration = .fast(interface: interface, hosts: hosts, checks: checks)
            if let checkInterval { configuration.checks?.interval = checkInterval }
        case "mwan3":
            configuration = .mwan3(interface: interface, hosts: hosts)
            configuration.checks = checks
        case let text?:
            throw reader.error(keys["profile"]!, "\(path).profile: takes \(uplinkProfiles.joined(separator: ", ")), not '\(text)'")
        }
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
        try quality(keys, path, reader, into: &configuration)
        if let node = keys["flap_limit"] {
            configuration.flapLimit = try reader.integer(node, "\(path).flap_limit")
            guard (0...100).contains(configuration.flapLimit) else {
                throw reader.error(node, "\(path).flap_limit: takes 0...100 (0: no damping), not \(configuration.flapLimit)")
            }
        }
        do {
            try configuration.validate()
        } catch {
            throw reader.error(node, "\(path): \(error)")
        }
        return configuration
    }

    /// The quality thresholds in mwan3's names: `failure_latency` and
    /// `recovery_latency` in milliseconds, `failure_loss` and `recovery_loss`
    /// in percent, over the profile's (`UplinkQuality`'s defaults, or
    /// mwan3's). A recovery threshold not given is lowered to its failure
    /// threshold when that is lower; the degraded thresholds (no mwan3
    /// option) always are.
    private static func quality(_ keys: [String: YAMLNode], _ path: String, _ reader: NodeReader,
                                into configuration: inout UplinkTracker.Configuration) throws(ConfigurationError) {
        let names = ["failure_latency", "failure_loss", "recovery_latency", "recovery_loss"]
        guard names.contains(where: { keys[$0] != nil }) else { return }
        var quality = configuration.quality ?? UplinkQuality()
        func milliseconds(_ name: String) throws(ConfigurationError) -> Duration? {
            guard let node = keys[name] else { return nil }
            let text = try reader.string(node, "\(path).\(name)")
            guard let value = Int(text), (0...86_400_000).contains(value) else {
                throw reader.error(node, "\(path).\(name): expected a whole number of milliseconds (0...86400000), not '\(text)'")
            }
            return .milliseconds(value)
        }
        func percent(_ name: String) throws(ConfigurationError) -> Int? {
            guard let node = keys[name] else { return nil }
            let text = try reader.string(node, "\(path).\(name)")
            guard let value = Int(text), (0...100).contains(value) else {
                throw reader.error(node, "\(path).\(name): expected a whole percentage (0...100), not '\(text)'")
            }
            return value
        }
        if let value = try milliseconds("failure_latency") { quality.failureLatency = value }
        if let value = try percent("failure_loss") { quality.failureLoss = value }
        if let value = try milliseconds("recovery_latency") {
            quality.recoveryLatency = value
        } else {
            quality.recoveryLatency = min(quality.recoveryLatency, quality.failureLatency)
        }
        if let value = try percent("recovery_loss") {
            quality.recoveryLoss = value
        } else {
            quality.recoveryLoss = min(quality.recoveryLoss, quality.failureLoss)
        }
        quality.degradedLatency = min(quality.degradedLatency, quality.failureLatency)
        quality.degradedLoss = min(quality.degradedLoss, quality.failureLoss)
        if let problem = quality.problem {
            throw reader.error(keys["recovery_latency"] ?? keys["recovery_loss"] ?? keys["failure_latency"] ?? keys["failure_loss"]!,
                               "\(path): \(problem.name): \(problem.reason)")
        }
        configuration.quality = quality
    }

    /// An uplink's `checks` mapping: what is checked beyond the rounds
    /// (`UplinkChecks`; a key not given keeps its default), and the
    /// `interval` when one was given (the fast profile sets its own otherwise).
    private static func uplinkChecks(_ node: YAMLNode, _ path: String,
                                     _ reader: NodeReader) throws(ConfigurationError) -> (UplinkChecks, interval: Duration?) {
        let keys = try reader.mapping(node, path, keys: checkKeys)
        var checks = UplinkChecks()
        func address(_ name: String) throws(ConfigurationError) -> IPAddress? {
            guard let node = keys[name] else { return nil }
            let text = try reader.string(node, "\(path).\(name)")
            guard let address = IPAddress(text) else { throw reader.error(node, "\(path).\(name): '\(text)' is not an IP address") }
            return address
        }
        checks.host = try address("host")
        checks.otherFamilyHost = try address("other_family_host")
        checks.dnsServer = try address("dns_server")
        if let node = keys["url"] {
            let text = try reader.string(node, "\(path).url")
            checks.url = try reader.at(node) { () throws(ConfigurationError) in
                try parsed("\(path).url", text) { () throws(ReachabilityError) in try HTTPProbeURL(parsing: text) }
            }
        }
        if let node = keys["ports"] {
            checks.ports = try reader.sequence(node, "\(path).ports").map { (item) throws(ConfigurationError) -> UInt16 in
                let text = try reader.string(item, "\(path).ports")
                guard let port = UInt16(text), port > 0 else { throw reader.error(item, "\(path).ports: '\(text)' is not a port (1...65535)") }
                return port
            }
        }
        if let node = keys["pmtu_size"] {
            let size = try reader.integer(node, "\(path).pmtu_size")
            guard size == 0 || (29...1500).contains(size) else {
                throw reader.error(node, "\(path).pmtu_size: takes 29...1500 bytes (IP header included; 49 for IPv6), or 0 for no path-MTU probe, not \(size)")
            }
            checks.pathMTUSize = size == 0 ? nil : size
        }
        if let node = keys["dns_name"] {
            let name = try reader.string(node, "\(path).dns_name")
            guard !name.isEmpty else { throw reader.error(node, "\(path).dns_name: needs a host name") }
            checks.dnsName = name
        }
        if let node = keys["dns_hijack"] { checks.dnsHijack = try reader.bool(node, "\(path).dns_hijack") }
        let interval = try keys["interval"].map { (node) throws(ConfigurationError) in try reader.duration(node, "\(path).interval") }
        if let interval { checks.interval = interval }
        // What the library would refuse later, said here with the key's line.
        var probe = UplinkTracker.Configuration(interface: "lo", hosts: [IPAddress("127.0.0.1")!], checks: checks)
        if let host = checks.host { probe.hosts = [host] }
        do {
            try probe.validate()
        } catch {
            throw reader.error(node, "\(path): \(error)")
        }
        return (checks, interval)
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
