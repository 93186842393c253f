#if canImport(Glibc)
internal import Glibc
#endif

/// One interface as `reach` lists it.
public struct InterfaceSummary: Hashable, Sendable {
    /// The link as the kernel reports it (`RTM_GETLINK`): index, name, flags, operstate, carrier.
    public let link: LinkState
    /// The link's kind, from its netlink and sysfs facts and the evaluator's kind overrides.
    public let kind: InterfaceKind
    /// The link's IPv4 and IPv6 addresses (`RTM_GETADDR`), in the order of the kernel's dump.
    public let addresses: [InterfaceAddress]
}
