internal import CReachability
internal import Synchronization

#if canImport(Glibc)
internal import Glibc
#endif

// Every thread the library starts, starts here: the host-name resolvers
// and `Prober`'s async probes (detached, one per lookup or probe), and each
// running monitor's event thread and uplink tracker's round thread
// (joinable, so that `stop()` returns only once the thread is gone). The C
// core's short-lived namespace helpers (netns.c) only create a socket and end.
//
// Each thread carries a name (`top -H`, `ps -L`, /proc/PID/task/*/comm) that
// says whose it is: every name starts with `reach.`. A name does not prove a
// thread ours: a thread started from one of ours inherits its name until it
// names itself (Swift 6.0's Dispatch starts its workers from the thread that
// queues work, and leaves them named so). `runningLibraryThreads` counts ours.

/// What a library thread is for; its name in /proc (at most 15 bytes).
package enum ThreadRole: String {
    case monitor = "reach.monitor"
    case tracker = "reach.tracker"
    case resolver = "reach.resolve"
    case probe = "reach.probe"
    #if !REACH_NO_MODEM_FACTS
    /// A modem daemon's client (ReachabilityModemManager): its bus connection's thread.
    case modems = "reach.modems"
    #endif
}

/// The library's joinable threads running now (their body not yet
/// returned): the monitors' and trackers' threads, which a `stop()` joins.
/// Not the modem reader's: `ModemManagerRadio.shared`'s lives with the
/// process. Not the detached resolvers and probes, which end on their own.
private let running = Atomic<Int>(0)

/// How many monitor and tracker threads run now (for tests: a thread that
/// outlived its `stop()`). Counted, not found by name: a thread started from
/// one of ours inherits its name.
package func runningLibraryThreads() -> Int { running.load(ordering: .acquiring) }

/// Starts a detached thread running `body`.
package func startThread(_ role: ThreadRole, _ body: @escaping @Sendable () -> Void) throws(ReachabilityError) {
    _ = try createThread(role, detached: true, body)
}

/// Starts a joinable thread running `body`; the caller must join or detach it.
func startJoinableThread(_ role: ThreadRole, _ body: @escaping @Sendable () -> Void) throws(ReachabilityError) -> pthread_t {
    try createThread(role, detached: false, body)
}

private func createThread(_ role: ThreadRole, detached: Bool,
                          _ body: @escaping @Sendable () -> Void) throws(ReachabilityError) -> pthread_t {
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    pthread_attr_setdetachstate(&attributes, Int32(detached ? PTHREAD_CREATE_DETACHED : PTHREAD_CREATE_JOINABLE))
    #if REACH_NO_MODEM_FACTS
    let counted = !detached
    #else
    let counted = !detached && role != .modems
    #endif
    if counted { running.add(1, ordering: .relaxed) }
    let context = Unmanaged.passRetained(ThreadBody {
        _ = creach_thread_set_name(role.rawValue)
        body()
        if counted { running.subtract(1, ordering: .releasing) }
    }).toOpaque()
    var thread = pthread_t()
    let rc = pthread_create(&thread, &attributes, { context in
        Unmanaged<ThreadBody>.fromOpaque(context!).takeRetainedValue().run()
        return nil
    }, context)
    if rc != 0 {
        if counted { running.subtract(1, ordering: .relaxed) }
        Unmanaged<ThreadBody>.fromOpaque(context).release()
        throw .system(operation: "pthread_create", errno: SystemErrno(rawValue: rc))
    }
    return thread
}

private final class ThreadBody {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}
