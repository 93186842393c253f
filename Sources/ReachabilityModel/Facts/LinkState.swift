// The state of a link as the decisions read it: pure values, built by the
// core's Kernel layer from `RTM_GETLINK` (or by a test from its own facts).

/// RFC 2863 operational state of a link (`IFLA_OPERSTATE`, `IF_OPER_*`).
public enum OperState: String, Hashable, Sendable {
    /// `IF_OPER_UNKNOWN` (0), or a value not listed here: the driver reports no
    /// state, as loopback and many virtual drivers do; operational when up with carrier.
    case unknown
    /// `IF_OPER_NOTPRESENT` (1): a part of the interface, typically its hardware, is missing.
    case notPresent
    /// `IF_OPER_DOWN` (2): the link cannot carry packets, e.g. it has no carrier.
    case down
    /// `IF_OPER_LOWERLAYERDOWN` (3): down because a link it is stacked on is
    /// down, e.g. a VLAN whose parent has no carrier.
    case lowerLayerDown
    /// `IF_OPER_TESTING` (4): in a test mode, not passing normal traffic.
    case testing
    /// `IF_OPER_DORMANT` (5): the lower layer is up but waits for an event,
    /// typically 802.1X or WPA authentication; gives
    /// ``ReachabilityFlags/interventionRequired``.
    case dormant
    /// `IF_OPER_UP` (6): ready to carry packets.
    case up

    /// The state for the kernel's `IF_OPER_*` value (`IFLA_OPERSTATE`).
    ///
    /// - Parameter raw: The value of `IFLA_OPERSTATE`; one not listed here gives ``unknown``.
    public init(ifOperState raw: UInt8) {
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
    /// The interface index (`ifi_index`), by which a route names its output interface.
    public let index: Int32
    /// The interface's name (`IFLA_IFNAME`), e.g. `eth0`.
    public let name: String
    /// `ifi_flags`: `IFF_UP`, `IFF_LOWER_UP`, `IFF_POINTOPOINT`, ...
    public let rawFlags: UInt32
    /// The RFC 2863 operational state (`IFLA_OPERSTATE`).
    public let operState: OperState
    /// The hardware type, `ARPHRD_*` (1 Ethernet, 519 raw IP, 65534 none, ...).
    public let hardwareType: UInt16
    /// The driver's link kind (`IFLA_INFO_KIND`: veth, bridge, tun, wireguard, ...), nil for plain devices.
    public let linkKind: String?
    /// The largest packet the link carries, in bytes (`IFLA_MTU`); 0 when the kernel did not say.
    public let mtu: UInt32
    /// `IFLA_CARRIER`, nil when the kernel did not say.
    public let carrier: Bool?

    /// A link's state from its facts, as the core reads them from `RTM_NEWLINK`
    /// or a test states them; by default a plain device, MTU 1500, no carrier attribute.
    ///
    /// - Parameters:
    ///   - index: The interface index (`ifi_index`).
    ///   - name: The interface's name (`IFLA_IFNAME`).
    ///   - rawFlags: `ifi_flags` (`IFF_*`; ``LinkFlags`` names those the decisions read).
    ///   - operState: The operational state (`IFLA_OPERSTATE`).
    ///   - hardwareType: The hardware type, `ARPHRD_*`.
    ///   - linkKind: The driver's link kind (`IFLA_INFO_KIND`), nil for a plain device.
    ///   - mtu: The largest packet the link carries, in bytes; 0 when the kernel did not say.
    ///   - carrier: `IFLA_CARRIER`, nil when the kernel did not say.
    public init(index: Int32, name: String, rawFlags: UInt32, operState: OperState, hardwareType: UInt16,
                linkKind: String? = nil, mtu: UInt32 = 1500, carrier: Bool? = nil) {
        self.index = index; self.name = name; self.rawFlags = rawFlags; self.operState = operState
        self.hardwareType = hardwareType; self.linkKind = linkKind; self.mtu = mtu; self.carrier = carrier
    }

    /// Administratively up (`IFF_UP`).
    public var isAdminUp: Bool { rawFlags & LinkFlags.up.rawValue != 0 }
    /// The lower layer signals carrier (`IFF_LOWER_UP`).
    public var hasLowerUp: Bool { rawFlags & LinkFlags.lowerUp.rawValue != 0 }
    /// A point-to-point link (`IFF_POINTOPOINT`: ppp, tun, raw-IP WWAN), which
    /// gives ``ReachabilityFlags/transientConnection``.
    public var isPointToPoint: Bool { rawFlags & LinkFlags.pointToPoint.rawValue != 0 }
    /// The loopback device (`IFF_LOOPBACK`).
    public var isLoopback: Bool { rawFlags & LinkFlags.loopback.rawValue != 0 }

    /// Up and with carrier, but an operstate that has not followed yet (the
    /// kernel's link watch sets it a moment later, in a message of its own):
    /// about to be operational. Dormant (waiting for 802.1X, say) is a state
    /// of its own, not a step.
    package var isComingUp: Bool {
        isAdminUp && hasLowerUp && !(operState == .up || operState == .unknown || operState == .dormant)
    }

    /// Can carry packets now: up, with carrier, and an operstate that is `up`
    /// or `unknown` (loopback and many virtual drivers never report `up`).
    public var isOperational: Bool {
        guard isAdminUp, hasLowerUp else { return false }
        return operState == .up || operState == .unknown
    }
}

/// The bits of `ifi_flags` (`IFF_*`, linux/if.h) the decisions read. The
/// kernel's ABI fixes their values; a core test checks them against the C
/// headers.
public struct LinkFlags: OptionSet, Hashable, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// `IFF_UP`: administratively up.
    public static let up = LinkFlags(rawValue: 0x1)
    /// `IFF_LOOPBACK`.
    public static let loopback = LinkFlags(rawValue: 0x8)
    /// `IFF_POINTOPOINT`: ppp, tun, raw-IP WWAN.
    public static let pointToPoint = LinkFlags(rawValue: 0x10)
    /// `IFF_LOWER_UP`: the lower layer signals carrier.
    public static let lowerUp = LinkFlags(rawValue: 0x10000)
}

/// The case's name (its raw value), as reflection printed it: also in a
/// build without reflection metadata (Tools/Footprint/firmware-minimal.flags).
extension OperState: CustomStringConvertible {
    public var description: String { rawValue }
}
