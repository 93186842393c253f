#if canImport(Glibc)
internal import Glibc
#endif

/// An eventfd that a waiting probe watches besides its socket, owned by
/// whoever holds it: the fd is closed only when the last holder (the monitor
/// run, or a probe thread still waiting) lets go, so a signal never reaches a
/// recycled fd number.
final class WakeSignal: Sendable {
    let fd: Int32

    init() throws(ReachabilityError) {
        fd = Wakeup.open()
        guard fd >= 0 else { throw .system(operation: "eventfd", errno: .current) }
    }

    func signal() { Wakeup.signal(fd) }

    deinit { close(fd) }
}
