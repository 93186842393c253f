// The pure model (ReachabilityModel) restates two things the C world defines:
// fnmatch(3)'s globs and the kernel's IFF_* bits. Both are checked here
// against the C library and the C core, which the model may not import.

import CReachability
import ReachabilityModel
import XCTest
#if canImport(Glibc)
import Glibc
#endif

final class ModelBoundaryTests: XCTestCase {
    /// Patterns users write for interfaces and modem devices, and the edges of
    /// the glob grammar, each against names that do and do not match.
    let patterns = [
        "wwan*", "rmnet*", "eth?", "ppp[0-9]", "ppp[!0-9]", "ppp[^0-9]", "wl[a-c]n0", "*", "", "?", "**",
        "a*b*c", "*.1", "[]]x", "[!]]x", "[a-]", "x[", "x[ab", "\\*", "a\\?", "\\", "[[:digit:]]*",
        "usb[[:alpha:]]", "[[:alnum:]_]*", "/dev/ttyUSB?", "/dev/tty*", "wg*0", "*[0-9]", "[\\]]", "[a\\-z]",
        "[z-a]", "ab*", "*ab", "a**b", "[[:bogus:]]", "eth0.100", "[.]*",
    ]
    let names = [
        "wwan0", "wwan", "rmnet_data0", "eth0", "eth10", "ppp0", "pppa", "ppp", "wlan0", "wlbn0", "wldn0", "",
        "abc", "aXbYc", "acb", "x.1", "]x", "ax", "a", "-", "x[", "x[ab", "*", "a?", "ab", "\\", "7up",
        "usbA", "usb0", "a_b", "/dev/ttyUSB0", "/dev/ttyUSB10", "/dev/ttyACM0", "wg0", "wgx0", "z", ".hidden",
        "eth0.100", "b", "xyz9",
    ]

    func testTheSwiftGlobMatchesAsFnmatchDoes() {
        var compared = 0
        for pattern in patterns {
            for name in names {
                let expected = fnmatch(pattern, name, 0) == 0
                XCTAssertEqual(Glob.matches(pattern, name), expected, "pattern '\(pattern)' name '\(name)'")
                compared += 1
            }
        }
        XCTAssertEqual(compared, patterns.count * names.count)
    }

    func testLinkFlagBitsAreTheKernels() {
        XCTAssertEqual(LinkFlags.up.rawValue, creach_iff_up)
        XCTAssertEqual(LinkFlags.lowerUp.rawValue, creach_iff_lower_up)
        XCTAssertEqual(LinkFlags.pointToPoint.rawValue, creach_iff_pointopoint)
        XCTAssertEqual(LinkFlags.loopback.rawValue, creach_iff_loopback)
    }

    func testOperStateValuesAreTheKernels() {
        // IF_OPER_* (linux/if.h): RFC 2863's order.
        let expected: [UInt8: OperState] = [0: .unknown, 1: .notPresent, 2: .down, 3: .lowerLayerDown, 4: .testing,
                                            5: .dormant, 6: .up, 7: .unknown]
        for (raw, state) in expected { XCTAssertEqual(OperState(ifOperState: raw), state, "IF_OPER \(raw)") }
    }
}
