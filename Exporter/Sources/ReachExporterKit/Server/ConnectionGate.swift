import Logging
import NIOCore
import Synchronization

/// Counts the open connections; past the most, a new one is closed at once
/// and the log says so (once until the count falls below the most again).
final class ConnectionGate: Sendable {
    let maximum: Int
    private let logger: Logger
    /// Open connections, and whether the log has said the cap is reached.
    private let state = Mutex<(open: Int, saidFull: Bool)>((0, false))

    init(maximum: Int, logger: Logger) {
        self.maximum = maximum
        self.logger = logger
    }

    /// Whether `channel` may be served; if it may, it counts until it closes.
    func admit(_ channel: any Channel) -> Bool {
        let (admitted, say) = state.withLock { state -> (Bool, Bool) in
            guard state.open >= maximum else {
                state.open += 1
                return (true, false)
            }
            defer { state.saidFull = true }
            return (false, !state.saidFull)
        }
        if say {
            logger.warning("\(maximum) connections open, the most allowed: new connections are closed until one ends", source: Logger.exporterSource)
        }
        guard admitted else { return false }
        channel.closeFuture.whenComplete { _ in
            self.state.withLock { state in
                state.open -= 1
                if state.open < self.maximum { state.saidFull = false }
            }
        }
        return true
    }
}
