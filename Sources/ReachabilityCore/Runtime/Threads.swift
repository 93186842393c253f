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
/// returned), by role: the monitors' and trackers' threads, which a
/// `stop()` joins, and the modem reader's (`ModemManagerRadio.shared`'s
/// lives with the process). Not the detached resolvers and probes, which
/// end on their own.
private let runningMonitors = Atomic<Int>(0)
private let runningTrackers = Atomic<Int>(0)
#if !REACH_NO_MODEM_FACTS
private let runningModemReaders = Atomic<Int>(0)
#endif

/// How many monitor and tracker threads run now (for tests: a thread that
/// outlived its `stop()`).
package func runningLibraryThreads() -> Int {
    runningLibraryThreads(.monitor) + runningLibraryThreads(.tracker)
}

/// How many of the library's joinable threads of `role` run now; 0 for the
/// detached roles. Counted, not found by name: a thread started from one of
/// ours inherits its name, and a joined thread may still be listed in
/// /proc/self/task for a moment (under qemu-user, whose emulated exit wakes
/// the joiner before the host thread ends: 54 of 2,000 joins in a C loop).
package func runningLibraryThreads(_ role: ThreadRole) -> Int {
    switch role {
    case .monitor: runningMonitors.load(ordering: .acquiring)
    case .tracker: runningTrackers.load(ordering: .acquiring)
    case .resolver, .probe: 0
    #if !REACH_NO_MODEM_FACTS
    case .modems: runningModemReaders.load(ordering: .acquiring)
    #endif
    }
}

/// Counts a joinable thread of `role` in (1) or out (-1).
private func countThread(_ role: ThreadRole, _ delta: Int) {
    switch role {
    case .monitor: runningMonitors.add(delta, ordering: .releasing)
    case .tracker: runningTrackers.add(delta, ordering: .releasing)
    case .resolver, .probe: break
    #if !REACH_NO_MODEM_FACTS
    case .modems: runningModemReaders.add(delta, ordering: .releasing)
    #endif
    }
}

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
    let counted = !detached
    if counted { countThread(role, 1) }
    let context = Unmanaged.passRetained(ThreadBody {
        _ = creach_thread_set_name(role.rawValue)
        body()
        if counted { countThread(role, -1) }
    }).toOpaque()
    var thread = pthread_t()
    let rc = pthread_create(&thread, &attributes, { context in
        Unmanaged<ThreadBody>.fromOpaque(context!).takeRetainedValue().run()
        return nil
    }, context)
    if rc != 0 {
        if counted { countThread(role, -1) }
        Unmanaged<ThreadBody>.fromOpaque(context).release()
        throw .system(operation: "pthread_create", errno: SystemErrno(rawValue: rc))
    }
    return thread
}

private final class ThreadBody {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}
