extension Duration {
    /// This duration in whole nanoseconds, as deadlines on `CLOCK_MONOTONIC`
    /// take it: the one conversion of the package (the engine, the modem
    /// reader, the exporter and the benchmarks all use it).
    ///
    /// A part below one nanosecond is dropped; a negative duration gives 0;
    /// a duration longer than `UInt64.max` nanoseconds (about 584 years)
    /// gives `UInt64.max`. Code that needs a signed count takes
    /// `Int64(clamping:)` of it.
    ///
    /// Not inlined: a conversion at each of its uses would cost more code
    /// than the calls (the firmware footprint), and none is on a hot path.
    @inline(never)
    public var clampedNanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        guard seconds >= 0, attoseconds >= 0 || seconds > 0 else { return 0 }
        let (whole, overflow) = UInt64(clamping: seconds).multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return .max }
        let (sum, carried) = whole.addingReportingOverflow(UInt64(clamping: attoseconds / 1_000_000_000))
        return carried ? .max : sum
    }
}
