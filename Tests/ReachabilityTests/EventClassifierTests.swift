// Unit tests of creach_events_classify (CReachability.h), the pure C function
// that tells the monitor what a burst of rtnetlink notifications was about.
//
// Fixtures: Fixtures/event_*.bin are real multicast notification datagrams,
// one recvmsg each, captured by `Tests/Fixtures-capture/capture.py --events`
// in a private namespace (see the "Notification datagrams" section of
// Fixtures/README.md for the commands and the ifindexes). Every one holds a
// single message. Multi-message buffers are built here by concatenating them
// (each message kept intact and 4-byte aligned, as the kernel frames them).
//
// Every buffer handed to the classifier is copied so that it ENDS exactly at a
// PROT_NONE guard page: reading one byte past `len` crashes the test process.

import CReachability
import Foundation
import XCTest

#if canImport(Glibc)
import Glibc
#endif

// Constants: `K` in FixtureSupport.swift.

// MARK: - The struct as a comparable value

/// creach_events as an Equatable value; `slots` is all 8 entries of `deleted`
/// (kept indexes first, zeros after), so a stray write is caught too.
private struct Tally: Equatable, CustomStringConvertible {
    var messages: UInt32 = 0
    var link: UInt32 = 0
    var addr4: UInt32 = 0
    var addr6: UInt32 = 0
    var route4: UInt32 = 0
    var route6: UInt32 = 0
    var rule4: UInt32 = 0
    var rule6: UInt32 = 0
    var other: UInt32 = 0
    var malformed: UInt32 = 0
    var deletedCount: UInt32 = 0
    var slots: [Int32] = Array(repeating: 0, count: K.maxDeleted)

    init(messages: UInt32 = 0, link: UInt32 = 0, addr4: UInt32 = 0, addr6: UInt32 = 0,
         route4: UInt32 = 0, route6: UInt32 = 0, rule4: UInt32 = 0, rule6: UInt32 = 0,
         other: UInt32 = 0, malformed: UInt32 = 0, deletedCount: UInt32 = 0, deleted: [Int32] = []) {
        precondition(deleted.count <= K.maxDeleted)
        self.messages = messages; self.link = link
        self.addr4 = addr4; self.addr6 = addr6
        self.route4 = route4; self.route6 = route6
        self.rule4 = rule4; self.rule6 = rule6
        self.other = other; self.malformed = malformed
        self.deletedCount = deletedCount
        self.slots = deleted + Array(repeating: 0, count: K.maxDeleted - deleted.count)
    }

    init(_ ev: creach_events) {
        let slots = withUnsafeBytes(of: ev.deleted) { Array($0.bindMemory(to: Int32.self)) }
        precondition(slots.count == K.maxDeleted, "creach_events.deleted is not Int32[8]")
        self.init(messages: ev.messages, link: ev.link, addr4: ev.addr4, addr6: ev.addr6,
                  route4: ev.route4, route6: ev.route6, rule4: ev.rule4, rule6: ev.rule6,
                  other: ev.other, malformed: ev.malformed, deletedCount: ev.deleted_count)
        self.slots = slots
    }

    /// The kept ifindexes, in order.
    var kept: [Int32] { Array(slots.prefix(Int(min(deletedCount, UInt32(K.maxDeleted))))) }

    /// What classifying `a`'s datagrams and then `b`'s into one struct must give.
    static func + (a: Tally, b: Tally) -> Tally {
        Tally(messages: a.messages + b.messages, link: a.link + b.link,
              addr4: a.addr4 + b.addr4, addr6: a.addr6 + b.addr6,
              route4: a.route4 + b.route4, route6: a.route6 + b.route6,
              rule4: a.rule4 + b.rule4, rule6: a.rule6 + b.rule6,
              other: a.other + b.other, malformed: a.malformed + b.malformed,
              deletedCount: a.deletedCount + b.deletedCount,
              deleted: Array((a.kept + b.kept).prefix(K.maxDeleted)))
    }

    var description: String {
        "messages \(messages) link \(link) addr4 \(addr4) addr6 \(addr6) route4 \(route4) route6 \(route6) "
            + "rule4 \(rule4) rule6 \(rule6) other \(other) malformed \(malformed) "
            + "deleted_count \(deletedCount) deleted \(slots)"
    }
}

/// One call's result: return value, errno (0 when it returned >= 0), and the struct after it.
private struct Classified: Equatable, CustomStringConvertible {
    var ret: Int32
    var err: Int32
    var tally: Tally
    var description: String { "ret \(ret) errno \(err) [\(tally)]" }
}

// MARK: - Guarded buffers and calls

/// Classifies `bytes` (guarded) into `ev`.
private func classify(_ bytes: [UInt8], into ev: inout creach_events) -> Classified {
    let (ret, err): (Int32, Int32) = withGuardedBytes(bytes) { p, n in
        errno = 0
        let r = creach_events_classify(p, n, &ev)
        return (r, r < 0 ? errno : 0)
    }
    return Classified(ret: ret, err: err, tally: Tally(ev))
}

/// Classifies `bytes` into a zeroed struct.
private func classify(_ bytes: [UInt8]) -> Classified {
    var ev = creach_events()
    return classify(bytes, into: &ev)
}

// MARK: - Bytes

private func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xff), UInt8(v >> 8)] }
private func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8((v >> (8 * UInt32($0))) & 0xff) } }
private func readLE16(_ b: [UInt8], _ at: Int) -> UInt16 { UInt16(b[at]) | UInt16(b[at + 1]) << 8 }
private func readLE32(_ b: [UInt8], _ at: Int) -> UInt32 {
    (0..<4).reduce(UInt32(0)) { $0 | UInt32(b[at + $1]) << (8 * UInt32($1)) }
}

/// A message: nlmsghdr (nlmsg_len = 16 + body.count, no padding added) + body.
private func nlmsg(_ type: UInt16, _ body: [UInt8]) -> [UInt8] {
    le32(UInt32(K.nlmsghdr + body.count)) + le16(type) + le16(0) + le32(0) + le32(0) + body
}

/// A struct ifinfomsg (family AF_UNSPEC) for `index`.
private func ifinfoBody(index: Int32) -> [UInt8] {
    [K.AF_UNSPEC, 0] + le16(1) + le32(UInt32(bitPattern: index)) + le32(0) + le32(0)
}

private func patched32(_ b: [UInt8], at: Int, _ v: UInt32) -> [UInt8] {
    var c = b
    c.replaceSubrange(at..<at + 4, with: le32(v))
    return c
}

/// Where one message of a built buffer lies, and what it must add to the struct.
private struct Segment {
    let start: Int
    let length: Int     // nlmsg_len
    let expect: Tally
}

/// Concatenates messages (each padded to 4 bytes, as NLMSG_ALIGN) and records their layout.
private func datagram(_ parts: [([UInt8], Tally)]) -> (bytes: [UInt8], segments: [Segment]) {
    var bytes: [UInt8] = []
    var segments: [Segment] = []
    for (msg, expect) in parts {
        precondition(Int(readLE32(msg, 0)) == msg.count, "a part must be exactly one message")
        segments.append(Segment(start: bytes.count, length: msg.count, expect: expect))
        bytes += msg + Array(repeating: 0, count: (4 - msg.count % 4) % 4)
    }
    return (bytes, segments)
}

/// The contract for the first `cut` bytes of a built buffer: the messages lying
/// wholly inside are counted; a cut that falls on a message start, or inside
/// the alignment padding after a whole message (the last message may omit its
/// padding), is a clean end returning their number; any other cut splits a
/// header or a message: -1, EBADMSG, and one more `malformed`.
private func contract(cut: Int, _ segments: [Segment]) -> Classified {
    var tally = Tally()
    var whole: Int32 = 0
    for s in segments {
        if s.start >= cut { break }
        if s.start + s.length > cut {
            tally.malformed += 1
            return Classified(ret: -1, err: EBADMSG, tally: tally)
        }
        tally = tally + s.expect
        whole += 1
    }
    return Classified(ret: whole, err: 0, tally: tally)
}

// MARK: - Fixtures


/// A captured datagram: its file, the one message it holds, and what it must count.
private struct EventFixture {
    let name: String
    let bytes: Int          // file size = nlmsg_len of its single message
    let type: UInt16
    let family: UInt8       // the byte right after the nlmsghdr
    let expect: Tally
}

/// Interface indexes in the capture namespace: lo=1, vb=2, va=3, vd=4, vc=5.
private let vcIndex: Int32 = 5

private let eventFixtures: [EventFixture] = [
    // `ip addr del 10.1.0.1/24 dev va`: RTM_DELADDR AF_INET 10.1.0.1/24, ifa_index 3.
    EventFixture(name: "event_deladdr_v4", bytes: 76, type: K.RTM_DELADDR, family: K.AF_INET,
                 expect: Tally(messages: 1, addr4: 1)),
    // Same step: RTM_DELROUTE AF_INET unicast 10.1.0.0/24 table 254 dev va.
    EventFixture(name: "event_delroute_v4", bytes: 60, type: K.RTM_DELROUTE, family: K.AF_INET,
                 expect: Tally(messages: 1, route4: 1)),
    // `ip -6 route add 2001:db8:2::/64 via 2001:db8:1::fe dev va`: RTM_NEWROUTE AF_INET6.
    EventFixture(name: "event_newroute_v6", bytes: 136, type: K.RTM_NEWROUTE, family: K.AF_INET6,
                 expect: Tally(messages: 1, route6: 1)),
    // `ip rule add from 192.0.2.0/24 pref 100 prohibit`: RTM_NEWRULE AF_INET, FR_ACT_PROHIBIT.
    EventFixture(name: "event_newrule_v4", bytes: 68, type: K.RTM_NEWRULE, family: K.AF_INET,
                 expect: Tally(messages: 1, rule4: 1)),
    // `ip -6 rule add from 2001:db8:3::/64 table 100 pref 100`: RTM_NEWRULE AF_INET6.
    EventFixture(name: "event_newrule_v6", bytes: 80, type: K.RTM_NEWRULE, family: K.AF_INET6,
                 expect: Tally(messages: 1, rule6: 1)),
    // `ip link set va down`: RTM_NEWLINK (family AF_UNSPEC) va, ifindex 3, flags 0x1002 (no IFF_UP).
    // A NEWLINK is not a deletion: deleted_count stays 0.
    EventFixture(name: "event_newlink_down", bytes: 1492, type: K.RTM_NEWLINK, family: K.AF_UNSPEC,
                 expect: Tally(messages: 1, link: 1)),
    // Same step: RTM_DELROUTE AF_INET6 unicast 2001:db8:1::/64 table 254 dev va.
    EventFixture(name: "event_delroute_v6", bytes: 116, type: K.RTM_DELROUTE, family: K.AF_INET6,
                 expect: Tally(messages: 1, route6: 1)),
    // Same step: RTM_DELADDR AF_INET6 2001:db8:1::1/64, ifa_index 3.
    EventFixture(name: "event_deladdr_v6", bytes: 72, type: K.RTM_DELADDR, family: K.AF_INET6,
                 expect: Tally(messages: 1, addr6: 1)),
    // `ip link del vc`: RTM_DELLINK vc, ifindex 5 (its peer vd's DELLINK came in another datagram).
    EventFixture(name: "event_dellink", bytes: 680, type: K.RTM_DELLINK, family: K.AF_UNSPEC,
                 expect: Tally(messages: 1, link: 1, deletedCount: 1, deleted: [vcIndex])),
]

// MARK: - Tests

final class EventClassifierTests: XCTestCase {

    private func load(_ f: EventFixture, file: StaticString = #filePath, line: UInt = #line) throws -> [UInt8] {
        let b = try loadFixture(f.name, file: file, line: line)
        // The file is what the table says: one message filling the whole datagram.
        XCTAssertEqual(b.count, f.bytes, "\(f.name): file size", file: file, line: line)
        XCTAssertGreaterThan(b.count, K.nlmsghdr, "\(f.name): too short", file: file, line: line)
        if b.count > K.nlmsghdr {
            XCTAssertEqual(Int(readLE32(b, 0)), b.count, "\(f.name): nlmsg_len", file: file, line: line)
            XCTAssertEqual(readLE16(b, 4), f.type, "\(f.name): nlmsg_type", file: file, line: line)
            XCTAssertEqual(b[K.nlmsghdr], f.family, "\(f.name): family byte", file: file, line: line)
        }
        return b
    }

    /// Each captured datagram on its own: one message, counted in exactly one bucket.
    func testEachCapturedDatagramIsClassified() throws {
        for f in eventFixtures {
            let got = classify(try load(f))
            XCTAssertEqual(got, Classified(ret: 1, err: 0, tally: f.expect), f.name)
        }
    }

    /// The RTM_DELLINK datagram records the real ifindex of vc.
    func testDelLinkRecordsTheDeletedIfindex() throws {
        let f = try XCTUnwrap(eventFixtures.first { $0.name == "event_dellink" })
        let bytes = try load(f)
        XCTAssertEqual(Int32(bitPattern: readLE32(bytes, K.ifiIndexOffset)), vcIndex, "ifi_index in the capture")
        var ev = creach_events()
        XCTAssertEqual(classify(bytes, into: &ev).ret, 1)
        XCTAssertEqual(ev.deleted_count, 1)
        let slots = withUnsafeBytes(of: ev.deleted) { Array($0.bindMemory(to: Int32.self)) }
        XCTAssertEqual(slots, [vcIndex, 0, 0, 0, 0, 0, 0, 0])
    }

    /// Classifying several datagrams into one struct adds their counts.
    func testClassifyingDatagramsAccumulates() throws {
        let byName = Dictionary(uniqueKeysWithValues: try eventFixtures.map { ($0.name, try load($0)) })

        // Two datagrams of `ip addr del`: one address, one route, both IPv4.
        var ev = creach_events()
        XCTAssertEqual(classify(byName["event_deladdr_v4"]!, into: &ev).ret, 1)
        XCTAssertEqual(classify(byName["event_delroute_v4"]!, into: &ev),
                       Classified(ret: 1, err: 0, tally: Tally(messages: 2, addr4: 1, route4: 1)))

        // The same DELLINK twice: both deletions are kept, in order.
        ev = creach_events()
        XCTAssertEqual(classify(byName["event_dellink"]!, into: &ev).ret, 1)
        XCTAssertEqual(classify(byName["event_dellink"]!, into: &ev),
                       Classified(ret: 1, err: 0, tally: Tally(messages: 2, link: 2, deletedCount: 2,
                                                               deleted: [vcIndex, vcIndex])))

        // The whole burst, one datagram after another.
        ev = creach_events()
        for f in eventFixtures {
            XCTAssertEqual(classify(byName[f.name]!, into: &ev).ret, 1, f.name)
        }
        let total = Tally(messages: 9, link: 2, addr4: 1, addr6: 1, route4: 1, route6: 2, rule4: 1, rule6: 1,
                          deletedCount: 1, deleted: [vcIndex])
        XCTAssertEqual(Tally(ev), total)
        XCTAssertEqual(eventFixtures.map(\.expect).reduce(Tally(), +), total, "table and total disagree")

        // A broken datagram adds its whole messages and one malformed to what is there.
        let broken = Array(byName["event_newrule_v6"]!) + Array(byName["event_deladdr_v6"]!.prefix(20))
        var expect = total + Tally(messages: 1, rule6: 1)
        expect.malformed += 1
        XCTAssertEqual(classify(broken, into: &ev), Classified(ret: -1, err: EBADMSG, tally: expect))
    }

    /// Every prefix of every captured datagram cuts its only message: -1 EBADMSG, one malformed, nothing else.
    func testEveryTruncationOfACapturedDatagram() throws {
        for f in eventFixtures {
            let bytes = try load(f)
            let want = Classified(ret: -1, err: EBADMSG, tally: Tally(malformed: 1))
            var failures = 0
            for cut in 1..<bytes.count where failures < 5 {
                let got = classify(Array(bytes.prefix(cut)))
                if got != want {
                    failures += 1
                    XCTFail("\(f.name) cut at \(cut)/\(bytes.count): got \(got), want \(want)")
                }
            }
        }
    }

    /// Every prefix of a multi-message buffer (all captures, plus an unaligned
    /// message whose padding may be cut): whole messages counted; -1 EBADMSG
    /// with one malformed when the cut splits a message, else their count.
    func testEveryTruncationOfAMultiMessageBuffer() throws {
        var parts = try eventFixtures.map { (try load($0), $0.expect) }
        // RTM_NEWNEIGH with an 18-byte nlmsg_len (2 bytes of padding follow it).
        parts.insert((nlmsg(K.RTM_NEWNEIGH, [K.AF_INET, 0]), Tally(messages: 1, other: 1)), at: 4)
        let (bytes, segments) = datagram(parts)
        XCTAssertEqual(segments.count, 10)

        // The whole buffer.
        let all = segments.map(\.expect).reduce(Tally(), +)
        XCTAssertEqual(classify(bytes), Classified(ret: 10, err: 0, tally: all))

        var failures = 0
        var cleanEnds: [Int] = []
        for cut in 1..<bytes.count where failures < 10 {
            let want = contract(cut: cut, segments)
            if want.ret >= 0 { cleanEnds.append(cut) }
            let got = classify(Array(bytes.prefix(cut)))
            if got != want {
                failures += 1
                XCTFail("cut at \(cut)/\(bytes.count): got \(got), want \(want)")
            }
        }
        // The model itself: clean ends are the 9 message starts after the first,
        // plus the two bytes just after the 18-byte message (its padding cut).
        let neigh = segments[4]
        let starts = segments.dropFirst().map(\.start)
        XCTAssertEqual(cleanEnds, (starts + [neigh.start + 18, neigh.start + 19]).sorted())
    }

    /// Lying lengths in the second message: the first is counted, then -1 EBADMSG.
    func testBrokenFramingAfterAGoodMessage() throws {
        let first = try load(eventFixtures[0])   // RTM_DELADDR AF_INET
        let counted = Tally(messages: 1, addr4: 1, malformed: 1)
        for badLen: UInt32 in [0, 1, 15, 17 + 1000, UInt32.max] {
            let second = patched32(nlmsg(K.RTM_NEWROUTE, [K.AF_INET] + Array(repeating: 0, count: 11)), at: 0, badLen)
            XCTAssertEqual(classify(first + second), Classified(ret: -1, err: EBADMSG, tally: counted),
                           "nlmsg_len \(badLen)")
        }
        // Fewer than 16 bytes after the last message.
        XCTAssertEqual(classify(first + [0, 0, 0, 0]), Classified(ret: -1, err: EBADMSG, tally: counted))
    }

    /// A message too short for its family header is malformed, not counted as its kind.
    func testMessagesShorterThanTheirFamilyHeaderAreMalformed() throws {
        // nlmsg_len exactly 16: no family byte at all.
        for type in [K.RTM_NEWROUTE, K.RTM_DELROUTE, K.RTM_NEWADDR, K.RTM_DELADDR, K.RTM_NEWRULE, K.RTM_DELRULE] {
            XCTAssertEqual(classify(nlmsg(type, [])),
                           Classified(ret: 1, err: 0, tally: Tally(messages: 1, malformed: 1)), "type \(type)")
        }
        // A family byte is not enough: the whole ifaddrmsg (8), rtmsg (12) or
        // fib_rule_hdr (12) must be there; one byte short is malformed, the
        // full header counts.
        for (type, size) in [(K.RTM_NEWADDR, 8), (K.RTM_NEWROUTE, 12), (K.RTM_DELRULE, 12)] {
            let header = [K.AF_INET] + [UInt8](repeating: 0, count: size - 1)
            XCTAssertEqual(classify(nlmsg(type, Array(header.prefix(1)))).tally.malformed, 1, "type \(type), 1 byte")
            XCTAssertEqual(classify(nlmsg(type, Array(header.dropLast()))).tally.malformed, 1, "type \(type), \(size - 1) bytes")
            let whole = classify(nlmsg(type, header)).tally
            XCTAssertEqual(whole.malformed, 0, "type \(type), \(size) bytes")
            XCTAssertEqual(whole.messages, 1)
        }
        // RTM_NEWLINK / RTM_DELLINK need the whole 16-byte ifinfomsg.
        let shortIfi = Array(ifinfoBody(index: 42).prefix(K.ifinfomsg - 1))
        XCTAssertEqual(classify(nlmsg(K.RTM_NEWLINK, shortIfi)),
                       Classified(ret: 1, err: 0, tally: Tally(messages: 1, malformed: 1)))
        XCTAssertEqual(classify(nlmsg(K.RTM_NEWLINK, [])),
                       Classified(ret: 1, err: 0, tally: Tally(messages: 1, malformed: 1)))
        // A short DELLINK is not recorded as a deletion.
        XCTAssertEqual(classify(nlmsg(K.RTM_DELLINK, shortIfi)),
                       Classified(ret: 1, err: 0, tally: Tally(messages: 1, malformed: 1)))
        // One byte more and both are links (the boundary).
        XCTAssertEqual(classify(nlmsg(K.RTM_NEWLINK, ifinfoBody(index: 42))),
                       Classified(ret: 1, err: 0, tally: Tally(messages: 1, link: 1)))
        XCTAssertEqual(classify(nlmsg(K.RTM_DELLINK, ifinfoBody(index: 42))),
                       Classified(ret: 1, err: 0, tally: Tally(messages: 1, link: 1, deletedCount: 1, deleted: [42])))
        // A captured NEWLINK cut to 31 bytes, with nlmsg_len patched to match.
        let f = try XCTUnwrap(eventFixtures.first { $0.name == "event_newlink_down" })
        let cut = patched32(Array(try load(f).prefix(K.nlmsghdr + K.ifinfomsg - 1)), at: 0, 31)
        XCTAssertEqual(classify(cut), Classified(ret: 1, err: 0, tally: Tally(messages: 1, malformed: 1)))
    }

    /// A `throw` route added is counted in `throw_added` besides its family
    /// (the monitor's evaluator forgets that a family holds none); a throw
    /// route deleted, a route of another type, or an rtmsg one byte short is not.
    func testThrowRoutesAddedAreCounted() throws {
        func rtmsg(family: UInt8, type: UInt8) -> [UInt8] {
            // family, dst_len, src_len, tos, table, protocol, scope, type; flags.
            [family, 24, 0, 0, 254, 3, 0, type] + le32(0)
        }
        let throwType = UInt8(RTN_THROW), unicastType = UInt8(RTN_UNICAST)
        var ev = creach_events()
        _ = classify(nlmsg(K.RTM_NEWROUTE, rtmsg(family: K.AF_INET, type: throwType)), into: &ev)
        XCTAssertEqual(ev.throw_added, 1)
        XCTAssertEqual(ev.route4, 1)
        _ = classify(nlmsg(K.RTM_NEWROUTE, rtmsg(family: K.AF_INET6, type: throwType))
                     + nlmsg(K.RTM_DELROUTE, rtmsg(family: K.AF_INET6, type: throwType))
                     + nlmsg(K.RTM_NEWROUTE, rtmsg(family: K.AF_INET6, type: unicastType)), into: &ev)
        XCTAssertEqual(ev.throw_added, 2)
        XCTAssertEqual(ev.route6, 3)
        _ = classify(nlmsg(K.RTM_NEWROUTE, Array(rtmsg(family: K.AF_INET, type: throwType).dropLast())), into: &ev)
        XCTAssertEqual(ev.throw_added, 2)
        XCTAssertEqual(ev.malformed, 1)
    }

    /// Types the monitor does not track, and families it does not know, go to `other`.
    func testUnknownTypesAndFamiliesAreOther() throws {
        // RTM_NEWNEIGH (28) with an ndmsg of family AF_INET: a neighbour, not an address.
        let ndmsg: [UInt8] = [K.AF_INET, 0, 0, 0] + le32(3) + le16(0x02) + [0, 0]
        XCTAssertEqual(classify(nlmsg(K.RTM_NEWNEIGH, ndmsg)),
                       Classified(ret: 1, err: 0, tally: Tally(messages: 1, other: 1)))
        // NLMSG_DONE is not a notification either.
        XCTAssertEqual(classify(nlmsg(K.NLMSG_DONE, le32(0))),
                       Classified(ret: 1, err: 0, tally: Tally(messages: 1, other: 1)))
        // A route of family RTNL_FAMILY_IPMR (128): the captured IPv6 route with its family byte patched.
        let f = try XCTUnwrap(eventFixtures.first { $0.name == "event_newroute_v6" })
        var ipmr = try load(f)
        ipmr[K.nlmsghdr] = K.RTNL_FAMILY_IPMR
        XCTAssertEqual(classify(ipmr), Classified(ret: 1, err: 0, tally: Tally(messages: 1, other: 1)))
        // And a synthetic one: rtmsg of family 128, RTM_DELROUTE.
        XCTAssertEqual(classify(nlmsg(K.RTM_DELROUTE, [K.RTNL_FAMILY_IPMR] + Array(repeating: 0, count: 11))),
                       Classified(ret: 1, err: 0, tally: Tally(messages: 1, other: 1)))
    }

    /// More than 8 RTM_DELLINK: the count keeps going, the first 8 indexes stay in order.
    func testMoreDeletionsThanSlots() throws {
        let f = try XCTUnwrap(eventFixtures.first { $0.name == "event_dellink" })
        let captured = try load(f)
        let indexes: [Int32] = Array(101...111)   // 11 deletions
        let msgs = indexes.map { patched32(captured, at: K.ifiIndexOffset, UInt32(bitPattern: $0)) }
        let want = Tally(messages: 11, link: 11, deletedCount: 11, deleted: Array(indexes.prefix(8)))

        // In one buffer.
        XCTAssertEqual(classify(msgs.flatMap { $0 }), Classified(ret: 11, err: 0, tally: want))

        // Split over two datagrams (6, then 5): the second call fills the last 2 slots only.
        var ev = creach_events()
        XCTAssertEqual(classify(msgs.prefix(6).flatMap { $0 }, into: &ev).ret, 6)
        XCTAssertEqual(Tally(ev).kept, Array(indexes.prefix(6)))
        XCTAssertEqual(classify(msgs.suffix(5).flatMap { $0 }, into: &ev), Classified(ret: 5, err: 0, tally: want))

        // A ninth deletion on its own changes no slot.
        ev = creach_events()
        XCTAssertEqual(classify(msgs.prefix(8).flatMap { $0 }, into: &ev).ret, 8)
        XCTAssertEqual(classify(msgs[8], into: &ev),
                       Classified(ret: 1, err: 0, tally: Tally(messages: 9, link: 9, deletedCount: 9,
                                                               deleted: Array(indexes.prefix(8)))))
    }

    /// An empty buffer reads nothing and changes nothing; a NULL struct is EINVAL.
    func testEmptyBufferAndNullStruct() throws {
        // Length 0 at the guard page itself: any read would crash.
        XCTAssertEqual(classify([]), Classified(ret: 0, err: 0, tally: Tally()))

        // NULL buffer of length 0.
        var ev = creach_events()
        errno = 0
        XCTAssertEqual(creach_events_classify(nil, 0, &ev), 0)
        XCTAssertEqual(Tally(ev), Tally())

        // Length 0 leaves what is already there untouched.
        XCTAssertEqual(classify(try load(eventFixtures[0]), into: &ev).ret, 1)
        XCTAssertEqual(classify([], into: &ev), Classified(ret: 0, err: 0, tally: Tally(messages: 1, addr4: 1)))

        // NULL ev, with and without a buffer.
        let bytes = try load(eventFixtures[0])
        let r: (Int32, Int32) = withGuardedBytes(bytes) { p, n in
            errno = 0
            let r = creach_events_classify(p, n, nil)
            return (r, errno)
        }
        XCTAssertEqual(r.0, -1)
        XCTAssertEqual(r.1, EINVAL)
        errno = 0
        XCTAssertEqual(creach_events_classify(nil, 0, nil), -1)
        XCTAssertEqual(errno, EINVAL)
    }
}
