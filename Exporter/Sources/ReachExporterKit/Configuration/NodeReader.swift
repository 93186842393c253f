import LinuxReachability

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
        guard let duration = Duration(configurationText: text) else {
            throw error(node, "\(path): expected a duration such as 5s, 500ms or 2m, not '\(text)'")
        }
        return duration
    }
}
