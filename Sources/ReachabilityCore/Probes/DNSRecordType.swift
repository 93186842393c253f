/// The record a DNS probe asks for.
public enum DNSRecordType: String, Hashable, Sendable {
    /// An IPv4 address record (query type 1).
    case a = "A"
    /// An IPv6 address record (query type 28).
    case aaaa = "AAAA"

    var rawType: UInt16 { self == .a ? 1 : 28 }
}

/// The case's name, as reflection printed it: also in a build without
/// reflection metadata (Tools/Footprint/firmware-minimal.flags).
extension DNSRecordType: CustomStringConvertible {
    public var description: String {
        switch self {
        case .a: return "a"
        case .aaaa: return "aaaa"
        }
    }
}
