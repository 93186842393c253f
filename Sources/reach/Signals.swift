import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// SIGTERM (what `kill`, systemd and container runtimes send a background
/// job) stops `watch` and `track` cleanly: `stop` runs, the command's stream
/// ends, and `reach` exits 0. SIGINT (Ctrl-C) keeps its default: the shell
/// reports 130.
///
/// The returned source must be kept for as long as the command runs.
func stopOnSIGTERM(_ stop: @escaping @Sendable () -> Void) -> DispatchSourceSignal {
    signal(SIGTERM, SIG_IGN)   // delivered to the source instead of ending the process
    let source = DispatchSource.makeSignalSource(signal: SIGTERM, queue: .global())
    source.setEventHandler(handler: stop)
    source.resume()
    return source
}
