import Logging
import LinuxReachability
import ServiceLifecycle
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// systemd's notify protocol (sd_notify(3)), without libsystemd: datagrams to
/// `$NOTIFY_SOCKET` (a path, or `@name` for the abstract namespace). Without
/// the variable (not started by systemd), nothing is sent.
struct SystemdNotifier: Sendable {
    let socketPath: String?
    /// Half of `$WATCHDOG_USEC`, when the watchdog is on for this process.
    let watchdogInterval: Duration?

    init(environment: [String: String] = SystemdNotifier.environment()) {
        socketPath = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
        if let usec = environment["WATCHDOG_USEC"].flatMap({ UInt64($0) }), usec > 0,
           environment["WATCHDOG_PID"].map({ Int32($0) == getpid() }) ?? true {
            watchdogInterval = .microseconds(Int64(clamping: usec / 2))
        } else {
            watchdogInterval = nil
        }
    }

    static func environment() -> [String: String] {
        var values: [String: String] = [:]
        for key in ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"] {
            if let value = getenv(key) { values[key] = String(cString: value) }
        }
        return values
    }

    /// Sends `state` ("READY=1", "WATCHDOG=1", "STOPPING=1", ...); false when
    /// there is no socket or sending failed (systemd then sees no readiness:
    /// the failure is its to report).
    @discardableResult
    func notify(_ state: String) -> Bool {
        guard let socketPath else { return false }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var path = Array(socketPath.utf8)
        let abstract = path.first == UInt8(ascii: "@")
        if abstract { path[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.count < capacity, path.count > 0 else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: path)
        }
        let length = MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + path.count + (abstract ? 0 : 1)
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let bytes = Array(state.utf8)
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sockaddrPointer in
                sendto(fd, bytes, bytes.count, Int32(MSG_NOSIGNAL), sockaddrPointer, socklen_t(length))
            }
        }
        return sent == bytes.count
    }
}

/// READY=1 once the exporter is ready (every target answered, every uplink
/// has its state) and the port is bound; then WATCHDOG=1 every half
/// `WatchdogSec` while the monitor's event thread and every uplink tracker's
/// thread make progress; STOPPING=1
/// on shutdown. A shutdown before ready (SIGTERM while a name server does not
/// answer) ends the wait at once: no READY=1, an exit without waiting for the
/// lookup's `resolveTimeout`.
struct SystemdService: Service {
    let notifier: SystemdNotifier
    let exporter: Exporter
    let logger: Logger
    /// True when the services stop for a reload (SIGHUP): RELOADING=1, not STOPPING=1; READY=1 follows.
    var isReloading: @Sendable () -> Bool = { false }

    func run() async throws {
        if await ReadinessWait.ready(exporter) {
            notifier.notify("READY=1\n" + readyStatus)
            if let interval = notifier.watchdogInterval {
                try? await cancelWhenGracefulShutdown { try await watchdog(every: interval) }
            } else {
                try? await gracefulShutdown()
            }
        }
        notifier.notify(isReloading() ? "RELOADING=1" : "STOPPING=1")
    }

    private var readyStatus: String {
        "STATUS=watching " + counted(exporter.configuration.targets.count, "target") + ", "
            + counted(exporter.configuration.uplinks.count, "uplink") + "; serving on \(exporter.configuration.listen)"
    }

    /// WATCHDOG=1 every `interval` while the monitor's event thread answered
    /// the previous ping and every uplink tracker finished a round within the
    /// time a round can take, so that systemd restarts an exporter whose
    /// thread is stuck (a phase flag such as `isRunning` stays true then);
    /// STATUS= says which while it withholds them.
    private func watchdog(every interval: Duration) async throws {
        let liveness = EventThreadLiveness(monitor: exporter.monitor)
        var stuck = false
        while !Task.isCancelled {
            // A monitor that stopped by itself (its namespace went away) gets no more pings.
            if exporter.monitor.isRunning {
                var reason: String?
                if !liveness.answeredLastPing {
                    reason = "the monitor's event thread did not answer within \(interval)"
                } else if let (interface, bound) = exporter.stuckTracker(margin: interval) {
                    reason = "the tracker of \(interface) finished no round within \(bound)"
                }
                if let reason {
                    if !stuck {
                        stuck = true
                        logger.error("stuck: \(reason); no more watchdog pings")
                        notifier.notify("STATUS=stuck: \(reason); watchdog pings withheld")
                    }
                } else {
                    if stuck { logger.notice("every thread answers again; watchdog pings resumed") }
                    notifier.notify(stuck ? "WATCHDOG=1\n" + readyStatus : "WATCHDOG=1")
                    stuck = false
                }
                // One ping outstanding at most: a stuck thread does not pile them up.
                if liveness.answeredLastPing { liveness.ping() }
            }
            try await Task.sleep(for: interval)
        }
    }

    /// "1 target", "2 targets".
    private func counted(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)" + (count == 1 ? "" : "s")
    }
}

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
