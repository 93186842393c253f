// Helpers shared by the tests that feed committed netlink bytes to the C parsers.

import Foundation
import XCTest

#if canImport(Glibc)
import Glibc
#endif

// MARK: - Constants (own names, so they cannot collide with imported macros)

enum K {
    static let AF_UNSPEC: UInt8 = 0
    static let AF_INET: UInt8 = 2
    static let AF_INET6: UInt8 = 10
    static let RTNL_FAMILY_IPMR: UInt8 = 128

    static let NLMSG_ERROR: UInt16 = 2
    static let NLMSG_DONE: UInt16 = 3
    static let RTM_NEWLINK: UInt16 = 16
    static let RTM_DELLINK: UInt16 = 17
    static let RTM_NEWADDR: UInt16 = 20
    static let RTM_DELADDR: UInt16 = 21
    static let RTM_NEWROUTE: UInt16 = 24
    static let RTM_DELROUTE: UInt16 = 25
    static let RTM_NEWNEIGH: UInt16 = 28
    static let RTM_NEWRULE: UInt16 = 32
    static let RTM_DELRULE: UInt16 = 33
    static let NLM_F_MULTI: UInt16 = 0x2
    static let NLA_F_NESTED: UInt16 = 0x8000

    static let RTN_UNICAST: UInt8 = 1
    static let RTN_LOCAL: UInt8 = 2
    static let RTPROT_UNSPEC: UInt8 = 0
    static let RTPROT_BOOT: UInt8 = 3
    static let RT_SCOPE_UNIVERSE: UInt8 = 0
    static let RT_SCOPE_HOST: UInt8 = 254
    static let RTM_F_CLONED: UInt32 = 0x200
    static let RTCF_LOCAL: UInt32 = 0x8000_0000

    static let RTA_DST: UInt16 = 1
    static let RTA_OIF: UInt16 = 4
    static let RTA_GATEWAY: UInt16 = 5
    static let RTA_PREFSRC: UInt16 = 7
    static let RTA_TABLE: UInt16 = 15
    static let RTA_MARK: UInt16 = 16
    static let RTA_VIA: UInt16 = 18
    static let RTA_UID: UInt16 = 25

    static let IFLA_ADDRESS: UInt16 = 1
    static let IFLA_IFNAME: UInt16 = 3
    static let IFLA_MTU: UInt16 = 4
    static let IFLA_LINK: UInt16 = 5
    static let IFLA_MASTER: UInt16 = 10
    static let IFLA_OPERSTATE: UInt16 = 16
    static let IFLA_LINKMODE: UInt16 = 17
    static let IFLA_LINKINFO: UInt16 = 18
    static let IFLA_CARRIER: UInt16 = 33
    static let IFLA_INFO_KIND: UInt16 = 1
    static let IFLA_INFO_DATA: UInt16 = 2

    static let IFA_ADDRESS: UInt16 = 1
    static let IFA_LOCAL: UInt16 = 2
    static let IFA_LABEL: UInt16 = 3
    static let IFA_FLAGS: UInt16 = 8

    static let ARPHRD_ETHER: UInt16 = 1
    static let ARPHRD_NONE: UInt16 = 65534
    static let IFF_UP: UInt32 = 0x1
    static let IFF_BROADCAST: UInt32 = 0x2
    static let IFF_POINTOPOINT: UInt32 = 0x10
    static let IFF_RUNNING: UInt32 = 0x40
    static let IFF_NOARP: UInt32 = 0x80
    static let IFF_MULTICAST: UInt32 = 0x1000
    static let IFF_LOWER_UP: UInt32 = 0x10000
    static let IF_OPER_DOWN: UInt8 = 2
    static let IF_OPER_UP: UInt8 = 6
    static let IFA_F_PERMANENT: UInt32 = 0x80
    static let IFA_F_NOPREFIXROUTE: UInt32 = 0x200

    static let routeHeader = 16 + 12   // nlmsghdr + rtmsg
    static let linkHeader = 16 + 16    // nlmsghdr + ifinfomsg
    static let addrHeader = 16 + 8     // nlmsghdr + ifaddrmsg
    static let errorMinimum = 16 + 4   // nlmsghdr + nlmsgerr.error
    static let nlmsghdr = 16
    static let ifinfomsg = 16
    static let ifiIndexOffset = 16 + 4   // nlmsghdr + family, pad, type
    static let maxDeleted = 8            // CREACH_EVENTS_MAX_DELETED
}

/// Runs `body` on a copy of `bytes` that ends exactly at a PROT_NONE page
/// (for an empty array: a pointer to the guard page itself), so a parser that
/// reads one byte past `len` crashes the test.
func withGuardedBytes<R>(_ bytes: [UInt8], _ body: (UnsafeRawPointer, Int) throws -> R) rethrows -> R {
    let page = Int(sysconf(Int32(_SC_PAGESIZE)))
    let dataPages = max(1, (bytes.count + page - 1) / page)
    let mapLength = (dataPages + 1) * page
    guard let base = mmap(nil, mapLength, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
          base != UnsafeMutableRawPointer(bitPattern: -1) else {
        fatalError("mmap failed: errno \(errno)")
    }
    defer { munmap(base, mapLength) }
    let guardPage = base + dataPages * page
    precondition(mprotect(guardPage, page, PROT_NONE) == 0, "mprotect failed")
    let start = guardPage - bytes.count
    bytes.withUnsafeBytes { src in
        if let from = src.baseAddress { start.copyMemory(from: from, byteCount: bytes.count) }
    }
    return try body(UnsafeRawPointer(start), bytes.count)
}

/// The bytes of Fixtures/NAME.bin (read by path: the folder is not a resource).
func loadFixture(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> [UInt8] {
    let url = URL(fileURLWithPath: "\(#filePath)").deletingLastPathComponent()
        .appendingPathComponent("Fixtures").appendingPathComponent(name + ".bin")
    do {
        return [UInt8](try Data(contentsOf: url))
    } catch {
        XCTFail("cannot read fixture \(url.path): \(error)", file: file, line: line)
        throw error
    }
}
