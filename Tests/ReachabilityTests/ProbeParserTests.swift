// Unit tests of the pure probe-packet builders and parsers (CSupport/probe_parse.c,
// section "Probe packets" of CReachability.h): ICMP(v6) echo, the HTTP request
// and response head, the DNS query and response, and creach_parse_id_range.
//
// Packets are built here byte by byte with the layout spelled out, so every
// expected value is concrete. Every buffer handed to a parser is copied so
// that it ENDS exactly at a PROT_NONE guard page (withGuardedBytes in
// FixtureSupport.swift): reading one byte past `len` crashes the test process.
// Truncation loops feed every proper prefix of each valid packet that way.

import CReachability
import Foundation
import XCTest

#if canImport(Glibc)
import Glibc
#endif

// Constants: `K` in FixtureSupport.swift; the DNS ones here.
private let typeA: UInt16 = 1       // CREACH_DNS_TYPE_A
private let typeAAAA: UInt16 = 28   // CREACH_DNS_TYPE_AAAA
private let typeCNAME: UInt16 = 5
private let typeTXT: UInt16 = 16
private let classIN: UInt16 = 1

// MARK: - Byte helpers

private func be16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xff)] }
private func be32(_ v: UInt32) -> [UInt8] { be16(UInt16(v >> 16)) + be16(UInt16(v & 0xffff)) }
private func ascii(_ s: String) -> [UInt8] { Array(s.utf8) }

/// The one's-complement sum of the big-endian 16-bit words, folded (RFC 1071).
/// A packet with a correct checksum sums to 0xffff.
private func onesComplementSum(_ b: [UInt8]) -> UInt16 {
    var sum: UInt32 = 0
    var i = 0
    while i + 1 < b.count { sum += UInt32(b[i]) << 8 | UInt32(b[i + 1]); i += 2 }
    if b.count % 2 == 1 { sum += UInt32(b[b.count - 1]) << 8 }
    while sum > 0xffff { sum = (sum & 0xffff) + (sum >> 16) }
    return UInt16(sum)
}

// MARK: - ICMP packets

/// An ICMP(v6) message with an 8-byte header: type, code, checksum 0, then 4 bytes.
private func icmp(_ type: UInt8, code: UInt8 = 0, rest: [UInt8] = [0, 0, 0, 0], body: [UInt8] = []) -> [UInt8] {
    precondition(rest.count == 4)
    return [type, code, 0, 0] + rest + body
}

private func echo(_ type: UInt8, id: UInt16, seq: UInt16, payload: [UInt8] = ascii("probe-payload")) -> [UInt8] {
    icmp(type, rest: be16(id) + be16(seq), body: payload)
}

/// An IPv4 header of `ihl` 32-bit words (options are NOPs) for `payloadLen` bytes of `proto`.
private func ipv4(proto: UInt8, ihl: Int = 5, payloadLen: Int, fragOffset: UInt16 = 0, version: UInt8 = 4) -> [UInt8] {
    var h: [UInt8] = [version << 4 | UInt8(ihl & 0x0f), 0]
    h += be16(UInt16(ihl * 4 + payloadLen))
    h += be16(0x4242) + be16(fragOffset)             // identification, flags + fragment offset
    h += [64, proto, 0, 0]                            // TTL, protocol, checksum
    h += [192, 0, 2, 1, 198, 51, 100, 7]              // source, destination
    while h.count < ihl * 4 { h.append(0x01) }        // NOP options
    return h
}

/// A fixed IPv6 header for `payloadLen` bytes with next header `next`.
private func ipv6(next: UInt8, payloadLen: Int) -> [UInt8] {
    var h: [UInt8] = [0x60, 0, 0, 0]
    h += be16(UInt16(payloadLen)) + [next, 64]
    h += [0x20, 0x01, 0x0d, 0xb8] + Array(repeating: 0, count: 11) + [1]    // 2001:db8::1
    h += [0x20, 0x01, 0x0d, 0xb8] + Array(repeating: 0, count: 11) + [2]    // 2001:db8::2
    precondition(h.count == 40)
    return h
}

/// An ICMPv4 error of `type` quoting `quoted` (an IP header and what followed).
private func icmp4Error(_ type: UInt8, code: UInt8 = 0, quoting quoted: [UInt8]) -> [UInt8] {
    icmp(type, code: code, body: quoted)
}

/// The raw-socket view: an outer IPv4 header (protocol ICMP) before `message`.
private func raw4(_ message: [UInt8], ihl: Int = 5) -> [UInt8] {
    ipv4(proto: 1, ihl: ihl, payloadLen: message.count) + message
}

// MARK: - Calls (errno read right after the call)

private struct ICMPResult: Equatable, CustomStringConvertible {
    var rc: Int32
    var errno: Int32 = 0            // only when rc == -1
    var type: UInt8 = 0
    var code: UInt8 = 0
    var reply: UInt8 = 0
    var error: UInt8 = 0
    var id: UInt16 = 0
    var seq: UInt16 = 0
    var description: String {
        "(rc \(rc) errno \(errno) type \(type) code \(code) reply \(reply) error \(error) id \(id) seq \(seq))"
    }
}

private func icmpParse(_ family: UInt8, raw: Bool, _ bytes: [UInt8]) -> ICMPResult {
    withGuardedBytes(bytes) { p, n in
        var info = creach_icmp_info()
        _ = withUnsafeMutableBytes(of: &info) { $0.initializeMemory(as: UInt8.self, repeating: 0xA5) }
        errno = 0
        let rc = creach_icmp_parse(family, raw ? 1 : 0, p, n, &info)
        let e = errno
        if rc == -1 { return ICMPResult(rc: rc, errno: e) }
        return ICMPResult(rc: rc, type: info.type, code: info.code, reply: info.is_echo_reply,
                          error: info.is_error, id: info.id, seq: info.seq)
    }
}

private struct Built: Equatable, CustomStringConvertible {
    var rc: Int32
    var errno: Int32
    var bytes: [UInt8]              // the first rc bytes when rc > 0
    var description: String { "(rc \(rc) errno \(errno) \(bytes.count) bytes)" }
}

private func icmpBuild(_ family: UInt8, id: UInt16, seq: UInt16, payload: [UInt8], buflen: Int) -> Built {
    var buf = [UInt8](repeating: 0xEE, count: max(buflen, 1))
    errno = 0
    let rc = payload.withUnsafeBytes { pl in
        buf.withUnsafeMutableBytes { b in
            creach_icmp_echo_build(family, id, seq, pl.baseAddress, payload.count, b.baseAddress, buflen)
        }
    }
    let e = errno
    return Built(rc: rc, errno: rc == -1 ? e : 0, bytes: rc > 0 ? Array(buf[0..<Int(rc)]) : [])
}

private func httpBuild(host: String, path: String, buflen: Int = 1024) -> Built {
    var buf = [UInt8](repeating: 0xEE, count: max(buflen, 1))
    errno = 0
    let rc = buf.withUnsafeMutableBytes { creach_http_build_request(host, path, $0.baseAddress, buflen) }
    let e = errno
    return Built(rc: rc, errno: rc == -1 ? e : 0, bytes: rc > 0 ? Array(buf[0..<Int(rc)]) : [])
}

private struct HeadResult: Equatable, CustomStringConvertible {
    var rc: Int32
    var errno: Int32 = 0
    var status: Int32 = -7          // untouched unless rc == 1
    var headLen: Int = -7
    var description: String { "(rc \(rc) errno \(errno) status \(status) head_len \(headLen))" }
}

private func httpParse(_ bytes: [UInt8]) -> HeadResult {
    withGuardedBytes(bytes) { p, n in
        var status: Int32 = -7
        var headLen: Int = 0x5A5A
        errno = 0
        let rc = creach_http_parse_head(p, n, &status, &headLen)
        let e = errno
        if rc == -1 { return HeadResult(rc: rc, errno: e) }
        if rc == 0 { return HeadResult(rc: rc) }
        return HeadResult(rc: rc, status: status, headLen: headLen)
    }
}
private func httpParse(_ s: String) -> HeadResult { httpParse(ascii(s)) }

private let bodyUnknown = CREACH_HTTP_BODY_UNKNOWN
private let bodyEmpty = CREACH_HTTP_BODY_EMPTY
private let bodyPresent = CREACH_HTTP_BODY_PRESENT
private let bodyMalformed = CREACH_HTTP_BODY_MALFORMED

/// What creach_http_parse_response found, field by field (a failure leaves the defaults).
private struct ResponseFacts: Equatable, CustomStringConvertible {
    var rc: Int32
    var errno: Int32 = 0
    var status: Int32 = 0
    var headLen = 0
    var body: Int32 = 0
    var bodyBytes = 0
    var contentLength: UInt64?
    var transferEncoding = false
    var chunked = false
    /// The field's text when a Location was present ("" when it was too long).
    var location: String?
    var locationTooLong = false
    var locationLen = 0
    var description: String {
        "(rc \(rc) errno \(errno) status \(status) head \(headLen) body \(body) bytes \(bodyBytes) "
            + "length \(contentLength.map(String.init) ?? "-") te \(transferEncoding) chunked \(chunked) "
            + "location \(location.map { "\($0.prefix(40).debugDescription) (\($0.utf8.count))" } ?? "-") "
            + "too-long \(locationTooLong) location-len \(locationLen))"
    }
}

/// creach_http_parse_response over a guarded copy of `bytes`. Checks on every
/// call: the location is NUL-terminated within its field, and a result other
/// than 1 leaves the whole struct zero.
private func httpResponse(_ bytes: [UInt8], atEnd: Bool = false, file: StaticString = #filePath,
                          line: UInt = #line) -> ResponseFacts {
    withGuardedBytes(bytes) { p, n in
        var head = creach_http_head()
        withUnsafeMutableBytes(of: &head) { raw in for i in raw.indices { raw[i] = 0xA5 } }   // garbage: the parser clears it
        errno = 0
        let rc = creach_http_parse_response(p, n, atEnd ? 1 : 0, &head)
        let e = errno
        let fieldSize = MemoryLayout.size(ofValue: head.location)
        XCTAssertEqual(fieldSize, Int(CREACH_HTTP_LOCATION_SIZE), file: file, line: line)
        let text = withUnsafeBytes(of: &head.location) { field -> String? in
            guard let nul = field.firstIndex(of: 0) else { return nil }
            return String(decoding: field[..<nul], as: UTF8.self)
        }
        XCTAssertNotNil(text, "location not NUL-terminated within its field", file: file, line: line)
        guard rc == 1 else {
            let zero = withUnsafeBytes(of: &head) { $0.allSatisfy { $0 == 0 } }
            XCTAssertTrue(zero, "rc \(rc) left bytes in the result", file: file, line: line)
            return ResponseFacts(rc: rc, errno: rc == -1 ? e : 0)
        }
        return ResponseFacts(rc: rc, status: head.status, headLen: head.head_len, body: Int32(head.body),
                             bodyBytes: head.body_bytes,
                             contentLength: head.has_content_length != 0 ? head.content_length : nil,
                             transferEncoding: head.has_transfer_encoding != 0, chunked: head.chunked != 0,
                             location: head.has_location != 0 ? text : nil, locationTooLong: head.location_too_long != 0,
                             locationLen: head.location_len)
    }
}

private func dnsBuild(id: UInt16, name: String, qtype: UInt16 = typeA, buflen: Int = 512) -> Built {
    var buf = [UInt8](repeating: 0xEE, count: max(buflen, 1))
    errno = 0
    let rc = buf.withUnsafeMutableBytes { creach_dns_build_query(id, name, qtype, $0.baseAddress, buflen) }
    let e = errno
    return Built(rc: rc, errno: rc == -1 ? e : 0, bytes: rc > 0 ? Array(buf[0..<Int(rc)]) : [])
}

private struct DNSResult: Equatable, CustomStringConvertible {
    var rc: Int32
    var errno: Int32 = 0
    var rcode: UInt8 = 0
    var truncated: UInt8 = 0
    var answers: UInt16 = 0
    var first: [UInt8] = []         // the used bytes (4 for A, 16 for AAAA) when answers > 0
    var description: String {
        "(rc \(rc) errno \(errno) rcode \(rcode) tc \(truncated) answers \(answers) first \(first))"
    }
}

private func dnsParse(_ bytes: [UInt8], id: UInt16 = 0xBEEF, name: String = "probe.test", qtype: UInt16 = typeA) -> DNSResult {
    withGuardedBytes(bytes) { p, n in
        var r = creach_dns_result()
        _ = withUnsafeMutableBytes(of: &r) { $0.initializeMemory(as: UInt8.self, repeating: 0xA5) }
        errno = 0
        let rc = creach_dns_parse_response(p, n, id, name, qtype, &r)
        let e = errno
        if rc != 1 { return DNSResult(rc: rc, errno: rc == -1 ? e : 0) }
        let first = withUnsafeBytes(of: r.first) { Array($0) }
        return DNSResult(rc: rc, rcode: r.rcode, truncated: r.truncated, answers: r.answers,
                         first: r.answers > 0 ? Array(first.prefix(qtype == typeAAAA ? 16 : 4)) : [])
    }
}

private struct IDRange: Equatable, CustomStringConvertible {
    var rc: Int32
    var errno: Int32 = 0
    var low: UInt32 = 0xDEAD
    var high: UInt32 = 0xBEEF
    var description: String { "(rc \(rc) errno \(errno) low \(low) high \(high))" }
}

private func idRange(_ s: String, len: Int? = nil) -> IDRange {
    withGuardedBytes(ascii(s)) { p, n in
        var low: UInt32 = 0xDEAD
        var high: UInt32 = 0xBEEF
        errno = 0
        let rc = creach_parse_id_range(p.assumingMemoryBound(to: CChar.self), len ?? n, &low, &high)
        let e = errno
        return IDRange(rc: rc, errno: rc == -1 ? e : 0, low: low, high: high)
    }
}

// MARK: - DNS messages

/// A dotted name in wire form (no compression).
private func wireName(_ name: String) -> [UInt8] {
    var out: [UInt8] = []
    for label in name.split(separator: ".", omittingEmptySubsequences: true) {
        out.append(UInt8(label.utf8.count))
        out += Array(label.utf8)
    }
    return out + [0]
}

private func rr(name: [UInt8], type: UInt16, klass: UInt16 = classIN, ttl: UInt32 = 300, rdata: [UInt8],
                rdlength: UInt16? = nil) -> [UInt8] {
    name + be16(type) + be16(klass) + be32(ttl) + be16(rdlength ?? UInt16(rdata.count)) + rdata
}

/// A DNS message: header, one question (or `qdcount` copies), then `records` as the answer section.
private func dnsMessage(id: UInt16 = 0xBEEF, flags: UInt16 = 0x8180, qname: [UInt8] = wireName("probe.test"),
                        qtype: UInt16 = typeA, qclass: UInt16 = classIN, qdcount: UInt16 = 1,
                        ancount: UInt16? = nil, records: [[UInt8]] = []) -> [UInt8] {
    var m = be16(id) + be16(flags) + be16(qdcount) + be16(ancount ?? UInt16(records.count)) + be16(0) + be16(0)
    for _ in 0..<max(Int(qdcount), 1) { m += qname + be16(qtype) + be16(qclass) }
    for r in records { m += r }
    return m
}

/// The offset of the answer section in a dnsMessage with one question "probe.test".
private let answersOffset = 12 + 12 + 4
/// A compression pointer to `offset`.
private func ptr(_ offset: Int) -> [UInt8] { [0xC0 | UInt8(offset >> 8), UInt8(offset & 0xff)] }

final class ProbeParserTests: XCTestCase {

    // MARK: ICMP build

    func testICMPBuildV4ChecksumAndNetworkOrder() {
        let b = icmpBuild(K.AF_INET, id: 0x1234, seq: 0xABCD, payload: ascii("abc"), buflen: 64)
        XCTAssertEqual(b.rc, 11)
        // 08 00 | checksum | 12 34 | ab cd | "abc". Sum of the words with the
        // checksum 0: 0800 + 1234 + abcd + 6162 + 6300 = 0x18a63 -> 0x8a64 -> ~ = 0x759b.
        XCTAssertEqual(b.bytes, [8, 0, 0x75, 0x9B, 0x12, 0x34, 0xAB, 0xCD, 0x61, 0x62, 0x63])
        XCTAssertEqual(onesComplementSum(b.bytes), 0xFFFF)

        // Even payload, other values, exact-size buffer.
        let payload = (0..<56).map { UInt8(truncatingIfNeeded: $0 * 37 + 5) }
        let c = icmpBuild(K.AF_INET, id: 0xFFFF, seq: 1, payload: payload, buflen: 64)
        XCTAssertEqual(c.rc, 64)
        XCTAssertEqual(Array(c.bytes[0..<2]), [8, 0])
        XCTAssertEqual(Array(c.bytes[4..<8]), [0xFF, 0xFF, 0x00, 0x01])
        XCTAssertEqual(Array(c.bytes[8...]), payload)
        XCTAssertEqual(onesComplementSum(c.bytes), 0xFFFF)

        // No payload: 08 00 f7 ff 00 00 00 00 (~0x0800).
        XCTAssertEqual(icmpBuild(K.AF_INET, id: 0, seq: 0, payload: [], buflen: 8).bytes,
                       [8, 0, 0xF7, 0xFF, 0, 0, 0, 0])
    }

    func testICMPBuildV6LeavesChecksumToKernel() {
        let b = icmpBuild(K.AF_INET6, id: 0x0102, seq: 0x0304, payload: ascii("xy"), buflen: 10)
        XCTAssertEqual(b.rc, 10)
        XCTAssertEqual(b.bytes, [128, 0, 0, 0, 0x01, 0x02, 0x03, 0x04, 0x78, 0x79])
    }

    func testICMPBuildErrors() {
        XCTAssertEqual(icmpBuild(K.AF_INET, id: 1, seq: 1, payload: ascii("abc"), buflen: 10),
                       Built(rc: -1, errno: EMSGSIZE, bytes: []))
        XCTAssertEqual(icmpBuild(K.AF_INET6, id: 1, seq: 1, payload: [], buflen: 7),
                       Built(rc: -1, errno: EMSGSIZE, bytes: []))
        XCTAssertEqual(icmpBuild(K.AF_INET, id: 1, seq: 1, payload: [], buflen: 0),
                       Built(rc: -1, errno: EMSGSIZE, bytes: []))
        XCTAssertEqual(icmpBuild(K.AF_UNSPEC, id: 1, seq: 1, payload: [], buflen: 64),
                       Built(rc: -1, errno: EINVAL, bytes: []))
        XCTAssertEqual(icmpBuild(K.RTNL_FAMILY_IPMR, id: 1, seq: 1, payload: [], buflen: 64),
                       Built(rc: -1, errno: EINVAL, bytes: []))

        var buf = [UInt8](repeating: 0, count: 64)
        errno = 0
        let nullPayload = buf.withUnsafeMutableBytes { creach_icmp_echo_build(K.AF_INET, 1, 1, nil, 4, $0.baseAddress, 64) }
        XCTAssertEqual(nullPayload, -1)
        XCTAssertEqual(errno, EINVAL)
        errno = 0
        XCTAssertEqual(creach_icmp_echo_build(K.AF_INET, 1, 1, nil, 0, nil, 64), -1)
        XCTAssertEqual(errno, EINVAL)
        // A NULL payload of length 0 is fine.
        let ok = buf.withUnsafeMutableBytes { creach_icmp_echo_build(K.AF_INET, 1, 1, nil, 0, $0.baseAddress, 64) }
        XCTAssertEqual(ok, 8)
        // Larger than any ICMP message (65535 bytes): EMSGSIZE even with room.
        var big = [UInt8](repeating: 0, count: 70_000)
        let payload = [UInt8](repeating: 0x55, count: 65_528)
        errno = 0
        let rc = payload.withUnsafeBytes { pl in
            big.withUnsafeMutableBytes { creach_icmp_echo_build(K.AF_INET, 1, 1, pl.baseAddress, pl.count, $0.baseAddress, 70_000) }
        }
        XCTAssertEqual(rc, -1)
        XCTAssertEqual(errno, EMSGSIZE)
    }

    func testICMPBuildThenParseRoundTrip() {
        // A built request parses as an echo request (0); flipped to a reply, as a reply.
        var b = icmpBuild(K.AF_INET, id: 0x7777, seq: 42, payload: ascii("hello"), buflen: 64).bytes
        XCTAssertEqual(icmpParse(K.AF_INET, raw: false, b), ICMPResult(rc: 0, type: 8))
        b[0] = 0
        XCTAssertEqual(icmpParse(K.AF_INET, raw: false, b), ICMPResult(rc: 1, type: 0, reply: 1, id: 0x7777, seq: 42))
    }

    // MARK: ICMP parse: replies and requests

    func testICMPParseEchoReplies() {
        let reply4 = echo(0, id: 0xBEEF, seq: 0x0102)
        let expected = ICMPResult(rc: 1, type: 0, code: 0, reply: 1, error: 0, id: 0xBEEF, seq: 0x0102)
        XCTAssertEqual(icmpParse(K.AF_INET, raw: false, reply4), expected)
        XCTAssertEqual(icmpParse(K.AF_INET, raw: true, raw4(reply4)), expected)
        XCTAssertEqual(icmpParse(K.AF_INET, raw: true, raw4(reply4, ihl: 6)), expected)
        XCTAssertEqual(icmpParse(K.AF_INET, raw: true, raw4(reply4, ihl: 15)), expected)
        // The bare 8-byte header is enough.
        XCTAssertEqual(icmpParse(K.AF_INET, raw: false, echo(0, id: 9, seq: 10, payload: [])),
                       ICMPResult(rc: 1, reply: 1, id: 9, seq: 10))

        let reply6 = echo(129, id: 0x0A0B, seq: 0xFFFE)
        XCTAssertEqual(icmpParse(K.AF_INET6, raw: false, reply6),
                       ICMPResult(rc: 1, type: 129, reply: 1, id: 0x0A0B, seq: 0xFFFE))
        // Types are per family: 129 is nothing in ICMPv4, 0 nothing in ICMPv6.
        XCTAssertEqual(icmpParse(K.AF_INET, raw: false, reply6), ICMPResult(rc: 0, type: 129))
        XCTAssertEqual(icmpParse(K.AF_INET6, raw: false, reply4), ICMPResult(rc: 0, type: 0))
    }

    func testICMPParseOwnEchoRequestIsIgnored() {
        // On loopback a raw socket also sees the request it sent.
        XCTAssertEqual(icmpParse(K.AF_INET, raw: true, raw4(echo(8, id: 5, seq: 6))), ICMPResult(rc: 0, type: 8))
        XCTAssertEqual(icmpParse(K.AF_INET, raw: false, echo(8, id: 5, seq: 6)), ICMPResult(rc: 0, type: 8))
        XCTAssertEqual(icmpParse(K.AF_INET6, raw: false, echo(128, id: 5, seq: 6)), ICMPResult(rc: 0, type: 128))
        // Other messages: router advertisement (134), v4 redirect (5), source quench (4).
        XCTAssertEqual(icmpParse(K.AF_INET6, raw: false, icmp(134, body: [0, 0, 0, 0, 0, 0, 0, 0])),
                       ICMPResult(rc: 0, type: 134))
        let quotedEcho = ipv4(proto: 1, payloadLen: 8) + echo(8, id: 1, seq: 2, payload: [])
        XCTAssertEqual(icmpParse(K.AF_INET, raw: false, icmp4Error(5, code: 1, quoting: quotedEcho)),
                       ICMPResult(rc: 0, type: 5, code: 1))
        XCTAssertEqual(icmpParse(K.AF_INET, raw: false, icmp4Error(4, quoting: quotedEcho)), ICMPResult(rc: 0, type: 4))
    }

    // MARK: ICMP parse: errors

    func testICMPParseV4ErrorsQuotingOurEcho() {
        let request = echo(8, id: 0x4321, seq: 0x0007, payload: ascii("12345678"))
        let quoted = ipv4(proto: 1, payloadLen: request.count) + request
        let unreach = icmp4Error(3, code: 1, quoting: quoted)
        let expected = ICMPResult(rc: 1, type: 3, code: 1, reply: 0, error: 1, id: 0x4321, seq: 0x0007)
        XCTAssertEqual(icmpParse(K.AF_INET, raw: true, raw4(unreach)), expected)
        XCTAssertEqual(icmpParse(K.AF_INET, raw: true, raw4(unreach, ihl: 6)), expected)
        XCTAssertEqual(icmpParse(K.AF_INET, raw: false, unreach), expected)

        // Time exceeded quoting a header with options (IHL 6), only the 8 echo bytes.
        let quoted6 = ipv4(proto: 1, ihl: 6, payloadLen: 8) + echo(8, id: 0x0001, seq: 0xFF00, payload: [])
        XCTAssertEqual(icmpParse(K.AF_INET, raw: true, raw4(icmp4Error(11, quoting: quoted6))),
                       ICMPResult(rc: 1, type: 11, error: 1, id: 0x0001, seq: 0xFF00))
        // Parameter problem (12): pointer in the "rest" field.
        XCTAssertEqual(icmpParse(K.AF_INET, raw: false, icmp(12, rest: [20, 0, 0, 0], body: quoted)),
                       ICMPResult(rc: 1, type: 12, error: 1, id: 0x4321, seq: 0x0007))
    }

    func testICMPParseV4ErrorsAboutOtherTraffic() {
        // In two steps: one `+` chain is more than Swift 6.0's type checker solves in time.
        var tcp: [UInt8] = be16(40000) + be16(443) + be32(1) + be32(0)
        tcp += [0x50, 0x02] + be16(0xffff)
        let udp = be16(40000) + be16(53) + be16(8) + be16(0)
        for (proto, segment) in [(UInt8(6), tcp), (UInt8(17), udp)] {
            let quoted = ipv4(proto: proto, payloadLen: segment.count) + segment
            XCTAssertEqual(icmpParse(K.AF_INET, raw: true, raw4(icmp4Error(3, code: 3, quoting: quoted))),
                           ICMPResult(rc: 0, type: 3, code: 3), "protocol \(proto)")
        }
        // Segments whose first bytes look like an echo request (source port 0x0800 = 2048):
        // only the quoted protocol tells them apart.
        let lookalikeUDP = be16(0x0800) + be16(0x1234) + be16(0x0005) + be16(8)
        var lookalikeTCP: [UInt8] = be16(0x0800) + be16(443) + be32(0x0005_0006) + be32(0)
        lookalikeTCP += [0x50, 0x02] + be16(0xffff)
        for (proto, segment, seq) in [(UInt8(17), lookalikeUDP, UInt16(8)), (UInt8(6), lookalikeTCP, UInt16(6))] {
            let quoted = ipv4(proto: proto, payloadLen: segment.count) + segment
            XCTAssertEqual(icmpParse(K.AF_INET, raw: true, raw4(icmp4Error(3, code: 3, quoting: quoted))),
                           ICMPResult(rc: 0, type: 3, code: 3), "look-alike protocol \(proto)")
            // The same bytes quoted as ICMP are our echo: the test above is not vacuous.
            let asICMP = ipv4(proto: 1, payloadLen: segment.count) + segment
            XCTAssertEqual(icmpParse(K.AF_INET, raw: true, raw4(icmp4Error(3, code: 3, quoting: asICMP))),
                           ICMPResult(rc: 1, type: 3, code: 3, error: 1, id: 5, seq: seq))
        }
        // Quoting an echo REPLY, or ICMP that is not an echo request.
        let quotedReply = ipv4(proto: 1, payloadLen: 8) + echo(0, id: 1, seq: 2, payload: [])
        XCTAssertEqual(icmpParse(K.AF_INET, raw: false, icmp4Error(3, quoting: quotedReply)), ICMPResult(rc: 0, type: 3))
        // A quote too short for the echo header (4 of 8 bytes), or with a lying IHL.
        let short = ipv4(proto: 1, payloadLen: 8) + [8, 0, 0, 0]
        XCTAssertEqual(icmpParse(K.AF_INET, raw: false, icmp4Error(11, quoting: short)), ICMPResult(rc: 0, type: 11))
        let lying = ipv4(proto: 1, ihl: 15, payloadLen: 8)
        XCTAssertEqual(icmpParse(K.AF_INET, raw: false, icmp4Error(11, quoting: Array(lying[0..<20]) + echo(8, id: 1, seq: 1, payload: []))),
                       ICMPResult(rc: 0, type: 11))
        // A quoted non-first fragment carries payload bytes, not our header.
        let fragment = ipv4(proto: 1, payloadLen: 8, fragOffset: 0x0010) + echo(8, id: 1, seq: 1, payload: [])
        XCTAssertEqual(icmpParse(K.AF_INET, raw: false, icmp4Error(3, quoting: fragment)), ICMPResult(rc: 0, type: 3))
        // Quoted header of the wrong version.
        let v6quote = ipv4(proto: 1, payloadLen: 8, version: 6) + echo(8, id: 1, seq: 1, payload: [])
        XCTAssertEqual(icmpParse(K.AF_INET, raw: false, icmp4Error(3, quoting: v6quote)), ICMPResult(rc: 0, type: 3))
    }

    func testICMPParseV6Errors() {
        let request = echo(128, id: 0x6666, seq: 0x0909, payload: ascii("abcdefgh"))
        let quoted = ipv6(next: 58, payloadLen: request.count) + request
        for type: UInt8 in [1, 3, 4] {
            XCTAssertEqual(icmpParse(K.AF_INET6, raw: false, icmp(type, code: 2, body: quoted)),
                           ICMPResult(rc: 1, type: type, code: 2, error: 1, id: 0x6666, seq: 0x0909), "type \(type)")
        }
        // Packet too big carries the MTU in the rest field.
        XCTAssertEqual(icmpParse(K.AF_INET6, raw: false, icmp(2, rest: be32(1280), body: quoted)),
                       ICMPResult(rc: 1, type: 2, error: 1, id: 0x6666, seq: 0x0909))
        // Only the fixed header plus the 8 echo bytes.
        let minimal = ipv6(next: 58, payloadLen: 8) + echo(128, id: 1, seq: 2, payload: [])
        XCTAssertEqual(icmpParse(K.AF_INET6, raw: false, icmp(1, body: minimal)),
                       ICMPResult(rc: 1, type: 1, error: 1, id: 1, seq: 2))
        // Other next headers (UDP, TCP, an extension header) and a quoted reply: not ours.
        let udp = be16(40000) + be16(53) + be16(8) + be16(0)
        for next: UInt8 in [17, 6, 0, 60] {
            XCTAssertEqual(icmpParse(K.AF_INET6, raw: false, icmp(1, code: 4, body: ipv6(next: next, payloadLen: 8) + udp)),
                           ICMPResult(rc: 0, type: 1, code: 4), "next header \(next)")
        }
        // A UDP datagram whose header looks like an echo request (source port 0x8000 = 128 << 8).
        let lookalike = be16(0x8000) + be16(0x1234) + be16(0x0005) + be16(8)
        XCTAssertEqual(icmpParse(K.AF_INET6, raw: false, icmp(1, code: 4, body: ipv6(next: 17, payloadLen: 8) + lookalike)),
                       ICMPResult(rc: 0, type: 1, code: 4))
        XCTAssertEqual(icmpParse(K.AF_INET6, raw: false, icmp(1, code: 4, body: ipv6(next: 58, payloadLen: 8) + lookalike)),
                       ICMPResult(rc: 1, type: 1, code: 4, error: 1, id: 5, seq: 8))
        XCTAssertEqual(icmpParse(K.AF_INET6, raw: false, icmp(1, body: ipv6(next: 58, payloadLen: 8) + echo(129, id: 1, seq: 2, payload: []))),
                       ICMPResult(rc: 0, type: 1))
        // A quote shorter than 40 + 8 bytes.
        XCTAssertEqual(icmpParse(K.AF_INET6, raw: false, icmp(3, body: Array(minimal.dropLast()))),
                       ICMPResult(rc: 0, type: 3))
        // v4 error types mean other things in ICMPv6 and vice versa.
        XCTAssertEqual(icmpParse(K.AF_INET6, raw: false, icmp(11, body: quoted)), ICMPResult(rc: 0, type: 11))
    }

    func testICMPParseBadOuterHeader() {
        let reply = echo(0, id: 1, seq: 2)
        var ihl4 = raw4(reply)
        ihl4[0] = 0x44
        XCTAssertEqual(icmpParse(K.AF_INET, raw: true, ihl4), ICMPResult(rc: -1, errno: EBADMSG))
        var ihl0 = raw4(reply)
        ihl0[0] = 0x40
        XCTAssertEqual(icmpParse(K.AF_INET, raw: true, ihl0), ICMPResult(rc: -1, errno: EBADMSG))
        // IHL 15 = 60 bytes, but only 20 + 21 in the datagram.
        var tooLong = raw4(reply)
        tooLong[0] = 0x4F
        XCTAssertEqual(tooLong.count, 41)
        XCTAssertEqual(icmpParse(K.AF_INET, raw: true, tooLong), ICMPResult(rc: -1, errno: EBADMSG))
        // IHL 6 with exactly 24 bytes: header fits, no ICMP header after it.
        XCTAssertEqual(icmpParse(K.AF_INET, raw: true, ipv4(proto: 1, ihl: 6, payloadLen: 0)),
                       ICMPResult(rc: -1, errno: EBADMSG))
        var v6 = raw4(reply)
        v6[0] = 0x65
        XCTAssertEqual(icmpParse(K.AF_INET, raw: true, v6), ICMPResult(rc: -1, errno: EBADMSG))
        // Choice: an outer protocol other than ICMP is not ours (0), not malformed.
        XCTAssertEqual(icmpParse(K.AF_INET, raw: true, ipv4(proto: 17, payloadLen: reply.count) + reply),
                       ICMPResult(rc: 0))
        XCTAssertEqual(icmpParse(K.AF_INET, raw: true, []), ICMPResult(rc: -1, errno: EBADMSG))
        XCTAssertEqual(icmpParse(K.AF_INET6, raw: false, [129, 0, 0, 0, 0, 1, 0]), ICMPResult(rc: -1, errno: EBADMSG))
    }

    func testICMPParseInvalidArguments() {
        let reply = echo(0, id: 1, seq: 2)
        XCTAssertEqual(icmpParse(K.AF_UNSPEC, raw: false, reply), ICMPResult(rc: -1, errno: EINVAL))
        // Raw ICMPv6 sockets never deliver the IPv6 header.
        XCTAssertEqual(icmpParse(K.AF_INET6, raw: true, reply), ICMPResult(rc: -1, errno: EINVAL))
        var info = creach_icmp_info()
        errno = 0
        XCTAssertEqual(creach_icmp_parse(K.AF_INET, 0, nil, 8, &info), -1)
        XCTAssertEqual(errno, EINVAL)
        errno = 0
        let rc = reply.withUnsafeBytes { creach_icmp_parse(K.AF_INET, 0, $0.baseAddress, $0.count, nil) }
        XCTAssertEqual(rc, -1)
        XCTAssertEqual(errno, EINVAL)
    }

    func testICMPParseEveryTruncation() {
        let request4 = echo(8, id: 0x4321, seq: 7, payload: ascii("12345678"))
        let request6 = echo(128, id: 0x6666, seq: 9, payload: ascii("abcdefgh"))
        // (label, family, raw, packet, expected, quote: bytes of quoted IP header + echo header an error needs)
        let cases: [(String, UInt8, Bool, [UInt8], ICMPResult, Int)] = [
            ("v4 reply", K.AF_INET, false, echo(0, id: 3, seq: 4), ICMPResult(rc: 1, reply: 1, id: 3, seq: 4), 0),
            ("v4 raw reply IHL 5", K.AF_INET, true, raw4(echo(0, id: 3, seq: 4)), ICMPResult(rc: 1, reply: 1, id: 3, seq: 4), 0),
            ("v4 raw reply IHL 6", K.AF_INET, true, raw4(echo(0, id: 3, seq: 4), ihl: 6), ICMPResult(rc: 1, reply: 1, id: 3, seq: 4), 0),
            ("v4 raw unreach", K.AF_INET, true,
             raw4(icmp4Error(3, code: 1, quoting: ipv4(proto: 1, payloadLen: request4.count) + request4)),
             ICMPResult(rc: 1, type: 3, code: 1, error: 1, id: 0x4321, seq: 7), 20 + 8),
            ("v4 raw unreach, outer IHL 6", K.AF_INET, true,
             raw4(icmp4Error(3, code: 1, quoting: ipv4(proto: 1, payloadLen: request4.count) + request4), ihl: 6),
             ICMPResult(rc: 1, type: 3, code: 1, error: 1, id: 0x4321, seq: 7), 20 + 8),
            ("v4 time exceeded IHL 6 quote", K.AF_INET, false,
             icmp4Error(11, quoting: ipv4(proto: 1, ihl: 6, payloadLen: 8) + echo(8, id: 5, seq: 6, payload: [])),
             ICMPResult(rc: 1, type: 11, error: 1, id: 5, seq: 6), 24 + 8),
            ("v6 reply", K.AF_INET6, false, echo(129, id: 3, seq: 4), ICMPResult(rc: 1, type: 129, reply: 1, id: 3, seq: 4), 0),
            ("v6 unreach", K.AF_INET6, false, icmp(1, code: 3, body: ipv6(next: 58, payloadLen: request6.count) + request6),
             ICMPResult(rc: 1, type: 1, code: 3, error: 1, id: 0x6666, seq: 9), 40 + 8),
        ]
        for (label, family, raw, packet, expected, quote) in cases {
            XCTAssertEqual(icmpParse(family, raw: raw, packet), expected, label)
            let ipLen = raw ? Int(packet[0] & 0x0f) * 4 : 0
            for n in 0..<packet.count {
                let r = icmpParse(family, raw: raw, Array(packet[0..<n]))
                if n < ipLen + 8 {
                    // No room for the (outer header and the) ICMP header.
                    XCTAssertEqual(r, ICMPResult(rc: -1, errno: EBADMSG), "\(label) prefix \(n)")
                } else if n < ipLen + 8 + quote {
                    // An error whose quote is cut before the echo header ends: not ours.
                    XCTAssertEqual(r, ICMPResult(rc: 0, type: expected.type, code: expected.code), "\(label) prefix \(n)")
                } else {
                    XCTAssertEqual(r, expected, "\(label) prefix \(n)")
                }
            }
        }
    }

    // MARK: HTTP request

    func testHTTPBuildExactBytes() {
        let expected = "GET /generate_204 HTTP/1.1\r\nHost: 10.0.0.1:8080\r\nUser-Agent: swift-reachability\r\n"
            + "Accept: */*\r\nConnection: close\r\n\r\n"
        let b = httpBuild(host: "10.0.0.1:8080", path: "/generate_204")
        XCTAssertEqual(b.rc, Int32(expected.utf8.count))
        XCTAssertEqual(String(decoding: b.bytes, as: UTF8.self), expected)
        // Exact-size buffer works; one byte less is EMSGSIZE.
        XCTAssertEqual(httpBuild(host: "10.0.0.1:8080", path: "/generate_204", buflen: expected.utf8.count).bytes,
                       ascii(expected))
        XCTAssertEqual(httpBuild(host: "10.0.0.1:8080", path: "/generate_204", buflen: expected.utf8.count - 1),
                       Built(rc: -1, errno: EMSGSIZE, bytes: []))
        XCTAssertEqual(httpBuild(host: "10.0.0.1:8080", path: "/generate_204", buflen: 0),
                       Built(rc: -1, errno: EMSGSIZE, bytes: []))
        // A bracketed IPv6 literal and a query string; a 255-byte host.
        let tail = "\r\nUser-Agent: swift-reachability\r\nAccept: */*\r\nConnection: close\r\n\r\n"
        XCTAssertEqual(String(decoding: httpBuild(host: "[2001:db8::1]:80", path: "/a?b=c&d#~%20").bytes, as: UTF8.self),
                       "GET /a?b=c&d#~%20 HTTP/1.1\r\nHost: [2001:db8::1]:80" + tail)
        let longHost = String(repeating: "h", count: 255)
        XCTAssertEqual(String(decoding: httpBuild(host: longHost, path: "/").bytes, as: UTF8.self),
                       "GET / HTTP/1.1\r\nHost: " + longHost + tail)
    }

    func testHTTPBuildRejectsBadInput() {
        let einval = Built(rc: -1, errno: EINVAL, bytes: [])
        for host in ["", "a b", "a\rb", "a\nb", "a\tb", "a/b", "h\u{7f}", "h\u{e9}", String(repeating: "h", count: 256)] {
            XCTAssertEqual(httpBuild(host: host, path: "/"), einval, "host \(host.debugDescription)")
        }
        for path in ["", "generate_204", " /x", "/a b", "/a\rb", "/a\nb", "/a\tb", "/\u{1}", "/\u{7f}", "/\u{e9}"] {
            XCTAssertEqual(httpBuild(host: "example.test", path: path), einval, "path \(path.debugDescription)")
        }
        var buf = [UInt8](repeating: 0, count: 256)
        errno = 0
        let rc1 = buf.withUnsafeMutableBytes { creach_http_build_request(nil, "/", $0.baseAddress, 256) }
        XCTAssertEqual(rc1, -1)
        XCTAssertEqual(errno, EINVAL)
        errno = 0
        let rc2 = buf.withUnsafeMutableBytes { creach_http_build_request("h", nil, $0.baseAddress, 256) }
        XCTAssertEqual(rc2, -1)
        XCTAssertEqual(errno, EINVAL)
        errno = 0
        XCTAssertEqual(creach_http_build_request("h", "/", nil, 256), -1)
        XCTAssertEqual(errno, EINVAL)
    }

    // MARK: HTTP response head

    func testHTTPParseValidHeads() {
        XCTAssertEqual(httpParse("HTTP/1.1 204 No Content\r\n\r\n"), HeadResult(rc: 1, status: 204, headLen: 27))
        let withHeaders = "HTTP/1.1 204 No Content\r\nContent-Length: 0\r\nDate: Tue, 01 Jan 2030 00:00:00 GMT\r\n"
            + "X-Empty:\r\nX-Tab:\tv\t\r\n\r\n"
        XCTAssertEqual(httpParse(withHeaders), HeadResult(rc: 1, status: 204, headLen: withHeaders.utf8.count))
        let redirect = "HTTP/1.0 302 Found\r\nLocation: http://portal/\r\n\r\n"
        XCTAssertEqual(httpParse(redirect), HeadResult(rc: 1, status: 302, headLen: redirect.utf8.count))
        XCTAssertEqual(httpParse("HTTP/1.1 204 \r\n\r\n"), HeadResult(rc: 1, status: 204, headLen: 17))
        XCTAssertEqual(httpParse("HTTP/1.1 100 Continue\r\n\r\n"), HeadResult(rc: 1, status: 100, headLen: 25))
        XCTAssertEqual(httpParse("HTTP/1.1 599 x\r\n\r\n"), HeadResult(rc: 1, status: 599, headLen: 18))
        XCTAssertEqual(httpParse("HTTP/1.1 200 OK\r\nServer: a\r\n\r\n"), HeadResult(rc: 1, status: 200, headLen: 30))
        // tchars in a name; obs-text (>= 0x80) in a value.
        let tchars = ascii("HTTP/1.1 200 OK\r\n!#$%&'*+-.^_`|~09azAZ: v\r\nX: ") + [0x80, 0xC3, 0xA9, 0xFF] + ascii("\r\n\r\n")
        XCTAssertEqual(httpParse(tchars), HeadResult(rc: 1, status: 200, headLen: tchars.count))
    }

    func testHTTPParseIgnoresBytesAfterHead() {
        let body = ascii("HTTP/1.1 204 No Content\r\n\r\n") + [0, 0x0A, 0xFF] + ascii("GARBAGE \r\r\n")
        XCTAssertEqual(httpParse(body), HeadResult(rc: 1, status: 204, headLen: 27))
        // The first empty line ends the head, even if another head follows.
        let two = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n"
        XCTAssertEqual(httpParse(two), HeadResult(rc: 1, status: 100, headLen: 25))
    }

    func testHTTPParseEveryPrefixNeedsMore() {
        let heads = [
            "HTTP/1.1 204 No Content\r\n\r\n",
            "HTTP/1.0 302 Found\r\nLocation: http://portal/\r\n\r\n",
            "HTTP/1.1 204 \r\nA:\r\nB: c\r\n\r\n",
        ]
        for head in heads {
            let bytes = ascii(head)
            for n in 0..<bytes.count {
                XCTAssertEqual(httpParse(Array(bytes[0..<n])), HeadResult(rc: 0), "prefix \(n) of \(head.debugDescription)")
            }
            XCTAssertEqual(httpParse(bytes).rc, 1)
        }
        // A short status code is a prefix too: only a non-digit or the end of the line decides.
        XCTAssertEqual(httpParse("HTTP/1.1 20"), HeadResult(rc: 0))
    }

    func testHTTPParseRejectsInvalidHeads() {
        let invalid: [String] = [
            "HTTP/2 204\r\n\r\n",
            "HTTP/2.0 204 OK\r\n\r\n",
            "HTTP/1.2 204 OK\r\n\r\n",
            "HTTP/1.1 20\r\n\r\n",
            "HTTP/1.1 20 x\r\n\r\n",
            "HTTP/1.1 2045 x\r\n\r\n",
            "HTTP/1.1 204\r\n\r\n",          // no SP after the code
            "HTTP/1.1  204 x\r\n\r\n",
            "HTTP/1.1 099 x\r\n\r\n",
            "HTTP/1.1 000 x\r\n\r\n",
            "HTTP/1.1 600 x\r\n\r\n",
            "HTTP/1.1 2a4 x\r\n\r\n",
            "HTTP/1.1 204 No Content\n\n",   // bare LF
            "HTTP/1.1 204 No Content\r\nA: b\n\r\n",
            "HTTP/1.1 204 No Content\r\n\n",
            "HTTP/1.1 204 No Content\nServer: x\r\n\r\n",
            "HTTP/1.1 204 No Content\r\nA: b\nB: c\r\n\r\n",
            "HTTP/1.1 204 No Content\r\nA: b\r\n\n",
            "HTTP/1.1 204 No\rContent\r\n\r\n",   // bare CR
            "HTTP/1.1 204 No Content\r\nNoColon\r\n\r\n",
            "HTTP/1.1 204 No Content\r\nName : v\r\n\r\n",
            "HTTP/1.1 204 No Content\r\n: empty-name\r\n\r\n",
            "HTTP/1.1 204 No Content\r\nA: b\r\n c\r\n\r\n",     // obs-fold (SP)
            "HTTP/1.1 204 No Content\r\nA: b\r\n\tc\r\n\r\n",    // obs-fold (HTAB)
            "HTTP/1.1 204 No Content\r\n A: b\r\n\r\n",
            "HTTP/1.1 204 No Content\r\nA(b): c\r\n\r\n",
            "HTTP/1.1 204 No Content\r\nA: b\u{7f}\r\n\r\n",
            "HTTP/1.1 204 No Content\r\n\r\r\n",
            "http/1.1 204 No Content\r\n\r\n",
            "HTTP/1.1 204 No\u{1}Content\r\n\r\n",
            " HTTP/1.1 204 x\r\n\r\n",
            "\r\nHTTP/1.1 204 x\r\n\r\n",
        ]
        for s in invalid {
            XCTAssertEqual(httpParse(s), HeadResult(rc: -1, errno: EBADMSG), s.debugDescription)
        }
        // NUL at every position of a valid head.
        let valid = ascii("HTTP/1.1 204 No Content\r\nA: b\r\n\r\n")
        for i in 0..<valid.count {
            var b = valid
            b[i] = 0
            XCTAssertEqual(httpParse(b), HeadResult(rc: -1, errno: EBADMSG), "NUL at \(i)")
        }
        // Non-ASCII in the reason phrase (only VCHAR, SP, HTAB there) and in a name.
        XCTAssertEqual(httpParse(ascii("HTTP/1.1 204 ") + [0xC3, 0xA9] + ascii("\r\n\r\n")), HeadResult(rc: -1, errno: EBADMSG))
        XCTAssertEqual(httpParse(ascii("HTTP/1.1 204 x\r\n") + [0xC3] + ascii(": v\r\n\r\n")), HeadResult(rc: -1, errno: EBADMSG))
        // The verdict comes as soon as the bad byte is seen, without the rest.
        XCTAssertEqual(httpParse("HTTP/2 204"), HeadResult(rc: -1, errno: EBADMSG))
        XCTAssertEqual(httpParse("http/1.1 204"), HeadResult(rc: -1, errno: EBADMSG))
        XCTAssertEqual(httpParse("HTTP/1.1 099"), HeadResult(rc: -1, errno: EBADMSG))
    }

    func testHTTPParseInvalidArguments() {
        var status: Int32 = 0
        var headLen = 0
        errno = 0
        XCTAssertEqual(creach_http_parse_head(nil, 0, &status, &headLen), -1)
        XCTAssertEqual(errno, EINVAL)
        let b = ascii("HTTP/1.1 204 x\r\n\r\n")
        errno = 0
        XCTAssertEqual(b.withUnsafeBytes { creach_http_parse_head($0.baseAddress, $0.count, nil, &headLen) }, -1)
        XCTAssertEqual(errno, EINVAL)
        errno = 0
        XCTAssertEqual(b.withUnsafeBytes { creach_http_parse_head($0.baseAddress, $0.count, &status, nil) }, -1)
        XCTAssertEqual(errno, EINVAL)
    }

    // MARK: HTTP response: Location and body facts

    func testHTTPResponse204HasNoBodyWhateverFollows() {
        let head = ascii("HTTP/1.1 204 No Content\r\n")      // status line: 25 bytes
                 + ascii("Content-Length: 7\r\n")             // not allowed on a 204, ignored for the body
                 + ascii("\r\n")                              // end of head
        XCTAssertEqual(head.count, 46)
        let expected = ResponseFacts(rc: 1, status: 204, headLen: 46, body: bodyEmpty, contentLength: 7)
        XCTAssertEqual(httpResponse(head), expected)
        var garbage = expected
        garbage.bodyBytes = 3
        XCTAssertEqual(httpResponse(head + [0, 0xFF, 0x0A]), garbage, "bytes after a 204 are no body")
        // 304 never has a body either.
        let notModified = ascii("HTTP/1.1 304 Not Modified\r\n\r\n")
        XCTAssertEqual(httpResponse(notModified), ResponseFacts(rc: 1, status: 304, headLen: 29, body: bodyEmpty))
    }

    func testHTTPResponse200ContentLengthZeroIsEmpty() {
        let head = ascii("HTTP/1.1 200 OK\r\n")               // 17
                 + ascii("Content-Type: text/plain\r\n")      // 26
                 + ascii("Content-Length: 0\r\n")             // 19
                 + ascii("\r\n")                              // 2
        XCTAssertEqual(httpResponse(head), ResponseFacts(rc: 1, status: 200, headLen: 64, body: bodyEmpty, contentLength: 0))
        // Leading zeros and OWS around the digits are fine.
        let padded = ascii("HTTP/1.1 200 OK\r\nContent-Length: \t000 \t\r\n\r\n")
        XCTAssertEqual(httpResponse(padded).body, bodyEmpty)
        XCTAssertEqual(httpResponse(padded).contentLength, 0)
    }

    func testHTTPResponse200WithBodyIsPresent() {
        let head = ascii("HTTP/1.1 200 OK\r\n")               // 17
                 + ascii("Content-Length: 18\r\n")            // 20
                 + ascii("\r\n")                              // 2
        let page = ascii("<html>login</html>")                  // 18
        // Announced: no body byte is needed to know.
        XCTAssertEqual(httpResponse(head), ResponseFacts(rc: 1, status: 200, headLen: 39, body: bodyPresent, contentLength: 18))
        XCTAssertEqual(httpResponse(head + page),
                       ResponseFacts(rc: 1, status: 200, headLen: 39, body: bodyPresent, bodyBytes: 18, contentLength: 18))
        // No length: the body runs until close; one byte decides, the end decides too.
        let open = ascii("HTTP/1.0 200 OK\r\nConnection: close\r\n\r\n")   // 38
        XCTAssertEqual(httpResponse(open), ResponseFacts(rc: 1, status: 200, headLen: 38, body: bodyUnknown))
        XCTAssertEqual(httpResponse(open, atEnd: true), ResponseFacts(rc: 1, status: 200, headLen: 38, body: bodyEmpty))
        XCTAssertEqual(httpResponse(open + ascii("<")), ResponseFacts(rc: 1, status: 200, headLen: 38, body: bodyPresent, bodyBytes: 1))
        XCTAssertEqual(httpResponse(open + ascii("<"), atEnd: true).body, bodyPresent)
        // Another transfer coding than chunked: until close as well, whatever Content-Length says.
        let gzip = ascii("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nContent-Length: 0\r\n\r\n")
        XCTAssertEqual(httpResponse(gzip), ResponseFacts(rc: 1, status: 200, headLen: gzip.count, body: bodyUnknown,
                                                         contentLength: 0, transferEncoding: true))
        XCTAssertEqual(httpResponse(gzip + [0x1F]).body, bodyPresent)
    }

    func testHTTPResponse302KeepsItsLocation() {
        let head = ascii("HTTP/1.1 302 Found\r\n")                            // 20
                 + ascii("location:  \thttp://portal.test/login?mac=02:00 \t\r\n")   // any case; OWS trimmed
                 + ascii("LOCATION: http://second.test/\r\n")                  // a singleton: the first counts
                 + ascii("Content-Length: 0\r\n")
                 + ascii("\r\n")
        let url = "http://portal.test/login?mac=02:00"
        XCTAssertEqual(httpResponse(head), ResponseFacts(rc: 1, status: 302, headLen: head.count, body: bodyEmpty,
                                                         contentLength: 0, location: url, locationLen: url.utf8.count))
        // Bytes >= 0x80 are kept as they came; an empty value is a Location all the same.
        let utf8 = ascii("HTTP/1.1 307 x\r\nLocation: /caf") + [0xC3, 0xA9] + ascii("\r\n\r\n")
        XCTAssertEqual(httpResponse(utf8).location, "/café")
        XCTAssertEqual(httpResponse(utf8).locationLen, 6)
        let empty = httpResponse(ascii("HTTP/1.1 302 Found\r\nLocation:\t \r\n\r\n"))
        XCTAssertEqual(empty.location, "")
        XCTAssertEqual(empty.locationLen, 0)
        // Names that only start or end like it are other fields.
        let others = ascii("HTTP/1.1 302 Found\r\nX-Location: a\r\nLocation-Extra: b\r\nLocatio: c\r\n\r\n")
        XCTAssertNil(httpResponse(others).location)
    }

    func testHTTPResponse301WithoutLocation() {
        let head = ascii("HTTP/1.1 301 Moved Permanently\r\n")   // 32
                 + ascii("Content-Length: 3\r\n")                // 19
                 + ascii("\r\n")                                 // 2
        XCTAssertEqual(httpResponse(head + ascii("abc")),
                       ResponseFacts(rc: 1, status: 301, headLen: 53, body: bodyPresent, bodyBytes: 3, contentLength: 3))
    }

    func testHTTPResponse404500And100AreParsedLikeAnyOther() {
        // 404 and 500 pages as nginx sends them: the facts are there; the verdict is the library's.
        let notFound = ascii("HTTP/1.1 404 Not Found\r\n")       // 24
                     + ascii("Content-Type: text/html\r\n")      // 25
                     + ascii("Content-Length: 153\r\n")          // 21
                     + ascii("\r\n")                             // 2
        XCTAssertEqual(httpResponse(notFound), ResponseFacts(rc: 1, status: 404, headLen: 72, body: bodyPresent, contentLength: 153))
        let error = ascii("HTTP/1.1 500 Internal Server Error\r\n")   // 36
                  + ascii("Content-Length: 0\r\n")                  // 19
                  + ascii("\r\n")
        XCTAssertEqual(httpResponse(error), ResponseFacts(rc: 1, status: 500, headLen: 57, body: bodyEmpty, contentLength: 0))
        // A 1xx has no body; what follows (the final answer) is not looked at.
        let interim = ascii("HTTP/1.1 100 Continue\r\n\r\n")     // 25
        XCTAssertEqual(httpResponse(interim + ascii("HTTP/1.1 204 No Content\r\n\r\n")),
                       ResponseFacts(rc: 1, status: 100, headLen: 25, body: bodyEmpty, bodyBytes: 27))
    }

    func testHTTPResponseSplitAtEveryByteAndOddlyLaidOut() {
        // Header lines as servers may lay them out: odd case, empty values, tabs, no reason phrase.
        let head = ascii("HTTP/1.1 302 \r\n")                   // empty reason
                 + ascii("X-Empty:\r\n")                        // empty value
                 + ascii("cOnTeNt-LeNgTh:\t12\t\r\n")           // tabs around the digits
                 + ascii("Server:nginx\r\n")                    // no OWS at all
                 + ascii("lOcAtIoN:http://p.test/\r\n")
                 + ascii("\r\n")
        let body = ascii("<html></html>")
        let whole = head + body
        let expected = ResponseFacts(rc: 1, status: 302, headLen: head.count, body: bodyPresent, bodyBytes: body.count,
                                     contentLength: 12, location: "http://p.test/", locationLen: 14)
        XCTAssertEqual(httpResponse(whole), expected)
        // The socket re-parses what arrived so far: every prefix is "more" until the head ends,
        // then the same head with the body bytes seen so far.
        for n in 0...whole.count {
            let facts = httpResponse(Array(whole[0..<n]))
            if n < head.count {
                XCTAssertEqual(facts, ResponseFacts(rc: 0), "prefix \(n)")
            } else {
                var partial = expected
                partial.bodyBytes = n - head.count
                XCTAssertEqual(facts, partial, "prefix \(n)")
            }
        }
    }

    func testHTTPResponseLocationLongerThanTheFieldIsNotKept() {
        let capacity = Int(CREACH_HTTP_LOCATION_SIZE) - 1   // 1023 bytes and the NUL
        func redirect(_ length: Int) -> ([UInt8], String) {
            let url = "http://portal.test/" + String(repeating: "a", count: length - 19)
            return (ascii("HTTP/1.1 302 Found\r\nLocation: \(url) \r\nContent-Length: 0\r\n\r\n"), url)
        }
        let (fits, url) = redirect(capacity)
        XCTAssertEqual(httpResponse(fits).location, url, "1023 bytes are kept whole")
        XCTAssertEqual(httpResponse(fits).locationLen, capacity)
        XCTAssertFalse(httpResponse(fits).locationTooLong)
        for length in [capacity + 1, capacity + 2, 3000] {
            let (long, _) = redirect(length)
            let facts = httpResponse(long)
            XCTAssertEqual(facts.rc, 1, "\(length): still a valid head")
            XCTAssertEqual(facts.status, 302)
            XCTAssertEqual(facts.location, "", "\(length): never truncated")
            XCTAssertTrue(facts.locationTooLong, "\(length)")
            XCTAssertEqual(facts.locationLen, length)
        }
    }

    func testHTTPResponseContentLengthMustBeOneNumber() {
        func head(_ lines: String...) -> [UInt8] { ascii("HTTP/1.1 200 OK\r\n" + lines.joined() + "\r\n") }
        // The same value twice is one length (RFC 9110 8.6 lets a recipient accept it).
        let twice = httpResponse(head("Content-Length: 5\r\n", "content-length: 005\r\n"))
        XCTAssertEqual(twice.rc, 1)
        XCTAssertEqual(twice.contentLength, 5)
        XCTAssertEqual(httpResponse(head("Content-Length: 9223372036854775807\r\n")).contentLength, UInt64(Int64.max))
        let invalid = [
            head("Content-Length: 5\r\n", "Content-Length: 6\r\n"),   // two lengths: the framing is ambiguous
            head("Content-Length: 0\r\n", "Content-Length: 18\r\n"),
            head("Content-Length: 5, 5\r\n"),                          // a list
            head("Content-Length: \r\n"),
            head("Content-Length: +5\r\n"),
            head("Content-Length: -1\r\n"),
            head("Content-Length: 0x10\r\n"),
            head("Content-Length: 5 5\r\n"),
            head("Content-Length: 9223372036854775808\r\n"),           // INT64_MAX + 1
            head("Content-Length: 99999999999999999999999\r\n"),
        ]
        for bytes in invalid {
            let text = String(decoding: bytes, as: UTF8.self).debugDescription
            XCTAssertEqual(httpResponse(bytes), ResponseFacts(rc: -1, errno: EBADMSG), text)
            XCTAssertEqual(httpParse(bytes), HeadResult(rc: -1, errno: EBADMSG), "creach_http_parse_head: \(text)")
        }
        // The verdict comes at the end of the line, before the rest of the head.
        XCTAssertEqual(httpResponse(ascii("HTTP/1.1 200 OK\r\nContent-Length: x")), ResponseFacts(rc: 0))
        XCTAssertEqual(httpResponse(ascii("HTTP/1.1 200 OK\r\nContent-Length: x\r")), ResponseFacts(rc: -1, errno: EBADMSG))
    }

    func testHTTPResponseChunkedBody() {
        let head = ascii("HTTP/1.1 200 OK\r\n")                  // 17
                 + ascii("Content-Type: text/html\r\n")          // 25
                 + ascii("Transfer-Encoding: chunked\r\n")       // 28
                 + ascii("Connection: close\r\n")                // 19
                 + ascii("\r\n")                                 // 2
        XCTAssertEqual(head.count, 91)
        func facts(_ body: String, atEnd: Bool = false) -> ResponseFacts { httpResponse(head + ascii(body), atEnd: atEnd) }
        // nginx's chunked page, and its empty chunked body.
        XCTAssertEqual(facts("12\r\n<html>LOGIN</html>\r\n0\r\n\r\n"),
                       ResponseFacts(rc: 1, status: 200, headLen: 91, body: bodyPresent, bodyBytes: 29,
                                     transferEncoding: true, chunked: true))
        XCTAssertEqual(facts("0\r\n\r\n").body, bodyEmpty)
        XCTAssertEqual(facts("0;name=value\r\n\r\n").body, bodyEmpty)
        XCTAssertEqual(facts("000 \r\n\r\n").body, bodyEmpty)
        XCTAssertEqual(facts("1").body, bodyPresent, "a non-zero size decides at once")
        XCTAssertEqual(facts("0a\r\n").body, bodyPresent)
        XCTAssertEqual(facts("00F").body, bodyPresent)
        // Not yet known; at the end: no byte is empty, a cut size line is malformed.
        XCTAssertEqual(facts("").body, bodyUnknown)
        XCTAssertEqual(facts("", atEnd: true).body, bodyEmpty)
        XCTAssertEqual(facts("00").body, bodyUnknown)
        XCTAssertEqual(facts("00", atEnd: true).body, bodyMalformed)
        for bad in ["\r\n", "x\r\n", " 1\r\n", "-1\r\n", "0x1\r\n", "0\n"] {
            XCTAssertEqual(facts(bad).body, bodyMalformed, bad.debugDescription)
        }
        // The final coding decides, in any case; Transfer-Encoding overrides Content-Length.
        let layered = ascii("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, CHUNKED\r\nContent-Length: 0\r\n\r\n")
        XCTAssertEqual(httpResponse(layered + ascii("5\r\n")).body, bodyPresent)
        XCTAssertTrue(httpResponse(layered).chunked)
        XCTAssertEqual(httpResponse(layered).contentLength, 0)
        let notLast = ascii("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\n")
        XCTAssertFalse(httpResponse(notLast).chunked)
        XCTAssertTrue(httpResponse(notLast).transferEncoding)
        let trailingComma = ascii("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked ,\r\n\r\n")
        XCTAssertTrue(httpResponse(trailingComma).chunked, "empty list elements are ignored")
        let lastHeader = ascii("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: gzip\r\n\r\n")
        XCTAssertFalse(httpResponse(lastHeader).chunked, "the last header's last coding")
    }

    func testHTTPResponseInvalidArgumentsAndHeads() {
        var head = creach_http_head()
        errno = 0
        XCTAssertEqual(creach_http_parse_response(nil, 0, 0, &head), -1)
        XCTAssertEqual(errno, EINVAL)
        let b = ascii("HTTP/1.1 204 x\r\n\r\n")
        errno = 0
        XCTAssertEqual(b.withUnsafeBytes { creach_http_parse_response($0.baseAddress, $0.count, 0, nil) }, -1)
        XCTAssertEqual(errno, EINVAL)
        // The grammar is creach_http_parse_head's: malformed heads are refused the same way.
        for bad in ["HTTP/1.1 204 No Content\n\n", "HTTP/2 204\r\n\r\n", "HTTP/1.1 302 Found\r\nLocation : /\r\n\r\n",
                    "HTTP/1.1 302 Found\r\nLocation: a\r\n b\r\n\r\n"] {
            XCTAssertEqual(httpResponse(ascii(bad)), ResponseFacts(rc: -1, errno: EBADMSG), bad.debugDescription)
            XCTAssertEqual(httpResponse(ascii(bad), atEnd: true), ResponseFacts(rc: -1, errno: EBADMSG), bad.debugDescription)
        }
        // An unfinished head stays "more", at the end too (the socket calls that cut short).
        XCTAssertEqual(httpResponse(ascii("HTTP/1.1 302 Found\r\nLocation: /"), atEnd: true), ResponseFacts(rc: 0))
    }

    // MARK: DNS query

    func testDNSBuildExactBytes() {
        let expected: [UInt8] = [0xBE, 0xEF,   // id
                                 0x01, 0x00,   // flags: RD
                                 0, 1, 0, 0, 0, 0, 0, 0,   // QD 1, AN NS AR 0
                                 5] + ascii("probe") + [4] + ascii("test") + [0,
                                 0, 1,         // type A
                                 0, 1]         // class IN
        XCTAssertEqual(expected.count, 28)
        XCTAssertEqual(dnsBuild(id: 0xBEEF, name: "probe.test"), Built(rc: 28, errno: 0, bytes: expected))
        XCTAssertEqual(dnsBuild(id: 0xBEEF, name: "probe.test."), Built(rc: 28, errno: 0, bytes: expected))
        XCTAssertEqual(dnsBuild(id: 0xBEEF, name: "probe.test", buflen: 28).bytes, expected)
        var aaaa = expected
        aaaa[0] = 0x00; aaaa[1] = 0x01; aaaa[25] = 28
        XCTAssertEqual(dnsBuild(id: 1, name: "probe.test", qtype: typeAAAA).bytes, aaaa)
        // Case is kept; digits, '-' and '_' are fine; a single label too.
        XCTAssertEqual(dnsBuild(id: 2, name: "A-1_b").bytes, [0, 2, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 5] + ascii("A-1_b") + [0, 0, 1, 0, 1])
    }

    func testDNSBuildNameLimits() {
        let l63 = String(repeating: "a", count: 63)
        let wire63: Int32 = 1 + 63 + 1 + 4 + 1    // [63]a..a [4]test [0]
        XCTAssertEqual(dnsBuild(id: 1, name: l63 + ".test").rc, 12 + wire63 + 4)
        XCTAssertEqual(dnsBuild(id: 1, name: l63 + "a.test"), Built(rc: -1, errno: EINVAL, bytes: []))
        // 253 bytes: three 63-byte labels and a 61-byte one; the wire name is 255.
        let n253 = [l63, l63, l63, String(repeating: "b", count: 61)].joined(separator: ".")
        XCTAssertEqual(n253.utf8.count, 253)
        XCTAssertEqual(dnsBuild(id: 1, name: n253).rc, 271)   // 12 + 255 + 4
        XCTAssertEqual(dnsBuild(id: 1, name: n253 + ".").rc, 271)
        XCTAssertEqual(dnsBuild(id: 1, name: n253 + "b"), Built(rc: -1, errno: EINVAL, bytes: []))
        XCTAssertEqual(dnsBuild(id: 1, name: n253 + "b."), Built(rc: -1, errno: EINVAL, bytes: []))
        XCTAssertEqual(dnsBuild(id: 1, name: n253 + ".c"), Built(rc: -1, errno: EINVAL, bytes: []))
    }

    func testDNSBuildRejectsBadInput() {
        let einval = Built(rc: -1, errno: EINVAL, bytes: [])
        for name in ["", ".", "..", "probe..test", ".probe.test", "probe.test..", "pro be.test", "probe.te*t",
                     "probe.t\u{e9}st", "probe.test/", "a\tb", "probe.test\n"] {
            XCTAssertEqual(dnsBuild(id: 1, name: name), einval, name.debugDescription)
        }
        XCTAssertEqual(dnsBuild(id: 1, name: "probe.test", buflen: 27), Built(rc: -1, errno: EMSGSIZE, bytes: []))
        XCTAssertEqual(dnsBuild(id: 1, name: "probe.test", buflen: 0), Built(rc: -1, errno: EMSGSIZE, bytes: []))
        var buf = [UInt8](repeating: 0, count: 64)
        errno = 0
        XCTAssertEqual(buf.withUnsafeMutableBytes { creach_dns_build_query(1, nil, typeA, $0.baseAddress, 64) }, -1)
        XCTAssertEqual(errno, EINVAL)
        errno = 0
        XCTAssertEqual(creach_dns_build_query(1, "probe.test", typeA, nil, 64), -1)
        XCTAssertEqual(errno, EINVAL)
    }

    // MARK: DNS response

    func testDNSParseOneAnswerWithPointer() {
        let m = dnsMessage(records: [rr(name: ptr(12), type: typeA, rdata: [192, 0, 2, 53])])
        XCTAssertEqual(Array(m[answersOffset..<answersOffset + 2]), [0xC0, 0x0C])
        XCTAssertEqual(dnsParse(m), DNSResult(rc: 1, answers: 1, first: [192, 0, 2, 53]))
        // Case-insensitive question match, both ways, and a trailing dot.
        XCTAssertEqual(dnsParse(m, name: "PROBE.Test."), DNSResult(rc: 1, answers: 1, first: [192, 0, 2, 53]))
        let upper = dnsMessage(qname: wireName("Probe.TEST"), records: [rr(name: ptr(12), type: typeA, rdata: [10, 0, 0, 1])])
        XCTAssertEqual(dnsParse(upper), DNSResult(rc: 1, answers: 1, first: [10, 0, 0, 1]))
        // Two answers: the count is 2, the address the first one's. Uncompressed owner names too.
        let two = dnsMessage(records: [rr(name: wireName("probe.test"), type: typeA, rdata: [1, 2, 3, 4]),
                                       rr(name: ptr(12), type: typeA, rdata: [5, 6, 7, 8])])
        XCTAssertEqual(dnsParse(two), DNSResult(rc: 1, answers: 2, first: [1, 2, 3, 4]))
        // A pointer after a label (suffix compression): "x" + pointer to "test" at 18.
        let suffix = dnsMessage(records: [rr(name: [1, 0x78] + ptr(18), type: typeA, rdata: [9, 9, 9, 9])])
        XCTAssertEqual(dnsParse(suffix), DNSResult(rc: 1, answers: 1, first: [9, 9, 9, 9]))
    }

    func testDNSParseCNAMEChainAndSkips() {
        // CNAME probe.test -> edge.cdn.test, then an A for the target (pointer to the CNAME's rdata).
        let cnameRdata = wireName("edge.cdn.test")
        let cname = rr(name: ptr(12), type: typeCNAME, rdata: cnameRdata)
        let rdataOffset = answersOffset + 2 + 10
        let a = rr(name: ptr(rdataOffset), type: typeA, rdata: [203, 0, 113, 9])
        let m = dnsMessage(records: [cname, a])
        XCTAssertEqual(dnsParse(m), DNSResult(rc: 1, answers: 1, first: [203, 0, 113, 9]))
        // Records of the wrong class, the wrong length, or the other address type are skipped.
        let skipped = dnsMessage(records: [
            rr(name: ptr(12), type: typeA, klass: 3, rdata: [1, 1, 1, 1]),           // CHAOS
            rr(name: ptr(12), type: typeA, rdata: [2, 2, 2, 2, 2]),                  // rdlength 5
            rr(name: ptr(12), type: typeAAAA, rdata: Array(repeating: 3, count: 16)),
            rr(name: ptr(12), type: typeA, rdata: [4, 4, 4, 4]),
        ])
        XCTAssertEqual(dnsParse(skipped), DNSResult(rc: 1, answers: 1, first: [4, 4, 4, 4]))
        // Only a CNAME: the response, with no address.
        XCTAssertEqual(dnsParse(dnsMessage(records: [cname])), DNSResult(rc: 1, answers: 0, first: []))
    }

    func testDNSParseAAAA() {
        let addr: [UInt8] = [0x20, 0x01, 0x0d, 0xb8] + Array(repeating: 0, count: 11) + [0x35]
        let m = dnsMessage(qtype: typeAAAA, records: [
            rr(name: ptr(12), type: typeA, rdata: [1, 2, 3, 4]),
            rr(name: ptr(12), type: typeAAAA, rdata: Array(addr.prefix(4))),          // wrong length
            rr(name: ptr(12), type: typeAAAA, rdata: addr),
        ])
        XCTAssertEqual(dnsParse(m, qtype: typeAAAA), DNSResult(rc: 1, answers: 1, first: addr))
        // The same message asked as A: another query.
        XCTAssertEqual(dnsParse(m, qtype: typeA), DNSResult(rc: 0))
    }

    func testDNSParseRcodeAndTruncation() {
        let nx = dnsMessage(flags: 0x8183)
        XCTAssertEqual(dnsParse(nx), DNSResult(rc: 1, rcode: 3, answers: 0))
        XCTAssertEqual(dnsParse(dnsMessage(flags: 0x8182)), DNSResult(rc: 1, rcode: 2, answers: 0))
        let tc = dnsMessage(flags: 0x8380, records: [rr(name: ptr(12), type: typeA, rdata: [1, 2, 3, 4])])
        XCTAssertEqual(dnsParse(tc), DNSResult(rc: 1, truncated: 1, answers: 1, first: [1, 2, 3, 4]))
    }

    func testDNSParseOtherQueries() {
        let answer = rr(name: ptr(12), type: typeA, rdata: [1, 2, 3, 4])
        XCTAssertEqual(dnsParse(dnsMessage(id: 0xBEEE, records: [answer])), DNSResult(rc: 0))
        XCTAssertEqual(dnsParse(dnsMessage(qname: wireName("other.test"), records: [answer])), DNSResult(rc: 0))
        XCTAssertEqual(dnsParse(dnsMessage(qname: wireName("probe.test.example"), records: [answer])), DNSResult(rc: 0))
        XCTAssertEqual(dnsParse(dnsMessage(qname: wireName("probe"), records: [answer])), DNSResult(rc: 0))
        XCTAssertEqual(dnsParse(dnsMessage(qtype: typeAAAA, records: [answer])), DNSResult(rc: 0))
        XCTAssertEqual(dnsParse(dnsMessage(qclass: 3, records: [answer])), DNSResult(rc: 0))
        // Choice: QR clear (a query, e.g. our own on loopback) is "not a response to us": 0.
        XCTAssertEqual(dnsParse(dnsMessage(flags: 0x0100, records: [answer])), DNSResult(rc: 0))
        // Another opcode (STATUS = 2), or not exactly one question: 0.
        XCTAssertEqual(dnsParse(dnsMessage(flags: 0x9180, records: [answer])), DNSResult(rc: 0))
        XCTAssertEqual(dnsParse(dnsMessage(qdcount: 2, records: [answer])), DNSResult(rc: 0))
        XCTAssertEqual(dnsParse(Array(dnsMessage(flags: 0x8181, qdcount: 0).prefix(12))), DNSResult(rc: 0))
        // The id is compared in network order.
        XCTAssertEqual(dnsParse(dnsMessage(id: 0xEFBE, records: [answer])), DNSResult(rc: 0))
    }

    func testDNSParseBadPointers() {
        let bad = DNSResult(rc: -1, errno: EBADMSG)
        // Pointer to itself, forward, into the header, past the end.
        XCTAssertEqual(dnsParse(dnsMessage(records: [rr(name: ptr(answersOffset), type: typeA, rdata: [1, 2, 3, 4])])), bad)
        XCTAssertEqual(dnsParse(dnsMessage(records: [rr(name: ptr(answersOffset + 2), type: typeA, rdata: [1, 2, 3, 4])])), bad)
        XCTAssertEqual(dnsParse(dnsMessage(records: [rr(name: ptr(2), type: typeA, rdata: [1, 2, 3, 4])])), bad)
        XCTAssertEqual(dnsParse(dnsMessage(records: [rr(name: ptr(0x3FFF), type: typeA, rdata: [1, 2, 3, 4])])), bad)
        // Two pointers that point at each other: B (in a TXT rdata) -> A -> B.
        // Record 1 at 28: name "x" + pointer to B; record 2's name is B itself = pointer to record 1.
        let r1Name = [1, 0x78] + ptr(answersOffset + 4 + 10)   // B: the first rdata byte of record 1
        let loop = dnsMessage(records: [rr(name: r1Name, type: typeTXT, rdata: ptr(answersOffset))])
        XCTAssertEqual(dnsParse(loop), bad)
        // A loop of backward pointers only: a label "x" then a pointer back to that label
        // (TXT rdata at 40, skipped), and an owner name pointing at it.
        let rdataStart = answersOffset + 2 + 10
        let backLoop = dnsMessage(records: [rr(name: ptr(12), type: typeTXT, rdata: [1, 0x78] + ptr(rdataStart)),
                                            rr(name: ptr(rdataStart), type: typeA, rdata: [1, 2, 3, 4])])
        XCTAssertEqual(dnsParse(backLoop), bad)
        // The same without the loop (the label ends in the root) is fine.
        let noLoop = dnsMessage(records: [rr(name: ptr(12), type: typeTXT, rdata: [1, 0x78, 0]),
                                          rr(name: ptr(rdataStart), type: typeA, rdata: [1, 2, 3, 4])])
        // (Owner names of answers are not compared with the question: a CNAME chain renames.)
        XCTAssertEqual(dnsParse(noLoop), DNSResult(rc: 1, answers: 1, first: [1, 2, 3, 4]))
        // A pointer whose second byte is missing at the very end.
        XCTAssertEqual(dnsParse(dnsMessage(ancount: 1) + [0xC0]), bad)
        // Label types 01 and 10.
        XCTAssertEqual(dnsParse(dnsMessage(records: [rr(name: [0x41, 0], type: typeA, rdata: [1, 2, 3, 4])])), bad)
        XCTAssertEqual(dnsParse(dnsMessage(records: [rr(name: [0x81, 0], type: typeA, rdata: [1, 2, 3, 4])])), bad)
        // A pointer in the question itself can only point into the header: refused.
        var q = dnsMessage()
        q.replaceSubrange(12..<24, with: ptr(4))
        XCTAssertEqual(dnsParse(q), bad)
    }

    func testDNSParseNameLengthAndJumpCaps() {
        // Record 1 (TXT, skipped) carries two 63-byte labels; record 2's name is two more
        // labels and a pointer to them: 4 * 64 + 1 = 257 bytes expanded, over 255.
        let l63 = [UInt8(63)] + Array(repeating: UInt8(0x61), count: 63)
        let rdata1 = l63 + l63 + [0]
        let rdataOffset = answersOffset + 2 + 10
        let r1 = rr(name: ptr(12), type: typeTXT, rdata: rdata1)
        let tooLong = dnsMessage(records: [r1, rr(name: l63 + l63 + ptr(rdataOffset), type: typeA, rdata: [1, 2, 3, 4])])
        XCTAssertEqual(dnsParse(tooLong), DNSResult(rc: -1, errno: EBADMSG))
        // One label less: 193 bytes, fine.
        let fits = dnsMessage(records: [r1, rr(name: l63 + ptr(rdataOffset), type: typeA, rdata: [1, 2, 3, 4])])
        XCTAssertEqual(dnsParse(fits), DNSResult(rc: 1, answers: 1, first: [1, 2, 3, 4]))

        // A chain of pointers, each to the one before, ending in the root label.
        func chain(_ links: Int) -> [UInt8] {
            var rdata: [UInt8] = [0]                      // root at rdataOffset
            var last = rdataOffset
            for _ in 0..<links {
                let here = rdataOffset + rdata.count
                rdata += ptr(last)
                last = here
            }
            return dnsMessage(records: [rr(name: ptr(12), type: typeTXT, rdata: rdata),
                                        rr(name: ptr(last), type: typeA, rdata: [1, 2, 3, 4])])
        }
        // The owner name's own pointer plus 126 links: 127 jumps, the cap.
        XCTAssertEqual(dnsParse(chain(126)), DNSResult(rc: 1, answers: 1, first: [1, 2, 3, 4]))
        XCTAssertEqual(dnsParse(chain(127)), DNSResult(rc: -1, errno: EBADMSG))
    }

    func testDNSParseRdlengthPastEnd() {
        let a = rr(name: ptr(12), type: typeA, rdata: [1, 2, 3, 4], rdlength: 5)
        XCTAssertEqual(dnsParse(dnsMessage(records: [a])), DNSResult(rc: -1, errno: EBADMSG))
        // Even for a record that would be skipped.
        let txt = rr(name: ptr(12), type: typeTXT, rdata: [3, 0x61, 0x62], rdlength: 0xFFFF)
        XCTAssertEqual(dnsParse(dnsMessage(records: [txt])), DNSResult(rc: -1, errno: EBADMSG))
        // More answers announced than present.
        let one = rr(name: ptr(12), type: typeA, rdata: [1, 2, 3, 4])
        XCTAssertEqual(dnsParse(dnsMessage(ancount: 2, records: [one])), DNSResult(rc: -1, errno: EBADMSG))
        // Trailing bytes after the announced records are not read.
        XCTAssertEqual(dnsParse(dnsMessage(ancount: 1, records: [one, [0xFF, 0xFF]])),
                       DNSResult(rc: 1, answers: 1, first: [1, 2, 3, 4]))
    }

    func testDNSParseEveryTruncation() {
        let cnameRdata = wireName("edge.cdn.test")
        let rdataOffset = answersOffset + 2 + 10
        let valid: [(String, UInt16, [UInt8], DNSResult)] = [
            ("A", typeA, dnsMessage(records: [rr(name: ptr(12), type: typeA, rdata: [192, 0, 2, 53])]),
             DNSResult(rc: 1, answers: 1, first: [192, 0, 2, 53])),
            ("CNAME+A", typeA, dnsMessage(records: [rr(name: ptr(12), type: typeCNAME, rdata: cnameRdata),
                                                   rr(name: ptr(rdataOffset), type: typeA, rdata: [1, 2, 3, 4])]),
             DNSResult(rc: 1, answers: 1, first: [1, 2, 3, 4])),
            ("AAAA", typeAAAA, dnsMessage(qtype: typeAAAA, records: [rr(name: wireName("probe.test"), type: typeAAAA,
                                                                     rdata: Array(1...16))]),
             DNSResult(rc: 1, answers: 1, first: Array(1...16))),
            ("NXDOMAIN", typeA, dnsMessage(flags: 0x8183), DNSResult(rc: 1, rcode: 3)),
        ]
        for (label, qtype, m, expected) in valid {
            XCTAssertEqual(dnsParse(m, qtype: qtype), expected, label)
            for n in 0..<m.count {
                // Every cut falls inside something the header announces.
                XCTAssertEqual(dnsParse(Array(m[0..<n]), qtype: qtype), DNSResult(rc: -1, errno: EBADMSG), "\(label) prefix \(n)")
            }
        }
    }

    func testDNSParseInvalidArguments() {
        let m = dnsMessage()
        XCTAssertEqual(dnsParse(m, qtype: typeCNAME), DNSResult(rc: -1, errno: EINVAL))
        XCTAssertEqual(dnsParse(m, name: "probe..test"), DNSResult(rc: -1, errno: EINVAL))
        XCTAssertEqual(dnsParse(m, name: ""), DNSResult(rc: -1, errno: EINVAL))
        var r = creach_dns_result()
        errno = 0
        XCTAssertEqual(creach_dns_parse_response(nil, 0, 1, "probe.test", typeA, &r), -1)
        XCTAssertEqual(errno, EINVAL)
        errno = 0
        XCTAssertEqual(m.withUnsafeBytes { creach_dns_parse_response($0.baseAddress, $0.count, 0xBEEF, nil, typeA, &r) }, -1)
        XCTAssertEqual(errno, EINVAL)
        errno = 0
        XCTAssertEqual(m.withUnsafeBytes { creach_dns_parse_response($0.baseAddress, $0.count, 0xBEEF, "probe.test", typeA, nil) }, -1)
        XCTAssertEqual(errno, EINVAL)
    }

    func testDNSBuildThenParseOwnQuery() {
        // Our own query echoed back (QR clear) is not a response; with QR set it is one, with no answers.
        var q = dnsBuild(id: 0x1234, name: "probe.test").bytes
        XCTAssertEqual(dnsParse(q, id: 0x1234), DNSResult(rc: 0))
        q[2] |= 0x80
        XCTAssertEqual(dnsParse(q, id: 0x1234), DNSResult(rc: 1, answers: 0))
    }

    // MARK: id range

    func testIDRangeValid() {
        XCTAssertEqual(idRange("1\t0\n"), IDRange(rc: 0, low: 1, high: 0))
        XCTAssertEqual(idRange("0 2147483647\n"), IDRange(rc: 0, low: 0, high: 2_147_483_647))
        XCTAssertEqual(idRange("100  200"), IDRange(rc: 0, low: 100, high: 200))
        XCTAssertEqual(idRange("0\t \t4294967295"), IDRange(rc: 0, low: 0, high: 4_294_967_295))
        XCTAssertEqual(idRange("4294967295 007\n"), IDRange(rc: 0, low: 4_294_967_295, high: 7))
        // Only `len` bytes count.
        XCTAssertEqual(idRange("12 34garbage", len: 5), IDRange(rc: 0, low: 12, high: 34))
        XCTAssertEqual(idRange("12 34\nmore", len: 6), IDRange(rc: 0, low: 12, high: 34))
    }

    func testIDRangeInvalid() {
        for s in ["", "1", "1 ", "1\n", "a b", "1 2 3", "4294967296 1", "1 4294967296", "99999999999999999999 1",
                  "-1 0", "+1 0", " 1 2", "1 2 ", "1 2\n\n", "1 2\r\n", "1,2", "1 0x2", "1\n2", "1 2\0"] {
            XCTAssertEqual(idRange(s), IDRange(rc: -1, errno: EINVAL), s.debugDescription)
        }
        XCTAssertEqual(idRange("12 34", len: 4), IDRange(rc: 0, low: 12, high: 3))
        XCTAssertEqual(idRange("12 34", len: 3), IDRange(rc: -1, errno: EINVAL))
        XCTAssertEqual(idRange("12 34", len: 0), IDRange(rc: -1, errno: EINVAL))
        var low: UInt32 = 0
        var high: UInt32 = 0
        errno = 0
        XCTAssertEqual(creach_parse_id_range(nil, 3, &low, &high), -1)
        XCTAssertEqual(errno, EINVAL)
        errno = 0
        XCTAssertEqual(creach_parse_id_range("1 2", 3, nil, &high), -1)
        XCTAssertEqual(errno, EINVAL)
        errno = 0
        XCTAssertEqual(creach_parse_id_range("1 2", 3, &low, nil), -1)
        XCTAssertEqual(errno, EINVAL)
    }
}
