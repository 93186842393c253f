/// The answer for one address: its flags and the kernel facts they came from.
public struct AddressEvaluation: Hashable, Sendable {
    /// The destination that was looked up: one of the target's own addresses, or one its host name resolved to.
    public let address: IPAddress
    /// The flags decided from the FIB lookup and the output link's state and kind, with the policy's
    /// `connectionOnDemand` / `connectionOnTraffic` and a captive portal's `interventionRequired` applied.
    public let flags: ReachabilityFlags
    /// The kernel's FIB answer for `address` (`RTM_GETROUTE`, honouring policy rules): route type,
    /// table, output interface, gateway and preferred source, or the errno of a refusal.
    public let route: RouteLookup
    /// The output link, nil when the lookup was refused.
    public let link: LinkState?
    /// The output link's kind, nil when the lookup was refused.
    public let interfaceKind: InterfaceKind?
    /// The SLReachability-style situation, under the evaluator's policy and radio source.
    public let mask: ReachabilityMask
    /// Whether this process may use the path, under the evaluator's policy (no probe ran).
    public let accessibility: Accessibility
    /// NWPath's `isExpensive`: WWAN, or an interface the policy marks metered.
    public let isExpensive: Bool
    /// NWPath's unsatisfied reason; nil when the path is satisfied.
    public let unsatisfiedReason: UnsatisfiedReason?
    /// NWPath's `isConstrained`: the output interface is one the policy marks
    /// constrained (`ReachabilityPolicy.constrainedInterfaces`, Low Data Mode).
    public let isConstrained: Bool

    /// Accessibility once an active probe has spoken (`Prober`): a captive
    /// portal or a failed probe over a routed, allowed link changes the answer.
    public func accessibility(probe: ProbeVerdict, allowsWWAN: Bool) -> Accessibility {
        Accessibility(verdict: route.verdict, flags: flags, allowsWWAN: allowsWWAN, probe: probe)
    }

    /// What an application acts on: the flags' status, except that a path the
    /// WWAN switch refuses is not reachable (Reachability.swift's
    /// `allowsCellularConnection = false` gives `.unavailable`). The raw
    /// `flags` and `networkStatus` keep the kernel's truth.
    public var status: ReachabilityStatus {
        unsatisfiedReason == .wwanRefused ? .notReachable : ReachabilityStatus(flags: flags, kind: interfaceKind ?? .other)
    }
    /// The Apple sample's three states, from the kernel's flags alone (as
    /// SLReachability keeps its `reachStatus` when WWAN is refused).
    public var networkStatus: NetworkStatus { NetworkStatus(flags: flags) }
    /// NWPath's status: `unsatisfied` when the WWAN switch refuses the path
    /// (with `unsatisfiedReason == .wwanRefused`, NWPath's `cellularDenied`),
    /// and when intervention is required, from a dormant link or a captive
    /// portal alike (`.interventionRequired`; see `PathStatus`).
    public var pathStatus: PathStatus { unsatisfiedReason == .wwanRefused ? .unsatisfied : PathStatus(flags: flags) }
}

extension AddressEvaluation {
    /// The decision tables over the kernel's facts (pure): the policy's flags
    /// (`connectionOnDemand` / `connectionOnTraffic`), then mask,
    /// accessibility, cost and unsatisfied reason. A validation probe's verdict
    /// adds to them: a captive portal sets `interventionRequired` (the user
    /// must act) and makes it captive; a failed probe makes it restricted.
    init(address: IPAddress, kernelFlags: ReachabilityFlags, route: RouteLookup, link: LinkState?, kind: InterfaceKind?,
         policy: ReachabilityPolicy, radio: RadioGeneration?, probe: ProbeVerdict = .notProbed) {
        let name = link?.name
        // isWWAN is the kind's, whoever built the flags (ReachabilityFlags(route:link:kind:) does the same).
        var kernelFlags = kernelFlags
        if kind == .wwan && kernelFlags.contains(.reachable) { kernelFlags.insert(.isWWAN) }
        let policyFlags = policy.flags(kernelFlags, interface: name)
        var flags = policyFlags
        if probe == .captivePortal && flags.contains(.reachable) { flags.insert(.interventionRequired) }
        self.init(
            address: address, flags: flags, route: route, link: link, interfaceKind: kind,
            mask: ReachabilityMask(flags: flags, kind: kind ?? .other, allowsWWAN: policy.allowsWWAN, radio: radio),
            accessibility: Accessibility(verdict: route.verdict, flags: policyFlags, allowsWWAN: policy.allowsWWAN,
                                         probe: probe),
            isExpensive: policy.isExpensive(flags: flags, kind: kind, interface: name),
            unsatisfiedReason: UnsatisfiedReason(verdict: route.verdict, flags: flags, allowsWWAN: policy.allowsWWAN),
            isConstrained: policy.isConstrained(interface: name))
    }
}

/// The answer for a target. A host name or the internet has one answer per
/// address; the target is reachable when any of them is, and its flags are
/// those of its primary address (the first reachable one, else the first).
public struct TargetEvaluation: Hashable, Sendable {
    /// The target this answer is for, as it was given.
    public let target: Target
    /// One answer per address, in the order of the target's addresses (as given, as resolved, or
    /// ``Target/internetProbeAddresses``); empty when the host name did not resolve, the kernel could
    /// not be asked, or the target has not been evaluated yet.
    public let addresses: [AddressEvaluation]
    /// Why the target has no answer: its host name did not resolve, or (in a
    /// monitor, which reports rather than throws) the kernel could not be asked.
    public let error: ReachabilityError?
    /// False for the placeholder of a target a monitor has not evaluated yet:
    /// its status is `unknown`.
    public let isEvaluated: Bool
    /// NWPath's `availableInterfaces`: the namespace's interfaces that can
    /// carry packets now (up, with carrier; loopback only when it is the
    /// output), the primary address's output interface first.
    public let availableInterfaces: [NetworkInterface]
    /// NWPath's `supportsDNS`: a name server of the namespace's resolv.conf is
    /// reachable (nil when not asked, e.g. a bare address evaluation).
    public let supportsDNS: Bool?
    /// What validation (an active probe through the output interface) found,
    /// when a monitor validates; nil otherwise. Its verdict is already folded
    /// into `accessibility` and the flags (`interventionRequired` when captive).
    public let validation: ProbeResult?

    /// An evaluated target's answer from its parts, without validation; `availableInterfaces` is kept
    /// in the order given. For code that decides from facts it has (the compat modules, tests).
    public init(target: Target, addresses: [AddressEvaluation], error: ReachabilityError? = nil,
                availableInterfaces: [NetworkInterface] = [], supportsDNS: Bool? = nil) {
        self.init(target: target, addresses: addresses, error: error, isEvaluated: true,
                  availableInterfaces: availableInterfaces, supportsDNS: supportsDNS, validation: nil)
    }

    init(target: Target, addresses: [AddressEvaluation], error: ReachabilityError?, isEvaluated: Bool,
         availableInterfaces: [NetworkInterface], supportsDNS: Bool?, validation: ProbeResult?) {
        self.target = target
        self.addresses = addresses
        self.error = error
        self.isEvaluated = isEvaluated
        self.availableInterfaces = availableInterfaces
        self.supportsDNS = supportsDNS
        self.validation = validation
    }

    /// A target's answer with the namespace's path facts: its available
    /// interfaces, the primary address's output interface first.
    public init(target: Target, addresses: [AddressEvaluation], error: ReachabilityError? = nil,
                pathFacts: ReachabilityEvaluator.PathFacts, validation: ProbeResult? = nil) {
        var interfaces = pathFacts.interfaces
        let primary = TargetEvaluation(target: target, addresses: addresses).primary
        if let link = primary?.link {
            if let at = interfaces.firstIndex(where: { $0.index == link.index }) {
                interfaces.insert(interfaces.remove(at: at), at: 0)
            } else if link.isLoopback, let kind = primary?.interfaceKind {
                interfaces.insert(NetworkInterface(name: link.name, index: link.index, kind: kind), at: 0)
            }
        }
        self.init(target: target, addresses: addresses, error: error, isEvaluated: true,
                  availableInterfaces: interfaces, supportsDNS: pathFacts.supportsDNS, validation: validation)
    }

    /// The state of a target before its first answer: `status == .unknown`.
    public static func unknown(_ target: Target) -> TargetEvaluation {
        TargetEvaluation(target: target, addresses: [], error: nil, isEvaluated: false, availableInterfaces: [],
                         supportsDNS: nil, validation: nil)
    }

    /// The address whose answer stands for the target: the first one that is
    /// reachable (under the policy), else the first the kernel routes, else the first.
    public var primary: AddressEvaluation? {
        addresses.first(where: { $0.status.isReachable }) ?? addresses.first(where: { $0.flags.isNetworkReachable })
            ?? addresses.first
    }
    /// The primary address's flags; empty without an answer.
    public var flags: ReachabilityFlags { primary?.flags ?? [] }
    /// The primary address's status, under the policy; `notReachable` without an answer (a host name
    /// that did not resolve), `unknown` until the target is first evaluated.
    public var status: ReachabilityStatus { isEvaluated ? primary?.status ?? .notReachable : .unknown }
    /// The Apple sample's three states from the primary address's flags alone, so a path the WWAN
    /// switch refuses still reads `reachableViaWWAN`; `notReachable` without an answer.
    public var networkStatus: NetworkStatus { NetworkStatus(flags: flags) }
    /// The primary address's NWPath-style status; `unsatisfied` without an answer.
    public var pathStatus: PathStatus { primary?.pathStatus ?? .unsatisfied }
    /// Whether `status` is reachable: true when any address of the target is reachable under the policy.
    public var isReachable: Bool { status.isReachable }
    /// The primary address's mask; `unavailable` without an answer.
    public var mask: ReachabilityMask { primary?.mask ?? .unavailable }
    /// The primary address's accessibility; `noNetwork` without an answer.
    public var accessibility: Accessibility { primary?.accessibility ?? .noNetwork }
    /// NWPath's `isExpensive` for the primary address (WWAN, or an interface the policy marks
    /// metered); false without an answer.
    public var isExpensive: Bool { primary?.isExpensive ?? false }
    /// NWPath's `isConstrained` for the primary address (an interface the policy marks constrained);
    /// false without an answer.
    public var isConstrained: Bool { primary?.isConstrained ?? false }
    /// nil when the path is satisfied (and for a target not evaluated yet).
    public var unsatisfiedReason: UnsatisfiedReason? {
        guard isEvaluated else { return nil }
        return primary.map { $0.unsatisfiedReason } ?? .notAvailable
    }
    /// NWPath's `supportsIPv4`: an IPv4 address of the target is reachable.
    public var supportsIPv4: Bool { addresses.contains { $0.address.family == .v4 && $0.status.isReachable } }
    /// NWPath's `supportsIPv6`: an IPv6 address of the target is reachable.
    public var supportsIPv6: Bool { addresses.contains { $0.address.family == .v6 && $0.status.isReachable } }
    /// NWPath's `gateways`: the next hops of the reachable addresses, in order, once each.
    public var gateways: [IPAddress] {
        var result: [IPAddress] = []
        for answer in addresses where answer.status.isReachable {
            if let gateway = answer.route.gateway, !result.contains(gateway) { result.append(gateway) }
        }
        return result
    }
    /// NWPath's `usesInterfaceType(_:)`: the primary address leaves by a link of `kind`.
    public func usesInterfaceType(_ kind: InterfaceKind) -> Bool { primary?.status.isReachable == true && primary?.interfaceKind == kind }
}

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
    public init(name: String, index: Int32, kind: InterfaceKind) {
        self.name = name; self.index = index; self.kind = kind
    }

    public var description: String { name }
}
