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

    /// Accessibility once an active probe has spoken (``Prober``): a captive
    /// portal or a failed probe over a routed, allowed link changes the answer.
    ///
    /// - Parameters:
    ///   - probe: The verdict of a probe through the address's output
    ///     interface (``ProbeResult/verdict``).
    ///   - allowsWWAN: Whether the application allows WWAN (the policy's `allowsWWAN`).
    /// - Returns: The address's accessibility with the probe's verdict applied.
    public func accessibility(probe: ProbeVerdict, allowsWWAN: Bool) -> Accessibility {
        Accessibility(verdict: route.verdict, flags: flags, allowsWWAN: allowsWWAN, probe: probe)
    }

    /// What an application acts on: the flags' status, except that a path the
    /// WWAN switch refuses is not reachable (Reachability.swift's
    /// `allowsCellularConnection = false` gives `.unavailable`). The raw
    /// ``flags`` and ``networkStatus`` keep the kernel's truth.
    public var status: ReachabilityStatus {
        unsatisfiedReason == .wwanRefused ? .notReachable : ReachabilityStatus(flags: flags, kind: interfaceKind ?? .other)
    }
    /// The Apple sample's three states, from the kernel's flags alone (as
    /// SLReachability keeps its `reachStatus` when WWAN is refused).
    public var networkStatus: NetworkStatus { NetworkStatus(flags: flags) }
    /// NWPath's status: `unsatisfied` when the WWAN switch refuses the path
    /// (its ``unsatisfiedReason`` then `.wwanRefused`, NWPath's `cellularDenied`),
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
