import ReachabilityModel

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

    /// Selectors from typed values; a nil one is left out of the request, as
    /// `ip route get` leaves out an option it was not given.
    ///
    /// The values are not checked here: ``validate()`` throws for the ones no
    /// lookup can take, and every lookup calls it.
    ///
    /// - Parameters:
    ///   - uid: Look up as if the packet came from a socket of this uid (`RTA_UID`).
    ///   - mark: Look up as if the packet carried this firewall mark (`RTA_MARK`).
    ///   - interface: Look up as if the socket were bound to this interface (`RTA_OIF`).
    ///   - source: Look up as if sent from this source address (`RTA_SRC`).
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

    /// Checks what the typed fields still let through but no lookup can take.
    ///
    /// - Throws: ``ReachabilityError/invalidUID(_:)`` for uid 4294967295
    ///   (`(uid_t)-1`, which the kernel reads as "no uid" and so matches no
    ///   uidrange rule); ``ReachabilityError/invalidInterfaceName(_:reason:)``
    ///   for an interface name Linux cannot have (``validateInterfaceName(_:)``).
    public func validate() throws(ReachabilityError) {
        if let uid, uid == UInt32.max { throw .invalidUID(Int64(uid)) }
        if let interface { try LookupOptions.validateInterfaceName(interface) }
    }

    /// Checks `name` against Linux's rules for an interface name
    /// (`dev_valid_name`): 1...15 bytes, not `.` or `..`, no `/`, `:`, control
    /// character or white space.
    ///
    /// - Parameter name: The interface name to check.
    /// - Throws: ``ReachabilityError/invalidInterfaceName(_:reason:)``, with the
    ///   rule the name breaks.
    public static func validateInterfaceName(_ name: String) throws(ReachabilityError) {
        guard !name.isEmpty else { throw .invalidInterfaceName(name, reason: "empty") }
        guard name.utf8.count < 16 else { throw .invalidInterfaceName(name, reason: "longer than 15 bytes") }
        guard name != "." && name != ".." else { throw .invalidInterfaceName(name, reason: "not a name") }
        for byte in name.utf8 where byte == UInt8(ascii: "/") || byte == UInt8(ascii: ":") || byte <= 0x20 || byte == 0x7F {
            throw .invalidInterfaceName(name, reason: "contains '/', ':', a control character or white space")
        }
    }
}
