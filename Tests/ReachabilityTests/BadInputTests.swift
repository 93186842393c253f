// docs/bad-inputs.md, the pure half: every bad input that needs no root and no
// namespace (netlink bytes, sysfs trees built in a temporary directory, API
// arguments) with the typed error or counted drop it must give. Each test
// asserts the exact error case, errno or counter, so it fails if the answer
// changes. BadInputTableTests keeps the table and the tests in step.
//
// The kernel half (real sockets, namespaces, the CLI) is
// Tests/IntegrationTests/BadInputIntegrationTests.swift.

import CReachability
import Foundation
import LinuxReachability
@testable import ReachabilityCore
@testable import ReachabilityKernel
import XCTest

#if canImport(Glibc)
import Glibc
#endif

// MARK: - Bytes

/// Little-endian patching of captured netlink bytes (host order is little-endian here).
private enum Bytes {
    static func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xff), UInt8(v >> 8)] }
    static func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8((v >> (8 * UInt32($0))) & 0xff) } }
    static func read32(_ b: [UInt8], at: Int) -> UInt32 {
        (0..<4).reduce(UInt32(0)) { $0 | UInt32(b[at + $1]) << (8 * UInt32($1)) }
    }

    static func patch16(_ b: [UInt8], at: Int, _ v: UInt16) -> [UInt8] {
        var c = b
        c.replaceSubrange(at..<at + 2, with: le16(v))
        return c
    }

    static func patch32(_ b: [UInt8], at: Int, _ v: UInt32) -> [UInt8] {
        var c = b
        c.replaceSubrange(at..<at + 4, with: le32(v))
        return c
    }

    /// One rtattr, padded to 4 bytes.
    static func attr(_ type: UInt16, _ payload: [UInt8]) -> [UInt8] {
        let raw = le16(UInt16(4 + payload.count)) + le16(type) + payload
        return raw + [UInt8](repeating: 0, count: (4 - raw.count % 4) % 4)
    }

    /// nlmsg_len set to the byte count.
    static func sized(_ b: [UInt8]) -> [UInt8] { patch32(b, at: 0, UInt32(b.count)) }

    /// A message of `type` with `body` after the 16-byte header.
    static func message(_ type: UInt16, _ body: [UInt8]) -> [UInt8] {
        sized(le32(0) + le16(type) + le16(0) + le32(0) + le32(0) + body)
    }
}

/// What a C call returned, with errno when it failed.
private struct CResult: Equatable, CustomStringConvertible {
    var rc: Int32
    var errno: Int32 = 0
    var description: String { errno == 0 ? "rc \(rc)" : "rc \(rc) errno \(errno) (\(String(cString: strerror(errno))))" }
}

private func call(_ body: () -> Int32) -> CResult {
    errno = 0
    let rc = body()
    return CResult(rc: rc, errno: rc < 0 ? errno : 0)
}

/// The C string in a fixed char array.
private func cString<T>(_ tuple: T) -> String {
    withUnsafeBytes(of: tuple) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
}

// Every parser gets its bytes at the end of a guarded page (withGuardedBytes),
// so a read past `len` crashes instead of passing.

private func parseRoute(_ bytes: [UInt8]) -> (CResult, creach_route) {
    withGuardedBytes(bytes) { p, n in
        var out = creach_route()
        let r = call { creach_parse_route(p, n, &out) }
        return (r, out)
    }
}

private func parseLink(_ bytes: [UInt8]) -> (CResult, creach_link) {
    withGuardedBytes(bytes) { p, n in
        var out = creach_link()
        let r = call { creach_parse_link(p, n, &out) }
        return (r, out)
    }
}

private func parseAddr(_ bytes: [UInt8]) -> (CResult, creach_addr) {
    withGuardedBytes(bytes) { p, n in
        var out = creach_addr()
        let r = call { creach_parse_addr(p, n, &out) }
        return (r, out)
    }
}

private func parseError(_ bytes: [UInt8]) -> (CResult, Int32) {
    withGuardedBytes(bytes) { p, n in
        var error: Int32 = -12345
        let r = call { creach_parse_error(p, n, &error) }
        return (r, error)
    }
}

/// Walks a datagram: the messages returned before the end, and how it ended.
private func walk(_ bytes: [UInt8]) -> (messages: Int, end: CResult) {
    withGuardedBytes(bytes) { p, n in
        var it = creach_msg_iter()
        creach_msg_iter_init(&it, p, n)
        var count = 0
        for _ in 0..<64 {
            var msg: UnsafeRawPointer?
            var len = 0
            let r = call { creach_msg_next(&it, &msg, &len) }
            guard r.rc == 1 else { return (count, r) }
            count += 1
        }
        return (count, CResult(rc: 99))   // never ended: a loop
    }
}

private func classify(_ bytes: [UInt8]) -> (CResult, creach_events) {
    withGuardedBytes(bytes) { p, n in
        var ev = creach_events()
        let r = call { creach_events_classify(p, n, &ev) }
        return (r, ev)
    }
}

private let EBADMSG_: Int32 = EBADMSG
private let EPROTO_: Int32 = EPROTO

// MARK: - A sysfs tree in a temporary directory

/// /sys/class/net as creach_sysfs_read sees it, built from plain files.
private final class FakeSysfs {
    let root: URL
    let fd: Int32

    init() throws {
        root = FileManager.default.temporaryDirectory
            .appendingPathComponent("reach-bad-sysfs-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        fd = open(root.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw CocoaError(.fileReadUnknown) }
    }

    /// An interface directory with the given files (name → contents).
    func add(_ name: String, files: [String: String] = [:]) throws {
        let dir = root.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        for (file, text) in files { try text.write(to: dir.appendingPathComponent(file), atomically: false, encoding: .utf8) }
    }

    func path(_ relative: String) -> URL { root.appendingPathComponent(relative) }

    func read(_ name: String?) -> (CResult, creach_sysfs) {
        var out = creach_sysfs()
        let r = name.map { name in call { creach_sysfs_read(fd, name, &out) } } ?? call { creach_sysfs_read(fd, nil, &out) }
        return (r, out)
    }

    func remove() {
        close(fd)
        try? FileManager.default.removeItem(at: root)
    }
}

// MARK: - Tests

final class BadInputTests: XCTestCase {
    private func expect<T>(_ expected: ReachabilityError, file: StaticString = #filePath, line: UInt = #line,
                           _ body: () throws -> T) {
        XCTAssertThrowsError(try body(), file: file, line: line) { error in
            XCTAssertEqual(error as? ReachabilityError, expected, file: file, line: line)
        }
    }

    private func sysfs() throws -> FakeSysfs {
        let tree = try FakeSysfs()
        addTeardownBlock { tree.remove() }
        return tree
    }

    // MARK: Netlink framing

    func testNetlinkHeaderCutShortIsEBADMSG() throws {
        let route = try loadFixture("route_v4_gateway")
        XCTAssertEqual(parseRoute(route).0, CResult(rc: 0), "control: the whole message parses")
        let cut = Array(route.prefix(15))   // one byte short of a struct nlmsghdr
        XCTAssertEqual(walk(cut).messages, 0)
        XCTAssertEqual(walk(cut).end, CResult(rc: -1, errno: EBADMSG_))
        XCTAssertEqual(parseRoute(cut).0, CResult(rc: -1, errno: EBADMSG_))
        XCTAssertEqual(parseError(cut).0, CResult(rc: -1, errno: EBADMSG_))
    }

    func testNetlinkLengthBelowTheHeaderIsEBADMSG() throws {
        let route = try loadFixture("route_v4_gateway")
        for length: UInt32 in [0, 4, 15] {
            let bad = Bytes.patch32(route, at: 0, length)
            // Ending with an error, not looping on a message that does not advance.
            XCTAssertEqual(walk(bad).messages, 0, "nlmsg_len \(length)")
            XCTAssertEqual(walk(bad).end, CResult(rc: -1, errno: EBADMSG_), "nlmsg_len \(length)")
            XCTAssertEqual(parseRoute(bad).0, CResult(rc: -1, errno: EBADMSG_), "nlmsg_len \(length)")
        }
    }

    func testNetlinkLengthPastTheDatagramIsEBADMSG() throws {
        let route = try loadFixture("route_v4_gateway")
        let lying = Bytes.patch32(route, at: 0, UInt32(route.count + 1))
        XCTAssertEqual(walk(lying).end, CResult(rc: -1, errno: EBADMSG_))
        XCTAssertEqual(parseRoute(lying).0, CResult(rc: -1, errno: EBADMSG_))
        // The same message handed over with one byte missing.
        XCTAssertEqual(parseRoute(Array(route.dropLast())).0, CResult(rc: -1, errno: EBADMSG_))
    }

    func testNetlinkOversizedLengthIsEBADMSG() throws {
        let route = try loadFixture("route_v4_gateway")
        let huge = Bytes.patch32(route, at: 0, UInt32.max)
        XCTAssertEqual(walk(huge).end, CResult(rc: -1, errno: EBADMSG_))
        XCTAssertEqual(parseRoute(huge).0, CResult(rc: -1, errno: EBADMSG_))
        let (r, ev) = classify(huge)
        XCTAssertEqual(r, CResult(rc: -1, errno: EBADMSG_))
        XCTAssertEqual(ev.messages, 0)
        XCTAssertEqual(ev.malformed, 1)
    }

    // MARK: Attributes

    func testAttributeLengthPastTheMessageIsEBADMSG() throws {
        let route = try loadFixture("route_v4_gateway")
        // The last attribute (RTA_CACHEINFO at 76, 36 bytes) claims 40.
        XCTAssertEqual(Bytes.read32(route, at: 76) & 0xffff, 36)
        let (r, out) = parseRoute(Bytes.patch16(route, at: 76, 40))
        XCTAssertEqual(r, CResult(rc: -1, errno: EBADMSG_))
        XCTAssertEqual(out.oif, 0, "nothing of a rejected message is reported")
        XCTAssertEqual(out.family, 0)
    }

    func testAttributeLengthBelowItsHeaderIsEBADMSG() throws {
        let route = try loadFixture("route_v4_gateway")
        for length: UInt16 in [0, 2, 3] {   // RTA_TABLE at 28
            XCTAssertEqual(parseRoute(Bytes.patch16(route, at: 28, length)).0, CResult(rc: -1, errno: EBADMSG_),
                           "rta_len \(length)")
        }
    }

    func testTwoByteRouteOIFIsEBADMSG() throws {
        let route = try loadFixture("route_v4_gateway")
        XCTAssertEqual(parseRoute(route).1.oif, 3, "control: RTA_OIF of va")
        // RTA_OIF at 44: rta_len 8 → 6, a 2-byte payload; the next attribute still starts at 52.
        XCTAssertEqual(Bytes.read32(route, at: 44), 8 | 4 << 16)
        let (r, out) = parseRoute(Bytes.patch16(route, at: 44, 6))
        XCTAssertEqual(r, CResult(rc: -1, errno: EBADMSG_))
        XCTAssertEqual(out.oif, 0, "not a half-read interface index")
    }

    func testFourByteLinkOperstateIsEBADMSG() throws {
        let link = try loadFixture("link_veth")
        XCTAssertEqual(parseLink(link).1.operstate, 6, "control: IF_OPER_UP")
        // IFLA_OPERSTATE at 48 is a u8 (rta_len 5); 8 makes it four bytes.
        XCTAssertEqual(Bytes.read32(link, at: 48), 5 | 16 << 16)
        let (r, out) = parseLink(Bytes.patch16(link, at: 48, 8))
        XCTAssertEqual(r, CResult(rc: -1, errno: EBADMSG_))
        XCTAssertEqual(out.operstate, 0)
        XCTAssertEqual(cString(out.name), "")
    }

    func testLinkNameWithoutNULIsEBADMSG() throws {
        let link = try loadFixture("link_veth")
        XCTAssertEqual(cString(parseLink(link).1.name), "va", "control")
        XCTAssertEqual(Array(link[36..<39]), Array("va\0".utf8))
        var unterminated = link
        unterminated[38] = UInt8(ascii: "x")   // "vax" with no NUL inside the payload
        let (r, out) = parseLink(unterminated)
        XCTAssertEqual(r, CResult(rc: -1, errno: EBADMSG_))
        XCTAssertEqual(cString(out.name), "")
    }

    func testLinkNameOverIFNAMSIZIsEBADMSG() throws {
        let link = try loadFixture("link_veth")
        func renamed(_ name: String) -> [UInt8] {
            // IFLA_IFNAME occupies 32..<40; the rest of the message follows unchanged.
            Bytes.sized(Array(link[0..<32]) + Bytes.attr(K.IFLA_IFNAME, Array(name.utf8) + [0]) + Array(link[40...]))
        }
        let fifteen = "abcdefghijklmno"
        XCTAssertEqual(cString(parseLink(renamed(fifteen)).1.name), fifteen, "control: 15 bytes fit")
        let (r, out) = parseLink(renamed(fifteen + "p"))
        XCTAssertEqual(r, CResult(rc: -1, errno: EBADMSG_), "never cut to 15 bytes: that names another interface")
        XCTAssertEqual(cString(out.name), "")
    }

    func testAddressAttributeOfTheWrongLengthIsEBADMSG() throws {
        let route = try loadFixture("route_v4_gateway")
        // rtm_family AF_INET6 with 4-byte RTA_DST, RTA_PREFSRC, RTA_GATEWAY.
        XCTAssertEqual(parseRoute(Bytes.patch16(route, at: 16, UInt16(K.AF_INET6) | UInt16(route[17]) << 8)).0,
                       CResult(rc: -1, errno: EBADMSG_))
        let dump = try loadFixture("addr_dump_v4")
        let first = Array(dump[0..<Int(Bytes.read32(dump, at: 0))])
        XCTAssertEqual(parseAddr(first).0, CResult(rc: 0), "control")
        var v6 = first
        v6[16] = K.AF_INET6   // ifa_family, with 4-byte IFA_ADDRESS / IFA_LOCAL
        let (r, out) = parseAddr(v6)
        XCTAssertEqual(r, CResult(rc: -1, errno: EBADMSG_))
        XCTAssertEqual(out.family, 0)
    }

    // MARK: Message types

    func testNLMSGErrorShorterThanNlmsgerrIsEBADMSG() throws {
        let refusal = try loadFixture("route_v4_blackhole_einval")
        XCTAssertEqual(parseError(refusal).0, CResult(rc: 0), "control")
        XCTAssertEqual(parseError(refusal).1, EINVAL, "control")
        // nlmsgerr is the error and the echoed 16-byte header: 12 bytes are not enough.
        let (r, error) = parseError(Bytes.sized(Array(refusal.prefix(16 + 12))))
        XCTAssertEqual(r, CResult(rc: -1, errno: EBADMSG_))
        XCTAssertEqual(error, -12345, "no errno reported from a short message")
        // An error of INT32_MIN has no positive errno.
        XCTAssertEqual(parseError(Bytes.patch32(refusal, at: 16, UInt32(bitPattern: Int32.min))).0,
                       CResult(rc: -1, errno: EBADMSG_))
    }

    func testWrongMessageTypeIsEPROTO() throws {
        let route = try loadFixture("route_v4_gateway")
        let link = try loadFixture("link_veth")
        let dump = try loadFixture("addr_dump_v4")
        let addr = Array(dump[0..<Int(Bytes.read32(dump, at: 0))])
        XCTAssertEqual(parseRoute(link).0, CResult(rc: -1, errno: EPROTO_))
        XCTAssertEqual(parseRoute(addr).0, CResult(rc: -1, errno: EPROTO_))
        XCTAssertEqual(parseLink(route).0, CResult(rc: -1, errno: EPROTO_))
        XCTAssertEqual(parseAddr(link).0, CResult(rc: -1, errno: EPROTO_))
        XCTAssertEqual(parseError(route).0, CResult(rc: -1, errno: EPROTO_))
        // Even when shorter than the family header the parser expects.
        XCTAssertEqual(parseRoute(Bytes.message(K.RTM_NEWNEIGH, [])).0, CResult(rc: -1, errno: EPROTO_))
    }

    func testRouteOfAnotherFamilyIsEPROTO() throws {
        let route = try loadFixture("route_v4_gateway")
        for family in [K.AF_UNSPEC, K.RTNL_FAMILY_IPMR, 7] {
            var other = route
            other[16] = family
            XCTAssertEqual(parseRoute(other).0, CResult(rc: -1, errno: EPROTO_), "rtm_family \(family)")
        }
    }

    func testRouteViaOfUnknownFamilyIsEPROTO() throws {
        let route = try loadFixture("route_v4_gateway")
        func via(_ family: UInt16, _ address: [UInt8]) -> [UInt8] {
            // RTA_GATEWAY at 60..<68 replaced by RTA_VIA (struct rtvia: family, address).
            Bytes.sized(Array(route[0..<60]) + Bytes.attr(K.RTA_VIA, Bytes.le16(family) + address) + Array(route[68...]))
        }
        let control = parseRoute(via(UInt16(K.AF_INET), [10, 1, 0, 254]))
        XCTAssertEqual(control.0, CResult(rc: 0))
        XCTAssertEqual(control.1.has_gateway, 1)
        let (r, out) = parseRoute(via(99, [10, 1, 0, 254]))
        XCTAssertEqual(r, CResult(rc: -1, errno: EPROTO_))
        XCTAssertEqual(out.has_gateway, 0)
    }

    // MARK: Notification datagrams

    func testEventDatagramWithOneMalformedMessageKeepsTheGoodOnes() throws {
        let route6 = try loadFixture("event_newroute_v6")
        let addr4 = try loadFixture("event_deladdr_v4")
        let short = Bytes.message(K.RTM_NEWADDR, [K.AF_INET, 24, 0, 0])   // half an ifaddrmsg
        let (r, ev) = classify(route6 + short + addr4)
        XCTAssertEqual(r, CResult(rc: 3))
        XCTAssertEqual(ev.messages, 3)
        XCTAssertEqual(ev.route6, 1)
        XCTAssertEqual(ev.addr4, 1)
        XCTAssertEqual(ev.malformed, 1)
        XCTAssertEqual(ev.other, 0)
    }

    func testEventDatagramBrokenMidwayCountsWhatCameBefore() throws {
        let addr4 = try loadFixture("event_deladdr_v4")
        let broken = Bytes.patch32(Bytes.message(K.RTM_NEWROUTE, [K.AF_INET] + [UInt8](repeating: 0, count: 11)), at: 0, 4096)
        let (r, ev) = classify(addr4 + broken)
        XCTAssertEqual(r, CResult(rc: -1, errno: EBADMSG_))
        XCTAssertEqual(ev.messages, 1)
        XCTAssertEqual(ev.addr4, 1)
        XCTAssertEqual(ev.route4, 0)
        XCTAssertEqual(ev.malformed, 1)
    }

    func testShortDelLinkIsMalformedNotADeletion() {
        let (r, ev) = classify(Bytes.message(K.RTM_DELLINK, [0, 0, 1, 0, 42, 0, 0, 0]))   // 8 of 16 ifinfomsg bytes
        XCTAssertEqual(r, CResult(rc: 1))
        XCTAssertEqual(ev.malformed, 1)
        XCTAssertEqual(ev.link, 0)
        XCTAssertEqual(ev.deleted_count, 0, "no ifindex read from bytes that are not there")
    }

    // MARK: sysfs

    func testSysfsReadRejectsInvalidNames() throws {
        let tree = try sysfs()
        try tree.add("eth0", files: ["ifindex": "2\n"])
        XCTAssertEqual(tree.read("eth0").1.ifindex, 2, "control")
        for name in ["", ".", "..", "../eth0", "eth0/..", "a/b", "abcdefghijklmnop"] {
            let (r, out) = tree.read(name)
            XCTAssertEqual(r, CResult(rc: -1, errno: EINVAL), name.debugDescription)
            XCTAssertEqual(out.ifindex, -1, name.debugDescription)
        }
        XCTAssertEqual(tree.read(nil).0, CResult(rc: -1, errno: EINVAL))
    }

    func testSysfsEntryThatVanishedIsENOENT() throws {
        let tree = try sysfs()
        try tree.add("eth0", files: ["ifindex": "2\n", "uevent": "INTERFACE=eth0\nIFINDEX=2\n"])
        XCTAssertEqual(tree.read("eth0").0, CResult(rc: 0), "control")
        // Listed a moment ago, gone when read.
        try FileManager.default.removeItem(at: tree.path("eth0"))
        let (r, out) = tree.read("eth0")
        XCTAssertEqual(r, CResult(rc: -1, errno: ENOENT))
        XCTAssertEqual(out.ifindex, -1)
        // A plain file under /sys/class/net (bonding_masters) is no interface either.
        try "bond0\n".write(to: tree.path("bonding_masters"), atomically: false, encoding: .utf8)
        XCTAssertEqual(tree.read("bonding_masters").0, CResult(rc: -1, errno: ENOENT))
    }

    func testSysfsUeventValueTooLongLeavesDevtypeEmpty() throws {
        let tree = try sysfs()
        let long = String(repeating: "w", count: 40)   // CREACH_SYSFS_VALUESIZ is 32
        try tree.add("wwan0", files: ["ifindex": "7\n", "uevent": "INTERFACE=wwan0\nDEVTYPE=\(long)\nIFINDEX=7\n"])
        try tree.add("wwan1", files: ["ifindex": "8\n", "uevent": "INTERFACE=wwan1\nDEVTYPE=wwan\n"])
        XCTAssertEqual(cString(tree.read("wwan1").1.devtype), "wwan", "control")
        let (r, out) = tree.read("wwan0")
        XCTAssertEqual(r, CResult(rc: 0))
        XCTAssertEqual(cString(out.devtype), "", "never a truncated DEVTYPE")
        XCTAssertEqual(out.ifindex, 7, "the other facts are still read")
        // The parser underneath says why.
        var value = [CChar](repeating: 0x55, count: 32)
        let text = "DEVTYPE=\(long)\n"
        let direct = call { creach_uevent_value(text, text.utf8.count, "DEVTYPE", &value, value.count) }
        XCTAssertEqual(direct, CResult(rc: -1, errno: ENAMETOOLONG))
        XCTAssertEqual(value[0], 0)
    }

    func testSysfsJunkIfindexIsMinusOne() throws {
        let tree = try sysfs()
        let junk = ["", "\n", "-3\n", "+3\n", "12abc\n", "3 \n", "2147483648\n", "99999999999999999999\n", "0x10\n"]
        for (i, text) in junk.enumerated() { try tree.add("if\(i)", files: ["ifindex": text]) }
        try tree.add("ok", files: ["ifindex": "2147483647\n"])
        XCTAssertEqual(tree.read("ok").1.ifindex, 2147483647, "control: INT32_MAX")
        for (i, text) in junk.enumerated() {
            let (r, out) = tree.read("if\(i)")
            XCTAssertEqual(r, CResult(rc: 0), text.debugDescription)
            XCTAssertEqual(out.ifindex, -1, "ifindex \(text.debugDescription) is no index")
        }
    }

    func testSysfsUnreadableFilesLeaveTheirFieldsEmpty() throws {
        let tree = try sysfs()
        try tree.add("eth0")
        // Directories where files should be: open works, read fails (EISDIR).
        try FileManager.default.createDirectory(at: tree.path("eth0/ifindex"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: tree.path("eth0/uevent"), withIntermediateDirectories: true)
        let (r, out) = tree.read("eth0")
        XCTAssertEqual(r, CResult(rc: 0))
        XCTAssertEqual(out.ifindex, -1)
        XCTAssertEqual(cString(out.devtype), "")
        XCTAssertEqual(out.wireless, 0)
    }

    func testSysfsDriverNameTooLongIsNotTruncated() throws {
        let tree = try sysfs()
        try tree.add("eth0", files: ["ifindex": "2\n"])
        try tree.add("eth1", files: ["ifindex": "3\n"])
        try FileManager.default.createDirectory(at: tree.path("eth0/device"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: tree.path("eth1/device"), withIntermediateDirectories: true)
        let long = String(repeating: "d", count: 40)
        try FileManager.default.createSymbolicLink(atPath: tree.path("eth0/device/driver").path,
                                                   withDestinationPath: "../../../bus/pci/drivers/\(long)")
        try FileManager.default.createSymbolicLink(atPath: tree.path("eth1/device/driver").path,
                                                   withDestinationPath: "../../../bus/pci/drivers/e1000e")
        XCTAssertEqual(cString(tree.read("eth1").1.driver), "e1000e", "control")
        let (r, out) = tree.read("eth0")
        XCTAssertEqual(r, CResult(rc: 0))
        XCTAssertEqual(out.has_device, 1)
        XCTAssertEqual(cString(out.driver), "", "a cut driver name could match another driver")
    }

    // MARK: API arguments: namespaces

    func testNamespaceEmptyNameIsInvalid() {
        expect(.invalidNamespace("", reason: "empty name")) { try NetworkNamespace(parsing: "") }
    }

    func testNamespaceNameWithSlashIsInvalid() {
        // Built from the case, a "name" with a '/' would be opened as a path.
        expect(.invalidNamespace("../etc", reason: "a name cannot contain '/'")) {
            try ReachabilityEvaluator(namespace: .named("../etc"))
        }
        expect(.invalidNamespace("..", reason: "not a name")) { try Prober(namespace: .named("..")) }
    }

    func testNamespacePathWithNULIsInvalid() {
        // C would open the path up to the NUL: this process's own namespace.
        let path = "/proc/self/ns/net\u{0}/elsewhere"
        expect(.invalidNamespace(path, reason: "contains NUL")) { try NetworkNamespace(parsing: path) }
        expect(.invalidNamespace(path, reason: "contains NUL")) { try ReachabilityEvaluator(namespace: .path(path)) }
        expect(.invalidNamespace("blue\u{0}x", reason: "contains NUL")) { try NetworkNamespace(parsing: "blue\u{0}x") }
    }

    func testNamespacePathThatIsNotANamespaceIsInvalid() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("reach-bad-netns-\(getpid())")
        try "not a namespace\n".write(to: file, atomically: false, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        expect(.invalidNamespace(file.path, reason: "not a network namespace file")) {
            try ReachabilityEvaluator(namespace: .path(file.path))
        }
        expect(.invalidNamespace("/tmp", reason: "not a network namespace file")) { try Prober(namespace: .path("/tmp")) }
    }

    func testNamespaceOfAnotherTypeIsInvalid() {
        expect(.invalidNamespace("/proc/self/ns/mnt", reason: "a namespace of another type, not a network namespace")) {
            try ReachabilityEvaluator(namespace: .path("/proc/self/ns/mnt"))
        }
    }

    // MARK: API arguments: targets and lookups

    func testTargetWithAnOctetOver255IsInvalid() {
        expect(.invalidTarget("10.0.0.256", reason: "not a valid IPv4 address")) { try Target(parsing: "10.0.0.256") }
        expect(.invalidAddress("10.0.0.256")) { try IPAddress(parsing: "10.0.0.256") }
    }

    func testTargetWithAZoneIndexIsInvalid() {
        expect(.invalidTarget("fe80::1%eth0", reason: "not an IPv6 address")) { try Target(parsing: "fe80::1%eth0") }
    }

    func testHostNameWithNULIsInvalidNotCut() async throws {
        // getaddrinfo would have resolved "localhost".
        let name = "localhost\u{0}.invalid"
        let evaluator = try ReachabilityEvaluator()
        let answer = try await evaluator.evaluate(.host(name))
        XCTAssertEqual(answer.error, .invalidTarget(name, reason: "contains NUL"))
        XCTAssertEqual(answer.addresses, [])
        XCTAssertFalse(answer.isReachable)
        expect(.invalidTarget(name, reason: "not an address or host name")) { try Target(parsing: name) }
    }

    func testLookupUIDOfMinusOneIsInvalid() throws {
        let evaluator = try ReachabilityEvaluator()
        expect(.invalidUID(4_294_967_295)) {
            try evaluator.evaluate(IPAddress("127.0.0.1")!, options: LookupOptions(uid: UInt32.max))
        }
        XCTAssertNoThrow(try evaluator.evaluate(IPAddress("127.0.0.1")!, options: LookupOptions(uid: UInt32.max - 1)))
        // A monitor refuses it up front rather than failing every evaluation.
        expect(.invalidUID(4_294_967_295)) { try ReachabilityMonitor(targets: [.internet], options: LookupOptions(uid: UInt32.max)) }
    }

    func testLookupInterfaceNameWithSlashIsInvalid() throws {
        let evaluator = try ReachabilityEvaluator()
        let reason = "contains '/', ':', a control character or white space"
        expect(.invalidInterfaceName("eth/0", reason: reason)) {
            try evaluator.evaluate(IPAddress("127.0.0.1")!, options: LookupOptions(interface: "eth/0"))
        }
        expect(.invalidInterfaceName("abcdefghijklmnop", reason: "longer than 15 bytes")) {
            try evaluator.lookupRoute(IPAddress("127.0.0.1")!, options: LookupOptions(interface: "abcdefghijklmnop"))
        }
    }

    func testKindOverrideWithEmptyPatternIsInvalid() {
        expect(.invalidKindOverride("=wired", reason: "empty pattern")) { try InterfaceKindOverride(pattern: "", kind: .wired) }
        expect(.invalidKindOverride("eth*", reason: "expected NAME=KIND")) { try InterfaceKindOverride(parsing: "eth*") }
    }

    // MARK: API arguments: probes

    func testProbeMethodTCPPortOutOfRangeIsInvalid() {
        for text in ["tcp:0", "tcp:70000", "tcp:", "tcp:-1", "tcp:http"] {
            expect(.invalidProbe(text, reason: "port must be 1...65535")) { try ProbeMethod(parsing: text) }
        }
    }

    func testProbeMethodTCPPortZeroBuiltDirectlyIsInvalid() throws {
        // Parsing refuses tcp:0; the case itself must too, or a connect to
        // port 0 answers "refused", a silent wrong answer.
        let prober = try Prober()
        expect(.invalidProbe("tcp:0", reason: "port must be 1...65535")) {
            try prober.probe(IPAddress("127.0.0.1")!, method: .tcp(port: 0), options: ProbeOptions(timeout: .milliseconds(200)))
        }
        expect(.invalidProbe("http:/generate_204", reason: "port must be 1...65535")) {
            try prober.probe(IPAddress("127.0.0.1")!, method: .http(HTTPProbeURL(host: nil, port: 0)),
                             options: ProbeOptions(timeout: .milliseconds(200)))
        }
    }

    func testProbeNamesWithNULAreInvalid() throws {
        let prober = try Prober()
        let options = ProbeOptions(timeout: .milliseconds(200))
        expect(.invalidProbe("dns:example.org\u{0}x", reason: "contains NUL")) {
            try prober.probe(IPAddress("127.0.0.1")!, method: .dns(name: "example.org\u{0}x", type: .a), options: options)
        }
        expect(.invalidProbe("http:http://a\u{0}b/generate_204", reason: "contains NUL")) {
            try prober.probe(IPAddress("127.0.0.1")!, method: .http(HTTPProbeURL(host: "a\u{0}b")), options: options)
        }
    }

    func testHTTPProbeURLWithoutHostIsInvalid() {
        expect(.invalidProbe("http:http:///generate_204", reason: "missing or unsupported host")) {
            try HTTPProbeURL(parsing: "http:///generate_204")
        }
        expect(.invalidProbe("http:http://user@portal.test/", reason: "missing or unsupported host")) {
            try HTTPProbeURL(parsing: "http://user@portal.test/")
        }
    }

    func testHTTPProbeURLBadPortOrBracketIsInvalid() {
        for text in ["http://portal.test:0/", "http://portal.test:65536/", "http://[::1]:0/", "http://portal.test:/"] {
            expect(.invalidProbe("http:\(text)", reason: "bad port")) { try HTTPProbeURL(parsing: text) }
        }
        expect(.invalidProbe("http:http://[::1/", reason: "unclosed '['")) { try HTTPProbeURL(parsing: "http://[::1/") }
    }

    func testProbeMethodHTTPWithoutItsPrefixIsInvalid() {
        // "http://x" splits into "http" and "//x": a host, never the path "//x".
        expect(.invalidProbe("http://portal.test/", reason: "'//' starts a host, not a path: write http:http://HOST/PATH")) {
            try ProbeMethod(parsing: "http://portal.test/")
        }
        XCTAssertEqual(try ProbeMethod(parsing: "http:http://portal.test/"),
                       .http(HTTPProbeURL(host: "portal.test", port: 80, path: "/")), "control")
    }

    func testProbeTimeoutOutOfRangeIsInvalid() throws {
        let prober = try Prober()
        let reason = "must be more than 0 and at most 3600 s"
        for timeout: Duration in [.seconds(-1), .zero, .nanoseconds(-1), .seconds(3601)] {
            expect(.invalidConfiguration("probe timeout", reason: reason)) {
                try prober.probe(IPAddress("127.0.0.1")!, method: .tcp(port: 9), options: ProbeOptions(timeout: timeout))
            }
        }
        expect(.invalidConfiguration("probe payload size", reason: "must be 0...1472 bytes")) {
            try prober.probe(IPAddress("127.0.0.1")!, method: .icmp, options: ProbeOptions(payloadSize: 1473))
        }
    }

    // MARK: API arguments: the uplink tracker

    private func tracker(_ change: (inout UplinkTracker.Configuration) -> Void) -> UplinkTracker.Configuration {
        var configuration = UplinkTracker.Configuration(interface: "lo", hosts: [IPAddress("127.0.0.1")!],
                                                        interval: .seconds(1))
        change(&configuration)
        return configuration
    }

    func testTrackerNegativeTimeoutIsInvalid() {
        XCTAssertNoThrow(try tracker { _ in }.validate(), "control")
        expect(.invalidConfiguration("probe timeout", reason: "must be more than 0 and at most 3600 s")) {
            try tracker { $0.timeout = .seconds(-1) }.validate()
        }
        expect(.invalidConfiguration("interval", reason: "must be 0.01 s ... 1 day")) {
            try tracker { $0.interval = .zero }.validate()
        }
        expect(.invalidConfiguration("failure interval", reason: "must be 0.01 s ... 1 day")) {
            try tracker { $0.failureInterval = .seconds(86_401) }.validate()
        }
    }

    func testTrackerInterfaceNameTooLongIsInvalid() {
        expect(.invalidInterfaceName("abcdefghijklmnop", reason: "longer than 15 bytes")) {
            try UplinkTracker(configuration: tracker { $0.interface = "abcdefghijklmnop" })
        }
        expect(.invalidInterfaceName("wan/0", reason: "contains '/', ':', a control character or white space")) {
            try tracker { $0.interface = "wan/0" }.validate()
        }
    }

    func testTrackerCountsOutOfRangeAreInvalid() {
        expect(.invalidConfiguration("reliability", reason: "must be 1...1 (the number of hosts)")) {
            try tracker { $0.reliability = 2 }.validate()
        }
        expect(.invalidConfiguration("track hosts", reason: "at least one host is needed")) {
            try tracker { $0.hosts = [] }.validate()
        }
        expect(.invalidConfiguration("down", reason: "must be 1...1000")) { try tracker { $0.down = 0 }.validate() }
        expect(.invalidProbe("tcp:0", reason: "port must be 1...65535")) { try tracker { $0.method = .tcp(port: 0) }.validate() }
    }
}

// MARK: - The table

/// docs/bad-inputs.md and the tests cannot drift apart: every row names a
/// test method that exists, inside the class it names.
final class BadInputTableTests: XCTestCase {
    struct Row {
        let number: Int
        let area: String
        let test: (type: String, method: String)
    }

    static let repository = URL(fileURLWithPath: "\(#filePath)").deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The cells of a table line, split on '|' not escaped as '\|'.
    static func cells(_ line: String) -> [String] {
        var cells: [String] = []
        var current = ""
        var previous: Character?
        for character in line {
            if character == "|" && previous != "\\" {
                cells.append(current.trimmingCharacters(in: .whitespaces))
                current = ""
            } else {
                current.append(character)
            }
            previous = character
        }
        cells.append(current.trimmingCharacters(in: .whitespaces))
        // "| a | b |" → ["", "a", "b", ""]
        return Array(cells.dropFirst().dropLast())
    }

    static func rows(_ text: String) throws -> [Row] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let header = lines.firstIndex(where: { $0.hasPrefix("|") && cells($0) == ["#", "Area", "Bad input", "Expected", "Test"] }) else {
            XCTFail("no table with the columns #, Area, Bad input, Expected, Test")
            return []
        }
        var rows: [Row] = []
        for line in lines[(header + 2)...] {
            guard line.hasPrefix("|") else { break }
            let cells = cells(line)
            guard cells.count == 5 else { XCTFail("not 5 cells: \(line)"); continue }
            guard let number = Int(cells[0]), number > 0 else { XCTFail("bad row number: \(line)"); continue }
            let test = cells[4]
            let parts = test.split(separator: "`", omittingEmptySubsequences: false)
            // Exactly one backticked `Class.testMethod` and nothing else.
            guard parts.count == 3, parts[0].isEmpty, parts[2].isEmpty else {
                XCTFail("row \(number): the Test cell must be one `Class.testMethod`: \(test)"); continue
            }
            let name = parts[1].split(separator: ".")
            guard name.count == 2, name[1].hasPrefix("test") else {
                XCTFail("row \(number): not `Class.testMethod`: \(test)"); continue
            }
            rows.append(Row(number: number, area: cells[1], test: (String(name[0]), String(name[1]))))
        }
        return rows
    }

    /// Every `class NAME` of the test sources with the text of its body
    /// (this repository's style: the declaration and its closing brace at column 0).
    static func classes() throws -> [String: [String]] {
        var found: [String: [String]] = [:]
        let tests = repository.appendingPathComponent("Tests")
        // Regular files only (Tests/Consumers/StandIns/Reachability.swift is a
        // package), and no hidden folder (the consumers' .build holds their checkouts).
        guard let walker = FileManager.default.enumerator(at: tests, includingPropertiesForKeys: [.isRegularFileKey],
                                                          options: [.skipsHiddenFiles]) else { return found }
        for case let url as URL in walker where url.pathExtension == "swift" {
            guard try url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true else { continue }
            let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            var index = 0
            while index < lines.count {
                let words = lines[index].split(whereSeparator: { $0 == " " || $0 == ":" || $0 == "{" || $0 == "<" })
                if let c = words.firstIndex(of: "class"), c + 1 < words.count,
                   words[..<c].allSatisfy({ ["final", "public", "private", "fileprivate", "internal", "open"].contains($0) }) {
                    let name = String(words[c + 1])
                    var body: [String] = []
                    index += 1
                    while index < lines.count && lines[index] != "}" {
                        body.append(String(lines[index]))
                        index += 1
                    }
                    found[name, default: []].append(body.joined(separator: "\n"))
                }
                index += 1
            }
        }
        return found
    }

    func testEveryRowNamesAnExistingTest() throws {
        let url = Self.repository.appendingPathComponent("docs/bad-inputs.md")
        let rows = try Self.rows(try String(contentsOf: url, encoding: .utf8))
        XCTAssertGreaterThanOrEqual(rows.count, 30, "the table must have at least 30 rows")
        let numbers = rows.map(\.number)
        XCTAssertEqual(Set(numbers).count, numbers.count, "row numbers repeat: \(numbers)")
        let classes = try Self.classes()
        XCTAssertNotNil(classes["BadInputTableTests"], "the scan finds this very class")
        for row in rows {
            guard let bodies = classes[row.test.type] else {
                XCTFail("row \(row.number): no class \(row.test.type) under Tests/")
                continue
            }
            let declared = bodies.contains { body in
                body.range(of: "func \(row.test.method)(") != nil
            }
            XCTAssertTrue(declared, "row \(row.number): no func \(row.test.method)( in class \(row.test.type)")
        }
    }
}
