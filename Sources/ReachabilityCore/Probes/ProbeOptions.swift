/// Where a probe leaves from and how long it may take.
public struct ProbeOptions: Hashable, Sendable {
    /// Bind the socket to this interface (`SO_BINDTODEVICE`): the probe
    /// leaves by it whatever the routing table prefers.
    public var interface: String?
    /// Send from this address (it must be local; same family as the target).
    public var source: IPAddress?
    /// Firewall mark (`SO_MARK`, needs `CAP_NET_ADMIN`): selects policy routes.
    public var mark: UInt32?
    /// How long to wait for the answer.
    public var timeout: Duration
    /// The port of the TCP connect that stands in for ICMP when no ICMP
    /// socket is allowed.
    public var fallbackPort: UInt16
    /// ICMP payload bytes (ping's `-s`, 56 by default; at most 1472, a
    /// 1500-byte IPv4 packet).
    public var payloadSize: Int
    /// ICMP: send with the don't-fragment bit whatever path MTU the kernel
    /// has cached (`IP_PMTUDISC_PROBE`, ping's `-M probe`). With a large
    /// ``payloadSize`` this is a path-MTU probe: an answer, or an ICMP
    /// "fragmentation needed" (``ProbeOutcome/unreachable(_:)`` with
    /// `EMSGSIZE`), means path-MTU discovery works; silence while small
    /// probes are answered is a path-MTU black hole.
    public var dontFragment: Bool

    /// Options whose defaults leave the route to the routing table (no interface, source or mark),
    /// wait 2 s, fall back from ICMP to TCP port 80, and send ping's 56 payload bytes.
    ///
    /// The values are checked when a probe uses them: ``Prober/probe(_:method:options:)``
    /// throws for one out of range.
    ///
    /// - Parameters:
    ///   - interface: The interface to bind the socket to (`SO_BINDTODEVICE`); nil for none.
    ///   - source: The local address to send from; nil lets the kernel choose.
    ///   - mark: The firewall mark (`SO_MARK`, needs `CAP_NET_ADMIN`); nil for none.
    ///   - timeout: How long to wait for the answer: more than 0, at most an hour.
    ///   - fallbackPort: The port of the TCP connect that stands in for ICMP
    ///     when no ICMP socket is allowed.
    ///   - payloadSize: ICMP payload bytes, 0...1472.
    ///   - dontFragment: Whether ICMP probes are sent with the don't-fragment bit (``dontFragment``).
    public init(interface: String? = nil, source: IPAddress? = nil, mark: UInt32? = nil, timeout: Duration = .seconds(2),
                fallbackPort: UInt16 = 80, payloadSize: Int = 56, dontFragment: Bool = false) {
        self.interface = interface
        self.source = source
        self.mark = mark
        self.timeout = timeout
        self.fallbackPort = fallbackPort
        self.payloadSize = payloadSize
        self.dontFragment = dontFragment
    }

    func validate() throws(ReachabilityError) {
        if let interface { try LookupOptions.validateInterfaceName(interface) }
        guard timeout > .zero, timeout <= .seconds(3600) else {
            throw .invalidConfiguration("probe timeout", reason: "must be more than 0 and at most 3600 s")
        }
        guard (0...1472).contains(payloadSize) else {
            throw .invalidConfiguration("probe payload size", reason: "must be 0...1472 bytes")
        }
        guard fallbackPort > 0 else { throw .invalidConfiguration("fallback port", reason: "must be 1...65535") }
    }
}

/// The socket a probe actually used.
public enum ProbeTransport: String, Hashable, Sendable {
    /// A raw ICMP socket (`SOCK_RAW`, needs `CAP_NET_RAW`); replies are matched by identifier and sequence.
    case icmpRaw = "icmp-raw"
    /// A ping socket (`SOCK_DGRAM`, `IPPROTO_ICMP` or `IPPROTO_ICMPV6`), open to a process with a group
    /// in `net.ipv4.ping_group_range`; the kernel sets the identifier.
    case icmpDatagram = "icmp-datagram"
    /// A TCP connect: a `tcp:PORT` probe, or `.icmp`'s fallback to ``ProbeOptions/fallbackPort`` when
    /// no ICMP socket could be opened.
    case tcpConnect = "tcp-connect"
    /// A TCP connection carrying one plain-HTTP GET (the captive-portal check).
    case http
    /// A UDP socket to port 53 carrying one DNS query.
    case dns
}

/// The case's name, as reflection printed it: also in a build without
/// reflection metadata (Tools/Footprint/firmware-minimal.flags).
extension ProbeTransport: CustomStringConvertible {
    public var description: String {
        switch self {
        case .icmpRaw: return "icmpRaw"
        case .icmpDatagram: return "icmpDatagram"
        case .tcpConnect: return "tcpConnect"
        case .http: return "http"
        case .dns: return "dns"
        }
    }
}
