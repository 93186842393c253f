/// One interface as NWPath's `availableInterfaces` lists it.
public struct NetworkInterface: Hashable, Sendable, CustomStringConvertible {
    /// The interface's name (`IFLA_IFNAME`), e.g. `eth0`, `wlan0`, `wwan0`.
    public let name: String
    /// The kernel's interface index (`ifi_index`, as `ip link` numbers it); once the link is deleted,
    /// a new link may get the same index.
    public let index: Int32
    /// The kind the evaluator gave the link, from its netlink and sysfs facts and the kind overrides.
    public let kind: InterfaceKind

    /// An interface from its parts, as the evaluator builds it from a link dump (`RTM_GETLINK`).
    ///
    /// - Parameters:
    ///   - name: The interface's name, e.g. `eth0`.
    ///   - index: The kernel's interface index.
    ///   - kind: The kind the evaluator gave the link.
    public init(name: String, index: Int32, kind: InterfaceKind) {
        self.name = name; self.index = index; self.kind = kind
    }

    public var description: String { name }
}
