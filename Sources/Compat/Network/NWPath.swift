// NWPath from the engine's answer for the internet target: the same decision
// tables as every other view, Network's names on them.

import LinuxReachability

/// What a path monitor knows about the way out: whether it is usable, over
/// which interfaces, at what cost. Linux facts behind each field: README,
/// "Porting from iOS".
public struct NWPath: Equatable, Sendable, CustomDebugStringConvertible {
    /// Whether the path can carry traffic. On Linux it is the engine's path
    /// status for the internet target, under the interface types the monitor
    /// allows.
    public enum Status: Equatable, Hashable, Sendable {
        /// A usable route to the internet over an interface the monitor allows.
        case satisfied
        /// No such route (none, unreachable, prohibited, the link down), only
        /// a WWAN one the process's policy refuses (``NWPath/UnsatisfiedReason/cellularDenied``), or one
        /// that needs the user (intervention required: a dormant link waiting
        /// for authentication, or a captive portal found by validation; no new
        /// connection activates it).
        case unsatisfied
        /// The route exists, and its link comes up by itself when a connection
        /// is made (`connectionRequired` with `connectionOnDemand` or
        /// `connectionOnTraffic`, no intervention required).
        case requiresConnection
    }

    /// Why a path is unsatisfied. Only ``notAvailable`` and ``cellularDenied`` are
    /// produced on Linux: ``wifiDenied``, ``localNetworkDenied`` and
    /// ``vpnInactive`` are iOS settings Linux has no fact for. Apple's enum has
    /// no case for intervention required: such a path is ``notAvailable``.
    public enum UnsatisfiedReason: Equatable, Hashable, Sendable {
        /// No usable route (also for a satisfied path, as on Apple's platforms).
        case notAvailable
        /// Only WWAN carries the path and `ReachabilityPolicy.processDefault.allowsWWAN` is false.
        case cellularDenied
        /// Wi-Fi is refused to the app by a user setting. Never given on Linux:
        /// no kernel fact or setting stands for it.
        case wifiDenied
        /// The user has not let the app reach the local network. Never given on
        /// Linux: there is no such permission, and no kernel fact stands for
        /// it.
        case localNetworkDenied
        /// The path needs a VPN that is not connected. Never given on Linux:
        /// the engine has no fact for a required VPN.
        case vpnInactive
    }

    /// Whether the path can be used now. On Linux: the engine's answer for the
    /// internet target (see ``Status``); ``Status/unsatisfied`` before a monitor's first
    /// answer.
    public let status: Status
    /// Why the path is unsatisfied. On Linux: ``UnsatisfiedReason/cellularDenied`` when the
    /// process's cellular-data switch refuses the only WWAN path, otherwise
    /// ``UnsatisfiedReason/notAvailable``; the other reasons never occur.
    public let unsatisfiedReason: UnsatisfiedReason
    /// The interfaces that can carry packets now (up, with carrier) and that
    /// the monitor allows, the one the path uses first.
    public let availableInterfaces: [NWInterface]
    /// WWAN, or an interface `ReachabilityPolicy.meteredInterfaces` names.
    public let isExpensive: Bool
    /// An interface `ReachabilityPolicy.constrainedInterfaces` names (Low Data Mode).
    public let isConstrained: Bool
    /// Never on Linux (iOS 26's satellite links).
    public var isUltraConstrained: Bool { false }
    /// Whether IPv4 traffic can take the path. On Linux: the kernel's route
    /// lookup for the IPv4 internet address finds a usable route.
    public let supportsIPv4: Bool
    /// Whether IPv6 traffic can take the path. On Linux: the kernel's route
    /// lookup for the IPv6 internet address finds a usable route.
    public let supportsIPv6: Bool
    /// A name server of the namespace's resolv.conf is routable.
    public let supportsDNS: Bool
    /// The next hops of the routes the path uses (port 0).
    public let gateways: [NWEndpoint]
    /// nil for a monitor's path, as on Apple's platforms.
    public var localEndpoint: NWEndpoint? { nil }
    /// nil for a monitor's path, as on Apple's platforms.
    public var remoteEndpoint: NWEndpoint? { nil }
    /// The type of the interface the path leaves by, when satisfied.
    let usedInterfaceType: NWInterface.InterfaceType?

    /// Whether the path leaves by an interface of a type.
    ///
    /// - Parameter type: The type of interface to ask about.
    /// - Returns: Whether the path is satisfied and the interface it leaves by
    ///   is of `type`.
    public func usesInterfaceType(_ type: NWInterface.InterfaceType) -> Bool { usedInterfaceType == type }

    /// The path before a monitor's first answer: unsatisfied, no interfaces.
    static let initial = NWPath(status: .unsatisfied, unsatisfiedReason: .notAvailable, availableInterfaces: [],
                                isExpensive: false, isConstrained: false, supportsIPv4: false, supportsIPv6: false,
                                supportsDNS: false, gateways: [], usedInterfaceType: nil)

    init(status: Status, unsatisfiedReason: UnsatisfiedReason, availableInterfaces: [NWInterface], isExpensive: Bool,
         isConstrained: Bool, supportsIPv4: Bool, supportsIPv6: Bool, supportsDNS: Bool, gateways: [NWEndpoint],
         usedInterfaceType: NWInterface.InterfaceType?) {
        self.status = status
        self.unsatisfiedReason = unsatisfiedReason
        self.availableInterfaces = availableInterfaces
        self.isExpensive = isExpensive
        self.isConstrained = isConstrained
        self.supportsIPv4 = supportsIPv4
        self.supportsIPv6 = supportsIPv6
        self.supportsDNS = supportsDNS
        self.gateways = gateways
        self.usedInterfaceType = usedInterfaceType
    }

    /// The path of the engine's answer, keeping the interfaces `allows` lets through.
    init(_ evaluation: TargetEvaluation, allows: (NWInterface.InterfaceType) -> Bool = { _ in true }) {
        let status: Status
        switch evaluation.isEvaluated ? evaluation.pathStatus : .unsatisfied {
        case .satisfied: status = .satisfied
        case .unsatisfied: status = .unsatisfied
        case .requiresConnection: status = .requiresConnection
        }
        let used = status == .satisfied ? evaluation.primary?.interfaceKind.map(NWInterface.InterfaceType.init) : nil
        self.init(status: status,
                  unsatisfiedReason: evaluation.unsatisfiedReason == .wwanRefused ? .cellularDenied : .notAvailable,
                  availableInterfaces: evaluation.availableInterfaces.map(NWInterface.init).filter { allows($0.type) },
                  isExpensive: evaluation.isExpensive, isConstrained: evaluation.isConstrained,
                  supportsIPv4: evaluation.supportsIPv4, supportsIPv6: evaluation.supportsIPv6,
                  supportsDNS: evaluation.supportsDNS ?? false,
                  gateways: evaluation.gateways.map(NWEndpoint.init(gateway:)), usedInterfaceType: used)
    }

    /// As Apple's: `satisfied (Path is satisfied), interface: eth0[wiredEthernet], ipv4, dns`.
    public var debugDescription: String {
        var parts: [String] = []
        switch status {
        case .satisfied: parts.append("satisfied (Path is satisfied)")
        case .requiresConnection: parts.append("requiresConnection (Path requires a connection)")
        case .unsatisfied:
            parts.append(unsatisfiedReason == .cellularDenied ? "unsatisfied (Cellular data is denied)"
                                                               : "unsatisfied (No network route)")
        }
        if !availableInterfaces.isEmpty {
            parts.append("interface: " + availableInterfaces.map { "\($0.name)[\($0.type)]" }.joined(separator: ", "))
        }
        if supportsIPv4 { parts.append("ipv4") }
        if supportsIPv6 { parts.append("ipv6") }
        if supportsDNS { parts.append("dns") }
        if isExpensive { parts.append("expensive") }
        if isConstrained { parts.append("constrained") }
        return parts.joined(separator: ", ")
    }
}
