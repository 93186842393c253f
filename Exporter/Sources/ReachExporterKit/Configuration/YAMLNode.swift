/// One node of a YAML document and the line (1-based) it starts on.
struct YAMLNode {
    indirect enum Value {
        /// A scalar's text, as written (quotes removed; `key:` with no value is "").
        case scalar(String)
        case sequence([YAMLNode])
        /// Keys and values in the order written (a key given twice is kept twice: the reader says so).
        case mapping([(key: YAMLNode, value: YAMLNode)])
    }

    var value: Value
    var line: Int

    /// The scalar's text; nil for a sequence or a mapping.
    var string: String? {
        if case let .scalar(text) = value { return text }
        return nil
    }
}
