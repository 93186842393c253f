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
/// The returned source must be kept for as long as the command runs.
func stopOnSIGTERM(_ stop: @escaping @Sendable () -> Void) -> any DispatchSourceProtocol {
    var ends: [Int32] = [-1, -1]
    guard pipe(&ends) == 0, ends.allSatisfy({ fcntl($0, F_SETFD, FD_CLOEXEC) == 0 && fcntl($0, F_SETFL, O_NONBLOCK) == 0 }) else {
        for end in ends where end >= 0 { close(end) }
        signal(SIGTERM, SIG_IGN)   // delivered to the source instead of ending the process
        let source = DispatchSource.makeSignalSource(signal: SIGTERM, queue: .global())
        source.setEventHandler(handler: stop)
        source.resume()
        return source
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
    let source = DispatchSource.makeReadSource(fileDescriptor: readEnd, queue: .global())
    source.setEventHandler {
        var bytes: (UInt64, UInt64) = (0, 0)
        _ = withUnsafeMutableBytes(of: &bytes) { read(readEnd, $0.baseAddress, $0.count) }
        stop()
    }
    source.setCancelHandler {
        signal(SIGTERM, SIG_IGN)   // the command is ending: a late SIGTERM changes nothing
        sigtermPipe = -1
        close(readEnd)
        close(writeEnd)
    }
    source.resume()
    return source
}

/// The write end of `stopOnSIGTERM`'s pipe, for its signal handler (which
/// cannot capture it). Statically initialised: reading it takes no lock.
nonisolated(unsafe) private var sigtermPipe: Int32 = -1
