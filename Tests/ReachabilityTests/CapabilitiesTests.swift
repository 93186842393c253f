import Foundation
import XCTest
import LinuxReachability
@testable import ReachabilityCore
@testable import ReachabilityKernel

/// libcap's view of the effective set, against the kernel's own report in
/// /proc/self/status (CapEff), read independently here.
final class CapabilitiesTests: XCTestCase {
    func testEffectiveCapabilitiesMatchProcStatus() throws {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("CapEff:") }),
              let mask = UInt64(line.dropFirst("CapEff:".count).trimmingCharacters(in: .whitespaces), radix: 16) else {
            return XCTFail("no CapEff line in /proc/self/status")
        }
        let capabilities = try Capabilities.current()
        XCTAssertEqual(capabilities.netRaw, mask & (1 << 13) != 0)    // CAP_NET_RAW = 13
        XCTAssertEqual(capabilities.netAdmin, mask & (1 << 12) != 0)  // CAP_NET_ADMIN = 12
        XCTAssertEqual(capabilities.sysAdmin, mask & (1 << 21) != 0)  // CAP_SYS_ADMIN = 21
    }
}
