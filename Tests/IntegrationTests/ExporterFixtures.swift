// What the tests that run reach-exporter share (ExporterTests,
// RemoteWriteTests): the built binary, Prometheus' binaries, and waiting
// for a condition. Moved here from ExporterTests unchanged.

import Foundation
import ReachabilityTestSupport   // NamespaceTestCase, skipOrFail
import XCTest

#if canImport(Glibc)
import Glibc
#endif

extension NamespaceTestCase {
    static let requirePrometheus = "REACH_REQUIRE_PROMETHEUS"
    static let requireExporter = "REACH_REQUIRE_EXPORTER"

    /// REACH_EXPORTER_BINARY, else Exporter/'s debug build; a test skips when
    /// there is neither (`make test` does not build the exporter's package),
    /// unless REACH_REQUIRE_EXPORTER=1.
    func exporterBinary(file: StaticString = #filePath) throws -> URL {
        let environment = ProcessInfo.processInfo.environment
        let candidates = [
            environment["REACH_EXPORTER_BINARY"],
            URL(fileURLWithPath: "\(file)").deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("Exporter/.build/debug/reach-exporter").path,
        ].compactMap { $0 }
        if let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) {
            return URL(fileURLWithPath: found)
        }
        try skipOrFail("reach-exporter is not built (looked at \(candidates)): `make test-fleet` builds Exporter/ and runs these tests",
                       requiredBy: Self.requireExporter)
    }

    /// Waits (up to `timeout` seconds) until `condition` holds, polling `interval`.
    func eventually(_ what: String, timeout: TimeInterval, interval: useconds_t = 100_000,
                    file: StaticString = #filePath, line: UInt = #line, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try condition() { return true }
            usleep(interval)
        }
        XCTFail("timed out after \(timeout) s waiting for \(what)", file: file, line: line)
        return false
    }

    func prometheusBinary() throws -> (prometheus: String, promtool: String) {
        let found = ["/usr/bin/prometheus", "/usr/local/bin/prometheus"].first { FileManager.default.isExecutableFile(atPath: $0) }
        let tool = ["/usr/bin/promtool", "/usr/local/bin/promtool"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let found, let tool else {
            try skipOrFail("Prometheus is not installed (make setup-fleet installs Debian's prometheus)",
                           requiredBy: Self.requirePrometheus)
        }
        return (found, tool)
    }
}
