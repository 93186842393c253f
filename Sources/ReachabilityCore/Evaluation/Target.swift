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

    /// `internet`, an IPv4/IPv6 address, or a host name (RFC 1123 labels).
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

/// Selectors of a lookup, as `ip route get` takes them: the FIB honours policy
/// rules that match on uid, firewall mark, output interface and source.
public struct LookupOptions: Hashable, Sendable {
    /// Look up as if the packet came from a socket of this uid (`RTA_UID`).
    public var uid: UInt32?
    /// Look up as if the packet carried this firewall mark (`RTA_MARK`).
    public var mark: UInt32?
    /// Look up as if the socket were bound to this interface (`RTA_OIF`).
    public var interface: String?
    /// Look up as if sent from this source address (`RTA_SRC`).
    public var source: IPAddress?

    /// Selectors from typed values; a nil one is left out of the request, as `ip route get` without
    /// it. `validate()` throws for the values no lookup can take.
    public init(uid: UInt32? = nil, mark: UInt32? = nil, interface: String? = nil, source: IPAddress? = nil) {
        self.uid = uid; self.mark = mark; self.interface = interface; self.source = source
    }

    /// Options from untyped input (the `reach` command's options), validated:
    /// throws ``ReachabilityError/invalidUID(_:)``, ``ReachabilityError/invalidMark(_:)``,
    /// an interface or address error. Package API: a program builds
    /// ``LookupOptions`` from typed values with ``init(uid:mark:interface:source:)``.
    package static func validated(uid: Int64?, mark: Int64?, interface: String?, source: String? = nil) throws(ReachabilityError) -> LookupOptions {
        var options = LookupOptions()
        try options.setValidated(uid: uid, mark: mark, interface: interface, source: source)
        return options
    }

    private mutating func setValidated(uid: Int64?, mark: Int64?, interface: String?, source: String?) throws(ReachabilityError) {
        if let uid {
            // (uid_t)-1 means "no uid" to the kernel, so it is not a uid.
            guard uid >= 0 && uid < Int64(UInt32.max) else { throw .invalidUID(uid) }
            self.uid = UInt32(uid)
        }
        if let mark {
            guard mark >= 0 && mark <= Int64(UInt32.max) else { throw .invalidMark(mark) }
            self.mark = UInt32(mark)
        }
        if let interface {
            try LookupOptions.validateInterfaceName(interface)
            self.interface = interface
        }
        if let source { self.source = try IPAddress(parsing: source) }
    }

    /// Throws for what the typed fields still let through but no lookup can
    /// take: uid 4294967295 (`(uid_t)-1`, which the kernel reads as "no uid"
    /// and so matches no uidrange rule), or an interface name Linux cannot have.
    public func validate() throws(ReachabilityError) {
        if let uid, uid == UInt32.max { throw .invalidUID(Int64(uid)) }
        if let interface { try LookupOptions.validateInterfaceName(interface) }
    }

    /// Linux's rules for a name (`dev_valid_name`): 1...15 bytes, not `.`/`..`,
    /// no `/`, `:`, NUL or white space.
    public static func validateInterfaceName(_ name: String) throws(ReachabilityError) {
        guard !name.isEmpty else { throw .invalidInterfaceName(name, reason: "empty") }
        guard name.utf8.count < 16 else { throw .invalidInterfaceName(name, reason: "longer than 15 bytes") }
        guard name != "." && name != ".." else { throw .invalidInterfaceName(name, reason: "not a name") }
        for byte in name.utf8 where byte == UInt8(ascii: "/") || byte == UInt8(ascii: ":") || byte <= 0x20 || byte == 0x7F {
            throw .invalidInterfaceName(name, reason: "contains '/', ':', a control character or white space")
        }
    }
}
