#if canImport(Glibc)
import Glibc
#endif

/// `CLOCK_REALTIME`: the Unix time of the series' timestamps, of the status
/// page's times and of remote write's samples. (Intervals and deadlines use
/// the package's monotonic clock, `MonotonicInstant.now`.)
package enum WallClock {
    /// Seconds since the Unix epoch.
    package static func unixSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    /// Milliseconds since the Unix epoch, as remote write's samples carry them.
    package static func unixMilliseconds() -> Int64 {
        Int64(unixSeconds() * 1000)
    }
}
