/// Where a monitor runs an observer's callbacks. Callbacks of one observer
/// run in order when the queue is serial.
public struct DeliveryQueue: Sendable {
    enum Kind: Sendable {
        /// On the monitor's own thread, between two rounds of events.
        case monitorThread
        case enqueue(@Sendable (@escaping @Sendable () -> Void) -> Void)
    }
    let kind: Kind

    /// On the monitor's thread. The callback must return quickly: the monitor
    /// reads no events while it runs. It may call ``ReachabilityMonitor/stop()``.
    public static let monitorThread = DeliveryQueue(kind: .monitorThread)

    /// Through a function that schedules work elsewhere (an event loop, a run
    /// loop).
    ///
    /// - Parameter enqueue: Called with each piece of work to schedule. It is
    ///   called with the monitor's lock held, so it must only enqueue, never
    ///   run the work itself or call into the monitor.
    /// - Returns: A queue that hands every callback to `enqueue`.
    public static func custom(_ enqueue: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) -> DeliveryQueue {
        DeliveryQueue(kind: .enqueue(enqueue))
    }
}
