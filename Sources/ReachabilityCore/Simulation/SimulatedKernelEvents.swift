import ReachabilityModel

/// The second implementation of `KernelEvents`: a simulation's subscriber. The
/// simulation rings the subscriber's eventfd when facts changed or its clock
/// moved; a burst then says that everything may have changed (every table of
/// both families, the links), as after lost events, or nothing when only the
/// clock moved.
package final class SimulatedKernelEvents: KernelEvents, @unchecked Sendable {
    /// The ring: the monitor's thread tells it when it is idle.
    package let subscriber: SimulationSubscriber

    /// Subscribes to `simulation` as `owner` ("monitor of internet").
    /// - Throws: ``ReachabilityError/system(operation:errno:)`` when no eventfd can be made.
    package init(simulation: any EngineSimulation, owner: String) throws(ReachabilityError) {
        subscriber = try SimulationSubscriber(owner: owner, simulation: simulation)
    }

    package var fd: Int32 { subscriber.fd }
    package var portID: UInt32? { nil }
    package var receiveBufferSize: Int { 0 }
    package var reopenAt: UInt64? { nil }

    package func drainBurst(settle: UInt64, limit: UInt64, notify: (KernelEventNotice) -> Void) -> KernelEventBurst {
        var burst = KernelEventBurst()
        guard subscriber.takeFactsChanged() else { return burst }
        burst.linksChanged = true
        burst.addressesChanged4 = true; burst.addressesChanged6 = true
        burst.routesChanged4 = true; burst.routesChanged6 = true
        burst.rulesChanged4 = true; burst.rulesChanged6 = true
        burst.forgetAllLinks = true
        burst.messages = 1
        return burst
    }

    /// A ring cannot fail the way a socket does: nothing to reopen.
    package func fail(_ burst: inout KernelEventBurst, notify: (KernelEventNotice) -> Void) {}
    package func reopenIfDue(now: UInt64) -> Bool { false }
    package func close() { subscriber.close() }
}
