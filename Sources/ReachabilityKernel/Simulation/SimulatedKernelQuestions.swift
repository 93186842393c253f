import ReachabilityModel

/// The second implementation of `KernelQuestions`: a simulation's facts,
/// with the checks the request socket makes before it asks the kernel.
package struct SimulatedKernelQuestions: KernelQuestions {
    package let simulation: any KernelSimulation

    package init(simulation: any KernelSimulation) { self.simulation = simulation }

    package func lookupRoute(_ address: IPAddress, options: LookupOptions) throws(ReachabilityError) -> RouteLookup {
        // What the socket checks before it asks (the kernel's own refusals).
        try options.validate()
        if let name = options.interface, simulation.interfaceIndex(named: name) == nil { throw .unknownInterface(name) }
        return try simulation.lookupRoute(address, options: options)
    }

    package func link(index: Int32) -> LinkState? { simulation.link(index: index) }
    package func dumpLinks() -> [LinkState] { simulation.dumpLinks() }
    package func dumpAddresses() -> [InterfaceAddress] { simulation.dumpAddresses() }
    package func interfaceFacts(of link: LinkState, namespaceFD: Int32, declaredModems: [String]) -> InterfaceFacts {
        simulation.interfaceFacts(of: link)
    }
}
