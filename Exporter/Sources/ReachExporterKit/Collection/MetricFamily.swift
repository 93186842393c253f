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
