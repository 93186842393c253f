// Idiom: a Swift-concurrency wrapper over NWPathMonitor in a module that
// keeps Network out of its public interface (`internal import`, Swift 6's
// access-level imports): a fresh monitor per stream, its paths yielded as
// they come, and `onTermination` cancelling the monitor when the consumer
// stops iterating (a break, a cancelled task).
//
// The original's import line, unchanged: the target has the upcoming
// feature InternalImportsByDefault, so its other files' plain imports are
// internal too and Swift accepts the two spellings side by side.

internal import Network

struct NetworkPathStream {
    func paths() -> AsyncStream<NWPath> {
        AsyncStream { continuation in
            let monitor = NWPathMonitor()
            monitor.pathUpdateHandler = { path in
                continuation.yield(path)
            }
            continuation.onTermination = { _ in
                monitor.cancel()
            }
            monitor.start(queue: DispatchQueue(label: "NetworkPathStream"))
        }
    }

    /// "online over Wi-Fi or wire", "online over cellular", "online" or "offline".
    static func describe(_ path: NWPath) -> String {
        guard path.status == .satisfied else { return "offline" }
        if path.usesInterfaceType(.wifi) || path.usesInterfaceType(.wiredEthernet) { return "online over Wi-Fi or wire" }
        if path.usesInterfaceType(.cellular) { return "online over cellular" }
        return "online"
    }
}
