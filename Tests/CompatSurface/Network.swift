// Compile test of `Network`'s path-monitoring surface against Apple's, as
// docs/compat-surface/Network.md lists it: every `provided` and `Linux
// meaning` row, spelled as iPhoneOS17.4.sdk's Network.swiftinterface spells
// it. Nothing here runs: each function only has to type-check, in Swift 5
// and 6.
//
// Imports only the module, as NWPathMonitor wrappers in the wild do.

import Network

func surface_Network_requiresSendable<T: Sendable>(_: T.Type) {}

// MARK: - NWPathMonitor

func surface_Network_monitor() {
    let monitor = NWPathMonitor()
    let _: NWPathMonitor = NWPathMonitor(requiredInterfaceType: .wifi)
    let _: NWPathMonitor = NWPathMonitor(prohibitedInterfaceTypes: [.cellular, .loopback])

    // `@preconcurrency final public var pathUpdateHandler: (@Sendable (_ newPath: NWPath) -> Void)? { get set }`
    let handler: (@Sendable (_ newPath: NWPath) -> Void)? = monitor.pathUpdateHandler
    monitor.pathUpdateHandler = handler
    monitor.pathUpdateHandler = { (path: NWPath) in _ = path.status }
    monitor.pathUpdateHandler = nil

    // `final public var currentPath: NWPath { get set }` (its setter deprecated since iOS 17).
    let path: NWPath = monitor.currentPath
    monitor.currentPath = path

    // `final public func start(queue: DispatchQueue)`, `cancel()`, `queue`.
    let start: (DispatchQueue) -> Void = monitor.start(queue:)
    start(DispatchQueue(label: "monitor"))
    monitor.start(queue: .global())
    let _: DispatchQueue? = monitor.queue
    let cancel: () -> Void = monitor.cancel
    cancel()

    // `extension NWPathMonitor : Sendable` (iOS 17): a monitor crosses isolation.
    surface_Network_requiresSendable(NWPathMonitor.self)
    let shared = monitor
    Task.detached { shared.cancel() }
}

// MARK: - NWPathMonitor: AsyncSequence (iOS 17)

func surface_Network_asyncSequence() async {
    func isSequence<S: AsyncSequence>(_: S) where S.Element == NWPath, S.AsyncIterator == NWPathMonitor.Iterator {}
    let monitor = NWPathMonitor()
    isSequence(monitor)
    let _: NWPathMonitor.Element.Type = NWPath.self
    var iterator: NWPathMonitor.Iterator = monitor.makeAsyncIterator()
    let _: NWPathMonitor.Element? = await iterator.next()
    let _: NWPathMonitor.Iterator.Element.Type = NWPath.self
    for await path in NWPathMonitor() {
        _ = path.status
        break
    }
}

// MARK: - NWPath

func surface_Network_path(_ path: NWPath, _ other: NWPath) {
    surface_Network_requiresSendable(NWPath.self)
    let _: Bool = path == other
    let _: String = path.debugDescription
    let _: any CustomDebugStringConvertible = path

    let status: NWPath.Status = path.status
    switch status {
    case .satisfied: break
    case .unsatisfied: break
    case .requiresConnection: break
    }
    let _: Int = status.hashValue
    let _: Set<NWPath.Status> = [.satisfied]
    surface_Network_requiresSendable(NWPath.Status.self)

    // `@available(iOS 14.2) var unsatisfiedReason: NWPath.UnsatisfiedReason { get }`
    let reason: NWPath.UnsatisfiedReason = path.unsatisfiedReason
    switch reason {
    case .notAvailable: break
    case .cellularDenied: break
    case .wifiDenied: break
    case .localNetworkDenied: break
    case .vpnInactive: break
    }
    let _: Set<NWPath.UnsatisfiedReason> = [reason]
    surface_Network_requiresSendable(NWPath.UnsatisfiedReason.self)

    let _: [NWInterface] = path.availableInterfaces
    let _: Bool = path.isExpensive
    let _: Bool = path.isConstrained
    let _: Bool = path.supportsIPv4
    let _: Bool = path.supportsIPv6
    let _: Bool = path.supportsDNS
    let _: [NWEndpoint] = path.gateways
    let _: NWEndpoint? = path.localEndpoint
    let _: NWEndpoint? = path.remoteEndpoint
    let uses: (NWInterface.InterfaceType) -> Bool = path.usesInterfaceType
    let _: Bool = uses(.wiredEthernet)
    let _: Bool = path.usesInterfaceType(.cellular)
}

// MARK: - NWInterface

func surface_Network_interface(_ interface: NWInterface, _ other: NWInterface) {
    surface_Network_requiresSendable(NWInterface.self)
    let _: Bool = interface == other
    let _: Set<NWInterface> = [interface]
    let _: String = interface.debugDescription
    let _: String = interface.name
    let _: Int = interface.index
    let type: NWInterface.InterfaceType = interface.type
    switch type {
    case .other: break
    case .wifi: break
    case .cellular: break
    case .wiredEthernet: break
    case .loopback: break
    }
    let _: Set<NWInterface.InterfaceType> = [type]
    surface_Network_requiresSendable(NWInterface.InterfaceType.self)
}

// MARK: - NWEndpoint (as paths use it: gateways)

func surface_Network_endpoint(_ endpoint: NWEndpoint, _ interface: NWInterface, _ url: NWEndpoint) {
    surface_Network_requiresSendable(NWEndpoint.self)
    let _: Set<NWEndpoint> = [endpoint]
    let _: String = endpoint.debugDescription
    switch endpoint {
    case let .hostPort(host: host, port: port):
        let _: NWEndpoint.Host = host
        let _: NWEndpoint.Port = port
    case let .service(name: name, type: type, domain: domain, interface: interface):
        let _: (String, String, String, NWInterface?) = (name, type, domain, interface)
    case let .unix(path: path):
        let _: String = path
    case .url:
        break
    }
    let _: NWEndpoint = .hostPort(host: "192.0.2.1", port: 443)
    let _: NWEndpoint = .service(name: "printer", type: "_ipp._tcp", domain: "local.", interface: interface)
    let _: NWEndpoint = .unix(path: "/run/socket")
    if case let .url(u) = url { _ = u.absoluteString }

    // NWEndpoint.Host
    let host = NWEndpoint.Host("fe80::1")
    let _: NWEndpoint.Host = "gateway.example"
    let _: NWEndpoint.Host = NWEndpoint.Host(stringLiteral: "192.0.2.1")
    let _: NWEndpoint.Host.StringLiteralType.Type = String.self
    switch host {
    case let .name(name, on):
        let _: (String, NWInterface?) = (name, on)
    case let .ipv4(address):
        let _: IPv4Address = address
    case let .ipv6(address):
        let _: IPv6Address = address
    }
    let _: String = host.debugDescription
    let _: Set<NWEndpoint.Host> = [host]
    surface_Network_requiresSendable(NWEndpoint.Host.self)

    // NWEndpoint.Port
    let port: NWEndpoint.Port = 8080
    let _: UInt16 = port.rawValue
    let _: NWEndpoint.Port? = NWEndpoint.Port(rawValue: 53)
    let _: NWEndpoint.Port? = NWEndpoint.Port("53")
    let _: NWEndpoint.Port = NWEndpoint.Port(integerLiteral: 80)
    let _: NWEndpoint.Port.IntegerLiteralType.Type = UInt16.self
    let _: [NWEndpoint.Port] = [.any, .http, .https]
    let _: String = port.debugDescription
    let _: Set<NWEndpoint.Port> = [port]
    surface_Network_requiresSendable(NWEndpoint.Port.self)
}

// MARK: - IPv4Address, IPv6Address (the hosts of gateways)

func surface_Network_addresses() {
    let v4: IPv4Address? = IPv4Address("192.0.2.1")
    let _: [IPv4Address] = [.any, .loopback]
    let _: String? = v4?.debugDescription
    let _: Set<IPv4Address> = [.loopback]
    surface_Network_requiresSendable(IPv4Address.self)

    let v6: IPv6Address? = IPv6Address("2001:db8::1")
    let _: [IPv6Address] = [.any, .loopback]
    let _: String? = v6?.debugDescription
    let _: Set<IPv6Address> = [.loopback]
    surface_Network_requiresSendable(IPv6Address.self)
}
