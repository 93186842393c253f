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
