import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// SIGTERM (what `kill`, systemd and container runtimes send a background
/// job) stops `watch` and `track` cleanly: `stop` runs, the command's stream
/// ends, and `reach` exits 0. SIGINT (Ctrl-C) keeps its default: the shell
/// reports 130.
///
/// The handler is in place when this returns, so no later SIGTERM is lost: it
/// writes a byte to a pipe, which keeps it until the Dispatch source reading
/// the pipe is registered (a Dispatch signal source registers later, on
/// Dispatch's own thread, and a SIGTERM that came first was ignored: `reach
/// track` then ran on). When no pipe can be made, a signal source does it.
///
/// The command starts what `stop` stops through the returned `Termination`'s
/// `start(_:)`, and keeps it for as long as it runs.
func stopOnSIGTERM(_ stop: @escaping @Sendable () -> Void) -> Termination {
    let termination = Termination(stop)
    var ends: [Int32] = [-1, -1]
    guard pipe(&ends) == 0, ends.allSatisfy({ fcntl($0, F_SETFD, FD_CLOEXEC) == 0 && fcntl($0, F_SETFL, O_NONBLOCK) == 0 }) else {
        for end in ends where end >= 0 { close(end) }
        signal(SIGTERM, SIG_IGN)   // delivered to the source instead of ending the process
        let source = DispatchSource.makeSignalSource(signal: SIGTERM, queue: termination.queue)
        source.setEventHandler(handler: termination.handleSIGTERM)
        termination.watch(source)
        return termination
    }
    let (readEnd, writeEnd) = (ends[0], ends[1])
    sigtermPipe = writeEnd
    var action = sigaction()
    action.__sigaction_handler.sa_handler = { _ in
        let saved = errno
        var byte: UInt8 = 1
        _ = write(sigtermPipe, &byte, 1)   // a full pipe already holds a byte: enough
        errno = saved
    }
    sigemptyset(&action.sa_mask)
    action.sa_flags = SA_RESTART
    sigaction(SIGTERM, &action, nil)
    let source = DispatchSource.makeReadSource(fileDescriptor: readEnd, queue: termination.queue)
    source.setEventHandler {
        var bytes: (UInt64, UInt64) = (0, 0)
        _ = withUnsafeMutableBytes(of: &bytes) { read(readEnd, $0.baseAddress, $0.count) }
        termination.handleSIGTERM()
    }
    source.setCancelHandler {
        signal(SIGTERM, SIG_IGN)   // the command is ending: a late SIGTERM changes nothing
        sigtermPipe = -1
        close(readEnd)
        close(writeEnd)
    }
    termination.watch(source)
    return termination
}

/// SIGTERM's stop of one command (`stopOnSIGTERM`), which may come at any
/// moment once the handler is in place, before the command started what it
/// stops too. `stop()` on a monitor or tracker that has not started yet does
/// nothing, and its `start()` would then run for ever: so a SIGTERM is
/// recorded, and `start(_:)` stops at once after starting when it finds one.
final class Termination: @unchecked Sendable {
    /// Runs SIGTERM's stop and `start(_:)`'s look for one, one at a time: a
    /// SIGTERM is either seen there or stops what has already started.
    fileprivate let queue = DispatchQueue(label: "reach.sigterm")
    /// A SIGTERM came. Read and written on `queue` only.
    private var stopRequested = false
    private let stop: @Sendable () -> Void
    /// The source that runs `handleSIGTERM()`; set once, before the command starts anything.
    private var source: (any DispatchSourceProtocol)?

    fileprivate init(_ stop: @escaping @Sendable () -> Void) {
        self.stop = stop
    }

    fileprivate func watch(_ source: any DispatchSourceProtocol) {
        self.source = source
        source.resume()
    }

    /// On `queue`, for each SIGTERM.
    fileprivate func handleSIGTERM() {
        stopRequested = true
        stop()
        TestHooks.sawSIGTERM()
    }

    /// Runs `body`, which starts what SIGTERM stops, and stops it again at
    /// once if a SIGTERM came before or while it started: the stop wins.
    func start(_ body: () throws -> Void) rethrows {
        TestHooks.pauseBeforeStart()
        try body()
        if queue.sync(execute: { stopRequested }) { stop() }
    }

    /// Whether a SIGTERM came (its stop has run).
    var sawSIGTERM: Bool { queue.sync { stopRequested } }

    /// The command is ending: SIGTERM is ignored from now on.
    func cancel() {
        source?.cancel()
    }
}

/// The write end of `stopOnSIGTERM`'s pipe, for its signal handler (which
/// cannot capture it). Statically initialised: reading it takes no lock.
nonisolated(unsafe) private var sigtermPipe: Int32 = -1
