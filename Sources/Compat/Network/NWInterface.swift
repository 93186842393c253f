// Network's interface and endpoint types, as much of them as path monitoring
// needs. NWConnection, NWListener, NWBrowser and NWParameters are not
// provided: this module is Network.framework's path monitor on Linux only.

import Foundation
import LinuxReachability

/// A network interface a path can use: its kernel name and index, and its type.
public struct NWInterface: Hashable, Sendable, CustomDebugStringConvertible {
    /// The kind of link. On Linux: ``wifi`` for wireless links (`/sys/class/net/*/wireless`,
    /// `uevent DEVTYPE=wlan`), ``cellular`` for WWAN modems (`DEVTYPE=wwan`,
    /// `wwan*`, kind overrides), ``wiredEthernet`` for Ethernet, ``loopback`` for
    /// `lo`; tunnels (WireGuard, tun, GRE, PPP) and everything else are ``other``.
    public enum InterfaceType: Hashable, Sendable {
        /// A link of none of the other types. On Linux: tunnels (WireGuard,
        /// tun/tap, GRE, L2TP), VRF masters, and any interface the engine
        /// cannot classify.
        case other
        /// A wireless LAN link. On Linux: an interface the kernel marks
        /// wireless (`/sys/class/net/NAME/wireless`, `DEVTYPE=wlan`).
        case wifi
        /// A cellular link. On Linux: an interface classified WWAN
        /// (`DEVTYPE=wwan`, a modem's driver, a `wwan*` name, pppd over a
        /// modem, or a kind override such as
        /// `REACH_INTERFACE_KINDS=usb0=wwan`).
        case cellular
        /// A wired Ethernet link. On Linux: an Ethernet-type interface that is
        /// neither wireless nor a modem (bridges, bonds and veth included), and
        /// PPPoE.
        case wiredEthernet
        /// The host's loopback link, `lo` on Linux.
        case loopback

        /// The type of a link the engine has classified.
        ///
        /// - Parameter kind: The engine's kind of the link: `wired` gives
        ///   ``wiredEthernet``, `wwan` ``cellular``, `tunnel` and `other` give
        ///   ``other``, and `wifi` and `loopback` their namesakes.
        public init(_ kind: InterfaceKind) {
            switch kind {
            case .wired: self = .wiredEthernet
            case .wifi: self = .wifi
            case .wwan: self = .cellular
            case .loopback: self = .loopback
            case .tunnel, .other: self = .other
            }
        }
    }

    /// The kind of link, from the engine's classification of the kernel
    /// interface (see ``InterfaceType`` for the Linux rule behind each type).
    public let type: InterfaceType
    /// The kernel's name (`eth0`, `wwan0`).
    public let name: String
    /// The kernel's interface index.
    public let index: Int

    /// Makes the interface of one of the engine's `NetworkInterface` values:
    /// its kernel name, index and classified kind. It exists only in this
    /// module, for code that mixes the engine and Network.
    ///
    /// - Parameter interface: An interface as the engine lists it.
    public init(_ interface: NetworkInterface) {
        self.init(name: interface.name, index: Int(interface.index), type: InterfaceType(interface.kind))
    }

    /// Makes an interface from its parts, for tests and for code that builds
    /// values by hand. It exists only in this module; nothing checks that the
    /// kernel has such a link.
    ///
    /// - Parameters:
    ///   - name: The kernel's name of the interface.
    ///   - index: The kernel's interface index.
    ///   - type: The kind of link.
    public init(name: String, index: Int, type: InterfaceType) {
        self.name = name
        self.index = index
        self.type = type
    }

    public var debugDescription: String { name }
}

/// An IPv4 address, as Network's.
public struct IPv4Address: Hashable, Sendable, CustomDebugStringConvertible {
    let address: IPAddress
    /// An address from its text; nil for other text.
    ///
    /// - Parameter string: The address in dotted-decimal text.
    public init?(_ string: String) {
        guard let address = IPAddress(string), address.family == .v4 else { return nil }
        self.address = address
    }
    /// `0.0.0.0`, the unspecified IPv4 address. A value only: this module opens
    /// no connection with it.
    public static let any = IPv4Address("0.0.0.0")!
    /// `127.0.0.1`, this host's IPv4 loopback address; on Linux the kernel
    /// routes it by `lo`.
    public static let loopback = IPv4Address("127.0.0.1")!
    public var debugDescription: String { address.description }
}

/// An IPv6 address, as Network's.
public struct IPv6Address: Hashable, Sendable, CustomDebugStringConvertible {
    let address: IPAddress
    /// An address from its text; nil for other text.
    ///
    /// - Parameter string: The address in RFC 4291 text.
    public init?(_ string: String) {
        guard let address = IPAddress(string), address.family == .v6 else { return nil }
        self.address = address
    }
    /// `::`, the unspecified IPv6 address. A value only: this module opens no
    /// connection with it.
    public static let any = IPv6Address("::")!
    /// `::1`, this host's IPv6 loopback address; on Linux the kernel routes it
    /// by `lo`.
    public static let loopback = IPv6Address("::1")!
    public var debugDescription: String { address.description }
}

/// Where a path leads: here only ``hostPort(host:port:)``,
/// ``service(name:type:domain:interface:)``, ``unix(path:)`` and ``url(_:)``
/// as values (``NWPath/gateways`` are `hostPort` endpoints with port 0); no
/// connection can be made to one (NWConnection is not provided).
public enum NWEndpoint: Hashable, Sendable, CustomDebugStringConvertible {
    /// A host and a port. It is the only case this module makes itself: each of
    /// ``NWPath/gateways`` is a next hop of the kernel's routes, with port 0.
    case hostPort(host: Host, port: Port)
    /// A named (Bonjour) service, with its type, domain and interface. Kept as
    /// a value so that code compiles: Linux here has no service discovery, and
    /// no path holds one.
    case service(name: String, type: String, domain: String, interface: NWInterface?)
    /// A Unix domain socket, by its path. A value only: no path on Linux holds
    /// one.
    case unix(path: String)
    /// A URL. A value only: no path on Linux holds one.
    case url(URL)

    /// The host of a ``NWEndpoint/hostPort(host:port:)`` endpoint: a name, or an IPv4 or IPv6 address.
    /// The gateways of Linux paths are always addresses.
    public enum Host: Hashable, Sendable, CustomDebugStringConvertible, ExpressibleByStringLiteral {
        /// A host name, with the interface to reach it by when one is given.
        /// Never in a path made on Linux, whose gateways are addresses.
        case name(String, NWInterface?)
        /// An IPv4 address; on Linux, the next hop of an IPv4 route.
        case ipv4(IPv4Address)
        /// An IPv6 address; on Linux, the next hop of an IPv6 route (often
        /// link-local).
        case ipv6(IPv6Address)

        /// A host from its text: an address becomes ``ipv4(_:)`` or
        /// ``ipv6(_:)``, other text a ``name(_:_:)``.
        ///
        /// - Parameter string: An IPv4 or IPv6 address in text, or a host name.
        public init(_ string: String) {
            if let v4 = IPv4Address(string) { self = .ipv4(v4) } else if let v6 = IPv6Address(string) { self = .ipv6(v6) } else { self = .name(string, nil) }
        }
        /// Makes a host from a string literal by the rule of ``init(_:)``: an
        /// address in text, else a name.
        public init(stringLiteral value: String) { self.init(value) }

        public var debugDescription: String {
            switch self {
            case let .name(name, _): return name
            case let .ipv4(address): return address.debugDescription
            case let .ipv6(address): return address.debugDescription
            }
        }
    }

    /// A port number. Gateways on Linux have port 0 (``any``), since a next hop
    /// has none.
    public struct Port: Hashable, Sendable, RawRepresentable, ExpressibleByIntegerLiteral, CustomDebugStringConvertible {
        public let rawValue: UInt16
        public init?(rawValue: UInt16) { self.rawValue = rawValue }
        /// Makes a port from an integer literal.
        public init(integerLiteral value: UInt16) { rawValue = value }
        /// Makes a port from its text; nil when the text is not a number from
        /// 0 to 65535.
        ///
        /// - Parameter string: The port number in decimal.
        public init?(_ string: String) {
            guard let value = UInt16(string) else { return nil }
            rawValue = value
        }
        /// Port 0: no particular port, and the port of every gateway endpoint
        /// on Linux.
        public static let any: Port = 0
        /// Port 80, HTTP's. A value only: this module opens no connection.
        public static let http: Port = 80
        /// Port 443, HTTPS's. A value only: this module opens no connection.
        public static let https: Port = 443
        public var debugDescription: String { String(rawValue) }
    }

    /// An endpoint for the engine's address (a gateway), port 0.
    init(gateway: IPAddress) {
        self = .hostPort(host: Host(gateway.description), port: .any)
    }

    public var debugDescription: String {
        switch self {
        case let .hostPort(host, port):
            if case .ipv6 = host { return "[\(host.debugDescription)]:\(port.rawValue)" }
            return "\(host.debugDescription):\(port.rawValue)"
        case let .service(name, type, domain, _): return "\(name).\(type)\(domain)"
        case let .unix(path): return path
        case let .url(url): return url.absoluteString
        }
    }
}
