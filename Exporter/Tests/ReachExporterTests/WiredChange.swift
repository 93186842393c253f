// A target's answer as the monitor would give it, for the exporter's unit
// tests: reachable through a wired link (`interface`), or not reachable.

@testable import ReachExporterKit
@testable import ReachabilityCore

func wiredChange(_ target: Target, reachable: Bool, initial: Bool, interface: String,
                 probe: ProbeVerdict = .notProbed) -> ReachabilityChange {
    let link = LinkState(index: 3, name: interface, rawFlags: LinkFlags([.up, .lowerUp]).rawValue, operState: .up,
                         hardwareType: 1, carrier: true)
    let route = reachable
        ? RouteLookup(verdict: .unicast, family: .v4, interfaceIndex: link.index)
        : RouteLookup(verdict: .unreachable, family: .v4, errno: .hostUnreachable)
    let address = AddressEvaluation(address: IPAddress("10.1.0.7")!, kernelFlags: reachable ? .reachable : [],
                                    route: route, link: reachable ? link : nil,
                                    kind: reachable ? .wired : nil, policy: ReachabilityPolicy(), radio: nil, probe: probe)
    return ReachabilityChange(target: target, evaluation: TargetEvaluation(target: target, addresses: [address]),
                              previous: nil, isInitial: initial, time: MonotonicInstant(nanoseconds: 0))
}
