// A point on CLOCK_MONOTONIC: when a monitor or tracker found a state. Pure.

/// A reading of `CLOCK_MONOTONIC`, in nanoseconds since an unspecified point
/// (the boot, on Linux). Readings compare and subtract within one boot; they
/// are not wall-clock time.
public struct MonotonicInstant: Comparable, Hashable, Sendable, CustomStringConvertible {
    /// Nanoseconds on `CLOCK_MONOTONIC`.
    public let nanoseconds: UInt64

    /// The instant that `CLOCK_MONOTONIC` reads as this many nanoseconds.
    ///
    /// - Parameter nanoseconds: A reading of `CLOCK_MONOTONIC`, in nanoseconds.
    public init(nanoseconds: UInt64) { self.nanoseconds = nanoseconds }

    /// The time from this instant to another.
    ///
    /// - Parameter other: The instant to measure to.
    /// - Returns: The time from this instant to `other`: negative when `other` is earlier.
    public func duration(to other: MonotonicInstant) -> Duration {
        other - self
    }

    /// The time from `b` to `a`: negative when `a` is earlier.
    public static func - (a: MonotonicInstant, b: MonotonicInstant) -> Duration {
        a.nanoseconds >= b.nanoseconds
            ? .nanoseconds(a.nanoseconds - b.nanoseconds)
            : .zero - .nanoseconds(b.nanoseconds - a.nanoseconds)
    }

    /// Whether `a` comes before `b` on the clock.
    public static func < (a: MonotonicInstant, b: MonotonicInstant) -> Bool { a.nanoseconds < b.nanoseconds }

    /// Seconds with microseconds, as `reach watch` prints it: `12345.678901`.
    public var description: String {
        let micros = String(nanoseconds / 1000 % 1_000_000)
        return "\(nanoseconds / 1_000_000_000).\(String(repeating: "0", count: 6 - micros.count))\(micros)"
    }
}
