import LinuxReachability

/// One metric of the exposition: its name, help and type, and the samples of
/// its series (`# HELP`, `# TYPE`, then a line per sample).
struct MetricFamily: Sendable, Equatable {
    /// The exposition's types the exporter serves (`# TYPE`).
    enum Kind: String, Sendable {
        case counter, gauge, histogram
    }

    /// The metric's name (`reach_target_status`); a histogram's series add a suffix to it (``Sample/suffix``).
    var name: String
    var help: String
    var kind: Kind
    var samples: [Sample]

    init(name: String, help: String, kind: Kind, samples: [Sample] = []) {
        self.name = name
        self.help = help
        self.kind = kind
        self.samples = samples
    }
}

/// One series' value: its labels, in the order the exposition writes them,
/// and the value.
struct Sample: Sendable, Equatable {
    /// `_bucket`, `_sum` or `_count` for a histogram's series (the series'
    /// name is the family's with it); empty for every other series.
    var suffix: String
    var labels: [SeriesLabel]
    var value: SampleValue

    init(suffix: String = "", labels: [SeriesLabel], value: SampleValue) {
        self.suffix = suffix
        self.labels = labels
        self.value = value
    }

    /// The series' name: the family's, and the suffix.
    func name(in family: MetricFamily) -> String {
        suffix.isEmpty ? family.name : family.name + suffix
    }
}

/// A label of a series: `target="internet"`, the value as it is (the
/// exposition escapes it, remote write sends it raw).
struct SeriesLabel: Hashable, Sendable {
    var name: String
    var value: String

    init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

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
