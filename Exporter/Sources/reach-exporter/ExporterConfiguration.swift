import LinuxReachability

/// What `reach-exporter` watches and where it listens: the YAML file
/// (`--config`) with the command line on top. Every value is checked before
/// anything is bound or started; a bad one is a `ConfigurationError` naming
/// the key (and the file's line) and what it takes.
struct ExporterConfiguration {
    /// Where /metrics is served. Loopback unless the configuration says otherwise.
    var listen = ListenAddress(host: "127.0.0.1", port: 9789)
    var targets: [Target] = []
    var namespace: NetworkNamespace = .current
    var validation: Validation?
    var validationInterval: Duration?
    /// How long a host-name target waits for its name server (the monitor's
    /// `resolveTimeout`, 5 s unless given).
    var resolveTimeout: Duration?
    var uplinks: [UplinkTracker.Configuration] = []
    /// Whether ModemManager's modems are followed (`modemmanager`, true
    /// unless the file says false): their technology and interfaces feed the
    /// classification, and they have series of their own.
    var modemManager = true
    /// How often the exporter's series are sampled for `remote_write` (`push_interval`, 15 s unless given).
    var pushInterval: Duration = .seconds(15)
    /// Labels added to every pushed series, not to /metrics (`external_labels`: the gateway's identity).
    var externalLabels: [(name: String, value: String)] = []
    /// Receivers the series are pushed to (`remote_write`); none: scrape only.
    var remoteWrites: [RemoteWriteConfiguration] = []

    /// The most targets one exporter watches. Each target's 18 series are
    /// registered with swift-prometheus at start-up, which copies a family's
    /// series for every one it adds: the time to listening grows with the
    /// square of the targets (issue 52: 1,000 3.4 s, 2,000 14.9 s, 4,000 68 s,
    /// past the unit's TimeoutStartSec=60s; 10,000 not listening after
    /// 137 s). `finish` (and so --check-config, and start-up) refuses more.
    static let maximumTargets = 1000

    /// The keys of the file, for the message about one that is not.
    static let keys = ["listen", "targets", "netns", "validation", "validation_interval", "resolve_timeout", "uplinks", "modemmanager",
                       "push_interval", "external_labels", "remote_write"]
    static let uplinkKeys = ["interface", "hosts", "method", "interval", "timeout", "failure_interval",
                             "recovery_interval", "down", "up", "reliability", "count", "initial_state"]

    /// The monitor's configuration: validation, if asked for, and the resolve timeout.
    func monitorConfiguration() -> ReachabilityMonitor.Configuration {
        var configuration = ReachabilityMonitor.Configuration()
        configuration.validation = validation
        if let validationInterval { configuration.validationInterval = validationInterval }
        if let resolveTimeout { configuration.resolveTimeout = resolveTimeout }
        return configuration
    }
}

struct ConfigurationError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// `HOST:PORT` or `[IPV6]:PORT`; the host is an address literal.
struct ListenAddress: Equatable, CustomStringConvertible {
    var host: String
    var port: Int

    init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    init(parsing text: String) throws(ConfigurationError) {
        let host: Substring, port: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                throw ConfigurationError("listen '\(text)': takes [IPV6]:PORT")
            }
            host = text[text.index(after: text.startIndex) ..< close]
            port = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":"), text.firstIndex(of: ":") == colon else {
                throw ConfigurationError("listen '\(text)': takes HOST:PORT (an IPv6 host in brackets)")
            }
            host = text[..<colon]
            port = text[text.index(after: colon)...]
        }
        guard IPAddress(String(host)) != nil else {
            throw ConfigurationError("listen '\(text)': '\(host)' is not an IPv4 or IPv6 address")
        }
        // Digits only: Int's parser takes a sign, and `+80` was port 80.
        guard !port.isEmpty, port.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              let number = Int(port), (1 ... 65535).contains(number) else {
            throw ConfigurationError("listen '\(text)': the port must be 1...65535")
        }
        self.host = String(host)
        self.port = number
    }

    var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

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

/// A Prometheus label name: `[a-zA-Z_][a-zA-Z0-9_]*`.
func isLabelName(_ name: String) -> Bool {
    guard let first = name.utf8.first, first == UInt8(ascii: "_") || (first | 0x20) >= UInt8(ascii: "a") && (first | 0x20) <= UInt8(ascii: "z") else {
        return false
    }
    return name.utf8.allSatisfy { $0 == UInt8(ascii: "_") || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9"))
        || (($0 | 0x20) >= UInt8(ascii: "a") && ($0 | 0x20) <= UInt8(ascii: "z")) }
}

/// A library parser's typed error as a configuration error naming the key.
func parsed<T>(_ key: String, _ text: String, _ body: () throws(ReachabilityError) -> T) throws(ConfigurationError) -> T {
    do {
        return try body()
    } catch {
        throw ConfigurationError("\(key) '\(text)': \(error)")
    }
}

/// Typed access to YAML nodes, each error with the file and the line.
struct NodeReader {
    let source: String

    func error(_ node: YAMLNode, _ message: String) -> ConfigurationError {
        ConfigurationError("\(source):\(node.line): \(message)")
    }

    /// Runs `body`; its error gets the node's line.
    func at<T>(_ node: YAMLNode, _ body: () throws(ConfigurationError) -> T) throws(ConfigurationError) -> T {
        do {
            return try body()
        } catch {
            throw self.error(node, error.description)
        }
    }

    func mapping(_ node: YAMLNode, _ path: String, keys known: [String]) throws(ConfigurationError) -> [String: YAMLNode] {
        guard case let .mapping(mapping) = node.value else { throw error(node, "\(path): expected a mapping of keys") }
        var values: [String: YAMLNode] = [:]
        for (key, value) in mapping {
            guard let name = key.string, known.contains(name) else {
                throw error(key, "\(path): unknown key '\(key.string ?? "?")' (known: \(known.joined(separator: ", ")))")
            }
            guard values[name] == nil else { throw error(key, "\(path): '\(name)' is given twice") }
            values[name] = value
        }
        return values
    }

    func sequence(_ node: YAMLNode, _ path: String) throws(ConfigurationError) -> [YAMLNode] {
        guard case let .sequence(sequence) = node.value else { throw error(node, "\(path): expected a list") }
        return sequence
    }

    func string(_ node: YAMLNode, _ path: String) throws(ConfigurationError) -> String {
        guard case let .scalar(text) = node.value else { throw error(node, "\(path): expected a value, not a list or mapping") }
        return text
    }

    func integer(_ node: YAMLNode, _ path: String) throws(ConfigurationError) -> Int {
        let text = try string(node, path)
        guard let value = Int(text) else { throw error(node, "\(path): expected a whole number, not '\(text)'") }
        return value
    }

    func bool(_ node: YAMLNode, _ path: String) throws(ConfigurationError) -> Bool {
        let text = try string(node, path)
        switch text {
        case "true": return true
        case "false": return false
        default: throw error(node, "\(path): expected true or false, not '\(text)'")
        }
    }

    /// `5s`, `500ms`, `2m`, `1h`, or a number of seconds.
    func duration(_ node: YAMLNode, _ path: String) throws(ConfigurationError) -> Duration {
        let text = try string(node, path)
        guard let duration = parseDuration(text) else {
            throw error(node, "\(path): expected a duration such as 5s, 500ms or 2m, not '\(text)'")
        }
        return duration
    }
}

/// `5s`, `500ms`, `2m`, `1h`, or a number of seconds (fractions allowed);
/// positive and at most a day. Nil otherwise.
func parseDuration(_ text: String) -> Duration? {
    let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600)]
    var number = Substring(text), scale = 1.0
    for (suffix, factor) in units where text.hasSuffix(suffix) {
        number = text.dropLast(suffix.count)
        scale = factor
        break
    }
    guard let value = Double(number), value.isFinite, value > 0, value * scale <= 86_400 else { return nil }
    return .milliseconds(Int64((value * scale * 1000).rounded(.up)))
}
