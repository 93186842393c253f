import LinuxReachability
import Synchronization

/// Whether the monitor's event thread makes progress: each ping
/// (`ReachabilityMonitor.pingEventThread`) is numbered, and the thread
/// records the number at its next turn; it answered when the last number
/// sent came back. One caller pings (the watchdog loop).
final class EventThreadLiveness: Sendable {
    private let monitor: ReachabilityMonitor
    private let sent = Atomic<UInt64>(0)
    private let answered = Atomic<UInt64>(0)

    init(monitor: ReachabilityMonitor) { self.monitor = monitor }

    /// The last ping ran on the event thread (true before the first).
    var answeredLastPing: Bool { answered.load(ordering: .acquiring) == sent.load(ordering: .relaxed) }

    func ping() {
        let number = sent.load(ordering: .relaxed) &+ 1
        sent.store(number, ordering: .relaxed)
        let sent = monitor.pingEventThread { [self] in answered.store(number, ordering: .releasing) }
        // A monitor that is not running has no thread to be stuck: nothing is outstanding.
        if !sent { answered.store(number, ordering: .releasing) }
    }
}
