// The configuration file's YAML, read with libyaml's event parser (Debian's
// libyaml-0-2, through the CYAML system-library target): its one document
// as a tree of scalars, sequences and mappings, each node with its line.
// Nesting is refused past `maximumDepth` as the events come, before any tree
// exists: 40,000 levels once overflowed the stack when the tree was released,
// and 100,000 levels of `[` kept libyaml busy for 108 s.
// That is all the configuration needs; no Foundation (issue 43: Yams brought
// it, and ICU's data with it).

internal import CYAML

/// Why a text is not YAML the configuration can read: libyaml's problem and
/// where it was found, on one line.
struct YAMLError: Error, CustomStringConvertible {
    var description: String
}

enum YAMLDocument {
    /// The deepest nesting of sequences and mappings read: a configuration
    /// needs four levels (`uplinks`, an uplink, its `hosts`).
    static let maximumDepth = 64

    /// The document of `text`; nil when the text holds none (an empty file,
    /// or only comments). A second document, or nesting deeper than
    /// `maximumDepth`, is an error.
    static func compose(_ text: String) throws(YAMLError) -> YAMLNode? {
        var bytes = Array(text.utf8)
        if bytes.isEmpty { return nil }
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else { throw YAMLError(description: "libyaml could not start (out of memory)") }
        defer { yaml_parser_delete(&parser) }
        return try bytes.withUnsafeMutableBufferPointer { (buffer) throws(YAMLError) -> YAMLNode? in
            yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
            var composer = Composer()
            while true {
                var event = yaml_event_t()
                guard yaml_parser_parse(&parser, &event) == 1 else { throw problem(parser) }
                defer { yaml_event_delete(&event) }
                let line = Int(event.start_mark.line) + 1
                if composer.ended {
                    // After the first document's end: the stream's end, or a second document.
                    guard event.type == YAML_STREAM_END_EVENT else {
                        throw YAMLError(description: "line \(line): a second YAML document; a configuration is one document")
                    }
                    return composer.root
                }
                switch event.type {
                case YAML_SCALAR_EVENT:
                    let scalar = event.data.scalar
                    let text = scalar.value.map { String(decoding: UnsafeBufferPointer(start: $0, count: Int(scalar.length)), as: UTF8.self) } ?? ""
                    composer.add(YAMLNode(value: .scalar(text), line: line))
                case YAML_SEQUENCE_START_EVENT, YAML_MAPPING_START_EVENT:
                    guard composer.open.count < maximumDepth else {
                        throw YAMLError(description: "line \(line) column \(event.start_mark.column + 1): nested deeper than \(maximumDepth) levels")
                    }
                    composer.open(event.type == YAML_SEQUENCE_START_EVENT ? .sequence : .mapping, line: line)
                case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT: composer.close()
                case YAML_ALIAS_EVENT:
                    throw YAMLError(description: "line \(line): aliases (*name) are not read in a configuration; write the value again")
                case YAML_DOCUMENT_END_EVENT:
                    composer.ended = true
                case YAML_STREAM_END_EVENT:
                    return composer.root
                default:
                    break   // stream and document starts
                }
            }
        }
    }

    private static func problem(_ parser: yaml_parser_t) -> YAMLError {
        let what = parser.problem.map { String(cString: $0) } ?? "cannot be read"
        var text = "line \(parser.problem_mark.line + 1) column \(parser.problem_mark.column + 1): \(what)"
        if let context = parser.context.map({ String(cString: $0) }) {
            text += " (\(context), line \(parser.context_mark.line + 1))"
        }
        return YAMLError(description: text)
    }

    /// Builds the tree from the events: the collections still open, innermost last.
    private struct Composer {
        enum Kind { case sequence, mapping }
        var open: [(kind: Kind, line: Int, items: [YAMLNode])] = []
        var root: YAMLNode?
        /// The document's end was read.
        var ended = false

        mutating func add(_ node: YAMLNode) {
            if open.isEmpty { root = node } else { open[open.count - 1].items.append(node) }
        }

        mutating func open(_ kind: Kind, line: Int) { open.append((kind, line, [])) }

        mutating func close() {
            guard let collection = open.popLast() else { return }
            switch collection.kind {
            case .sequence:
                add(YAMLNode(value: .sequence(collection.items), line: collection.line))
            case .mapping:
                // libyaml gives a mapping's events key, value, key, value.
                let items = collection.items
                let pairs = stride(from: 0, to: items.count - 1, by: 2).map { (key: items[$0], value: items[$0 + 1]) }
                add(YAMLNode(value: .mapping(pairs), line: collection.line))
            }
        }
    }
}
