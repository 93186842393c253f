// Unit tests of the pure C netlink parsers (CReachability.h) on committed bytes.
//
// Fixtures: Fixtures/*.bin are raw reply datagrams captured from a real kernel
// by Tests/Fixtures-capture/capture.py (see Fixtures/README.md); Fixtures.swift
// restates the key ones as annotated byte literals. The tests check that both
// forms parse to the values the annotations state, then attack the parsers with
// truncations, lying lengths, wrong sizes and types, and a seeded mutation loop.
//
// Every buffer handed to a parser is copied so that it ENDS exactly at a
// PROT_NONE guard page: reading one byte past `len` crashes the test process
// instead of going unnoticed.

import CReachability
import Foundation
import XCTest
import ReachabilityTesting   // SplitMix64

#if canImport(Glibc)
import Glibc
#endif

// Constants: `K` in FixtureSupport.swift.

// MARK: - Guarded buffers

// withGuardedBytes: FixtureSupport.swift.

// MARK: - Results as comparable values

private enum Outcome<T: Equatable>: Equatable {
    case ok(T)
    case failed(errno: Int32)
    case badReturn(Int32)   // neither 0 nor -1: a contract violation

    var value: T? {
        if case .ok(let v) = self { return v }
        return nil
    }
    var errnoValue: Int32? {
        if case .failed(let e) = self { return e }
        return nil
    }
}

private func tupleBytes<T>(_ tuple: T) -> [UInt8] {
    withUnsafeBytes(of: tuple) { Array($0) }
}

/// The C string in a fixed char array; "<unterminated>" when it has no NUL.
private func tupleString<T>(_ tuple: T) -> String {
    withUnsafeBytes(of: tuple) { raw in
        guard let nul = raw.firstIndex(of: 0) else { return "<unterminated>" }
        return String(decoding: raw[..<nul], as: UTF8.self)
    }
}

private func addressLength(_ family: UInt8) -> Int {
    family == K.AF_INET6 ? 16 : 4
}

private struct RouteFacts: Equatable {
    var error: Int32 = 0
    var family: UInt8 = 0
    var dstLen: UInt8 = 0
    var type: UInt8 = 0
    var scope: UInt8 = 0
    var proto: UInt8 = 0
    var hasGateway: UInt8 = 0
    var gatewayFamily: UInt8 = 0     // normalised to 0 when hasGateway == 0
    var hasPrefsrc: UInt8 = 0
    var flags: UInt32 = 0
    var table: UInt32 = 0
    var oif: Int32 = 0
    var uid: UInt32 = 0
    var mark: UInt32 = 0
    var dst: [UInt8] = []            // the used bytes (4 or 16 by family)
    var gateway: [UInt8] = []        // used bytes when hasGateway, else []
    var prefsrc: [UInt8] = []        // used bytes when hasPrefsrc, else []

    init(error: Int32 = 0, family: UInt8, dstLen: UInt8, type: UInt8, scope: UInt8, proto: UInt8,
         flags: UInt32, table: UInt32, oif: Int32, uid: UInt32 = 0, mark: UInt32 = 0,
         dst: [UInt8], gateway: [UInt8]? = nil, gatewayFamily: UInt8? = nil, prefsrc: [UInt8]? = nil) {
        self.error = error; self.family = family; self.dstLen = dstLen; self.type = type
        self.scope = scope; self.proto = proto; self.flags = flags; self.table = table
        self.oif = oif; self.uid = uid; self.mark = mark; self.dst = dst
        if let gateway {
            hasGateway = 1
            self.gateway = gateway
            self.gatewayFamily = gatewayFamily ?? family
        }
        if let prefsrc {
            hasPrefsrc = 1
            self.prefsrc = prefsrc
        }
    }

    init(_ r: creach_route) {
        error = r.error; family = r.family; dstLen = r.dst_len; type = r.type; scope = r.scope
        proto = r.protocol; hasGateway = r.has_gateway; hasPrefsrc = r.has_prefsrc
        flags = r.flags; table = r.table; oif = r.oif; uid = r.uid; mark = r.mark
        dst = Array(tupleBytes(r.dst).prefix(addressLength(r.family)))
        if hasGateway != 0 {
            gatewayFamily = r.gateway_family
            gateway = Array(tupleBytes(r.gateway).prefix(addressLength(r.gateway_family)))
        }
        if hasPrefsrc != 0 {
            prefsrc = Array(tupleBytes(r.prefsrc).prefix(addressLength(r.family)))
        }
    }

    /// What the parser must report for the same message holding only the attribute types `present`.
    func keeping(_ present: Set<UInt16>, rtmTable: UInt32) -> RouteFacts {
        var f = self
        if !present.contains(K.RTA_TABLE) { f.table = rtmTable }
        if !present.contains(K.RTA_DST) { f.dst = [UInt8](repeating: 0, count: addressLength(family)) }
        if !present.contains(K.RTA_OIF) { f.oif = 0 }
        if !present.contains(K.RTA_GATEWAY) && !present.contains(K.RTA_VIA) {
            f.hasGateway = 0; f.gatewayFamily = 0; f.gateway = []
        }
        if !present.contains(K.RTA_PREFSRC) { f.hasPrefsrc = 0; f.prefsrc = [] }
        if !present.contains(K.RTA_UID) { f.uid = 0 }
        if !present.contains(K.RTA_MARK) { f.mark = 0 }
        return f
    }
}

private struct LinkFacts: Equatable {
    var index: Int32
    var type: UInt16
    var operstate: UInt8
    var linkmode: UInt8
    var carrier: Int8
    var flags: UInt32
    var mtu: UInt32
    var link: Int32
    var master: Int32
    var name: String
    var kind: String

    init(index: Int32, type: UInt16, operstate: UInt8, linkmode: UInt8, carrier: Int8, flags: UInt32,
         mtu: UInt32, link: Int32, master: Int32, name: String, kind: String) {
        self.index = index; self.type = type; self.operstate = operstate; self.linkmode = linkmode
        self.carrier = carrier; self.flags = flags; self.mtu = mtu; self.link = link
        self.master = master; self.name = name; self.kind = kind
    }

    init(_ l: creach_link) {
        index = l.index; type = l.type; operstate = l.operstate; linkmode = l.linkmode
        carrier = l.carrier; flags = l.flags; mtu = l.mtu; link = l.link; master = l.master
        name = tupleString(l.name); kind = tupleString(l.kind)
    }

    /// What the parser must report for the same message holding only the attribute types `present`.
    func keeping(_ present: Set<UInt16>) -> LinkFacts {
        var f = self
        if !present.contains(K.IFLA_IFNAME) { f.name = "" }
        if !present.contains(K.IFLA_MTU) { f.mtu = 0 }
        if !present.contains(K.IFLA_LINK) { f.link = 0 }
        if !present.contains(K.IFLA_MASTER) { f.master = 0 }
        if !present.contains(K.IFLA_OPERSTATE) { f.operstate = 0 }
        if !present.contains(K.IFLA_LINKMODE) { f.linkmode = 0 }
        if !present.contains(K.IFLA_LINKINFO) { f.kind = "" }
        if !present.contains(K.IFLA_CARRIER) { f.carrier = -1 }
        return f
    }
}

private struct AddrFacts: Equatable {
    var index: Int32
    var family: UInt8
    var prefixlen: UInt8
    var scope: UInt8
    var hasPeer: UInt8
    var flags: UInt32
    var address: [UInt8]
    var peer: [UInt8]     // [] unless hasPeer
    var label: String

    init(index: Int32, family: UInt8, prefixlen: UInt8, scope: UInt8, flags: UInt32,
         address: [UInt8], peer: [UInt8]? = nil, label: String) {
        self.index = index; self.family = family; self.prefixlen = prefixlen; self.scope = scope
        self.flags = flags; self.address = address; self.label = label
        hasPeer = peer == nil ? 0 : 1
        self.peer = peer ?? []
    }

    init(_ a: creach_addr) {
        index = a.index; family = a.family; prefixlen = a.prefixlen; scope = a.scope
        hasPeer = a.has_peer; flags = a.flags; label = tupleString(a.label)
        address = Array(tupleBytes(a.address).prefix(addressLength(a.family)))
        peer = hasPeer != 0 ? Array(tupleBytes(a.peer).prefix(addressLength(a.family))) : []
    }
}

// MARK: - Parser calls (output pre-filled with garbage; errno read right after the call)

private func fillGarbage<T>(_ value: inout T) {
    _ = withUnsafeMutableBytes(of: &value) { $0.initializeMemory(as: UInt8.self, repeating: 0xA5) }
}

private func parseRoute(_ p: UnsafeRawPointer, _ n: Int) -> Outcome<RouteFacts> {
    var r = creach_route()
    fillGarbage(&r)
    errno = 0
    let rc = creach_parse_route(p, n, &r)
    let e = errno
    return rc == 0 ? .ok(RouteFacts(r)) : rc == -1 ? .failed(errno: e) : .badReturn(rc)
}

private func parseLink(_ p: UnsafeRawPointer, _ n: Int) -> Outcome<LinkFacts> {
    var l = creach_link()
    fillGarbage(&l)
    errno = 0
    let rc = creach_parse_link(p, n, &l)
    let e = errno
    return rc == 0 ? .ok(LinkFacts(l)) : rc == -1 ? .failed(errno: e) : .badReturn(rc)
}

private func parseAddr(_ p: UnsafeRawPointer, _ n: Int) -> Outcome<AddrFacts> {
    var a = creach_addr()
    fillGarbage(&a)
    errno = 0
    let rc = creach_parse_addr(p, n, &a)
    let e = errno
    return rc == 0 ? .ok(AddrFacts(a)) : rc == -1 ? .failed(errno: e) : .badReturn(rc)
}

private func parseError(_ p: UnsafeRawPointer, _ n: Int) -> Outcome<Int32> {
    var error: Int32 = -12345
    errno = 0
    let rc = creach_parse_error(p, n, &error)
    let e = errno
    return rc == 0 ? .ok(error) : rc == -1 ? .failed(errno: e) : .badReturn(rc)
}

private func parseRoute(_ b: [UInt8]) -> Outcome<RouteFacts> { withGuardedBytes(b, parseRoute) }
private func parseLink(_ b: [UInt8]) -> Outcome<LinkFacts> { withGuardedBytes(b, parseLink) }
private func parseAddr(_ b: [UInt8]) -> Outcome<AddrFacts> { withGuardedBytes(b, parseAddr) }
private func parseError(_ b: [UInt8]) -> Outcome<Int32> { withGuardedBytes(b, parseError) }

private struct WalkedMessage: Equatable {
    var offset: Int
    var length: Int
    var type: UInt16
    var seq: UInt32
    var flags: UInt16
}

/// Walks a datagram with creach_msg_next. `end` is 0 (clean end) or the errno of a -1.
private func walk(_ datagram: [UInt8], limit: Int = 64) -> (messages: [WalkedMessage], end: Int32, badReturn: Int32?) {
    withGuardedBytes(datagram) { base, len in
        var it = creach_msg_iter()
        creach_msg_iter_init(&it, base, len)
        var found: [WalkedMessage] = []
        for _ in 0..<limit {
            var msg: UnsafeRawPointer? = nil
            var msgLen = 0
            errno = 0
            let rc = creach_msg_next(&it, &msg, &msgLen)
            let e = errno
            switch rc {
            case 1:
                guard let msg else { return (found, 0, 1000) }
                found.append(WalkedMessage(offset: base.distance(to: msg), length: msgLen, type: creach_msg_type(msg),
                                           seq: creach_msg_seq(msg), flags: creach_msg_flags(msg)))
            case 0:
                return (found, 0, nil)
            case -1:
                return (found, e, nil)
            default:
                return (found, 0, rc)
            }
        }
        return (found, 0, 2000)   // never ended
    }
}

// MARK: - Byte helpers

private func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xff), UInt8(v >> 8)] }
private func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8((v >> (8 * UInt32($0))) & 0xff) } }
private func readLE16(_ b: [UInt8], _ at: Int) -> UInt16 { UInt16(b[at]) | UInt16(b[at + 1]) << 8 }
private func readLE32(_ b: [UInt8], _ at: Int) -> UInt32 {
    UInt32(b[at]) | UInt32(b[at + 1]) << 8 | UInt32(b[at + 2]) << 16 | UInt32(b[at + 3]) << 24
}

private func patched32(_ b: [UInt8], at: Int, _ v: UInt32) -> [UInt8] {
    var c = b
    c.replaceSubrange(at..<at + 4, with: le32(v))
    return c
}

private func patched16(_ b: [UInt8], at: Int, _ v: UInt16) -> [UInt8] {
    var c = b
    c.replaceSubrange(at..<at + 2, with: le16(v))
    return c
}

/// One attribute with its 4-byte header and padding to 4 bytes.
private func attr(_ type: UInt16, _ payload: [UInt8]) -> [UInt8] {
    var out = le16(UInt16(4 + payload.count)) + le16(type) + payload
    while out.count % 4 != 0 { out.append(0) }
    return out
}

private func cstr(_ s: String) -> [UInt8] { Array(s.utf8) + [0] }

/// A netlink message: nlmsghdr + family header + attributes (already encoded).
private func message(type: UInt16, flags: UInt16 = 0, seq: UInt32 = 7, header: [UInt8], attrs: [[UInt8]]) -> [UInt8] {
    let body = header + attrs.joined()
    return le32(UInt32(16 + body.count)) + le16(type) + le16(flags) + le32(seq) + le32(0) + body
}

/// A top-level attribute as found by the tests' own reference walk.
private struct AttrSpan {
    var type: UInt16     // without NLA_F_NESTED / NLA_F_NET_BYTEORDER
    var start: Int
    var length: Int      // rta_len
    var end: Int { start + length }
    var alignedEnd: Int { start + ((length + 3) & ~3) }
}

/// Reference walk of a well-formed message's top-level attributes.
private func attributes(of msg: [UInt8], headerSize: Int) -> [AttrSpan] {
    var spans: [AttrSpan] = []
    var off = headerSize
    let end = Int(readLE32(msg, 0))
    while off + 4 <= end {
        let len = Int(readLE16(msg, off))
        precondition(len >= 4 && off + len <= end, "fixture itself is malformed")
        spans.append(AttrSpan(type: readLE16(msg, off + 2) & 0x3fff, start: off, length: len))
        off += (len + 3) & ~3
    }
    return spans
}

/// Messages of a well-formed datagram (reference walk).
private func splitMessages(_ datagram: [UInt8]) -> [[UInt8]] {
    var out: [[UInt8]] = []
    var off = 0
    while off + 16 <= datagram.count {
        let len = Int(readLE32(datagram, off))
        precondition(len >= 16 && off + len <= datagram.count, "fixture itself is malformed")
        out.append(Array(datagram[off..<off + len]))
        off += (len + 3) & ~3
    }
    return out
}


// MARK: - Expected values (what the annotations in Fixtures.swift state)

private let v4 = K.AF_INET
private let v6 = K.AF_INET6

private let expectRouteV4Gateway = RouteFacts(
    family: v4, dstLen: 32, type: K.RTN_UNICAST, scope: K.RT_SCOPE_UNIVERSE, proto: K.RTPROT_UNSPEC,
    flags: K.RTM_F_CLONED, table: 254, oif: 3, uid: 0,
    dst: [8, 8, 8, 8], gateway: [10, 1, 0, 254], gatewayFamily: v4, prefsrc: [10, 1, 0, 1])

private let expectRouteV4OnLink = RouteFacts(
    family: v4, dstLen: 32, type: K.RTN_UNICAST, scope: K.RT_SCOPE_UNIVERSE, proto: K.RTPROT_UNSPEC,
    flags: K.RTM_F_CLONED, table: 254, oif: 3, uid: 0,
    dst: [10, 1, 0, 7], gateway: nil, prefsrc: [10, 1, 0, 1])

private let expectRouteV4Local = RouteFacts(
    family: v4, dstLen: 32, type: K.RTN_LOCAL, scope: K.RT_SCOPE_UNIVERSE, proto: K.RTPROT_UNSPEC,
    flags: K.RTM_F_CLONED | K.RTCF_LOCAL, table: 254, oif: 1, uid: 0,
    dst: [10, 1, 0, 1], gateway: nil, prefsrc: [10, 1, 0, 1])

private var expectRouteV4LocalUnmerged: RouteFacts {
    var f = expectRouteV4Local
    f.table = 255
    return f
}

private let expectRouteV6Gateway = RouteFacts(
    family: v6, dstLen: 128, type: K.RTN_UNICAST, scope: K.RT_SCOPE_UNIVERSE, proto: K.RTPROT_BOOT,
    flags: 0, table: 254, oif: 3, uid: 0,
    dst: [0x20, 0x01, 0x48, 0x60, 0x48, 0x60, 0, 0, 0, 0, 0, 0, 0, 0, 0x88, 0x88],
    gateway: [0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xfe], gatewayFamily: v6,
    prefsrc: [0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01])

private let expectLinkVeth = LinkFacts(
    index: 3, type: K.ARPHRD_ETHER, operstate: K.IF_OPER_UP, linkmode: 0, carrier: 1,
    flags: K.IFF_UP | K.IFF_BROADCAST | K.IFF_RUNNING | K.IFF_MULTICAST | K.IFF_LOWER_UP,
    mtu: 1500, link: 2, master: 0, name: "va", kind: "veth")

private let expectLinkTun = LinkFacts(
    index: 4, type: K.ARPHRD_NONE, operstate: K.IF_OPER_DOWN, linkmode: 0, carrier: 0,
    flags: K.IFF_UP | K.IFF_POINTOPOINT | K.IFF_NOARP | K.IFF_MULTICAST,
    mtu: 1500, link: 0, master: 0, name: "tun0", kind: "tun")

private let expectAddrDump = [
    AddrFacts(index: 1, family: v4, prefixlen: 8, scope: K.RT_SCOPE_HOST, flags: K.IFA_F_PERMANENT,
              address: [127, 0, 0, 1], label: "lo"),
    AddrFacts(index: 3, family: v4, prefixlen: 24, scope: K.RT_SCOPE_UNIVERSE, flags: K.IFA_F_PERMANENT,
              address: [10, 1, 0, 1], label: "va"),
    AddrFacts(index: 4, family: v4, prefixlen: 32, scope: K.RT_SCOPE_UNIVERSE, flags: K.IFA_F_PERMANENT,
              address: [10, 8, 0, 1], peer: [10, 8, 0, 2], label: "tun0"),
]

// MARK: - Tests

final class ParserFixtureTests: XCTestCase {

    // MARK: Fixtures parse to exactly the annotated values

    func testAnnotatedLiteralsMatchCapturedBytes() throws {
        // Untrimmed literals are the captured datagrams byte for byte.
        XCTAssertEqual(fixtureRouteV4Gateway, try loadFixture("route_v4_gateway"))
        XCTAssertEqual(fixtureRouteV4Local, try loadFixture("route_v4_local"))
        XCTAssertEqual(fixtureRouteV4LocalUnmerged, try loadFixture("route_v4_local_unmerged"))
        XCTAssertEqual(fixtureRouteV6Gateway, try loadFixture("route_v6_gateway"))
        XCTAssertEqual(fixtureBlackholeEINVAL, try loadFixture("route_v4_blackhole_einval"))
        XCTAssertEqual(fixtureAddrDumpV4, try loadFixture("addr_dump_v4"))
        // Trimmed link literals: same headers (but nlmsg_len), lengths self-consistent.
        for (literal, name) in [(fixtureLinkVeth, "link_veth"), (fixtureLinkTun, "link_tun")] {
            let captured = try loadFixture(name)
            XCTAssertEqual(Array(literal[4..<32]), Array(captured[4..<32]), name)
            XCTAssertEqual(Int(readLE32(literal, 0)), literal.count, name)
            XCTAssertLessThan(literal.count, captured.count, name)
            let kept = attributes(of: literal, headerSize: K.linkHeader)
            XCTAssertEqual(kept.last?.alignedEnd, literal.count, name)
        }
    }

    func testRouteV4ViaGateway() throws {
        XCTAssertEqual(parseRoute(fixtureRouteV4Gateway), .ok(expectRouteV4Gateway))
        try assertDatagram("route_v4_gateway", holdsOneMessageOfType: K.RTM_NEWROUTE, length: 112)
        XCTAssertEqual(try parseFirstMessage("route_v4_gateway", parseRoute), .ok(expectRouteV4Gateway))
    }

    func testRouteV4OnLinkHasNoGateway() throws {
        XCTAssertEqual(try parseFirstMessage("route_v4_onlink", parseRoute), .ok(expectRouteV4OnLink))
    }

    func testRouteV4Local() throws {
        // Tables merged (no custom rule): the kernel answers from table 254.
        XCTAssertEqual(parseRoute(fixtureRouteV4Local), .ok(expectRouteV4Local))
        XCTAssertEqual(try parseFirstMessage("route_v4_local", parseRoute), .ok(expectRouteV4Local))
        // Tables unmerged: table 255 (RT_TABLE_LOCAL).
        XCTAssertEqual(parseRoute(fixtureRouteV4LocalUnmerged), .ok(expectRouteV4LocalUnmerged))
        XCTAssertEqual(try parseFirstMessage("route_v4_local_unmerged", parseRoute), .ok(expectRouteV4LocalUnmerged))
    }

    func testRouteV6ViaGateway() throws {
        XCTAssertEqual(parseRoute(fixtureRouteV6Gateway), .ok(expectRouteV6Gateway))
        XCTAssertEqual(try parseFirstMessage("route_v6_gateway", parseRoute), .ok(expectRouteV6Gateway))
    }

    func testBlackholeLookupIsEINVAL() throws {
        XCTAssertEqual(parseError(fixtureBlackholeEINVAL), .ok(22))
        XCTAssertEqual(try parseFirstMessage("route_v4_blackhole_einval", parseError), .ok(22))
        try assertDatagram("route_v4_blackhole_einval", holdsOneMessageOfType: K.NLMSG_ERROR, length: 56)
    }

    func testAckIsErrorZero() {
        // NLMSG_ERROR with error 0 (an ACK), capped: nlmsgerr.msg is only the header.
        let ack = message(type: K.NLMSG_ERROR, header: le32(0) + Array(fixtureBlackholeEINVAL[20..<36]), attrs: [])
        XCTAssertEqual(parseError(ack), .ok(0))
        // An uncapped error with another errno.
        let eacces = patched32(fixtureBlackholeEINVAL, at: 16, UInt32(bitPattern: -13))
        XCTAssertEqual(parseError(eacces), .ok(13))
    }

    func testLinkVeth() throws {
        XCTAssertEqual(parseLink(fixtureLinkVeth), .ok(expectLinkVeth))
        try assertDatagram("link_veth", holdsOneMessageOfType: K.RTM_NEWLINK, length: 1492)
        XCTAssertEqual(try parseFirstMessage("link_veth", parseLink), .ok(expectLinkVeth))
    }

    func testLinkTun() throws {
        XCTAssertEqual(parseLink(fixtureLinkTun), .ok(expectLinkTun))
        try assertDatagram("link_tun", holdsOneMessageOfType: K.RTM_NEWLINK, length: 1508)
        XCTAssertEqual(try parseFirstMessage("link_tun", parseLink), .ok(expectLinkTun))
    }

    func testLinkDelIsAccepted() {
        let del = patched16(fixtureLinkVeth, at: 4, K.RTM_DELLINK)
        XCTAssertEqual(parseLink(del), .ok(expectLinkVeth))
    }

    func testAddrDumpMessages() throws {
        let literalMessages = splitMessages(fixtureAddrDumpV4)
        XCTAssertEqual(literalMessages.count, 3)
        XCTAssertEqual(literalMessages.map { parseAddr($0) }, expectAddrDump.map { .ok($0) })
        let del = patched16(literalMessages[2], at: 4, K.RTM_DELADDR)
        XCTAssertEqual(parseAddr(del), .ok(expectAddrDump[2]))
    }

    // MARK: Attribute semantics on synthetic messages

    func testRouteTableAttributeOverridesHeaderAndMarkUid() {
        var rtm = Array(fixtureRouteV4Gateway[16..<28])
        rtm[4] = 252   // rtm_table
        let withTable = message(type: K.RTM_NEWROUTE, header: rtm, attrs: [
            attr(K.RTA_TABLE, le32(1000)), attr(K.RTA_DST, [192, 0, 2, 1]),
            attr(K.RTA_MARK, le32(0x1234)), attr(K.RTA_UID, le32(1000)), attr(K.RTA_OIF, le32(9)),
        ])
        XCTAssertEqual(parseRoute(withTable).value?.table, 1000)
        XCTAssertEqual(parseRoute(withTable).value?.mark, 0x1234)
        XCTAssertEqual(parseRoute(withTable).value?.uid, 1000)
        XCTAssertEqual(parseRoute(withTable).value?.oif, 9)
        let withoutTable = message(type: K.RTM_NEWROUTE, header: rtm, attrs: [attr(K.RTA_DST, [192, 0, 2, 1])])
        let bare = parseRoute(withoutTable).value
        XCTAssertEqual(bare?.table, 252)
        XCTAssertEqual(bare?.oif, 0)
        XCTAssertEqual(bare?.mark, 0)
        XCTAssertEqual(bare?.uid, 0)
        XCTAssertEqual(bare?.hasGateway, 0)
        XCTAssertEqual(bare?.hasPrefsrc, 0)
        XCTAssertEqual(bare?.error, 0)
    }

    func testRouteViaAnotherFamily() {
        // RTA_VIA: struct rtvia { __kernel_sa_family_t rtvia_family; u8 rtvia_addr[]; }
        let gw6: [UInt8] = [0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]
        let msg = message(type: K.RTM_NEWROUTE, header: Array(fixtureRouteV4Gateway[16..<28]), attrs: [
            attr(K.RTA_DST, [8, 8, 8, 8]), attr(K.RTA_VIA, le16(UInt16(K.AF_INET6)) + gw6), attr(K.RTA_OIF, le32(3)),
        ])
        let r = parseRoute(msg).value
        XCTAssertEqual(r?.hasGateway, 1)
        XCTAssertEqual(r?.gatewayFamily, K.AF_INET6)
        XCTAssertEqual(r?.gateway, gw6)
        XCTAssertEqual(r?.family, K.AF_INET)
    }

    func testLinkAbsentAttributesGiveDefaults() {
        let bare = message(type: K.RTM_NEWLINK, header: Array(fixtureLinkVeth[16..<32]), attrs: [])
        XCTAssertEqual(parseLink(bare), .ok(LinkFacts(
            index: 3, type: K.ARPHRD_ETHER, operstate: 0, linkmode: 0, carrier: -1, flags: expectLinkVeth.flags,
            mtu: 0, link: 0, master: 0, name: "", kind: "")))
        let enslaved = message(type: K.RTM_NEWLINK, header: Array(fixtureLinkVeth[16..<32]), attrs: [
            attr(K.IFLA_IFNAME, cstr("va")), attr(K.IFLA_MASTER, le32(7)), attr(K.IFLA_LINKMODE, [1]),
        ])
        XCTAssertEqual(parseLink(enslaved).value?.master, 7)
        XCTAssertEqual(parseLink(enslaved).value?.linkmode, 1)
    }

    func testLinkNameBoundaries() {
        let hdr = Array(fixtureLinkVeth[16..<32])
        func link(_ name: [UInt8]) -> [UInt8] {
            message(type: K.RTM_NEWLINK, header: hdr, attrs: [attr(K.IFLA_IFNAME, name), attr(K.IFLA_MTU, le32(1500))])
        }
        // 15 bytes + NUL fits exactly.
        XCTAssertEqual(parseLink(link(cstr("abcdefghijklmno"))).value?.name, "abcdefghijklmno")
        // 16 bytes + NUL: rejected, never truncated.
        XCTAssertEqual(parseLink(link(cstr("abcdefghijklmnop"))), .failed(errno: EBADMSG))
        // No NUL at all.
        XCTAssertEqual(parseLink(link(Array("va".utf8))), .failed(errno: EBADMSG))
        XCTAssertEqual(parseLink(link(Array("abcdefghijklmnop".utf8))), .failed(errno: EBADMSG))
        XCTAssertEqual(parseLink(link([])), .failed(errno: EBADMSG))
    }

    func testLinkKindEdgeCases() {
        let hdr = Array(fixtureLinkVeth[16..<32])
        func link(kind: [UInt8], nested: Bool = false) -> [UInt8] {
            let type = nested ? K.IFLA_LINKINFO | K.NLA_F_NESTED : K.IFLA_LINKINFO
            return message(type: K.RTM_NEWLINK, header: hdr, attrs: [
                attr(K.IFLA_IFNAME, cstr("va")), attr(type, attr(K.IFLA_INFO_KIND, kind)),
            ])
        }
        // Newer kernels/tools may set NLA_F_NESTED on the nest: the type must be masked.
        XCTAssertEqual(parseLink(link(kind: cstr("veth"), nested: true)).value?.kind, "veth")
        // 31 bytes + NUL fits.
        let k31 = String(repeating: "k", count: 31)
        XCTAssertEqual(parseLink(link(kind: cstr(k31))).value?.kind, k31)
        // Too long for the field: either rejected, or (if accepted) never an unterminated/garbage field.
        let long = String(repeating: "w", count: 40)
        switch parseLink(link(kind: cstr(long))) {
        case .failed(let e): XCTAssertEqual(e, EBADMSG)
        case .ok(let f): XCTAssertTrue(long.hasPrefix(f.kind) && f.kind.utf8.count < 32, "kind \(f.kind)")
        case .badReturn(let rc): XCTFail("returned \(rc)")
        }
        // An inner attribute whose length runs past the whole message.
        let lying = message(type: K.RTM_NEWLINK, header: hdr, attrs: [
            attr(K.IFLA_IFNAME, cstr("va")),
            le16(12) + le16(K.IFLA_LINKINFO) + le16(200) + le16(K.IFLA_INFO_KIND) + Array("veth".utf8),
        ])
        XCTAssertEqual(parseLink(lying), .failed(errno: EBADMSG))
    }

    func testAddrFlagsPeerAndIPv6() {
        let hdr4: [UInt8] = [K.AF_INET, 24, 0x80, 0] + le32(3)
        let flags = message(type: K.RTM_NEWADDR, header: hdr4, attrs: [
            attr(K.IFA_ADDRESS, [192, 0, 2, 5]), attr(K.IFA_LOCAL, [192, 0, 2, 5]),
            attr(K.IFA_FLAGS, le32(K.IFA_F_PERMANENT | K.IFA_F_NOPREFIXROUTE)),
        ])
        XCTAssertEqual(parseAddr(flags), .ok(AddrFacts(
            index: 3, family: v4, prefixlen: 24, scope: 0, flags: 0x280, address: [192, 0, 2, 5], label: "")))
        // IPv6 style: only IFA_ADDRESS.
        let a6: [UInt8] = [0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]
        let hdr6: [UInt8] = [K.AF_INET6, 64, 0x80, 0] + le32(3)
        XCTAssertEqual(parseAddr(message(type: K.RTM_NEWADDR, header: hdr6, attrs: [attr(K.IFA_ADDRESS, a6)])),
                       .ok(AddrFacts(index: 3, family: v6, prefixlen: 64, scope: 0, flags: 0x80, address: a6, label: "")))
        // Address attribute of the wrong size for the family.
        XCTAssertEqual(parseAddr(message(type: K.RTM_NEWADDR, header: hdr6, attrs: [attr(K.IFA_ADDRESS, [10, 0, 0, 1])])),
                       .failed(errno: EBADMSG))
        XCTAssertEqual(parseAddr(message(type: K.RTM_NEWADDR, header: hdr4, attrs: [attr(K.IFA_LOCAL, a6)])),
                       .failed(errno: EBADMSG))
        // A label too long for the field is rejected, not truncated.
        XCTAssertEqual(parseAddr(message(type: K.RTM_NEWADDR, header: hdr4, attrs: [
            attr(K.IFA_LOCAL, [10, 0, 0, 1]), attr(K.IFA_LABEL, cstr("abcdefghijklmnop")),
        ])), .failed(errno: EBADMSG))
    }

    // MARK: Bad bytes: EBADMSG / EPROTO

    func testEveryTruncatedRouteIsRejectedOrConsistent() throws {
        for (name, msg, full) in [
            ("gateway", fixtureRouteV4Gateway, expectRouteV4Gateway),
            ("local", fixtureRouteV4Local, expectRouteV4Local),
            ("v6", fixtureRouteV6Gateway, expectRouteV6Gateway),
            ("onlink.bin", try loadFixture("route_v4_onlink"), expectRouteV4OnLink),
        ] {
            checkPrefixes(name, msg, headerSize: K.routeHeader, parse: parseRoute) { present in
                full.keeping(present, rtmTable: UInt32(msg[20]))
            }
        }
    }

    func testEveryTruncatedLinkIsRejectedOrConsistent() throws {
        for (name, msg, full) in [
            ("veth", fixtureLinkVeth, expectLinkVeth),
            ("tun", fixtureLinkTun, expectLinkTun),
            ("veth.bin", try loadFixture("link_veth"), expectLinkVeth),
            ("tun.bin", try loadFixture("link_tun"), expectLinkTun),
        ] {
            checkPrefixes(name, msg, headerSize: K.linkHeader, parse: parseLink) { full.keeping($0) }
        }
    }

    func testEveryTruncatedAddrIsRejectedOrConsistent() {
        for (i, msg) in splitMessages(fixtureAddrDumpV4).enumerated() {
            let full = expectAddrDump[i]
            checkPrefixes("addr \(i)", msg, headerSize: K.addrHeader, parse: parseAddr) { present in
                // IFA_LOCAL wins over IFA_ADDRESS; a peer needs both.
                var f = full
                let local = present.contains(K.IFA_LOCAL), address = present.contains(K.IFA_ADDRESS)
                if !local {
                    f.hasPeer = 0; f.peer = []
                    if address, full.hasPeer != 0 { f.address = full.peer }
                    if !address { f.address = [0, 0, 0, 0] }
                } else if !address {
                    f.hasPeer = 0; f.peer = []
                }
                if !present.contains(K.IFA_LABEL) { f.label = "" }
                return f   // IFA_FLAGS equals ifa_flags in these messages
            }
        }
    }

    func testEveryTruncatedErrorIsRejectedOrRight() {
        for p in 0..<fixtureBlackholeEINVAL.count {
            let prefix = truncated(fixtureBlackholeEINVAL, to: p)
            switch parseError(prefix) {
            case .ok(let e):
                XCTAssertGreaterThanOrEqual(p, K.errorMinimum, "prefix \(p) accepted")
                XCTAssertEqual(e, 22, "prefix \(p)")
            case .failed(let e):
                XCTAssertEqual(e, EBADMSG, "prefix \(p)")
            case .badReturn(let rc):
                XCTFail("prefix \(p) returned \(rc)")
            }
        }
    }

    func testIteratorRejectsEveryTruncatedDatagram() throws {
        for name in ["addr_dump_v4", "route_v4_gateway", "route_v4_blackhole_einval", "link_tun"] {
            let datagram = try loadFixture(name)
            let messages = splitMessages(datagram)
            var ends: [Int] = []
            var off = 0
            for m in messages { off += (m.count + 3) & ~3; ends.append(off) }
            for p in 0..<datagram.count {
                let result = walk(Array(datagram[0..<p]))
                let complete = ends.filter { $0 <= p }.count
                XCTAssertNil(result.badReturn, "\(name) prefix \(p)")
                XCTAssertEqual(result.messages.count, complete, "\(name) prefix \(p)")
                if p == 0 || ends.contains(p) {
                    XCTAssertEqual(result.end, 0, "\(name) prefix \(p) is a clean end")
                } else {
                    XCTAssertEqual(result.end, EBADMSG, "\(name) prefix \(p)")
                }
            }
        }
    }

    func testAttributeLengthThatLies() {
        // RTA_DST is the 2nd attribute of the gateway route (offset 36); IFLA_IFNAME the 1st of the veth (32).
        let dstAt = 36, nameAt = 32
        XCTAssertEqual(readLE16(fixtureRouteV4Gateway, dstAt + 2), K.RTA_DST)
        XCTAssertEqual(readLE16(fixtureLinkVeth, nameAt + 2), K.IFLA_IFNAME)
        let routeLen = fixtureRouteV4Gateway.count, linkLen = fixtureLinkVeth.count
        for bad: UInt16 in [0, 1, 2, 3, UInt16(routeLen - dstAt + 1), UInt16(routeLen - dstAt + 4), 0xffff] {
            XCTAssertEqual(parseRoute(patched16(fixtureRouteV4Gateway, at: dstAt, bad)), .failed(errno: EBADMSG),
                           "RTA_DST rta_len \(bad)")
        }
        for bad: UInt16 in [0, 1, 2, 3, UInt16(linkLen - nameAt + 1), 0xffff] {
            XCTAssertEqual(parseLink(patched16(fixtureLinkVeth, at: nameAt, bad)), .failed(errno: EBADMSG),
                           "IFLA_IFNAME rta_len \(bad)")
        }
        // The last attribute lying by one byte (the one the bounds check is most likely to miss).
        let last = attributes(of: fixtureLinkTun, headerSize: K.linkHeader).last!
        XCTAssertEqual(parseLink(patched16(fixtureLinkTun, at: last.start, UInt16(last.length + 1))),
                       .failed(errno: EBADMSG))
        let addr0 = splitMessages(fixtureAddrDumpV4)[0]
        for bad: UInt16 in [0, 3, 200] {
            XCTAssertEqual(parseAddr(patched16(addr0, at: K.addrHeader, bad)), .failed(errno: EBADMSG),
                           "IFA_ADDRESS rta_len \(bad)")
        }
    }

    func testMessageLengthThatLies() {
        let cases: [(String, [UInt8], (UnsafeRawPointer, Int) -> Int32?)] = [
            ("route", fixtureRouteV4Gateway, { parseRoute($0, $1).errnoValue }),
            ("link", fixtureLinkVeth, { parseLink($0, $1).errnoValue }),
            ("addr", splitMessages(fixtureAddrDumpV4)[1], { parseAddr($0, $1).errnoValue }),
            ("error", fixtureBlackholeEINVAL, { parseError($0, $1).errnoValue }),
        ]
        for (name, msg, parse) in cases {
            for bad: UInt32 in [0, 1, 15, 16, UInt32(msg.count + 1), UInt32(msg.count + 4), 0xffff_ffff] {
                let lying = patched32(msg, at: 0, bad)
                XCTAssertEqual(withGuardedBytes(lying, parse), EBADMSG, "\(name) nlmsg_len \(bad)")
            }
            // Honest nlmsg_len, but the caller's len is shorter than it.
            XCTAssertEqual(withGuardedBytes(Array(msg.dropLast(4))) { parse($0, $1) }, EBADMSG, "\(name) short buffer")
        }
    }

    func testAddressAttributeOfWrongSize() {
        let rtm4 = Array(fixtureRouteV4Gateway[16..<28]), rtm6 = Array(fixtureRouteV6Gateway[16..<28])
        func route(_ hdr: [UInt8], _ attrs: [[UInt8]]) -> [UInt8] {
            message(type: K.RTM_NEWROUTE, header: hdr, attrs: attrs)
        }
        XCTAssertEqual(parseRoute(route(rtm4, [attr(K.RTA_DST, [10, 1, 0, 7, 0])])), .failed(errno: EBADMSG), "DST 5")
        XCTAssertEqual(parseRoute(route(rtm4, [attr(K.RTA_DST, [10, 1, 0])])), .failed(errno: EBADMSG), "DST 3")
        XCTAssertEqual(parseRoute(route(rtm4, [attr(K.RTA_GATEWAY, [UInt8](repeating: 1, count: 16))])),
                       .failed(errno: EBADMSG), "v4 GATEWAY 16")
        XCTAssertEqual(parseRoute(route(rtm4, [attr(K.RTA_PREFSRC, [10, 1])])), .failed(errno: EBADMSG), "PREFSRC 2")
        XCTAssertEqual(parseRoute(route(rtm6, [attr(K.RTA_DST, [10, 1, 0, 7])])), .failed(errno: EBADMSG), "v6 DST 4")
        // RTA_VIA whose address does not match its own family.
        XCTAssertEqual(parseRoute(route(rtm4, [attr(K.RTA_VIA, le16(UInt16(K.AF_INET6)) + [10, 1, 0, 254])])),
                       .failed(errno: EBADMSG), "VIA inet6 with 4 bytes")
        // And the right sizes parse (so the failures above are about the size).
        XCTAssertEqual(parseRoute(route(rtm4, [attr(K.RTA_DST, [10, 1, 0, 7])])).value?.dst, [10, 1, 0, 7])
    }

    func testWrongMessageTypeOrFamilyIsEPROTO() {
        let addr = splitMessages(fixtureAddrDumpV4)[1]
        XCTAssertEqual(parseRoute(fixtureLinkVeth), .failed(errno: EPROTO))
        XCTAssertEqual(parseRoute(fixtureBlackholeEINVAL), .failed(errno: EPROTO))
        XCTAssertEqual(parseRoute(addr), .failed(errno: EPROTO))
        XCTAssertEqual(parseLink(fixtureRouteV4Gateway), .failed(errno: EPROTO))
        XCTAssertEqual(parseLink(addr), .failed(errno: EPROTO))
        XCTAssertEqual(parseAddr(fixtureLinkVeth), .failed(errno: EPROTO))
        XCTAssertEqual(parseAddr(fixtureRouteV6Gateway), .failed(errno: EPROTO))
        XCTAssertEqual(parseError(fixtureRouteV4Gateway), .failed(errno: EPROTO))
        XCTAssertEqual(parseError(fixtureLinkTun), .failed(errno: EPROTO))
        let done = patched16(fixtureRouteV4Gateway, at: 4, K.NLMSG_DONE)
        XCTAssertEqual(parseRoute(done), .failed(errno: EPROTO))
        // A route of another family (multicast routing: RTNL_FAMILY_IPMR, or AF_PACKET).
        for family: UInt8 in [K.RTNL_FAMILY_IPMR, 17] {
            var other = fixtureRouteV4Gateway
            other[16] = family
            XCTAssertEqual(parseRoute(other), .failed(errno: EPROTO), "family \(family)")
        }
    }

    // MARK: creach_msg_next

    func testIteratorWalksTheAddrDump() throws {
        for datagram in [fixtureAddrDumpV4, try loadFixture("addr_dump_v4")] {
            let result = walk(datagram)
            XCTAssertNil(result.badReturn)
            XCTAssertEqual(result.end, 0)
            XCTAssertEqual(result.messages, [
                WalkedMessage(offset: 0, length: 76, type: K.RTM_NEWADDR, seq: 1008, flags: K.NLM_F_MULTI),
                WalkedMessage(offset: 76, length: 76, type: K.RTM_NEWADDR, seq: 1008, flags: K.NLM_F_MULTI),
                WalkedMessage(offset: 152, length: 80, type: K.RTM_NEWADDR, seq: 1008, flags: K.NLM_F_MULTI),
            ])
        }
        // And the messages it yields parse to the expected addresses.
        let parsed: [Outcome<AddrFacts>] = withGuardedBytes(fixtureAddrDumpV4) { base, len in
            var it = creach_msg_iter()
            creach_msg_iter_init(&it, base, len)
            var out: [Outcome<AddrFacts>] = []
            var msg: UnsafeRawPointer? = nil
            var msgLen = 0
            while creach_msg_next(&it, &msg, &msgLen) == 1, let m = msg { out.append(parseAddr(m, msgLen)) }
            return out
        }
        XCTAssertEqual(parsed, expectAddrDump.map { .ok($0) })
        // Nothing at all is a clean end.
        XCTAssertEqual(walk([]).end, 0)
        XCTAssertEqual(walk([]).messages, [])
    }

    func testIteratorAfterEndKeepsEnding() {
        withGuardedBytes(fixtureRouteV4Gateway) { base, len in
            var it = creach_msg_iter()
            creach_msg_iter_init(&it, base, len)
            var msg: UnsafeRawPointer? = nil
            var msgLen = 0
            XCTAssertEqual(creach_msg_next(&it, &msg, &msgLen), 1)
            XCTAssertEqual(msgLen, 112)
            XCTAssertEqual(creach_msg_next(&it, &msg, &msgLen), 0)
            XCTAssertEqual(creach_msg_next(&it, &msg, &msgLen), 0)
        }
    }

    func testIteratorRejectsALyingLengthInTheMiddle() {
        let second = 76
        for (bad, expectedMessages) in [(UInt32(1000), 1), (UInt32(8), 1), (UInt32(0), 1), (UInt32(157), 1),
                                        (UInt32(20), 2)] {
            // 157 = the rest of the datagram plus one. 20 lands the third header on ifa_index (= 3 < 16).
            let result = walk(patched32(fixtureAddrDumpV4, at: second, bad))
            XCTAssertNil(result.badReturn)
            XCTAssertEqual(result.messages.count, expectedMessages, "nlmsg_len \(bad)")
            XCTAssertEqual(result.end, EBADMSG, "nlmsg_len \(bad)")
        }
        // The last message claiming exactly the rest is fine.
        let exact = walk(patched32(fixtureAddrDumpV4, at: second, 156))
        XCTAssertEqual(exact.messages.count, 2)
        XCTAssertEqual(exact.end, 0)
    }

    // MARK: creach_uevent_value

    private struct UeventResult: Equatable, CustomStringConvertible {
        var rc: Int32
        var error: Int32   // errno when rc == -1, else 0
        var out: String
        init(_ rc: Int32, _ error: Int32, _ out: String) { self.rc = rc; self.error = error; self.out = out }
        var description: String { "(rc \(rc), errno \(error), out \"\(out)\")" }
    }

    private func uevent(_ text: String, _ key: String, outlen: Int = 32, textLen: Int? = nil) -> UeventResult {
        let bytes = Array(text.utf8)
        return withGuardedBytes(bytes) { p, n in
            var out = [CChar](repeating: 0x58, count: max(outlen, 1))   // 'X' garbage
            errno = 0
            let rc = out.withUnsafeMutableBufferPointer { o in
                creach_uevent_value(p.assumingMemoryBound(to: CChar.self), textLen ?? n, key, o.baseAddress, outlen)
            }
            let e = errno
            let s: String
            if outlen == 0 {
                s = out[0] == 0x58 ? "<untouched>" : "<written>"
            } else if let nul = out.firstIndex(of: 0) {
                s = String(decoding: out[..<nul].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            } else {
                s = "<unterminated>"
            }
            return UeventResult(rc, rc == -1 ? e : 0, s)
        }
    }

    func testUeventValue() {
        let text = "INTERFACE=wwan0\nDEVTYPE=wwan\nIFINDEX=5\n"
        XCTAssertEqual(uevent(text, "DEVTYPE"), UeventResult(4, 0, "wwan"))
        XCTAssertEqual(uevent(text, "INTERFACE"), UeventResult(5, 0, "wwan0"))
        XCTAssertEqual(uevent(text, "IFINDEX"), UeventResult(1, 0, "5"))
        // Absent key: 0 and an empty, terminated out.
        XCTAssertEqual(uevent(text, "DRIVER"), UeventResult(0, 0, ""))
        XCTAssertEqual(uevent(text, "DEV"), UeventResult(0, 0, ""), "a prefix of a key is not the key")
        // A longer key that starts with the wanted one is not matched.
        XCTAssertEqual(uevent("DEVTYPEX=foo\nDEVTYPE=wwan\n", "DEVTYPE"), UeventResult(4, 0, "wwan"))
        XCTAssertEqual(uevent("DEVTYPEX=foo\n", "DEVTYPE"), UeventResult(0, 0, ""))
        XCTAssertEqual(uevent("XDEVTYPE=foo\n", "DEVTYPE"), UeventResult(0, 0, ""))
        XCTAssertEqual(uevent("FOO=DEVTYPE=bar\n", "DEVTYPE"), UeventResult(0, 0, ""), "key only at a line start")
        // No trailing newline.
        XCTAssertEqual(uevent("INTERFACE=wwan0\nDEVTYPE=wwan", "DEVTYPE"), UeventResult(4, 0, "wwan"))
        XCTAssertEqual(uevent("DEVTYPE=wlan", "DEVTYPE"), UeventResult(4, 0, "wlan"))
        // Empty text, and len honoured (the text is not NUL-terminated).
        XCTAssertEqual(uevent("", "DEVTYPE"), UeventResult(0, 0, ""))
        XCTAssertEqual(uevent("DEVTYPE=wwan\n", "DEVTYPE", textLen: 10), UeventResult(2, 0, "ww"))
        XCTAssertEqual(uevent("DEVTYPE=wwan\n", "DEVTYPE", textLen: 7), UeventResult(0, 0, ""))
        // Empty value.
        XCTAssertEqual(uevent("DEVTYPE=\nX=1\n", "DEVTYPE"), UeventResult(0, 0, ""))
    }

    func testUeventValueTooLong() {
        let text = "INTERFACE=wwan0\nDEVTYPE=wwan\nIFINDEX=5\n"
        // "wwan" needs 5 bytes with its NUL.
        XCTAssertEqual(uevent(text, "DEVTYPE", outlen: 5), UeventResult(4, 0, "wwan"))
        XCTAssertEqual(uevent(text, "DEVTYPE", outlen: 4), UeventResult(-1, ENAMETOOLONG, ""))
        XCTAssertEqual(uevent(text, "DEVTYPE", outlen: 1), UeventResult(-1, ENAMETOOLONG, ""))
        let r0 = uevent(text, "DEVTYPE", outlen: 0)
        XCTAssertEqual(r0.rc, -1)
        XCTAssertEqual(r0.error, ENAMETOOLONG)
        XCTAssertEqual(r0.out, "<untouched>", "outlen 0 must not write")
        let long = "DEVTYPE=" + String(repeating: "v", count: 40) + "\n"
        XCTAssertEqual(uevent(long, "DEVTYPE"), UeventResult(-1, ENAMETOOLONG, ""))
    }

    // MARK: Mutation loop

    func testSeededMutationsNeverCrashAndFailCleanly() throws {
        var corpus: [[UInt8]] = [
            fixtureRouteV4Gateway, fixtureRouteV4Local, fixtureRouteV4LocalUnmerged, fixtureRouteV6Gateway,
            fixtureBlackholeEINVAL, fixtureLinkVeth, fixtureLinkTun, fixtureAddrDumpV4,
        ]
        for name in ["route_v4_onlink", "link_veth", "link_tun"] { corpus.append(try loadFixture(name)) }

        var rng = SplitMix64(seed: 0x5EED_CAFE_F00D_0001)
        let specials: [UInt8] = [0x00, 0x01, 0x03, 0x04, 0x05, 0x0f, 0x10, 0x11, 0x7f, 0x80, 0xfe, 0xff]
        var outcomes = [String: Int]()

        for iteration in 0..<2000 {
            var bytes = corpus[iteration % corpus.count]
            let flips = 1 + Int(rng.next() % 4)
            for _ in 0..<flips {
                let at = Int(rng.next() % UInt64(bytes.count))
                switch rng.next() % 3 {
                case 0: bytes[at] ^= UInt8(1 << (rng.next() % 8))
                case 1: bytes[at] = specials[Int(rng.next() % UInt64(specials.count))]
                default: bytes[at] = UInt8(truncatingIfNeeded: rng.next())
                }
            }
            if rng.next() % 4 == 0 { bytes = Array(bytes.prefix(Int(rng.next() % UInt64(bytes.count + 1)))) }

            let context = "iteration \(iteration)"
            withGuardedBytes(bytes) { base, len in
                // Every parser on the raw buffer.
                callEveryParser(base, len, context: context, tally: &outcomes)
                // And on every message the iterator yields.
                var it = creach_msg_iter()
                creach_msg_iter_init(&it, base, len)
                for _ in 0..<64 {
                    var msg: UnsafeRawPointer? = nil
                    var msgLen = 0
                    errno = 0
                    let rc = creach_msg_next(&it, &msg, &msgLen)
                    let e = errno
                    if rc == 0 { break }
                    if rc == -1 {
                        XCTAssertEqual(e, EBADMSG, "\(context): creach_msg_next errno")
                        break
                    }
                    XCTAssertEqual(rc, 1, "\(context): creach_msg_next returned \(rc)")
                    guard rc == 1, let msg else { break }
                    let offset = base.distance(to: msg)
                    guard msgLen >= 16 && offset >= 0 && offset + msgLen <= len else {
                        XCTFail("\(context): message at \(offset) of \(msgLen) outside datagram of \(len)")
                        break
                    }
                    XCTAssertEqual(msgLen, Int(readLE32(bytes, offset)), "\(context): msg_len is nlmsg_len")
                    callEveryParser(msg, msgLen, context: context, tally: &outcomes)
                }
            }
        }
        // The loop must actually reach both the accept and the reject paths of each parser.
        for key in ["route ok", "route EBADMSG", "route EPROTO", "link ok", "link EBADMSG", "addr ok",
                    "addr EBADMSG", "error ok", "error EPROTO"] {
            XCTAssertGreaterThan(outcomes[key, default: 0], 0, "mutation loop never produced \(key): \(outcomes)")
        }
    }

    // MARK: - Helpers

    private func callEveryParser(_ p: UnsafeRawPointer, _ n: Int, context: String, tally: inout [String: Int]) {
        func check<T>(_ name: String, _ outcome: Outcome<T>, _ valid: (T) -> String?) {
            switch outcome {
            case .ok(let v):
                tally["\(name) ok", default: 0] += 1
                if let problem = valid(v) { XCTFail("\(context): \(name) accepted with \(problem)") }
            case .failed(let e):
                tally["\(name) \(e == EBADMSG ? "EBADMSG" : e == EPROTO ? "EPROTO" : "errno \(e)")", default: 0] += 1
                XCTAssertTrue(e == EBADMSG || e == EPROTO, "\(context): \(name) errno \(e)")
            case .badReturn(let rc):
                XCTFail("\(context): \(name) returned \(rc)")
            }
        }
        check("route", parseRoute(p, n)) { r in
            if r.error != 0 { return "error \(r.error)" }
            if r.family != K.AF_INET && r.family != K.AF_INET6 { return "family \(r.family)" }
            if r.hasGateway > 1 || r.hasPrefsrc > 1 { return "has_* not 0/1" }
            if r.hasGateway == 1 && r.gatewayFamily != K.AF_INET && r.gatewayFamily != K.AF_INET6 {
                return "gateway_family \(r.gatewayFamily)"
            }
            return nil
        }
        check("link", parseLink(p, n)) { l in
            if l.name == "<unterminated>" || l.kind == "<unterminated>" { return "unterminated name/kind" }
            if l.carrier < -1 || l.carrier > 1 { return "carrier \(l.carrier)" }
            return nil
        }
        check("addr", parseAddr(p, n)) { a in
            a.label == "<unterminated>" ? "unterminated label" : a.hasPeer > 1 ? "has_peer \(a.hasPeer)" : nil
        }
        check("error", parseError(p, n)) { _ in nil }
    }

    private func truncated(_ msg: [UInt8], to p: Int) -> [UInt8] {
        var prefix = Array(msg[0..<p])
        if p >= 4 { prefix.replaceSubrange(0..<4, with: le32(UInt32(p))) }
        return prefix
    }

    /// Feeds every prefix of `msg` (nlmsg_len patched to the prefix length).
    /// Below the fixed header, or cutting into an attribute (its header or its payload):
    /// EBADMSG. At an attribute boundary (a complete shorter message): success with
    /// exactly the facts of the attributes kept. Inside the alignment padding after the
    /// last kept attribute (the kernel may omit it on the last one): EBADMSG, or success
    /// with those facts.
    private func checkPrefixes<T: Equatable>(_ name: String, _ msg: [UInt8], headerSize: Int,
                                             parse: ([UInt8]) -> Outcome<T>,
                                             expected: (Set<UInt16>) -> T,
                                             file: StaticString = #filePath, line: UInt = #line) {
        let spans = attributes(of: msg, headerSize: headerSize)
        XCTAssertEqual(spans.last?.alignedEnd ?? headerSize, msg.count, "\(name): reference walk", file: file, line: line)
        let boundaries = Set([headerSize] + spans.map(\.alignedEnd))
        for p in 0..<msg.count {
            let outcome = parse(truncated(msg, to: p))
            let present = Set(spans.filter { $0.end <= p }.map(\.type))
            let mustFail = p < headerSize || spans.contains { $0.start < p && p < $0.end }
            let mustSucceed = boundaries.contains(p)
            switch outcome {
            case .ok(let facts):
                XCTAssertFalse(mustFail, "\(name): prefix \(p) accepted", file: file, line: line)
                XCTAssertEqual(facts, expected(present), "\(name): prefix \(p)", file: file, line: line)
            case .failed(let e):
                XCTAssertFalse(mustSucceed, "\(name): prefix \(p) is a complete message, rejected", file: file, line: line)
                XCTAssertEqual(e, EBADMSG, "\(name): prefix \(p)", file: file, line: line)
            case .badReturn(let rc):
                XCTFail("\(name): prefix \(p) returned \(rc)", file: file, line: line)
            }
        }
    }

    private func parseFirstMessage<T: Equatable>(_ fixture: String,
                                                 _ parse: (UnsafeRawPointer, Int) -> Outcome<T>) throws -> Outcome<T>? {
        let datagram = try loadFixture(fixture)
        return withGuardedBytes(datagram) { base, len in
            var it = creach_msg_iter()
            creach_msg_iter_init(&it, base, len)
            var msg: UnsafeRawPointer? = nil
            var msgLen = 0
            guard creach_msg_next(&it, &msg, &msgLen) == 1, let msg else { return nil }
            return parse(msg, msgLen)
        }
    }

    private func assertDatagram(_ fixture: String, holdsOneMessageOfType type: UInt16, length: Int,
                                file: StaticString = #filePath, line: UInt = #line) throws {
        let result = walk(try loadFixture(fixture))
        XCTAssertEqual(result.messages.map(\.type), [type], fixture, file: file, line: line)
        XCTAssertEqual(result.messages.map(\.length), [length], fixture, file: file, line: line)
        XCTAssertEqual(result.end, 0, fixture, file: file, line: line)
    }
}
