// Issue 52, points 16-19 and 21, as an operator meets them: reach-exporter's
// binary given hostile files (--check-config and start alike), and its HTTP
// server given clients that never finish, more connections than it serves,
// a request that is not HTTP and CONNECT. Loopback only; each wait is on the
// exporter's own signal (its exit, a line it logs, a connection it closes).
// Each configuration run is under timeout(1), and each client socket has a
// receive timeout, so that an exporter that hangs (as one once did on a
// FIFO) or never closes fails the test rather than holding it.

import Foundation
import ReachabilityTesting   // runCommand
import ReachabilityTestSupport
import XCTest

#if canImport(Glibc)
import Glibc
#endif

extension ExporterTests {
    private func guardedExporter(_ arguments: [String]) throws -> CommandResult {
        try runCommand(URL(fileURLWithPath: "/usr/bin/timeout"), ["-s", "KILL", "20", try exporterBinary().path] + arguments)
    }

    func testHostileConfigurationFilesExitTwoWithOneLine() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("reach-exporter-hostile-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let port = try freePort()
        let targets = (0 ..< 1001).map { "10.0.\($0 / 256).\($0 % 256)" }.joined(separator: ", ")
        let cases: [(name: String, text: String, expected: String)] = [
            ("deep-block", String(repeating: "- ", count: 40_000) + "x\n", ": not valid YAML: line 1 column 129: nested deeper than 64 levels"),
            ("deep-flow", String(repeating: "[", count: 100_000), ": not valid YAML: line 1 column 65: nested deeper than 64 levels"),
            ("two-documents", "listen: 127.0.0.1:\(port)\n---\nlisten: 127.0.0.1:1\n", "line 2: a second YAML document"),
            ("signed-port", "listen: 127.0.0.1:+\(port)\n", ":1: listen '127.0.0.1:+\(port)': the port must be 1...65535"),
            ("targets", "listen: 127.0.0.1:\(port)\ntargets: [\(targets)]\n", "1001 targets: at most 1000"),
        ]
        for item in cases {
            let path = directory.appendingPathComponent("\(item.name).yml").path
            try item.text.write(toFile: path, atomically: true, encoding: .utf8)
            for check in [["--check-config"], []] {
                let result = try guardedExporter(["--config", path] + check)
                XCTAssertEqual(result.status, 2, "\(item.name) \(check): \(result.stderr.prefix(300))")
                XCTAssertEqual(result.stderrLines.count, 1, "\(item.name): \(result.stderr.prefix(300))")
                XCTAssertTrue(result.stderr.contains(item.expected), "\(item.name): expected '\(item.expected)' in: \(result.stderr.prefix(300))")
            }
        }
        // Not a regular file: said at once.
        let fifo = directory.appendingPathComponent("fifo.yml").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        for (path, expected) in [(fifo, "not a regular file (a FIFO)"), (directory.path, "not a regular file (a directory)")] {
            let result = try guardedExporter(["--config", path, "--check-config"])
            XCTAssertEqual(result.status, 2, "\(path): \(result.stderr)")
            XCTAssertEqual(result.stderr, "reach-exporter: \(path): \(expected)\n")
        }
        XCTAssertEqual(try get("http://127.0.0.1:\(port)/-/healthy").status, 0, "something listens after a bad configuration")
    }

    /// A client socket on the exporter's port, with a 20 s receive guard.
    private func connectLoopback(_ port: Int) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var guardTime = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &guardTime, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        XCTAssertEqual(connected, 0, String(cString: strerror(errno)))
        return fd
    }

    private func sendText(_ fd: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Everything until the peer closes; nil when the guard ran out first.
    private func readToClose(_ fd: Int32) -> String? {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count == 0 || (count < 0 && errno == ECONNRESET) { return String(decoding: bytes, as: UTF8.self) }
            if count < 0 { return nil }
            bytes += buffer[..<count]
        }
    }

    /// Slowloris against the exporter with 64 descriptors (so a cap of 32
    /// connections): past the cap a connection is closed at once and the log
    /// says so, every half head is closed at the header timeout (10 s), and
    /// then /metrics answers. Once, 2,000 of them were held for ever and
    /// /metrics stopped answering; a 400 and a CONNECT left their connection open.
    func testSlowClientsAreCutTheCapIsLoggedAndBadRequestsClose() throws {
        let port = try freePort()
        let running = try RunningProcess(URL(fileURLWithPath: "/usr/bin/prlimit"),
                                         ["--nofile=64:64", "--", try exporterBinary().path, "--listen", "127.0.0.1:\(port)", "--target", "127.0.0.1"])
        addTeardownBlock { running.terminate() }
        XCTAssertTrue(try eventually("the exporter serving", timeout: 10) { try get("http://127.0.0.1:\(port)/-/healthy").status == 200 })

        // A request that is not HTTP: 400, Connection: close, closed.
        let bad = connectLoopback(port)
        defer { close(bad) }
        sendText(bad, "GET /metrics HTTP/1.1\r\nHost x\r\n\r\n")
        let badAnswer = try XCTUnwrap(readToClose(bad), "a 400 that says Connection: close left the connection open")
        XCTAssertTrue(badAnswer.hasPrefix("HTTP/1.1 400 Bad Request\r\n"), badAnswer)
        // CONNECT: 405 with its length, closed.
        let tunnel = connectLoopback(port)
        defer { close(tunnel) }
        sendText(tunnel, "CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:22\r\n\r\n")
        let tunnelAnswer = try XCTUnwrap(readToClose(tunnel), "CONNECT's 405 left the connection open")
        XCTAssertTrue(tunnelAnswer.hasPrefix("HTTP/1.1 405 Method Not Allowed\r\n"), tunnelAnswer)
        XCTAssertTrue(tunnelAnswer.lowercased().contains("content-length: 0\r\n"), tunnelAnswer)

        // 40 half heads: past 32 the exporter closes them at once and logs it.
        let slow = (0 ..< 40).map { _ in connectLoopback(port) }
        defer { slow.forEach { close($0) } }
        for fd in slow { sendText(fd, "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: a") }
        XCTAssertTrue(eventually("the cap's log line", timeout: 10) {
            running.stderr.contains("32 connections open, the most allowed: new connections are closed until one ends")
        }, running.stderr)
        // Every one is closed by the exporter: at once past the cap, at the header timeout (10 s) below it.
        for (index, fd) in slow.enumerated() {
            XCTAssertEqual(readToClose(fd), "", "slow connection \(index) is still open")
        }
        XCTAssertTrue(try eventually("/metrics answering after the slow clients", timeout: 10) {
            try get("http://127.0.0.1:\(port)/metrics").status == 200
        })
        XCTAssertEqual(running.stderr.components(separatedBy: "the most allowed").count - 1, 1, running.stderr)
    }
}
