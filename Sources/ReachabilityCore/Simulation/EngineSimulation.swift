// The engine's half of a simulated kernel: what a simulation answers above
// the kernel seam (probes, the radio source), the ring that stands for a
// monitor's event socket (SimulatedKernelEvents, SimulationSubscriber), and
// the delivery work it counts so that `settled()` can wait for it. The
// kernel's half (facts, clock) is ReachabilityKernel's Simulation/. Both are chosen once, where an
// evaluator, monitor, tracker or prober is made, from the namespace.

/// What a simulated kernel answers above the kernel seam. Implemented by
/// ReachabilityTesting's simulated network, with `KernelSimulation`.
package protocol EngineSimulation: KernelSimulation {
    /// What a probe would get back (at once: the simulation's time does not pass while it probes).
    func probe(_ address: IPAddress, method: ProbeMethod, options: ProbeOptions) throws(ReachabilityError) -> ProbeResult
    /// The radio source evaluators use when they were given `RadioSource.processDefault`.
    var radio: RadioSource { get }
    /// Work for an observer was queued on a delivery queue.
    func deliveryQueued()
    /// Work queued on a delivery queue ran.
    func deliveryRan()
    /// A monitor or a tracker starts listening (its ring: `SimulatedKernelEvents`).
    func attach(_ subscriber: SimulationSubscriber)
    /// A monitor or a tracker ends listening.
    func detach(_ subscriber: SimulationSubscriber)
    /// A subscriber went idle: `settled()` may be able to return.
    func subscriberWentIdle()
}

extension NetworkNamespace {
    /// The simulation of a `.simulated` namespace, with its engine half; nil
    /// for a real namespace (and always in a firmware build).
    package var engineSimulation: (any EngineSimulation)? {
        simulation.map { $0 as! any EngineSimulation }
    }
}

extension DeliveryQueue {
    /// `work` queued on this queue; under a simulation, counted until it has
    /// run, so that `settled()` waits for it.
    func schedule(_ work: @escaping @Sendable () -> Void, simulation: (any EngineSimulation)?,
                  onMonitorThread: (@escaping @Sendable () -> Void) -> Void) {
        switch kind {
        case .monitorThread:
            onMonitorThread(work)
        case let .enqueue(enqueue):
            guard let simulation else { return enqueue(work) }
            simulation.deliveryQueued()
            enqueue { work(); simulation.deliveryRan() }
        }
    }
}
