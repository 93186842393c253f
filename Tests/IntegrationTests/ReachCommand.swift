// Running the built `reach` binary from integration tests, as a user would.

import Foundation
import ReachabilityTestSupport   // NamespaceTestCase, reachBinary, RunningProcess
import ReachabilityTesting   // runCommand, ipExecutable
import XCTest

extension NamespaceTestCase {
    func reach(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> CommandResult {
        try runCommand(try reachBinary(file: file, line: line), arguments)
    }

    /// The one JSON object of a `--json` line.
    func jsonObject(_ text: String, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: true)
        XCTAssertEqual(lines.count, 1, "expected one JSON line, got: \(text)", file: file, line: line)
        let data = Data((lines.first.map(String.init) ?? "").utf8)
        let object = try JSONSerialization.jsonObject(with: data)
        return try XCTUnwrap(object as? [String: Any], "not a JSON object: \(text)", file: file, line: line)
    }

    /// `reach ARGS...` left running, its output lines collected as they come.
    func startReach(_ arguments: [String], under wrapper: [String] = [],
                    file: StaticString = #filePath, line: UInt = #line) throws -> RunningProcess {
        let binary = try reachBinary(file: file, line: line)
        let running = wrapper.isEmpty
            ? try RunningProcess(binary, arguments)
            : try RunningProcess(try XCTUnwrap(ipExecutable), wrapper + [binary.path] + arguments)
        addTeardownBlock { running.terminate() }
        return running
    }

    /// `reach ARGS...` run through `setpriv` with CAP_NET_RAW dropped from the
    /// bounding, inheritable and so effective sets: root without raw sockets.
    func reachWithoutNetRaw(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> CommandResult {
        let setpriv = try setprivPath()
        let binary = try reachBinary(file: file, line: line)
        return try runCommand(URL(fileURLWithPath: setpriv),
                              ["--inh-caps=-net_raw", "--bounding-set=-net_raw", binary.path] + arguments)
    }

    /// `setpriv`'s path (util-linux), or a skip.
    func setprivPath() throws -> String {
        guard let path = ["/usr/bin/setpriv", "/bin/setpriv"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw XCTSkip("setpriv (util-linux) is not installed")
        }
        return path
    }

    /// The arguments that run a command as nobody with every capability gone
    /// (effective, permitted, inheritable, ambient and bounding sets), unable
    /// to regain any: `ip netns exec NS setpriv ... COMMAND`.
    func unprivilegedWrapper(in ns: TestNamespace) throws -> [String] {
        ["netns", "exec", ns.name, try setprivPath(), "--reuid", "65534", "--regid", "65534", "--clear-groups",
         "--inh-caps=-all", "--ambient-caps=-all", "--bounding-set=-all", "--no-new-privs"]
    }

    /// `reach ARGS...` inside `ns`, as nobody with no capabilities at all.
    func reachWithoutCapabilities(_ arguments: [String], in ns: TestNamespace,
                                  file: StaticString = #filePath, line: UInt = #line) throws -> CommandResult {
        let binary = try reachBinary(file: file, line: line)
        return try runCommand(try XCTUnwrap(ipExecutable), try unprivilegedWrapper(in: ns) + [binary.path] + arguments)
    }
}

