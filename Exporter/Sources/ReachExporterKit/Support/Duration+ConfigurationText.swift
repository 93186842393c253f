import LinuxReachability

/// Durations as the configuration file writes them: `5s`, `500ms`, `2m`,
/// `1h`. Read from the file and the flags; written back wherever the
/// exporter says a duration to an operator (`--check-config`, the log, the
/// status page, an error's "no answer within 30s"), so that what is read
/// is what a file would say.
extension Duration {
    /// `5s`, `500ms`, `2m`, `1h`, or a number of seconds (fractions allowed);
    /// positive and at most a day. Nil otherwise.
    init?(configurationText text: String) {
        let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600)]
        var number = Substring(text), scale = 1.0
        for (suffix, factor) in units where text.hasSuffix(suffix) {
            number = text.dropLast(suffix.count)
            scale = factor
            break
        }
        guard let value = Double(number), value.isFinite, value > 0, value * scale <= 86_400 else { return nil }
        self = .milliseconds(Int64((value * scale * 1000).rounded(.up)))
    }

    /// The largest unit that writes it whole: `5s`, `200ms`, `2m`, `1h`
    /// (whole milliseconds; a part below one is dropped).
    var configurationText: String {
        let milliseconds = clampedNanoseconds / 1_000_000
        if milliseconds % 3_600_000 == 0 { return "\(milliseconds / 3_600_000)h" }
        if milliseconds % 60_000 == 0 { return "\(milliseconds / 60_000)m" }
        if milliseconds % 1000 == 0 { return "\(milliseconds / 1000)s" }
        return "\(milliseconds)ms"
    }
}
