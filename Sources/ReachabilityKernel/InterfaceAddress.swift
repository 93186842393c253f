import ReachabilityModel
internal import CReachability
#if canImport(Glibc)
internal import Glibc
#endif

/// An address of an interface (`RTM_GETADDR`).
public struct InterfaceAddress: Hashable, Sendable, CustomStringConvertible {
    /// The index of the interface that holds the address (`ifa_index`).
    public let interfaceIndex: Int32
    /// The interface's own address (`IFA_LOCAL`, else `IFA_ADDRESS`).
    public let address: IPAddress
    /// The prefix length in bits (`ifa_prefixlen`): 0...32 for IPv4, 0...128 for IPv6.
    public let prefixLength: UInt8
    /// The far end of a point-to-point link, when configured.
    public let peer: IPAddress?

    /// An address from its parts (a simulated kernel's).
    package init(interfaceIndex: Int32, address: IPAddress, prefixLength: UInt8, peer: IPAddress? = nil) {
        self.interfaceIndex = interfaceIndex; self.address = address; self.prefixLength = prefixLength; self.peer = peer
    }

    init(_ addr: creach_addr) {
        var addr = addr
        let family: IPAddress.Family = addr.family == UInt8(AF_INET6) ? .v6 : .v4
        interfaceIndex = addr.index
        address = withUnsafeBytes(of: &addr.address) { IPAddress(family: family, bytes: $0) }
        prefixLength = addr.prefixlen
        peer = addr.has_peer != 0 ? withUnsafeBytes(of: &addr.peer) { IPAddress(family: family, bytes: $0) } : nil
    }

    public var description: String {
        peer.map { "\(address) peer \($0)/\(prefixLength)" } ?? "\(address)/\(prefixLength)"
    }
}
