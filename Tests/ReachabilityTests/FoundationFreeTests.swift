// ReachabilityCore and Reachability link without Foundation: the compat
// modules (SystemConfiguration, CoreTelephony, Network) may use it, the
// engine may not (README, "Porting from iOS"; the firmware builds rely on it).

import Foundation
import XCTest

#if canImport(Glibc)
import Glibc
#endif

final class FoundationFreeTests: XCTestCase {
    /// The shared libraries an ELF program needs (`readelf -d`, its NEEDED entries).
    private func neededLibraries(_ path: String) throws -> [String] {
        guard let file = popen("readelf -d '\(path)' 2>&1", "r") else { throw XCTSkip("cannot run readelf") }
        var output = ""
        var buffer = [CChar](repeating: 0, count: 4096)
        while fgets(&buffer, Int32(buffer.count), file) != nil {
            output += String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        let status = pclose(file)
        XCTAssertEqual(status, 0, output)
        // "0x0000000000000001 (NEEDED)  Shared library: [libswiftCore.so]"
        return output.split(separator: "\n").filter { $0.contains("(NEEDED)") }.compactMap { line in
            guard let open = line.firstIndex(of: "["), let close = line.lastIndex(of: "]") else { return nil }
            return String(line[line.index(after: open)..<close])
        }
    }

    func testTheEngineLinksWithoutFoundation() throws {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        let program = directory.appendingPathComponent("foundation-free").path
        guard access(program, X_OK) == 0 else {
            return XCTFail("\(program) is missing: `swift build --build-tests` builds it")
        }
        let needed = try neededLibraries(program)
        XCTAssertTrue(needed.contains { $0.hasPrefix("libswiftCore") }, "readelf read the program: \(needed)")
        XCTAssertTrue(needed.contains { $0.hasPrefix("libdispatch") }, "Reachability adds Dispatch: \(needed)")
        XCTAssertEqual(needed.filter { $0.contains("Foundation") }, [], "ReachabilityCore and Reachability must not need Foundation")
        // The same check sees Foundation where it is: the compat example programs need it.
        let compat = try neededLibraries(directory.appendingPathComponent("ct-watch").path)
        XCTAssertFalse(compat.filter { $0.contains("Foundation") }.isEmpty, "\(compat)")
    }
}
