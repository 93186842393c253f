

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
    /// its ``status`` is `unknown`.
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
    /// into ``accessibility`` and the ``flags`` (`interventionRequired` when captive).
    public let validation: ProbeResult?

    /// An evaluated target's answer from its parts, without validation: for
    /// code that decides from facts it has (the compat modules, tests).
    ///
    /// - Parameters:
    ///   - target: The target the answer is for.
    ///   - addresses: One answer per address of the target.
    ///   - error: Why the target has no answer, when it has none.
    ///   - availableInterfaces: NWPath's `availableInterfaces`, kept in the order given.
    ///   - supportsDNS: Whether a name server is reachable; nil when not asked.
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
    ///
    /// - Parameters:
    ///   - target: The target the answer is for.
    ///   - addresses: One answer per address of the target.
    ///   - error: Why the target has no answer, when it has none.
    ///   - pathFacts: The namespace's path facts (``ReachabilityEvaluator/pathFacts()``).
    ///   - validation: What a validation probe found, when one ran.
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

    /// The state of a target before its first answer.
    ///
    /// - Parameter target: The target, not evaluated yet.
    /// - Returns: An answer without addresses whose ``status`` is `unknown`
    ///   and ``isEvaluated`` false.
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
    /// Whether ``status`` is reachable: true when any address of the target is reachable under the policy.
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
    ///
    /// - Parameter kind: The interface kind to ask about.
    /// - Returns: Whether the primary address is reachable and leaves by a
    ///   link of `kind`.
    public func usesInterfaceType(_ kind: InterfaceKind) -> Bool { primary?.status.isReachable == true && primary?.interfaceKind == kind }
}
