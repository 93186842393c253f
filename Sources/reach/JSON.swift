#if canImport(Glibc)
import Glibc
#endif

/// A minimal JSON value and writer: the CLI prints one object per line and
/// needs nothing more (and no Foundation).
enum JSON {
    case null
    case bool(Bool)
    case int(Int64)
    case string(String)
    case array([JSON])
    /// Keys keep the order given, so output is stable and diffable.
    case object([(String, JSON)])
    /// A value already rendered (`JSONObject`), written as it is.
    case rendered([UInt8])

    static func optional(_ text: String?) -> JSON { text.map(JSON.string) ?? .null }

    var rendered: String {
        var out = JSONText()
        write(to: &out)
        return out.string
    }

    func write(to out: inout JSONText) {
        switch self {
        case .null: out.append("null")
        case let .bool(value): out.append(value ? "true" : "false")
        case let .int(value): out.append(value)
        case let .string(text): out.append(quoted: text)
        case let .array(items):
            out.append("[")
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(",") }
                item.write(to: &out)
            }
            out.append("]")
        case let .object(fields):
            var object = JSONObject(into: out, reserving: 0)
            for (key, value) in fields { object.field(quotingKey: key, value) }
            out = object.closed()
        case let .rendered(bytes): out.bytes += bytes
        }
    }
}

/// JSON text as UTF-8 bytes, written in place: a line of `reach watch --json`
/// is built without a tree of values and printed with one write.
struct JSONText {
    var bytes: [UInt8] = []

    var string: String { String(decoding: bytes, as: UTF8.self) }

    mutating func append(_ literal: StaticString) {
        literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    mutating func append(_ value: Int64) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        let start = bytes.count
        repeat {
            bytes.append(UInt8(ascii: "0") + UInt8(magnitude % 10))
            magnitude /= 10
        } while magnitude > 0
        bytes[start...].reverse()
    }

    /// `text` as a JSON string: quoted, with `"`, `\` and control characters escaped.
    mutating func append(quoted text: String) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            // Most strings (names, addresses, states) need no escape: copied at once.
            if !utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
                bytes.append(contentsOf: utf8)
            } else {
                for byte in utf8 { append(escaping: byte) }
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func append(escaping byte: UInt8) {
        switch byte {
        case UInt8(ascii: "\""): append("\\\"")
        case UInt8(ascii: "\\"): append("\\\\")
        case UInt8(ascii: "\n"): append("\\n")
        case UInt8(ascii: "\r"): append("\\r")
        case UInt8(ascii: "\t"): append("\\t")
        case ..<0x20:
            let hex: StaticString = "0123456789abcdef"
            append("\\u00")
            hex.withUTF8Buffer { digits in
                bytes.append(digits[Int(byte >> 4)])
                bytes.append(digits[Int(byte & 0xF)])
            }
        default: bytes.append(byte)   // UTF-8 of every other scalar is copied as it is
        }
    }
}

/// One JSON object written field by field into `JSONText`, in the order given.
/// Keys are literals, written as they are (none needs an escape).
struct JSONObject {
    private var text: JSONText
    private var empty = true

    /// The default capacity holds a watch line's object for an address (an
    /// `internet` one grows it once): reserved once, not grown by doubling.
    init(into text: JSONText = JSONText(), reserving capacity: Int = 1024) {
        self.text = text
        self.text.bytes.reserveCapacity(self.text.bytes.count + capacity)
        self.text.append("{")
    }

    /// The text with the object closed.
    consuming func closed() -> JSONText {
        text.append("}")
        return text
    }

    private mutating func key(_ key: StaticString) {
        if !empty { text.append(",") }
        empty = false
        text.append("\"")
        text.append(key)
        text.append("\":")
    }

    /// A key that is not a literal (`JSON.object`'s), quoted.
    private mutating func key(quoting key: String) {
        if !empty { text.append(",") }
        empty = false
        text.append(quoted: key)
        text.append(":")
    }

    mutating func field(_ name: StaticString, _ value: JSON) {
        key(name)
        value.write(to: &text)
    }

    mutating func field(quotingKey name: String, _ value: JSON) {
        key(quoting: name)
        value.write(to: &text)
    }

    mutating func field(_ name: StaticString, _ value: String?) {
        key(name)
        if let value { text.append(quoted: value) } else { text.append("null") }
    }

    mutating func field(_ name: StaticString, _ value: Bool?) {
        key(name)
        if let value { text.append(value ? "true" : "false") } else { text.append("null") }
    }

    mutating func field<Integer: BinaryInteger>(_ name: StaticString, _ value: Integer?) {
        key(name)
        if let value { text.append(Int64(clamping: value)) } else { text.append("null") }
    }

    /// An array of strings.
    mutating func field<Strings: Sequence<String>>(_ name: StaticString, strings: Strings) {
        array(name, strings) { string, object in object.text.append(quoted: string) }
    }

    /// An array of objects, each written by `write` in place (no buffer of its own).
    mutating func field<Items: Sequence>(_ name: StaticString, objects items: Items,
                                         _ write: (Items.Element, inout JSONObject) -> Void) {
        array(name, items) { item, object in
            // The buffer moves into the nested object and back: never copied.
            var nested = JSONObject(into: object.take(), reserving: 0)
            write(item, &nested)
            object.text = nested.closed()
        }
    }

    /// An object written by `write` in place, or null without one.
    mutating func field(_ name: StaticString, object write: ((inout JSONObject) -> Void)?) {
        guard let write else { return field(name, nil as String?) }
        key(name)
        var nested = JSONObject(into: take(), reserving: 0)
        write(&nested)
        text = nested.closed()
    }

    private mutating func array<Items: Sequence>(_ name: StaticString, _ items: Items,
                                                 _ write: (Items.Element, inout JSONObject) -> Void) {
        key(name)
        text.append("[")
        var first = true
        for item in items {
            if !first { text.append(",") }
            first = false
            write(item, &self)
        }
        text.append("]")
    }

    private mutating func take() -> JSONText {
        defer { text = JSONText() }
        return text
    }
}

/// Writes `text` and a newline to standard output with one write(2): a
/// watcher reading the pipe gets the line whole, at once (no stdio buffer
/// stands between).
func writeLine(_ text: consuming JSONText) {
    writeLine(bytes: text.bytes)
}

/// `line` and a newline, with one write(2) (`printLine`).
func writeLine(bytes: consuming [UInt8]) {
    bytes.append(UInt8(ascii: "\n"))
    bytes.withUnsafeBytes { buffer in
        var offset = 0
        while offset < buffer.count {
            let written = write(STDOUT_FILENO, buffer.baseAddress! + offset, buffer.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return   // a closed pipe: as print() would, the line is lost (SIGPIPE ends the process first by default)
            }
            offset += written
        }
    }
}
