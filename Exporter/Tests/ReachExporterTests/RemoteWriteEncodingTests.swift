// Remote write's bytes, checked against decoders written here from the
// formats' descriptions (snappy's format_description.txt, protobuf's
// encoding guide): every kind of snappy element round-trips, and real
// compression happens; a WriteRequest decodes to the series and samples
// given; a snapshot's series become labels (external labels);
// the queue keeps order and its bounds. Prometheus itself reading what we
// send is tested in Tests/IntegrationTests/RemoteWriteTests.swift.

@testable import ReachExporterKit
import XCTest

final class RemoteWriteEncodingTests: XCTestCase {
    // MARK: - Decoders for the test

    struct DecodeError: Error { let what: String }

    static func readVarint(_ bytes: [UInt8], _ index: inout Int) throws -> UInt64 {
        var value: UInt64 = 0, shift: UInt64 = 0
        while true {
            guard index < bytes.count, shift < 64 else { throw DecodeError(what: "varint") }
            let byte = bytes[index]; index += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
    }

    static func unsnappy(_ input: [UInt8]) throws -> [UInt8] {
        var index = 0
        let length = Int(try readVarint(input, &index))
        var output: [UInt8] = []
        while index < input.count {
            let tag = input[index]; index += 1
            switch tag & 3 {
            case 0:
                var count = Int(tag >> 2) + 1
                if count > 60 {
                    let extra = count - 60
                    count = 0
                    for byte in 0 ..< extra { count |= Int(input[index + byte]) << (8 * byte) }
                    count += 1
                    index += extra
                }
                guard index + count <= input.count else { throw DecodeError(what: "literal past the end") }
                output += input[index ..< index + count]; index += count
            case 1:
                let count = Int((tag >> 2) & 7) + 4
                let offset = Int(tag >> 5) << 8 | Int(input[index]); index += 1
                try copy(offset, count, &output)
            case 2:
                let count = Int(tag >> 2) + 1
                let offset = Int(input[index]) | Int(input[index + 1]) << 8; index += 2
                try copy(offset, count, &output)
            default:
                throw DecodeError(what: "4-byte offsets are never written")
            }
        }
        guard output.count == length else { throw DecodeError(what: "length \(output.count) != \(length)") }
        return output
    }

    static func copy(_ offset: Int, _ count: Int, _ output: inout [UInt8]) throws {
        guard offset > 0, offset <= output.count else { throw DecodeError(what: "offset \(offset) of \(output.count)") }
        for _ in 0 ..< count { output.append(output[output.count - offset]) }
    }

    /// A message's fields: number, and bytes (length-delimited), bits (fixed64) or varint.
    enum Field { case bytes([UInt8]), fixed64(UInt64), varint(UInt64) }

    static func fields(_ bytes: [UInt8]) throws -> [(Int, Field)] {
        var index = 0, result: [(Int, Field)] = []
        while index < bytes.count {
            let key = try readVarint(bytes, &index)
            switch key & 7 {
            case 0: result.append((Int(key >> 3), .varint(try readVarint(bytes, &index))))
            case 1:
                var bits: UInt64 = 0
                for byte in 0 ..< 8 { bits |= UInt64(bytes[index + byte]) << (8 * UInt64(byte)) }
                index += 8
                result.append((Int(key >> 3), .fixed64(bits)))
            case 2:
                let count = Int(try readVarint(bytes, &index))
                result.append((Int(key >> 3), .bytes(Array(bytes[index ..< index + count]))))
                index += count
            default: throw DecodeError(what: "wire type \(key & 7)")
            }
        }
        return result
    }

    typealias Series = (labels: [String: String], names: [String], samples: [(Int64, Double)])

    static func decodeWriteRequest(_ bytes: [UInt8]) throws -> [Series] {
        try fields(bytes).map { number, field in
            guard number == 1, case let .bytes(series) = field else { throw DecodeError(what: "field \(number)") }
            var labels: [String: String] = [:], names: [String] = [], samples: [(Int64, Double)] = []
            for (number, field) in try fields(series) {
                guard case let .bytes(inner) = field else { throw DecodeError(what: "series field") }
                let parts = try fields(inner)
                if number == 1 {
                    var name = "", value = ""
                    for case let (n, .bytes(text)) in parts { if n == 1 { name = String(decoding: text, as: UTF8.self) } else { value = String(decoding: text, as: UTF8.self) } }
                    labels[name] = value; names.append(name)
                } else {
                    var value = 0.0, timestamp: Int64 = 0
                    for (n, part) in parts {
                        if n == 1, case let .fixed64(bits) = part { value = Double(bitPattern: bits) }
                        if n == 2, case let .varint(v) = part { timestamp = Int64(bitPattern: v) }
                    }
                    samples.append((timestamp, value))
                }
            }
            return (labels, names, samples)
        }
    }

    // MARK: - Snappy

    func testSnappyRoundTripsEveryElementAndCompresses() throws {
        var random = SystemRandomNumberGenerator()
        let text = Array(String(repeating: "reach_target_status{target=\"internet\",status=\"reachable.wired\"} 1\n", count: 3000).utf8)
        let noise = (0 ..< 70_000).map { _ in UInt8.random(in: 0 ... 255, using: &random) }
        var mixed: [UInt8] = []
        for round in 0 ..< 40 { mixed += Array(noise[(round * 997) % 60_000 ..< (round * 997) % 60_000 + 500]); mixed += text[0 ..< 300 + round * 13] }
        let inputs: [[UInt8]] = [[], [7], Array("abcd".utf8), Array("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa".utf8),
                                 text, noise, mixed, Array(repeating: 0, count: 200_000)]
        for input in inputs {
            let compressed = Snappy.compress(input)
            XCTAssertEqual(try Self.unsnappy(compressed), input, "\(input.count) bytes")
        }
        let ratio = Double(Snappy.compress(text).count) / Double(text.count)
        XCTAssertLessThan(ratio, 0.1, "a repeated exposition compresses (ratio \(ratio))")
        XCTAssertLessThan(Snappy.compress(noise).count, noise.count + noise.count / 100 + 16, "noise grows by little")
    }

    // MARK: - WriteRequest

    func testWriteRequestDecodesToTheSeriesAndSamplesGiven() throws {
        let labels = WriteRequest.encodedLabels([("target", "internet"), ("__name__", "reach_target_reachable"), ("gateway", "gw1")])
        let other = WriteRequest.encodedLabels([("__name__", "reach_build_info")])
        let samples: [(timestamp: Int64, value: Double)] = [(1_764_400_000_000, 1), (1_764_400_015_000, 0), (1_764_400_030_000, .infinity)]
        let message = WriteRequest.encode([(labels, samples[...]), (other, [(1_764_400_000_000, 0.5)][...])])
        let decoded = try Self.decodeWriteRequest(message)
        XCTAssertEqual(decoded.count, 2)
        XCTAssertEqual(decoded[0].names, ["__name__", "gateway", "target"], "sorted by name")
        XCTAssertEqual(decoded[0].labels, ["__name__": "reach_target_reachable", "gateway": "gw1", "target": "internet"])
        XCTAssertEqual(decoded[0].samples.map(\.0), samples.map(\.timestamp))
        XCTAssertEqual(decoded[0].samples.map(\.1), samples.map(\.value))
        XCTAssertEqual(decoded[1].labels, ["__name__": "reach_build_info"])
        XCTAssertEqual(decoded[1].samples.map(\.1), [0.5])
    }

    // MARK: - The snapshot's series

    /// A snapshot's series become remote write's labels: `__name__` (a
    /// histogram's with its suffix), the series' own labels with their values
    /// as they are (no exposition escapes to undo), the external labels
    /// added where the series has no label of that name; the values as
    /// doubles, NaN included.
    func testSnapshotSeriesBecomeLabelsWithExternalLabels() throws {
        var table = SeriesTable(externalLabels: [("gateway", "gw1"), ("target", "ignored: the series' own wins")])
        let families = [
            MetricFamily(name: "reach_target_reachable", help: "h", kind: .gauge,
                         samples: [Sample(labels: [SeriesLabel("target", "internet")], value: .double(1))]),
            MetricFamily(name: "reach_probe_rtt_seconds", help: "h", kind: .histogram, samples: [
                Sample(suffix: "_bucket", labels: [SeriesLabel("interface", "wan0"), SeriesLabel("le", "+Inf")], value: .integer(12)),
            ]),
            MetricFamily(name: "reach_target_status", help: "h", kind: .gauge, samples: [
                Sample(labels: [SeriesLabel("target", "a \"b\" {c} d\\e\nf"), SeriesLabel("status", "notReachable")], value: .double(0)),
            ]),
            MetricFamily(name: "reach_build_info", help: "h", kind: .gauge, samples: [Sample(labels: [SeriesLabel("version", "1.0")], value: .double(1))]),
            MetricFamily(name: "reach_monitor_events_total", help: "h", kind: .counter, samples: [Sample(labels: [], value: .integer(42))]),
            MetricFamily(name: "reach_nan", help: "h", kind: .gauge, samples: [Sample(labels: [], value: .double(.nan))]),
        ]
        let samples = table.samples(of: snapshot(families))
        XCTAssertEqual(samples.map(\.value).dropLast().map { $0 }, [1, 12, 0, 1, 42])
        XCTAssertTrue(samples.last!.value.isNaN)
        let first = try Self.decodeWriteRequest(WriteRequest.encode([(table.encodedLabels[0], [(0, 1)][...])]))[0].labels
        XCTAssertEqual(first, ["__name__": "reach_target_reachable", "target": "internet", "gateway": "gw1"])
        let escaped = try Self.decodeWriteRequest(WriteRequest.encode([(table.encodedLabels[2], [(0, 1)][...])]))[0].labels
        XCTAssertEqual(escaped["target"], "a \"b\" {c} d\\e\nf")
        XCTAssertEqual(escaped["status"], "notReachable")
        let bucket = try Self.decodeWriteRequest(WriteRequest.encode([(table.encodedLabels[1], [(0, 1)][...])]))[0].labels
        XCTAssertEqual(bucket["__name__"], "reach_probe_rtt_seconds_bucket")
        XCTAssertEqual(bucket["le"], "+Inf")
        // The same series again: the same numbers, no new entry.
        let again = table.samples(of: snapshot(families))
        XCTAssertEqual(again.map(\.series), samples.map(\.series))
        XCTAssertEqual(table.count, 6)
    }

    // MARK: - The queue

    func testQueueKeepsOrderDropsTheOldestWhenFullAndByAge() {
        var queue = SampleQueue(capacity: 5)
        XCTAssertEqual(queue.append([(0, 0), (1, 1), (2, 2)], at: 1000), 0)
        queue.removeFirst(2)
        XCTAssertEqual(queue.append([(3, 3), (4, 4), (5, 5)], at: 2000), 0)   // wraps around
        XCTAssertEqual(queue.first(10).map(\.series), [2, 3, 4, 5])
        XCTAssertEqual(queue.append([(6, 6), (7, 7)], at: 3000), 1, "one over capacity: the oldest goes")
        XCTAssertEqual(queue.first(10).map(\.series), [3, 4, 5, 6, 7])
        XCTAssertEqual(queue.oldestTimestamp, 2000)
        XCTAssertEqual(queue.removeOlder(than: 3000), 3)
        XCTAssertEqual(queue.first(10).map(\.series), [6, 7])
        queue.removeFirst(2)
        XCTAssertTrue(queue.isEmpty)
        XCTAssertNil(queue.oldestTimestamp)
        XCTAssertEqual(queue.append((0 ..< 12).map { (UInt32($0), Double($0)) }, at: 4000), 7)
        XCTAssertEqual(queue.first(10).map(\.series), [7, 8, 9, 10, 11])
    }

    func testBase64() {
        XCTAssertEqual(base64(Array("gw:secret".utf8)), "Z3c6c2VjcmV0")
        XCTAssertEqual(base64(Array("a".utf8)), "YQ==")
        XCTAssertEqual(base64(Array("ab".utf8)), "YWI=")
        XCTAssertEqual(base64([]), "")
    }
}

final class RemoteWriteMessageTests: XCTestCase {
    func testBoringSSLErrorsLoseTheirBuildPaths() {
        let text = "handshakeFailed(NIOSSL.BoringSSLError.sslError([Error: 268435581 error:1000007d:SSL routines:OPENSSL_internal:CERTIFICATE_VERIFY_FAILED at /work/x/.build/checkouts/swift-nio-ssl/Sources/CNIOBoringSSL/ssl/handshake.cc:320]))"
        XCTAssertEqual(withoutSourcePaths(text),
                       "handshakeFailed(NIOSSL.BoringSSLError.sslError([Error: 268435581 error:1000007d:SSL routines:OPENSSL_internal:CERTIFICATE_VERIFY_FAILED]))")
        XCTAssertEqual(withoutSourcePaths("no path here"), "no path here")
    }
}
