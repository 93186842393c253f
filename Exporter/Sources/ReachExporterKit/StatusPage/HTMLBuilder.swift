/// An HTML document built by appending: `text` and `attribute` escape, `raw` does not.
struct HTMLBuilder {
    private(set) var html = ""

    mutating func reserve(_ capacity: Int) { html.reserveCapacity(capacity) }

    mutating func raw(_ markup: String) { html += markup }

    /// Text content, escaped.
    mutating func text(_ value: String) { html += Self.escaped(value) }

    /// ` name="value"`, the value escaped.
    mutating func attribute(_ name: String, _ value: String) {
        html += " \(name)=\"\(Self.escaped(value))\""
    }

    mutating func badge(_ value: String, _ tone: String) {
        raw("<span class=\"badge \(tone)\">"); text(value); raw("</span>")
    }

    /// A table cell labelled (for the phone layout, where each row is a card) `label`.
    /// `wide`: on a phone, the label above the value (a long text), not beside it.
    mutating func cell(_ label: String, title: Bool = false, wide: Bool = false, _ body: (inout HTMLBuilder) -> Void) {
        raw("<td"); if title || wide { raw(title ? " class=\"title\"" : " class=\"wide\"") }
        attribute("data-label", label); raw("><span>")
        body(&self)
        raw("</span></td>")
    }

    mutating func entry(_ term: String, _ body: (inout HTMLBuilder) -> Void) {
        raw("<dt>"); text(term); raw("</dt><dd>"); body(&self); raw("</dd>\n")
    }

    /// A `<time>` in UTC.
    mutating func time(_ unix: Double) {
        let (text, machine) = StatusPage.utc(unix)
        raw("<time datetime=\"\(machine)\">"); self.text("\(text) UTC"); raw("</time>")
    }

    /// A time with its age (`… (3 min ago)`), or `never` when nil.
    mutating func when(_ unix: Double?, now: Double, never: String = "–") {
        guard let unix else { text(never); return }
        time(unix); raw("<br><small>"); text("\(StatusPage.age(now - unix)) ago"); raw("</small>")
    }

    /// HTML's five special characters as references; control characters
    /// (C0 but tab, DEL, C1: a receiver's answer may carry ESC or CR) as
    /// visible `\xHH`, so that the page shows them rather than passing them on.
    static func escaped(_ value: String) -> String {
        guard value.utf8.contains(where: { $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: ">") || $0 == UInt8(ascii: "&")
            || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "'") || ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F || $0 == 0xC2 })
        else { return value }
        var escaped = ""
        escaped.reserveCapacity(value.utf8.count + 16)
        for character in value.unicodeScalars {
            switch character {
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "&": escaped += "&amp;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            case "\t": escaped += "\t"
            case _ where character.value < 0x20 || (0x7F ... 0x9F).contains(character.value):
                let hex = String(character.value, radix: 16, uppercase: true)
                escaped += "\\x" + (hex.count < 2 ? "0" + hex : hex)
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }
}

extension String {
    /// Zeros before, up to `width` characters.
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
