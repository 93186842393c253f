// Network's interface and endpoint types, as much of them as path monitoring
// needs. NWConnection, NWListener, NWBrowser and NWParameters are not
// provided: this module is Network.framework's path monitor on Linux only.

import Foundation
import Reachability

/// A network interface a path can use: its kernel name and index, and its type.
public struct NWInterface: Hashable, Sendable, CustomDebugStringConvertible {
    /// The kind of link. On Linux: `wifi` for wireless links (`/sys/class/net/*/wireless`,
    /// `uevent DEVTYPE=wlan`), `cellular` for WWAN modems (`DEVTYPE=wwan`,
    /// `wwan*`, kind overrides), `wiredEthernet` for Ethernet, `loopback` for
    /// `lo`; tunnels (WireGuard, tun, GRE, PPP) and everything else are `other`.
    public enum InterfaceType: Hashable, Sendable, CaseIterable {
        case other, wifi, cellular, wiredEthernet, loopback

        /// The type of a link of the engine's `kind`.
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

    public let type: InterfaceType
    /// The kernel's name (`eth0`, `wwan0`).
    public let name: String
    /// The kernel's interface index.
    public let index: Int

    public init(_ interface: NetworkInterface) {
        self.init(name: interface.name, index: Int(interface.index), type: InterfaceType(interface.kind))
    }

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
    /// An address in dotted-decimal text; nil for other text.
    public init?(_ string: String) {
        guard let address = IPAddress(string), address.family == .v4 else { return nil }
        self.address = address
    }
    public static let any = IPv4Address("0.0.0.0")!
    public static let loopback = IPv4Address("127.0.0.1")!
    public var debugDescription: String { address.description }
}

/// An IPv6 address, as Network's.
public struct IPv6Address: Hashable, Sendable, CustomDebugStringConvertible {
    let address: IPAddress
    /// An address in RFC 4291 text; nil for other text.
    public init?(_ string: String) {
        guard let address = IPAddress(string), address.family == .v6 else { return nil }
        self.address = address
    }
    public static let any = IPv6Address("::")!
    public static let loopback = IPv6Address("::1")!
    public var debugDescription: String { address.description }
}

/// Where a path leads: here only `hostPort`, `service`, `unix` and `url`
/// as values (`NWPath.gateways` are `hostPort` endpoints with port 0); no
/// connection can be made to one (NWConnection is not provided).
public enum NWEndpoint: Hashable, Sendable, CustomDebugStringConvertible {
    case hostPort(host: Host, port: Port)
    case service(name: String, type: String, domain: String, interface: NWInterface?)
    case unix(path: String)
    case url(URL)

    public enum Host: Hashable, Sendable, CustomDebugStringConvertible, ExpressibleByStringLiteral {
        case name(String, NWInterface?)
        case ipv4(IPv4Address)
        case ipv6(IPv6Address)

        /// An address in text becomes `ipv4`/`ipv6`, other text a `name`.
        public init(_ string: String) {
            if let v4 = IPv4Address(string) { self = .ipv4(v4) } else if let v6 = IPv6Address(string) { self = .ipv6(v6) } else { self = .name(string, nil) }
        }
        public init(stringLiteral value: String) { self.init(value) }

        public var debugDescription: String {
            switch self {
            case let .name(name, _): return name
            case let .ipv4(address): return address.debugDescription
            case let .ipv6(address): return address.debugDescription
            }
        }
    }

    public struct Port: Hashable, Sendable, RawRepresentable, ExpressibleByIntegerLiteral, CustomDebugStringConvertible {
        public let rawValue: UInt16
        public init?(rawValue: UInt16) { self.rawValue = rawValue }
        public init(integerLiteral value: UInt16) { rawValue = value }
        public init?(_ string: String) {
            guard let value = UInt16(string) else { return nil }
            rawValue = value
        }
        public static let any: Port = 0
        public static let http: Port = 80
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
