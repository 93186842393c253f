// The package's own programs, as the tests run them: `reach` and the example
// programs, built by `swift build --build-tests` beside the test bundle.

import Foundation
import XCTest

/// The built program `name`: the path in `variable` when that is set, else
/// the one next to the test bundle (SwiftPM's products directory holds both).
/// A program that is not there fails the test: the build makes it.
///
/// - Parameters:
///   - name: The product's name (`reach`, `sc-watch`).
///   - variable: An environment variable that names the program's path
///     instead (`REACH_BINARY`), or nil.
/// - Throws: ``TestStopped`` after recording the failure.
package func builtProgram(_ name: String, overriddenBy variable: String? = nil, file: StaticString = #filePath,
                          line: UInt = #line) throws -> URL {
    if let variable, let explicit = ProcessInfo.processInfo.environment[variable] {
        let url = URL(fileURLWithPath: explicit)
        guard FileManager.default.isExecutableFile(atPath: url.path) else {
            XCTFail("\(variable)=\(explicit) is not an executable file", file: file, line: line)
            throw TestStopped(reason: "no \(name) binary")
        }
        return url
    }
    var candidates: [URL] = []
    // On Linux the test bundle is an executable: its directory is the products directory.
    let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    candidates.append(executable.deletingLastPathComponent())
    if let bundleExecutable = Bundle.main.executableURL?.resolvingSymlinksInPath() {
        candidates.append(bundleExecutable.deletingLastPathComponent())
    }
    // A bundle directory (`X.xctest/`), as on Darwin: its parent.
    for url in [executable, Bundle.main.bundleURL] where url.pathExtension == "xctest" {
        candidates.append(url.deletingLastPathComponent())
    }
    for directory in candidates {
        let program = directory.appendingPathComponent(name)
        if FileManager.default.isExecutableFile(atPath: program.path) { return program }
    }
    XCTFail("the `\(name)` binary is not next to the test bundle (looked in \(candidates.map(\.path))); "
            + "build it first (`swift build --build-tests`)" + (variable.map { " or set \($0)" } ?? ""), file: file, line: line)
    throw TestStopped(reason: "no \(name) binary")
}

/// The built `reach`: REACH_BINARY if set, else next to the test bundle.
package func reachBinary(file: StaticString = #filePath, line: UInt = #line) throws -> URL {
    try builtProgram("reach", overriddenBy: "REACH_BINARY", file: file, line: line)
}
