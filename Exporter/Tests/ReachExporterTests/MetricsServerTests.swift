// Issue 52, points 18 and 19: the HTTP server against clients that do not
// play fair, on loopback. Each test waits on the server's own signal (the
// connection it closes, the response it sends, the line it logs); a socket
// receive timeout of 10 s is only a guard, so that a server that never
// closes fails the test instead of hanging it.

@testable import ReachExporterKit
import Dispatch
import Logging
import NIOCore
import NIOPosix
import Synchronization
import XCTest

#if canImport(Glibc)
import Glibc
#endif

final class MetricsServerTests: XCTestCase {
    private var group: MultiThreadedEventLoopGroup!
    private var server: MetricsServer!
    private var port = 0
    private let logs = LogLines()

    override func tearDown() {
        try? server?.channel.close().wait()
        try? group?.syncShutdownGracefully()
        super.tearDown()
    }

    /// A server on 127.0.0.1 (a port the kernel picks) in front of an
    /// exporter that is not started: its scrape is the series at their initial values.
    private func start(_ limits: MetricsServer.Limits) throws {
        var configuration = ExporterConfiguration()
        try configuration.finish()
        let exporter = try Exporter(configuration: configuration, version: "test")
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let logs = self.logs
        let logger = Logger(label: "test") { _ in LogLines.Handler(lines: logs) }
        let group = self.group!
        server = try runBlocking {
            try await MetricsServer.bind(ListenAddress(host: "127.0.0.1", port: 0), exporter: exporter, registry: SeriesRegistry([exporter]), group: group,
                                         limits: limits, logger: logger)
        }
        port = try XCTUnwrap(server.channel.localAddress?.port)
    }

    /// A client socket connected to the server, with the 10 s guard.
    private func connectClient() throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        XCTAssertGreaterThanOrEqual(fd, 0)
        var guardTime = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &guardTime, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        XCTAssertEqual(connected, 0, String(cString: strerror(errno)))
        addTeardownBlock { close(fd) }
        return fd
    }

    private func send(_ fd: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        XCTAssertEqual(bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }, bytes.count)
    }

    /// Reads until the server closes (`closed`), or until one response's
    /// `Content-Length` bytes are in when `untilOneResponse`; `closed` is false
    /// when the guard ran out with the connection still open.
    private func receive(_ fd: Int32, untilOneResponse: Bool = false) -> (text: String, closed: Bool) {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            if untilOneResponse, let length = Self.completeResponseLength(bytes) {
                return (String(decoding: bytes[..<length], as: UTF8.self), false)
            }
            let count = recv(fd, &buffer, buffer.count, 0)
            if count == 0 { return (String(decoding: bytes, as: UTF8.self), true) }
            if count < 0 { return (String(decoding: bytes, as: UTF8.self), errno == ECONNRESET) }
            bytes += buffer[..<count]
        }
    }

    /// The length of a complete response at the start of `bytes` (head and Content-Length body), or nil.
    private static func completeResponseLength(_ bytes: [UInt8]) -> Int? {
        let separator = Array("\r\n\r\n".utf8)
        guard let end = (0 ..< max(0, bytes.count - 3)).first(where: { Array(bytes[$0 ..< $0 + 4]) == separator }) else { return nil }
        let head = String(decoding: bytes[..<end], as: UTF8.self).lowercased()
        guard let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
              let length = Int(line.dropFirst("content-length:".count).filter { $0 != " " }) else { return nil }
        return bytes.count >= end + 4 + length ? end + 4 + length : nil
    }

    // MARK: - Point 18: slowloris

    /// A request head that never ends was held for ever (2,000 of them: 0
    /// closed in 70 s). The header timeout closes it.
    func testAHeadThatNeverEndsIsClosedAtTheHeaderTimeout() throws {
        try start(MetricsServer.Limits(headerTimeout: .milliseconds(200), idleTimeout: .seconds(60), maximumConnections: 16))
        let fd = try connectClient()
        send(fd, "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        let (text, closed) = receive(fd)
        XCTAssertTrue(closed, "the connection is still open 10 s after a partial head")
        XCTAssertEqual(text, "", "nothing is answered to half a request")
    }

    /// A keep-alive connection that asks nothing more is closed after the idle timeout.
    func testAnIdleKeepAliveConnectionIsClosed() throws {
        try start(MetricsServer.Limits(headerTimeout: .seconds(60), idleTimeout: .milliseconds(200), maximumConnections: 16))
        let fd = try connectClient()
        send(fd, "GET /-/healthy HTTP/1.1\r\nHost: x\r\n\r\n")
        let first = receive(fd, untilOneResponse: true)
        XCTAssertTrue(first.text.hasPrefix("HTTP/1.1 200 OK\r\n"), first.text)
        let (rest, closed) = receive(fd)
        XCTAssertTrue(closed, "an idle keep-alive connection is still open 10 s after its response")
        XCTAssertEqual(rest, "")
    }

    /// With the usual 1,024 descriptors, 2,000 slow connections stopped
    /// /metrics. Past the cap a new connection is closed at once, and the
    /// server says so in its log.
    func testConnectionsPastTheCapAreClosedAndLogged() throws {
        try start(MetricsServer.Limits(headerTimeout: .seconds(60), idleTimeout: .seconds(60), maximumConnections: 3))
        // Three connections the server has surely counted: each has its answer.
        for _ in 0 ..< 3 {
            let fd = try connectClient()
            send(fd, "GET /-/healthy HTTP/1.1\r\nHost: x\r\n\r\n")
            XCTAssertTrue(receive(fd, untilOneResponse: true).text.hasPrefix("HTTP/1.1 200 OK\r\n"))
        }
        let fourth = try connectClient()
        send(fourth, "GET /-/healthy HTTP/1.1\r\nHost: x\r\n\r\n")
        let (text, closed) = receive(fourth)
        XCTAssertTrue(closed, "a connection past the cap is still open")
        XCTAssertEqual(text, "", "a connection past the cap was answered")
        XCTAssertEqual(logs.lines.filter { $0.contains("3 connections open, the most allowed") }.count, 1, "\(logs.lines)")
    }

    /// The cap stays below the descriptor limit, with room for the monitor,
    /// probes and pushes.
    func testTheCapStaysBelowTheDescriptorLimit() {
        XCTAssertEqual(MetricsServer.Limits(maximumConnections: 512).effectiveMaximumConnections(descriptorLimit: 1024), 512)
        XCTAssertEqual(MetricsServer.Limits(maximumConnections: 512).effectiveMaximumConnections(descriptorLimit: 256), 128)
        XCTAssertEqual(MetricsServer.Limits(maximumConnections: 512).effectiveMaximumConnections(descriptorLimit: 8), 4)
        XCTAssertEqual(MetricsServer.Limits(maximumConnections: 512).effectiveMaximumConnections(descriptorLimit: 1), 1)
    }

    // MARK: - Point 19: answers that say close

    /// A malformed request got a 400 saying `Connection: close`, and the
    /// connection stayed open (300 of them held 318 descriptors).
    func testA400ClosesTheConnection() throws {
        try start(MetricsServer.Limits())
        let fd = try connectClient()
        send(fd, "GET /metrics HTTP/1.1\r\nHost x\r\n\r\n")
        let (text, closed) = receive(fd)
        XCTAssertTrue(text.hasPrefix("HTTP/1.1 400 Bad Request\r\n"), text)
        XCTAssertTrue(text.lowercased().contains("connection: close\r\n"), text)
        XCTAssertTrue(closed, "the connection is still open 10 s after a 400 that says Connection: close")
    }

    /// CONNECT got a 405 head without a length and without a body, and the
    /// connection stayed open.
    func testCONNECTGetsA405WithItsLengthAndIsClosed() throws {
        try start(MetricsServer.Limits())
        let fd = try connectClient()
        send(fd, "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n")
        let (text, closed) = receive(fd)
        XCTAssertTrue(text.hasPrefix("HTTP/1.1 405 Method Not Allowed\r\n"), text)
        let lower = text.lowercased()
        XCTAssertTrue(lower.contains("content-length: 0\r\n"), text)
        XCTAssertTrue(lower.contains("connection: close\r\n"), text)
        XCTAssertTrue(lower.contains("allow: get, head\r\n"), text)
        XCTAssertTrue(text.hasSuffix("\r\n\r\n"), "no body after a length of 0: \(text)")
        XCTAssertTrue(closed, "the connection is still open 10 s after CONNECT's 405")
        // Other methods keep their body and their connection.
        let other = try connectClient()
        send(other, "DELETE /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        let response = receive(other, untilOneResponse: true).text
        XCTAssertTrue(response.hasPrefix("HTTP/1.1 405 Method Not Allowed\r\n"), response)
        XCTAssertTrue(response.hasSuffix("\r\n\r\nOnly GET and HEAD.\n"), response)
    }
}

/// Runs `body` to completion from a synchronous test.
private func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let box = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        let result: Result<T, any Error>
        do { result = .success(try await body()) } catch { result = .failure(error) }
        box.result.withLock { $0 = result }
        done.signal()
    }
    done.wait()
    return try box.result.withLock { $0! }.get()
}

private final class ResultBox<T: Sendable>: Sendable {
    let result = Mutex<Result<T, any Error>?>(nil)
}

/// The lines a logger wrote.
final class LogLines: Sendable {
    private let storage = Mutex<[String]>([])
    var lines: [String] { storage.withLock { $0 } }

    struct Handler: LogHandler {
        let lines: LogLines
        var logLevel: Logger.Level = .trace
        var metadata: Logger.Metadata = [:]
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String,
                 file: String, function: String, line: UInt) {
            lines.storage.withLock { $0.append("\(level): \(message)") }
        }
    }
}
