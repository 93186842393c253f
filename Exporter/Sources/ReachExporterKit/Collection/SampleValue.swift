import LinuxReachability

/// A sample's value, kept as it was counted or measured, so that the
/// exposition writes each kind as Prometheus' client libraries do.
enum SampleValue: Sendable, Equatable {
    /// A count (a counter, a histogram's bucket or count): `42`.
    case integer(Int64)
    /// A measurement (a gauge): Swift's shortest form of the double, `1.0`, `0.25`, `nan`.
    case double(Double)
    /// A sum of durations (a histogram's sum), in seconds to the last
    /// non-zero digit: `0.0025`, `3.0`.
    case seconds(Duration)

    /// The value as remote write sends it.
    var double: Double {
        switch self {
        case let .integer(count): Double(count)
        case let .double(value): value
        case let .seconds(duration): Double(duration.clampedNanoseconds) / 1e9
        }
    }

    /// Equal when they are the same value of the same kind; a NaN equals the same NaN.
    static func == (lhs: SampleValue, rhs: SampleValue) -> Bool {
        switch (lhs, rhs) {
        case let (.integer(a), .integer(b)): a == b
        case let (.double(a), .double(b)): a == b || a.bitPattern == b.bitPattern
        case let (.seconds(a), .seconds(b)): a == b
        default: false
        }
    }
}
