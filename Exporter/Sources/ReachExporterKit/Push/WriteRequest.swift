// Prometheus' remote write 1.0 message (prometheus/prompb: remote.proto and
// types.proto), encoded by hand: the exporter sends one message and needs
// four of its fields, so no protobuf library or generated code.
//
//   WriteRequest { repeated TimeSeries timeseries = 1; }
//   TimeSeries   { repeated Label labels = 1; repeated Sample samples = 2; }
//   Label        { string name = 1; string value = 2; }
//   Sample       { double value = 1; int64 timestamp = 2; }   // milliseconds

enum WriteRequest {
    /// Wire types: a varint, 8 bytes, a length-delimited field.
    private static let varint: UInt8 = 0, fixed64: UInt8 = 1, lengthDelimited: UInt8 = 2

    /// A series' labels as TimeSeries field 1 entries, sorted by name (the
    /// protocol asks for it; `__name__` first). Made once per series.
    static func encodedLabels(_ labels: [(name: String, value: String)]) -> [UInt8] {
        var output: [UInt8] = []
        for (name, value) in labels.sorted(by: { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }) {
            let label = fieldSize(name.utf8.count) + fieldSize(value.utf8.count)
            appendTag(1, lengthDelimited, &output)
            appendVarint(UInt64(label), to: &output)
            appendField(1, name, &output)
            appendField(2, value, &output)
        }
        return output
    }

    /// The message: each series (labels from `encodedLabels`) with its samples
    /// (timestamp in ms, value), in the order given.
    static func encode(_ series: [(labels: [UInt8], samples: ArraySlice<(timestamp: Int64, value: Double)>)]) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(series.reduce(0) { $0 + $1.labels.count + 24 + $1.samples.count * 20 })
        for (labels, samples) in series {
            var size = labels.count
            for sample in samples { size += 1 + varintSize(UInt64(sampleSize(sample.timestamp))) + sampleSize(sample.timestamp) }
            appendTag(1, lengthDelimited, &output)
            appendVarint(UInt64(size), to: &output)
            output.append(contentsOf: labels)
            for sample in samples {
                appendTag(2, lengthDelimited, &output)
                appendVarint(UInt64(sampleSize(sample.timestamp)), to: &output)
                appendTag(1, fixed64, &output)
                var bits = sample.value.bitPattern
                for _ in 0 ..< 8 { output.append(UInt8(truncatingIfNeeded: bits)); bits >>= 8 }
                appendTag(2, varint, &output)
                appendVarint(UInt64(bitPattern: sample.timestamp), to: &output)
            }
        }
        return output
    }

    /// A Sample's bytes: the double's tag and 8 bytes, the timestamp's tag and varint.
    private static func sampleSize(_ timestamp: Int64) -> Int { 1 + 8 + 1 + varintSize(UInt64(bitPattern: timestamp)) }

    private static func fieldSize(_ length: Int) -> Int { 1 + varintSize(UInt64(length)) + length }

    private static func appendTag(_ field: UInt8, _ wireType: UInt8, _ output: inout [UInt8]) {
        output.append(field << 3 | wireType)
    }

    private static func appendField(_ field: UInt8, _ text: String, _ output: inout [UInt8]) {
        appendTag(field, lengthDelimited, &output)
        appendVarint(UInt64(text.utf8.count), to: &output)
        output.append(contentsOf: text.utf8)
    }
}
