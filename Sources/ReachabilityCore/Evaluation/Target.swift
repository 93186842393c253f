/// What to evaluate: an address, a host name (all its addresses), or the
/// internet (the default route of each family, as Apple's `0.0.0.0` target).
public enum Target: Hashable, Sendable, CustomStringConvertible {
    /// One IPv4 or IPv6 address: one FIB lookup, no name resolution.
    case address(IPAddress)
    /// A host name: resolved with getaddrinfo on a resolver thread inside the namespace, then each
    /// address it gives is looked up.
    case host(String)
    /// The default route of each family: the FIB lookups of ``Target/internetProbeAddresses``, one
    /// IPv4 and one IPv6; no packet is sent to them.
    case internet

    /// The addresses whose FIB lookups stand for "the internet". No packet is
    /// ever sent to them: a lookup only asks which route a packet to the public
    /// internet would take, and these are ordinary global unicast addresses that
    /// only a default route covers on a typical gateway.
    public static let internetProbeAddresses: [IPAddress] = [
        IPAddress("8.8.8.8")!, IPAddress("2001:4860:4860::8888")!,
    ]

    /// The addresses an address or `internet` stands for; nil for a host
    /// name, whose addresses only a lookup gives.
    package var addressesWithoutLookup: [IPAddress]? {
        switch self {
        case let .address(address): return [address]
        case .internet: return Target.internetProbeAddresses
        case .host: return nil
        }
    }

    /// Parses a target as the `reach` command takes it.
    ///
    /// - Parameter text: `internet`, an IPv4 or IPv6 address, or a host name
    ///   (RFC 1123 labels; a final `.` is allowed).
    /// - Throws: `ReachabilityError.invalidTarget(_:reason:)` when `text` is
    ///   none of these (an empty or over-long name or label, a label that
    ///   starts or ends with `-`, a character other than letters, digits, `-`
    ///   and `_`, or an all-numeric name that is no IPv4 address).
    public init(parsing text: String) throws(ReachabilityError) {
        if text == "internet" { self = .internet; return }
        if let address = IPAddress(text) { self = .address(address); return }
        if text.contains(":") { throw .invalidTarget(text, reason: "not an IPv6 address") }
        try Target.validateHostName(text)
        self = .host(text)
    }

    package static func validateHostName(_ text: String) throws(ReachabilityError) {
        let name = text.hasSuffix(".") ? String(text.dropLast()) : text
        guard !name.isEmpty else { throw .invalidTarget(text, reason: "empty host name") }
        guard name.utf8.count <= 253 else { throw .invalidTarget(text, reason: "host name longer than 253 bytes") }
        for label in name.split(separator: ".", omittingEmptySubsequences: false) {
            guard !label.isEmpty else { throw .invalidTarget(text, reason: "empty label") }
            guard label.utf8.count <= 63 else { throw .invalidTarget(text, reason: "label longer than 63 bytes") }
            guard label.first != "-", label.last != "-" else {
                throw .invalidTarget(text, reason: "label starts or ends with '-'")
            }
            let allowed = label.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
            }
            guard allowed else { throw .invalidTarget(text, reason: "not an address or host name") }
        }
        // An all-numeric name would be read as an IPv4 address by resolvers.
        if name.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: ".") }) {
            throw .invalidTarget(text, reason: "not a valid IPv4 address")
        }
    }

    public var description: String {
        switch self {
        case let .address(address): return address.description
        case let .host(name): return name
        case .internet: return "internet"
        }
    }
}
