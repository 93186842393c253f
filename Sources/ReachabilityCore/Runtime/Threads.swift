internal import CReachability

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
// says whose it is: every name starts with `reach.`.

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
    let context = Unmanaged.passRetained(ThreadBody {
        _ = creach_thread_set_name(role.rawValue)
        body()
    }).toOpaque()
    var thread = pthread_t()
    let rc = pthread_create(&thread, &attributes, { context in
        Unmanaged<ThreadBody>.fromOpaque(context!).takeRetainedValue().run()
        return nil
    }, context)
    if rc != 0 {
        Unmanaged<ThreadBody>.fromOpaque(context).release()
        throw .system(operation: "pthread_create", errno: SystemErrno(rawValue: rc))
    }
    return thread
}

private final class ThreadBody {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}

/// A value and the pthread mutex that guards it, as swift-nio's
/// `NIOLockedValueBox`: every lock of the core. Synchronization's `Mutex`
/// would do as well, but linking that module (its conformances, the atomic
/// orderings' descriptions, what they pull from the standard library) cost
/// a firmware program 32 KiB (Tools/Footprint: 425 KiB with it, 393 without).
package final class Locked<Value>: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    /// For `wait(until:)`; only locks made `waitable` have one.
    private let condition: UnsafeMutablePointer<pthread_cond_t>?
    private var value: Value

    package init(_ value: Value, waitable: Bool = false) {
        self.value = value
        mutex.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(mutex, nil)
        precondition(status == 0, "pthread_mutex_init: \(status)")
        if waitable {
            condition = .allocate(capacity: 1)
            condition!.initialize(to: pthread_cond_t())
            #if REACH_NO_MODEM_FACTS
            // No deadline in a firmware build: `wait(timeoutNanoseconds:until:)`
            // serves ReachabilityModemManager alone.
            let status = pthread_cond_init(condition!, nil)
            #else
            // CLOCK_MONOTONIC, for `wait(timeoutNanoseconds:until:)`.
            var attributes = pthread_condattr_t()
            pthread_condattr_init(&attributes)
            pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
            let status = pthread_cond_init(condition!, &attributes)
            pthread_condattr_destroy(&attributes)
            #endif
            precondition(status == 0, "pthread_cond_init: \(status)")
        } else {
            condition = nil
        }
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
        if let condition {
            pthread_cond_destroy(condition)
            condition.deinitialize(count: 1)
            condition.deallocate()
        }
    }

    /// Runs `body` with the value, holding the lock.
    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }

    /// Waits, without holding the lock meanwhile, until `done` holds (checked
    /// under the lock each time another thread calls `broadcast()`).
    package func wait(until done: (inout Value) -> Bool) {
        guard let condition else { preconditionFailure("wait(until:) on a lock made without waitable") }
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while !done(&value) { pthread_cond_wait(condition, mutex) }
    }

    #if !REACH_NO_MODEM_FACTS
    /// `wait(until:)` for at most `timeoutNanoseconds`; returns whether `done` holds.
    package func wait(timeoutNanoseconds: UInt64, until done: (inout Value) -> Bool) -> Bool {
        guard let condition else { preconditionFailure("wait(until:) on a lock made without waitable") }
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        let total = UInt64(deadline.tv_nsec) &+ min(timeoutNanoseconds, UInt64(Int32.max) * 1_000_000_000)
        deadline.tv_sec += Int(total / 1_000_000_000)
        deadline.tv_nsec = Int(total % 1_000_000_000)
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while !done(&value) {
            if pthread_cond_timedwait(condition, mutex, &deadline) == ETIMEDOUT { return done(&value) }
        }
        return true
    }
    #endif

    /// Wakes every `wait(until:)` to check its condition again (call after
    /// changing what they wait for).
    package func broadcast() {
        if let condition { pthread_cond_broadcast(condition) }
    }
}
