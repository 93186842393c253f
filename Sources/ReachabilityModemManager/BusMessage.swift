// Reading a D-Bus message through sd-bus's non-variadic calls: containers
// entered by the signature sd-bus peeks, basic values read by their type
// code. Every value whose type is not the one expected is skipped and
// reported (`ModemPropertyError.wrongType`), never read as another type.

internal import CReachabilitySDBus
#if canImport(Glibc)
internal import Glibc
#endif

/// A value the stand-in or the daemon sent that the client cannot use: the
/// property is dropped (counted in ``ModemManagerRadio/Counters/dropped``), the
/// previous value stays.
public enum ModemPropertyError: Error, Hashable, Sendable {
    /// `property` came with D-Bus signature `got` where ModemManager's
    /// introspection data says `expected`.
    case wrongType(property: String, expected: String, got: String)
    /// `AccessTechnologies` had bits ModemManager 1.20 does not define.
    case unknownAccessTechnologies(UInt32)
    /// `State` was not an `MMModemState`.
    case unknownState(Int32)
    /// `RegistrationState` was not an `MMModem3gppRegistrationState`.
    case unknownRegistration(UInt32)
    /// `SignalQuality` was not a percentage (over 100).
    case signalQualityOutOfRange(UInt32)
    /// The message ended, or its structure broke, where a value was due.
    case malformed(String)
}

extension ModemPropertyError: CustomStringConvertible {
    public var description: String {
        switch self {
        case let .wrongType(property, expected, got): return "\(property): type \(got), not \(expected)"
        case let .unknownAccessTechnologies(bits): return "AccessTechnologies: unknown bits 0x\(String(bits, radix: 16))"
        case let .unknownState(value): return "State: unknown value \(value)"
        case let .unknownRegistration(value): return "RegistrationState: unknown value \(value)"
        case let .signalQualityOutOfRange(value): return "SignalQuality: \(value) is no percentage"
        case let .malformed(what): return "malformed message: \(what)"
        }
    }
}

/// A cursor over one message (not owned: valid while the message is).
struct BusReader {
    let message: OpaquePointer

    /// The next value's type code and, for a container, its contents'
    /// signature; nil at the end of the current container.
    func peek() -> (type: UInt8, contents: String)? {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>?
        guard sd_bus_message_peek_type(message, &type, &contents) > 0 else { return nil }
        return (UInt8(bitPattern: type), contents.map { String(cString: $0) } ?? "")
    }

    /// Enters the container of `type` whose contents are `contents`.
    func enter(_ type: Character, _ contents: String) throws(ModemPropertyError) {
        let rc = contents.withCString { sd_bus_message_enter_container(message, CChar(type.asciiValue!), $0) }
        guard rc > 0 else { throw .malformed("no \(type)\(contents) here") }
    }

    func exit() throws(ModemPropertyError) {
        guard sd_bus_message_exit_container(message) >= 0 else { throw .malformed("container not ended") }
    }

    /// Skips the next complete value.
    func skip() throws(ModemPropertyError) {
        guard sd_bus_message_skip(message, nil) >= 0 else { throw .malformed("value cannot be skipped") }
    }

    func string(_ type: Character = "s") throws(ModemPropertyError) -> String {
        String(cString: try cString(type))
    }

    /// A string, object path or signature where the message holds it (valid while the message is).
    func cString(_ type: Character = "s") throws(ModemPropertyError) -> UnsafePointer<CChar> {
        var value: UnsafePointer<CChar>?
        guard sd_bus_message_read_basic(message, CChar(type.asciiValue!), &value) > 0, let value else {
            throw .malformed("no \(type) here")
        }
        return value
    }

    /// A text property (`s`) into `value`: nil when empty, and no copy when it is the text there already.
    func readText(_ property: StaticString, into value: inout String?) throws(ModemPropertyError) {
        let text = try variant(property, "s") { () throws(ModemPropertyError) in try cString() }
        if text.pointee == 0 {
            value = nil
        } else if value?.withCString({ strcmp($0, text) != 0 }) ?? true {
            value = String(cString: text)
        }
    }

    /// An array of `contents` into `array`. While each element `read` is
    /// `same` as the one there, nothing is copied; at the first that differs,
    /// or a length that differs, the array is read again from its start and
    /// made anew with `make`.
    func readArray<Element, Read>(into array: inout [Element], _ contents: String,
                                  _ read: () throws(ModemPropertyError) -> Read,
                                  same: (Element, Read) -> Bool, make: (Read) -> Element) throws(ModemPropertyError) {
        try enter("a", contents)
        var index = 0, differs = false
        while !differs, peek() != nil {
            let element = try read()
            differs = index >= array.count || !same(array[index], element)
            index += 1
        }
        if !differs && index == array.count { return try exit() }
        guard sd_bus_message_rewind(message, 0) >= 0 else { throw .malformed("array of \(contents) cannot be read again") }
        var fresh: [Element] = []
        while peek() != nil { fresh.append(make(try read())) }
        try exit()
        array = fresh
    }

    func uint32() throws(ModemPropertyError) -> UInt32 {
        var value: UInt32 = 0
        guard sd_bus_message_read_basic(message, CChar(UInt8(ascii: "u")), &value) > 0 else { throw .malformed("no u here") }
        return value
    }

    func int32() throws(ModemPropertyError) -> Int32 {
        var value: Int32 = 0
        guard sd_bus_message_read_basic(message, CChar(UInt8(ascii: "i")), &value) > 0 else { throw .malformed("no i here") }
        return value
    }

    func bool() throws(ModemPropertyError) -> Bool {
        var value: Int32 = 0
        guard sd_bus_message_read_basic(message, CChar(UInt8(ascii: "b")), &value) > 0 else { throw .malformed("no b here") }
        return value != 0
    }

    /// Each element of the array of `contents` now under the cursor.
    func forEach(inArray contents: String, _ body: () throws(ModemPropertyError) -> Void) throws(ModemPropertyError) {
        try enter("a", contents)
        while peek() != nil { try body() }
        try exit()
    }

    /// Each entry of an `a{s…}` or `a{o…}` dictionary: `body` reads the
    /// value after the key (where the message holds it).
    func forEachEntry(_ contents: String, _ body: (UnsafePointer<CChar>) throws(ModemPropertyError) -> Void) throws(ModemPropertyError) {
        let entry = String(contents.dropFirst().dropLast())   // "{sv}" -> "sv"
        try forEach(inArray: contents) { () throws(ModemPropertyError) in
            try enter("e", entry)
            let key = try cString(Character(UnicodeScalar(entry.utf8.first!)))
            try body(key)
            try exit()
        }
    }

    /// A variant whose value must have `signature`: `read` reads it; another
    /// signature is skipped and thrown as `wrongType`.
    func variant<T>(_ property: StaticString, _ signature: String,
                    _ read: () throws(ModemPropertyError) -> T) throws(ModemPropertyError) -> T {
        guard let (type, contents) = peek(), type == UInt8(ascii: "v") else { throw .malformed("\(property): no variant") }
        guard contents == signature else {
            try skip()
            throw .wrongType(property: property.description, expected: signature, got: contents)
        }
        try enter("v", contents)
        let value = try read()
        try exit()
        return value
    }
}
