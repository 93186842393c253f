// Unit tests of the monitor's EventFilter on captured notification bytes
// (Fixtures/event_*.bin, see Fixtures/README.md): a link or address
// notification counts as a change only when a field the flags depend on
// differs from the last one seen; statistics-only messages, a bridge's
// per-port messages and address lifetime refreshes are ignored.

import CReachability
import Foundation
import LinuxReachability
@testable import ReachabilityCore
@testable import ReachabilityKernel
import XCTest

final class EventFilterTests: XCTestCase {
    private typealias Verdict = EventFilter.Verdict

    private func apply(_ filter: inout EventFilter, _ bytes: [UInt8]) -> Verdict {
        var verdict = Verdict()
        withGuardedBytes(bytes) { filter.apply(datagram: $0, length: $1, to: &verdict) }
        return verdict
    }

    private func describe(_ v: Verdict) -> String { "link \(v.link) addr4 \(v.addr4) addr6 \(v.addr6) ignored \(v.ignored)" }

    /// Little-endian u32 at `offset`.
    private func setU32(_ bytes: inout [UInt8], at offset: Int, _ value: UInt32) {
        for i in 0..<4 { bytes[offset + i] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(i))) }
    }

    private func u32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        (0..<4).reduce(0) { $0 | UInt32(bytes[offset + $1]) << (8 * UInt32($1)) }
    }

    func testARepeatedLinkMessageIsIgnoredAndAChangedFlagIsNot() throws {
        let down = try loadFixture("event_newlink_down")      // va, ifindex 3, no IFF_UP
        var filter = EventFilter()
        let first = apply(&filter, down)
        XCTAssertEqual(first.link, 1, "the first message about a link is a change: \(describe(first))")
        let again = apply(&filter, down)
        XCTAssertEqual(again.link, 0, describe(again))
        XCTAssertEqual(again.ignored, 1, "the same state again (statistics, a wireless scan)")

        // IFF_PROMISC and IFF_ALLMULTI (a port joining a bridge) are not read.
        let flagsOffset = K.nlmsghdr + 8
        var promiscuous = down
        setU32(&promiscuous, at: flagsOffset, u32(down, at: flagsOffset) | 0x100 | 0x200)
        XCTAssertEqual(apply(&filter, promiscuous).ignored, 1)

        var up = down
        setU32(&up, at: flagsOffset, u32(down, at: flagsOffset) | 0x1)   // IFF_UP
        XCTAssertEqual(apply(&filter, up).link, 1, "IFF_UP changed")
        XCTAssertEqual(apply(&filter, up).ignored, 1)

        filter.forgetAll()
        XCTAssertEqual(apply(&filter, up).link, 1, "after lost events every message is a change again")
    }

    func testABridgesPerPortMessagesAreIgnoredEvenDeletions() throws {
        var bridgePort = try loadFixture("event_newlink_down")
        bridgePort[K.nlmsghdr] = UInt8(AF_BRIDGE)
        var filter = EventFilter()
        let verdict = apply(&filter, bridgePort)
        XCTAssertEqual(verdict.link, 0, describe(verdict))
        XCTAssertEqual(verdict.ignored, 1)
        XCTAssertEqual(filter.linkCount, 0, "nothing remembered about a port message")

        // The classifier agrees: a port leaving its bridge (AF_BRIDGE RTM_DELLINK) deletes no link.
        var leave = try loadFixture("event_dellink")
        leave[K.nlmsghdr] = UInt8(AF_BRIDGE)
        var events = creach_events()
        withGuardedBytes(leave) { _ = creach_events_classify($0, $1, &events) }
        XCTAssertEqual(events.link, 0)
        XCTAssertEqual(events.deleted_count, 0, "the port's kind must not be forgotten: it still exists")
        XCTAssertEqual(events.other, 1)
        XCTAssertEqual(apply(&filter, leave).ignored, 1)
    }

    func testAnAddressLifetimeRefreshIsIgnoredAndADeletionIsNot() throws {
        for (fixture, family) in [("event_deladdr_v6", 6), ("event_deladdr_v4", 4)] {
            let deleted = try loadFixture(fixture)
            var added = deleted
            added[4] = UInt8(RTM_NEWADDR)   // nlmsg_type, little-endian u16
            var filter = EventFilter()
            let first = apply(&filter, added)
            XCTAssertEqual(family == 6 ? first.addr6 : first.addr4, 1, "\(fixture): \(describe(first))")
            // A router advertisement refreshes the lifetimes: the same address, prefix and flags.
            let refresh = apply(&filter, added)
            XCTAssertEqual(refresh.ignored, 1, "\(fixture): \(describe(refresh))")
            XCTAssertEqual(refresh.addr4 + refresh.addr6, 0)
            XCTAssertEqual(filter.addressCount, 1)

            // IFA_F_DEPRECATED (the preferred lifetime ran out) is a change.
            var deprecated = added
            let flagsOffset = K.nlmsghdr + 2   // ifa_flags
            deprecated[flagsOffset] |= 0x20
            if let at = attributeOffset(deprecated, type: 8) {   // IFA_FLAGS overrides ifa_flags when present
                setU32(&deprecated, at: at, u32(deprecated, at: at) | 0x20)
            }
            let aged = apply(&filter, deprecated)
            XCTAssertEqual(aged.addr4 + aged.addr6, 1, "\(fixture): deprecated: \(describe(aged))")

            let gone = apply(&filter, deleted)
            XCTAssertEqual(gone.addr4 + gone.addr6, 1, "\(fixture): \(describe(gone))")
            XCTAssertEqual(filter.addressCount, 0)
        }
    }

    func testBrokenBytesCountAsAChange() throws {
        var broken = try loadFixture("event_newlink_down")
        // IFLA_IFNAME's length points past the message: the parser refuses it.
        let firstAttribute = K.nlmsghdr + K.ifinfomsg
        broken[firstAttribute] = 0xF0
        broken[firstAttribute + 1] = 0x0F
        var filter = EventFilter()
        XCTAssertEqual(apply(&filter, broken).link, 1)
        XCTAssertEqual(apply(&filter, broken).link, 1, "never remembered, never ignored")
    }

    /// The payload offset of the first attribute of `type` after ifaddrmsg.
    private func attributeOffset(_ bytes: [UInt8], type: UInt16) -> Int? {
        var at = K.nlmsghdr + 8
        while at + 4 <= bytes.count {
            let length = Int(bytes[at]) | Int(bytes[at + 1]) << 8
            let kind = (UInt16(bytes[at + 2]) | UInt16(bytes[at + 3]) << 8) & 0x3FFF
            guard length >= 4 else { return nil }
            if kind == type { return at + 4 }
            at += (length + 3) & ~3
        }
        return nil
    }
}
