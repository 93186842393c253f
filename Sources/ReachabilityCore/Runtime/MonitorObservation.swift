/// A registered callback; ``cancel()`` removes it (so does the monitor's ``ReachabilityMonitor/stop()``).
public final class MonitorObservation: Sendable {
    private let cancelAction: @Sendable () -> Void
    init(cancel: @escaping @Sendable () -> Void) { cancelAction = cancel }

    /// Stops delivering to this callback. Safe to call more than once, from any thread.
    public func cancel() { cancelAction() }
}
