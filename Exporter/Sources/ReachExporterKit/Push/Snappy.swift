// Snappy's block format (github.com/google/snappy, format_description.txt),
// the compression Prometheus' remote write 1.0 requires: a varint of the
// uncompressed length, then literals and back-references ("copies") into
// what came before. Written here rather than linked: a compressor is a
// hundred lines, and remote write needs nothing else of a snappy library.
// The input is taken in blocks of 64 KiB, as snappy's own compressor does,
// so that every offset fits two bytes and the position table 16 bits.

enum Snappy {
    static let blockSize = 1 << 16
    private static let tableBits = 14

    /// `input`, compressed (block format, no framing).
    static func compress(_ input: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(input.count / 2 + 16)
        appendVarint(UInt64(input.count), to: &output)
        var table = [UInt16](repeating: 0, count: 1 << tableBits)
        input.withUnsafeBufferPointer { bytes in
            var start = 0
            while start < bytes.count {
                let end = min(start + blockSize, bytes.count)
                compressBlock(UnsafeBufferPointer(rebasing: bytes[start ..< end]), into: &output, table: &table)
                start = end
            }
        }
        return output
    }

    /// One block (at most 64 KiB): greedy matches of at least 4 bytes found
    /// through a hash of the next 4 bytes; where nothing matches for a while,
    /// the search steps faster (1 more byte per 32 misses), as snappy does.
    private static func compressBlock(_ block: UnsafeBufferPointer<UInt8>, into output: inout [UInt8], table: inout [UInt16]) {
        for index in table.indices { table[index] = 0 }
        let count = block.count
        var literalStart = 0
        var position = 1   // position 0 can only be a literal
        var misses = 32
        guard count >= 8 else { appendLiteral(block[0 ..< count], to: &output); return }
        while position + 4 <= count {
            let word = load32(block, position)
            let slot = Int((word &* 0x1E35_A7BD) >> UInt32(32 - tableBits))
            let candidate = Int(table[slot])
            table[slot] = UInt16(position)
            if candidate < position, load32(block, candidate) == word {
                var length = 4
                while position + length < count, block[candidate + length] == block[position + length] { length += 1 }
                if literalStart < position { appendLiteral(block[literalStart ..< position], to: &output) }
                appendCopy(offset: position - candidate, length: length, to: &output)
                position += length
                literalStart = position
                misses = 32
            } else {
                position += misses >> 5
                misses += 1
            }
        }
        if literalStart < count { appendLiteral(block[literalStart ..< count], to: &output) }
    }

    private static func load32(_ block: UnsafeBufferPointer<UInt8>, _ at: Int) -> UInt32 {
        UInt32(block[at]) | UInt32(block[at + 1]) << 8 | UInt32(block[at + 2]) << 16 | UInt32(block[at + 3]) << 24
    }

    /// A literal: its length - 1 in the tag when under 60, else in 1...4 bytes after it.
    private static func appendLiteral(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, to output: inout [UInt8]) {
        let lengthMinusOne = bytes.count - 1
        if lengthMinusOne < 60 {
            output.append(UInt8(lengthMinusOne << 2))
        } else {
            var extra: [UInt8] = []
            var rest = lengthMinusOne
            while rest > 0 { extra.append(UInt8(truncatingIfNeeded: rest)); rest >>= 8 }
            output.append(UInt8((59 + extra.count) << 2))
            output.append(contentsOf: extra)
        }
        output.append(contentsOf: bytes)
    }

    /// A copy of `length` (≥ 4) bytes from `offset` back: 1-byte offsets for
    /// short, near ones (4...11 bytes, < 2048 back), else 2-byte offsets in
    /// pieces of at most 64 (leaving no piece under 4).
    private static func appendCopy(offset: Int, length: Int, to output: inout [UInt8]) {
        var rest = length
        while rest >= 68 { appendCopy2(offset, 64, &output); rest -= 64 }
        if rest > 64 { appendCopy2(offset, 60, &output); rest -= 60 }
        if rest <= 11 && offset < 2048 {
            output.append(UInt8((offset >> 8) << 5 | (rest - 4) << 2 | 1))
            output.append(UInt8(truncatingIfNeeded: offset))
        } else {
            appendCopy2(offset, rest, &output)
        }
    }

    private static func appendCopy2(_ offset: Int, _ length: Int, _ output: inout [UInt8]) {
        output.append(UInt8((length - 1) << 2 | 2))
        output.append(UInt8(truncatingIfNeeded: offset))
        output.append(UInt8(truncatingIfNeeded: offset >> 8))
    }
}

/// A protobuf varint (also snappy's length preamble): 7 bits a byte, low first.
func appendVarint(_ value: UInt64, to output: inout [UInt8]) {
    var rest = value
    while rest >= 0x80 {
        output.append(UInt8(truncatingIfNeeded: rest) | 0x80)
        rest >>= 7
    }
    output.append(UInt8(rest))
}

func varintSize(_ value: UInt64) -> Int {
    var size = 1, rest = value
    while rest >= 0x80 { size += 1; rest >>= 7 }
    return size
}
