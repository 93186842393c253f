#if canImport(Glibc)
internal import Glibc
#endif

/// A value and the pthread mutex that guards it, as swift-nio's
/// `NIOLockedValueBox`: every lock of the library. Synchronization's `Mutex`
/// would do as well, but linking that module (its conformances, the atomic
/// orderings' descriptions, what they pull from the standard library) makes
/// a firmware program larger ("Firmware builds and footprint" has the sizes).
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
