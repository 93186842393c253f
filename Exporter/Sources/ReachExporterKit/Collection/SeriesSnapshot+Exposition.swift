/// Prometheus' text exposition (format 0.0.4), written from the snapshot:
/// each family's `# HELP` and `# TYPE` lines, then a line per sample,
/// `name{label="value",...} value`, label values escaped (`\\`, `\"`, `\n`).
/// Counts are written as integers, gauges as Swift writes a double (`1.0`,
/// `nan`), sums of durations in seconds to their last digit (`0.0025`): the
/// forms Prometheus' Swift client (swift-prometheus) writes, so that scrapers,
/// dashboards and tests read the same lines whichever wrote them.
extension SeriesSnapshot {
    /// Every family's text, in order.
    func exposition() -> [UInt8] {
        var text: [UInt8] = []
        for part in parts { part.exposition(into: &text) }
        return text
    }
}

extension SeriesSnapshot.Part {
    /// The part's families' text, appended to `text`.
    func exposition(into text: inout [UInt8]) {
        for family in families { family.exposition(into: &text) }
    }
}

extension MetricFamily {
    /// The family's text, appended to `text`.
    func exposition(into text: inout [UInt8]) {
        text.append(contentsOf: "# HELP ".utf8)
        text.append(contentsOf: name.utf8)
        text.append(UInt8(ascii: " "))
        Self.append(help, escaping: false, to: &text)
        text.append(contentsOf: "\n# TYPE ".utf8)
        text.append(contentsOf: name.utf8)
        text.append(UInt8(ascii: " "))
        text.append(contentsOf: kind.rawValue.utf8)
        text.append(UInt8(ascii: "\n"))
        for sample in samples {
            text.append(contentsOf: name.utf8)
            text.append(contentsOf: sample.suffix.utf8)
            if !sample.labels.isEmpty {
                text.append(UInt8(ascii: "{"))
                for (index, label) in sample.labels.enumerated() {
                    if index > 0 { text.append(UInt8(ascii: ",")) }
                    text.append(contentsOf: label.name.utf8)
                    text.append(contentsOf: "=\"".utf8)
                    Self.append(label.value, escaping: true, to: &text)
                    text.append(UInt8(ascii: "\""))
                }
                text.append(UInt8(ascii: "}"))
            }
            text.append(UInt8(ascii: " "))
            sample.value.exposition(into: &text)
            text.append(UInt8(ascii: "\n"))
        }
    }
}

extension MetricFamily {
    /// `value` with `\\` and a line feed escaped, and `"` when `quotes`
    /// (a label's value; a help text keeps its quotes).
    private static func append(_ value: String, escaping quotes: Bool, to text: inout [UInt8]) {
        let utf8 = value.utf8
        guard utf8.contains(where: { $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "\n") || (quotes && $0 == UInt8(ascii: "\"")) }) else {
            text.append(contentsOf: utf8)
            return
        }
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "\\"): text.append(contentsOf: #"\\"#.utf8)
            case UInt8(ascii: "\n"): text.append(contentsOf: #"\n"#.utf8)
            case UInt8(ascii: "\"") where quotes: text.append(contentsOf: #"\""#.utf8)
            default: text.append(byte)
            }
        }
    }
}

extension SampleValue {
    /// The value as the exposition writes it.
    var text: String {
        var text: [UInt8] = []
        exposition(into: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// The value's text, appended to `text`.
    func exposition(into text: inout [UInt8]) {
        switch self {
        case let .integer(count):
            text.append(contentsOf: String(count).utf8)
        case let .double(value):
            text.append(contentsOf: value.description.utf8)
        case let .seconds(duration):
            // Whole seconds, a point, then the attoseconds' 18 digits without
            // their trailing zeros ("0" when there are none).
            let (seconds, attoseconds) = duration.components
            text.append(contentsOf: String(seconds).utf8)
            text.append(UInt8(ascii: "."))
            var digits = Array(String(attoseconds).utf8)
            digits.insert(contentsOf: repeatElement(UInt8(ascii: "0"), count: max(0, 18 - digits.count)), at: 0)
            while digits.count > 1, digits.last == UInt8(ascii: "0") { digits.removeLast() }
            text.append(contentsOf: digits)
        }
    }
}
