import Logging

extension Logger {
    /// The `[source]` of the exporter's log lines: the program's own module
    /// name, whichever module of the exporter writes the line, so that the
    /// journal reads `notice reach-exporter: [reach_exporter] ...` as it did
    /// when the program was one module (a line's default source is the module
    /// it is written in).
    static let exporterSource = "reach_exporter"
}
