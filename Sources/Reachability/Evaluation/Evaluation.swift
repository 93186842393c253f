/// The answer for one address: its flags and the kernel facts they came from.
public struct AddressEvaluation: Hashable, Sendable {
    public let address: IPAddress
    public let flags: ReachabilityFlags
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

    /// Accessibility once an active probe has spoken (`Prober`): a captive
    /// portal or a failed probe over a routed, allowed link changes the answer.
    public func accessibility(probe: ProbeVerdict, allowsWWAN: Bool) -> Accessibility {
        Accessibility(verdict: route.verdict, flags: flags, allowsWWAN: allowsWWAN, probe: probe)
    }

    public var status: ReachabilityStatus { ReachabilityStatus(flags: flags, kind: interfaceKind ?? .other) }
    public var networkStatus: NetworkStatus { NetworkStatus(flags: flags) }
    public var pathStatus: PathStatus { PathStatus(flags: flags) }
}

/// The answer for a target. A host name or the internet has one answer per
/// address; the target is reachable when any of them is, and its flags are
/// those of its primary address (the first reachable one, else the first).
public struct TargetEvaluation: Hashable, Sendable {
    public let target: Target
    public let addresses: [AddressEvaluation]
    /// Why the target has no answer: its host name did not resolve, or (in a
    /// monitor, which reports rather than throws) the kernel could not be asked.
    public let error: ReachabilityError?

    public init(target: Target, addresses: [AddressEvaluation], error: ReachabilityError? = nil) {
        self.target = target
        self.addresses = addresses
        self.error = error
    }

    public var primary: AddressEvaluation? {
        addresses.first(where: { $0.flags.isNetworkReachable }) ?? addresses.first
    }
    public var flags: ReachabilityFlags { primary?.flags ?? [] }
    public var status: ReachabilityStatus { primary?.status ?? .notReachable }
    public var networkStatus: NetworkStatus { NetworkStatus(flags: flags) }
    public var pathStatus: PathStatus { PathStatus(flags: flags) }
    public var isReachable: Bool { status.isReachable }
    /// The primary address's mask; `unavailable` without an answer.
    public var mask: ReachabilityMask { primary?.mask ?? .unavailable }
    /// The primary address's accessibility; `unknown` without an answer.
    public var accessibility: Accessibility { primary?.accessibility ?? .unknown }
    public var isExpensive: Bool { primary?.isExpensive ?? false }
    public var unsatisfiedReason: UnsatisfiedReason? { primary.map { $0.unsatisfiedReason } ?? .notAvailable }
}
