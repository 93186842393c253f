// The waits of the threads the library owns (the monitor's event thread,
// the trackers', the workers'): poll(2) on a descriptor and a wake-up, and
// eventfd wake-ups. They are the C core's calls (CSupport/wait.c), here so
// that the engine reaches the C core only through this module.
import ReachabilityModel

internal import CReachability

/// An eventfd another thread signals to wake a waiting one.
package enum Wakeup {
    /// A new eventfd, -1 with errno set when the process has none left.
    package static func open() -> Int32 { creach_wakeup_open() }
    /// Wakes the thread waiting on `fd` (a write of 1; never blocks).
    @discardableResult
    package static func signal(_ fd: Int32) -> Int32 { creach_wakeup_signal(fd) }
    /// Reads the count back to 0, after a wait that `fd` ended.
    package static func clear(_ fd: Int32) { creach_wakeup_clear(fd) }
}

/// What ended a wait: the descriptor is readable (a datagram, or a pending
/// error such as ENOBUFS), the wake-up was signalled, both, neither (the
/// timeout or EINTR), or the wait failed (errno set).
package struct WaitOutcome {
    package let raw: Int32
    package var failed: Bool { raw < 0 }
    package var isReadable: Bool { raw > 0 && raw & CREACH_WAIT_NETLINK != 0 }
    package var wasWoken: Bool { raw > 0 && raw & CREACH_WAIT_WAKEUP != 0 }
}

/// Waits until `fd` is readable, `wakeFD` is signalled, or `timeoutNanoseconds`
/// pass (< 0: no limit); either descriptor may be -1 (poll(2), CSupport/wait.c).
@inline(__always)
package func waitForEvents(_ fd: Int32, wake wakeFD: Int32, timeoutNanoseconds: Int64) -> WaitOutcome {
    WaitOutcome(raw: creach_wait(fd, wakeFD, timeoutNanoseconds))
}
