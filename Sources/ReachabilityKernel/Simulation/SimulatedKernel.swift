import ReachabilityModel
#if canImport(Glibc)
internal import Glibc
#endif

/// A simulated kernel, as a namespace names it (``NetworkNamespace/simulated(_:)``).
/// Two are equal when they are the same simulation.
public struct SimulatedKernel: Hashable, Sendable, CustomStringConvertible {
    package let backend: any KernelSimulation

    package init(_ backend: any KernelSimulation) { self.backend = backend }

    public static func == (lhs: SimulatedKernel, rhs: SimulatedKernel) -> Bool { lhs.backend === rhs.backend }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(backend)) }
    /// `simulated:NAME`.
    public var description: String { "simulated:\(backend.name)" }
}
