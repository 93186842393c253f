import ReachabilityModel
#if canImport(Glibc)
internal import Glibc
#endif

/// An IPv4 or IPv6 address, stored inline (no allocation), in network byte order.
public struct IPAddress: Hashable, Sendable, CustomStringConvertible, LosslessStringConvertible {
    /// An address family: `AF_INET` or `AF_INET6`. The raw value (`ipv4`, `ipv6`) is what `reach --json` prints.
    public enum Family: String, Hashable, Sendable {
        /// IPv4 (`AF_INET`): 4 bytes.
        case v4 = "ipv4"
        /// IPv6 (`AF_INET6`): 16 bytes.
        case v6 = "ipv6"

        /// The C address family, `AF_INET` or `AF_INET6`.
        package var rawFamily: UInt8 { self == .v4 ? UInt8(AF_INET) : UInt8(AF_INET6) }
        /// "IPv4" or "IPv6", for messages.
        var name: String { self == .v4 ? "IPv4" : "IPv6" }
        /// Address length in bytes.
        var byteCount: Int { self == .v4 ? 4 : 16 }
    }

    /// IPv4 or IPv6: the family of the FIB a lookup of the address asks (`rtm_family`).
    public let family: Family
    // Bytes 0..<8 and 8..<16 of the address, big-endian; IPv4 uses bytes 0..<4.
    private var high: UInt64
    private var low: UInt64

    /// Parses dotted-quad IPv4 or RFC 4291 IPv6 text (no zone index, no
    /// brackets); nil when the text is not an address.
    ///
    /// - Parameter text: The address as `inet_pton(3)` reads it: `192.0.2.1`,
    ///   `2001:db8::1`.
    public init?(_ text: String) {
        var storage: (UInt64, UInt64) = (0, 0)
        let family: Family
        if text.utf8.contains(UInt8(ascii: ":")) {
            guard text.withCString({ inet_pton(AF_INET6, $0, &storage) }) == 1 else { return nil }
            family = .v6
        } else {
            guard text.withCString({ inet_pton(AF_INET, $0, &storage) }) == 1 else { return nil }
            family = .v4
        }
        self.family = family
        self.high = UInt64(bigEndian: storage.0)
        self.low = UInt64(bigEndian: storage.1)
    }

    /// Parses an address as ``init(_:)`` does, with an error for text that is not one.
    ///
    /// - Parameter text: Dotted-quad IPv4 or RFC 4291 IPv6 text.
    /// - Throws: ``ReachabilityError/invalidAddress(_:)`` when `text` is not an address.
    public init(parsing text: String) throws(ReachabilityError) {
        guard let address = IPAddress(text) else { throw .invalidAddress(text) }
        self = address
    }

    /// An address from `family.byteCount` bytes in network order.
    package init(family: Family, bytes: UnsafeRawBufferPointer) {
        precondition(bytes.count >= family.byteCount)
        var storage: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[0..<family.byteCount])) }
        self.family = family
        self.high = UInt64(bigEndian: storage.0)
        self.low = UInt64(bigEndian: storage.1)
    }

    /// Whether the first `length` bits equal `prefix`'s (same family; a length
    /// past the address's bits, or a prefix of another family, never matches).
    package func isIn(_ prefix: IPAddress, length: Int) -> Bool {
        guard family == prefix.family, length >= 0, length <= family.byteCount * 8 else { return false }
        func mask(_ bits: Int) -> UInt64 { bits <= 0 ? 0 : bits >= 64 ? .max : ~(UInt64.max >> UInt64(bits)) }
        return (high ^ prefix.high) & mask(length) == 0 && (low ^ prefix.low) & mask(length - 64) == 0
    }

    /// Calls `body` with the address's bytes in network order (4 or 16 of them).
    package func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        var storage = (high.bigEndian, low.bigEndian)
        return try withUnsafeBytes(of: &storage) { try body(UnsafeRawBufferPointer(rebasing: $0[0..<family.byteCount])) }
    }

    /// Copies `source` into a C struct's 16-byte source field when there is
    /// one; it must be of this address's family. Returns whether it did.
    package func copySource<T>(_ source: IPAddress?, into field: inout T) throws(ReachabilityError) -> Bool {
        guard let source else { return false }
        guard source.family == family else {
            throw .invalidConfiguration("source", reason: "\(source) is \(source.family.name) and the target \(self) is \(family.name)")
        }
        source.copy(into: &field)
        return true
    }

    /// Copies the address into a 16-byte C field (a tuple imported from C).
    package func copy<T>(into field: inout T) {
        withBytes { bytes in
            withUnsafeMutableBytes(of: &field) { $0.copyMemory(from: bytes) }
        }
    }

    /// The text `inet_ntop(3)` gives (RFC 5952 for IPv6: the first longest run
    /// of two or more zero groups as `::`, lower-case hex; IPv4-compatible and
    /// IPv4-mapped addresses end in a dotted quad), written here without
    /// stdio or a heap buffer: `reach watch` prints several per line.
    public var description: String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 48) { buffer in
            var count = 0
            func put(_ byte: UInt8) {
                buffer[count] = byte
                count += 1
            }
            func putDecimal(_ value: UInt8) {
                if value >= 100 { put(UInt8(ascii: "0") + value / 100) }
                if value >= 10 { put(UInt8(ascii: "0") + value / 10 % 10) }
                put(UInt8(ascii: "0") + value % 10)
            }
            func putQuad(_ value: UInt32) {
                for shift in stride(from: 24, through: 0, by: -8) {
                    if shift != 24 { put(UInt8(ascii: ".")) }
                    putDecimal(UInt8(truncatingIfNeeded: value >> UInt32(shift)))
                }
            }
            guard family == .v6 else {
                putQuad(UInt32(truncatingIfNeeded: high >> 32))
                return String(decoding: UnsafeBufferPointer(rebasing: buffer[..<count]), as: UTF8.self)
            }
            func word(_ index: Int) -> UInt16 {
                UInt16(truncatingIfNeeded: (index < 4 ? high : low) >> UInt64(48 - 16 * (index % 4)))
            }
            // The first longest run of zero groups, if two or more long.
            var best = (base: -1, length: 0), run = (base: -1, length: 0)
            for index in 0..<8 {
                if word(index) == 0 {
                    run = run.base < 0 ? (index, 1) : (run.base, run.length + 1)
                    if run.length > best.length { best = run }
                } else {
                    run = (-1, 0)
                }
            }
            if best.length < 2 { best = (-1, 0) }
            for index in 0..<8 {
                if best.base >= 0 && index >= best.base && index < best.base + best.length {
                    if index == best.base { put(UInt8(ascii: ":")) }
                    continue
                }
                if index != 0 { put(UInt8(ascii: ":")) }
                if index == 6 && best.base == 0 && (best.length == 6 || (best.length == 5 && word(5) == 0xFFFF)) {
                    putQuad(UInt32(truncatingIfNeeded: low))
                    break
                }
                let value = word(index)
                var started = false
                for shift in stride(from: 12, through: 0, by: -4) {
                    let digit = UInt8(truncatingIfNeeded: value >> UInt16(shift)) & 0xF
                    guard started || digit != 0 || shift == 0 else { continue }
                    started = true
                    put(digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10)
                }
            }
            if best.base >= 0 && best.base + best.length == 8 { put(UInt8(ascii: ":")) }
            return String(decoding: UnsafeBufferPointer(rebasing: buffer[..<count]), as: UTF8.self)
        }
    }
}

/// The case's name, as reflection printed it: also in a build without
/// reflection metadata (Tools/Footprint/firmware-minimal.flags).
extension IPAddress.Family: CustomStringConvertible {
    public var description: String {
        switch self {
        case .v4: return "v4"
        case .v6: return "v6"
        }
    }
}
