import ReachabilityModel

/// The questions the evaluator asks a namespace's kernel: route lookups,
/// link and address dumps, an interface's sysfs facts. Two implementations:
/// `RouteSocket` (the kernel, over netlink and sysfs) and
/// `SimulatedKernelQuestions` (a simulation's facts). The evaluator's code
/// that asks them is generic over this protocol, so the compiler makes one
/// copy of it per implementation (`RouteSocket`'s conformance is declared
/// where that code is, Evaluation/RouteSocket+KernelQuestions.swift): the live copy has no simulated branch to
/// step over (an enum of the two cost every evaluation more instructions:
/// docs/benchmarks), and a simulation runs the very same source.
package protocol KernelQuestions {
    mutating func lookupRoute(_ address: IPAddress, options: LookupOptions) throws(ReachabilityError) -> RouteLookup
    mutating func link(index: Int32) throws(ReachabilityError) -> LinkState?
    mutating func dumpLinks() throws(ReachabilityError) -> [LinkState]
    mutating func dumpAddresses() throws(ReachabilityError) -> [InterfaceAddress]
    func interfaceFacts(of link: LinkState, namespaceFD: Int32, declaredModems: [String]) -> InterfaceFacts
}

