import ServiceLifecycle
import Synchronization

/// The wait for `Exporter.whenReady` that a graceful shutdown or a
/// cancellation also ends: whichever comes first resumes the continuation,
/// and only it.
final class ReadinessWait: Sendable {
    private enum State {
        case waiting(CheckedContinuation<Bool, Never>?)
        case finished(ready: Bool)
    }
    private let state = Mutex(State.waiting(nil))

    /// True once the exporter is ready; false when a shutdown came first.
    static func ready(_ exporter: Exporter) async -> Bool {
        let wait = ReadinessWait()
        // Either handler runs at once when the shutdown or cancellation has begun already.
        return await withGracefulShutdownHandler {
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    wait.install(continuation)
                    exporter.whenReady { wait.finish(ready: true) }
                }
            } onCancel: {
                wait.finish(ready: false)
            }
        } onGracefulShutdown: {
            wait.finish(ready: false)
        }
    }

    /// Resumes `continuation` at once when the wait ended before it was made.
    private func install(_ continuation: CheckedContinuation<Bool, Never>) {
        let ended = state.withLock { state -> Bool? in
            if case let .finished(ready) = state { return ready }
            state = .waiting(continuation)
            return nil
        }
        if let ended { continuation.resume(returning: ended) }
    }

    /// The first call ends the wait; later ones (readiness after a shutdown) do nothing.
    private func finish(ready: Bool) {
        let continuation = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            guard case let .waiting(continuation) = state else { return nil }
            state = .finished(ready: ready)
            return continuation
        }
        continuation?.resume(returning: ready)
    }
}
