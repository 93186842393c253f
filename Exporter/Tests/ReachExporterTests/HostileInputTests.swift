// Issue 52, points 16, 17 and 21: what an operator's or an attacker's file
// does to the exporter's reading of it. Deep YAML is refused while libyaml's
// events are read (no tree, no recursion, no quadratic scan); more targets
// than start-up can register in time are refused by --check-config; a FIFO,
// a directory, a file one byte over the size limit, a second document and a
// signed port are each a one-line error; a receiver's control bytes are
// visible characters on the status page.

@testable import reach_exporter
import Dispatch
import LinuxReachability
import Synchronization
import XCTest

#if canImport(Glibc)
import Glibc
#endif

final class HostileInputTests: XCTestCase {
    // MARK: - Point 16: deep YAML

    /// 40,000 levels of block sequences on one line (80 KB): the tree's
    /// release once overflowed the stack (exit 139).
    func testDeepBlockNestingIsRefusedBeforeATreeExists() {
        let text = String(repeating: "- ", count: 40_000) + "x\n"
        XCTAssertThrowsError(try YAMLDocument.compose(text)) { error in
            XCTAssertTrue("\(error)".contains("nested deeper than \(YAMLDocument.maximumDepth)"), "\(error)")
            XCTAssertTrue("\(error)".hasPrefix("line 1 column "), "\(error)")
        }
        // The whole configuration path says it as a configuration error.
        XCTAssertThrowsError(try ExporterConfiguration.parse(yaml: "targets:\n" + String(repeating: "  ", count: 1) + text, source: "deep.yml")) {
            XCTAssertTrue("\($0)".hasPrefix("deep.yml: not valid YAML: line 2"), "\($0)")
        }
    }

    /// 100,000 levels of `[`: libyaml took 108 s over them before the tree's
    /// release crashed; refused after the first levels' events.
    func testDeepFlowNestingIsRefusedAtTheLimit() {
        let text = String(repeating: "[", count: 100_000)
        XCTAssertThrowsError(try YAMLDocument.compose(text)) { error in
            XCTAssertEqual("\(error)", "line 1 column \(YAMLDocument.maximumDepth + 1): nested deeper than \(YAMLDocument.maximumDepth) levels")
        }
        // A mapping of lists at the limit is still read.
        let atLimit = String(repeating: "[", count: YAMLDocument.maximumDepth) + String(repeating: "]", count: YAMLDocument.maximumDepth)
        XCTAssertNoThrow(try YAMLDocument.compose(atLimit))
    }
}
