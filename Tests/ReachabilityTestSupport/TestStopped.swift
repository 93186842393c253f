// Ending a test that this machine cannot run: a skip on a developer's
// machine, a failure where the run must skip nothing (CI sets the variables).

import Foundation
import XCTest

/// Thrown after `XCTFail` to end a test that cannot go on.
package struct TestStopped: Error, CustomStringConvertible {
    package let reason: String
    package var description: String { "test stopped: \(reason)" }

    package init(reason: String) { self.reason = reason }
}

/// The variable that makes a test that cannot make network namespaces (not
/// root, no `ip`, no server to run in them) fail instead of skip.
package let requireNetnsVariable = "REACH_REQUIRE_NETNS"

/// Ends a test that cannot run here: it is skipped, or, when one of
/// `variables` is set to 1, it fails.
///
/// - Parameters:
///   - reason: What is missing, and how to get it.
///   - variables: The environment variables that require the test to run
///     (`REACH_REQUIRE_NETNS`, `REACH_REQUIRE_DBUS`, `REACH_REQUIRE_PROMETHEUS`,
///     `REACH_REQUIRE_EXPORTER`); the skip's message names the first.
/// - Throws: `XCTSkip`, or ``TestStopped`` after recording the failure.
package func skipOrFail(_ reason: String, requiredBy variables: String..., file: StaticString = #filePath,
                        line: UInt = #line) throws -> Never {
    let environment = ProcessInfo.processInfo.environment
    if let required = variables.first(where: { environment[$0] == "1" }) {
        XCTFail("\(reason); \(required)=1 requires it", file: file, line: line)
        throw TestStopped(reason: reason)
    }
    let hint = variables.first.map { "; set \($0)=1 to make this a failure" } ?? ""
    throw XCTSkip(reason + hint, file: file, line: line)
}
