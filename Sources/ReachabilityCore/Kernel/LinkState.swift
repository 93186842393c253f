internal import CReachability
#if canImport(Glibc)
import Glibc
#endif

/// RFC 2863 operational state of a link (`IFLA_OPERSTATE`, `IF_OPER_*`).
public enum OperState: String, Hashable, Sendable {
    case unknown, notPresent, down, lowerLayerDown, testing, dormant, up

    init(_ raw: UInt8) {
        switch raw {
        case 1: self = .notPresent
        case 2: self = .down
        case 3: self = .lowerLayerDown
        case 4: self = .testing
        case 5: self = .dormant
        case 6: self = .up
        default: self = .unknown
        }
    }
}

/// The state of one network interface (`RTM_GETLINK`), as `ip -d link` shows it.
public struct LinkState: Hashable, Sendable {
    public let index: Int32
    public let name: String
    /// `ifi_flags`: `IFF_UP`, `IFF_LOWER_UP`, `IFF_POINTOPOINT`, ...
    public let rawFlags: UInt32
    public let operState: OperState
    /// The hardware type, `ARPHRD_*` (1 Ethernet, 519 raw IP, 65534 none, ...).
    public let hardwareType: UInt16
    /// The driver's link kind (`IFLA_INFO_KIND`: veth, bridge, tun, wireguard, ...), nil for plain devices.
    public let linkKind: String?
    public let mtu: UInt32
    /// `IFLA_CARRIER`, nil when the kernel did not say.
    public let carrier: Bool?

    init(_ link: creach_link) {
        var link = link
        index = link.index
        name = withUnsafeBytes(of: &link.name) { String(decodingCString: $0) }
        let kind = withUnsafeBytes(of: &link.kind) { String(decodingCString: $0) }
        linkKind = kind.isEmpty ? nil : kind
        rawFlags = link.flags
        operState = OperState(link.operstate)
        hardwareType = link.type
        mtu = link.mtu
        carrier = link.carrier < 0 ? nil : link.carrier != 0
    }

    /// Administratively up (`IFF_UP`).
    public var isAdminUp: Bool { rawFlags & creach_iff_up != 0 }
    /// The lower layer signals carrier (`IFF_LOWER_UP`).
    public var hasLowerUp: Bool { rawFlags & creach_iff_lower_up != 0 }
    public var isPointToPoint: Bool { rawFlags & creach_iff_pointopoint != 0 }
    public var isLoopback: Bool { rawFlags & creach_iff_loopback != 0 }

    /// Up and with carrier, but an operstate that has not followed yet (the
    /// kernel's link watch sets it a moment later, in a message of its own):
    /// about to be operational. Dormant (waiting for 802.1X, say) is a state
    /// of its own, not a step.
    var isComingUp: Bool {
        isAdminUp && hasLowerUp && !(operState == .up || operState == .unknown || operState == .dormant)
    }

    /// Can carry packets now: up, with carrier, and an operstate that is `up`
    /// or `unknown` (loopback and many virtual drivers never report `up`).
    public var isOperational: Bool {
        guard isAdminUp, hasLowerUp else { return false }
        return operState == .up || operState == .unknown
    }
}

/// An address of an interface (`RTM_GETADDR`).
public struct InterfaceAddress: Hashable, Sendable, CustomStringConvertible {
    public let interfaceIndex: Int32
    public let address: IPAddress
    public let prefixLength: UInt8
    /// The far end of a point-to-point link, when configured.
    public let peer: IPAddress?

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

extension String {
    /// A string from a NUL-terminated C field (imported as a tuple); stops at the field's end.
    init(decodingCString bytes: UnsafeRawBufferPointer) {
        let end = bytes.firstIndex(of: 0) ?? bytes.count
        self = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[0..<end]), as: UTF8.self)
    }
}

/// The case's name (its raw value), as reflection printed it: also in a
/// build without reflection metadata (Examples/Footprint/firmware-minimal.flags).
extension OperState: CustomStringConvertible {
    public var description: String { rawValue }
}
