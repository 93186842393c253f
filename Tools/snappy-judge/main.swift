// The exporter's snappy compressor (Exporter/Sources/ReachExporterKit/Push/Snappy.swift,
// compiled with this file alone) as a filter for judge.py: each input on
// standard input is a 4-byte little-endian length and its bytes; each
// output is the same framing around the input compressed.

#if canImport(Glibc)
import Glibc
#endif

func readExactly(_ count: Int) -> [UInt8]? {
    var bytes = [UInt8](repeating: 0, count: count)
    var done = 0
    while done < count {
        let n = bytes.withUnsafeMutableBytes { read(0, $0.baseAddress! + done, count - done) }
        if n < 0, errno == EINTR { continue }
        guard n > 0 else { return nil }
        done += n
    }
    return bytes
}

func writeAll(_ bytes: [UInt8]) {
    var done = 0
    while done < bytes.count {
        let n = bytes.withUnsafeBytes { write(1, $0.baseAddress! + done, bytes.count - done) }
        if n < 0, errno == EINTR { continue }
        guard n > 0 else { exit(1) }
        done += n
    }
}

func frame(_ bytes: [UInt8]) -> [UInt8] {
    let n = UInt32(bytes.count)
    return [UInt8(truncatingIfNeeded: n), UInt8(truncatingIfNeeded: n >> 8), UInt8(truncatingIfNeeded: n >> 16), UInt8(truncatingIfNeeded: n >> 24)] + bytes
}

while let header = readExactly(4) {
    let count = Int(header[0]) | Int(header[1]) << 8 | Int(header[2]) << 16 | Int(header[3]) << 24
    guard let input = count == 0 ? [] : readExactly(count) else { exit(1) }
    writeAll(frame(Snappy.compress(input)))
}
