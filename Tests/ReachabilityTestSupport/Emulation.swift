// Running under emulation: `make test-arm64` runs the suite on arm64 under
// qemu-user and sets REACH_EMULATED=qemu-user; a test needing what the
// emulator cannot do skips, saying what.

import Foundation
import XCTest

/// The emulator the tests run under (`REACH_EMULATED`), nil on the machine itself.
package let emulator: String? = ProcessInfo.processInfo.environment["REACH_EMULATED"].flatMap { $0.isEmpty ? nil : $0 }

/// What qemu-user's netlink translation lacks: it converts route, link and
/// address messages between the program and the kernel, and answers the
/// others (fib rules, RTM_GETRULE) EOPNOTSUPP. A real arm64 kernel has them.
package let qemuHasNoRuleMessages = "qemu-user's netlink translation has no fib rule messages (RTM_GETRULE: EOPNOTSUPP)"

/// Skips the test when it runs under emulation (`REACH_EMULATED`, which
/// `make test-arm64` sets to `qemu-user`), saying what the emulator cannot do.
///
/// - Parameter reason: What the emulator lacks that the test needs.
/// - Throws: `XCTSkip` under emulation.
package func skipUnderEmulation(_ reason: String, file: StaticString = #filePath, line: UInt = #line) throws {
    guard let emulator else { return }
    throw XCTSkip("under \(emulator): \(reason)", file: file, line: line)
}
