// systemd's notify protocol through libsystemd, in process: a datagram
// socket the test binds stands where systemd's would be ($NOTIFY_SOCKET), and
// receives what the exporter says (READY=1 with its STATUS=, as the service
// sends it). The watchdog's interval is half of $WATCHDOG_USEC, for this
// process only. The exporter as systemd runs it (READY=1, WATCHDOG=1,
// STOPPING=1 from the program): Tests/IntegrationTests/ExporterTests.swift.

@testable import ReachExporterKit
import XCTest

#if canImport(Glibc)
import Glibc
#endif

final class SystemdNotifierTests: XCTestCase {
    static let variables = ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"]
    private var saved: [String: String] = [:]

    override func setUp() {
        super.setUp()
        for name in Self.variables {
            if let value = getenv(name) { saved[name] = String(cString: value) }
            unsetenv(name)
        }
    }

    override func tearDown() {
        for name in Self.variables {
            if let value = saved[name] { setenv(name, value, 1) } else { unsetenv(name) }
        }
        super.tearDown()
    }

    /// A datagram socket bound to `path` (`@name`: the abstract namespace),
    /// with a receive timeout of 10 s as a guard, so that nothing sent fails
    /// the test rather than hanging it.
    private func receiver(_ path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        XCTAssertGreaterThanOrEqual(fd, 0)
        addTeardownBlock { close(fd) }
        var guardTime = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &guardTime, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        let abstract = bytes.first == UInt8(ascii: "@")
        if abstract { bytes[0] = 0 }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let length = MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + bytes.count + (abstract ? 0 : 1)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(length)) }
        }
        XCTAssertEqual(bound, 0, String(cString: strerror(errno)))
        if !abstract { addTeardownBlock { unlink(path) } }
        return fd
    }

    private func next(_ fd: Int32) -> String? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(fd, &buffer, buffer.count, 0)
        return count < 0 ? nil : String(decoding: buffer[..<count], as: UTF8.self)
    }

    /// READY=1 and its STATUS= reach the socket as one datagram, as the
    /// service sends them; a socket in the abstract namespace too.
    func testReadyReachesTheNotifySocket() throws {
        for path in ["/tmp/reach-notify-unit-\(getpid())", "@reach-notify-unit-\(getpid())"] {
            let fd = try receiver(path)
            setenv("NOTIFY_SOCKET", path, 1)
            let notifier = SystemdNotifier()
            XCTAssertTrue(notifier.notify("READY=1\nSTATUS=watching 1 target, 0 uplinks; serving on 127.0.0.1:9789"), path)
            XCTAssertEqual(next(fd), "READY=1\nSTATUS=watching 1 target, 0 uplinks; serving on 127.0.0.1:9789", path)
            XCTAssertTrue(notifier.notify("STOPPING=1"))
            XCTAssertEqual(next(fd), "STOPPING=1", path)
        }
    }

    /// Not started by systemd (no $NOTIFY_SOCKET): nothing is sent, and
    /// there is no watchdog.
    func testWithoutANotifySocketNothingIsSent() {
        let notifier = SystemdNotifier()
        XCTAssertFalse(notifier.notify("READY=1"))
        XCTAssertNil(notifier.watchdogInterval)
    }

    /// WATCHDOG=1 at half of $WATCHDOG_USEC, when $WATCHDOG_PID is this
    /// process or not set; none for another process's watchdog.
    func testTheWatchdogIntervalIsHalfWhatSystemdAsks() {
        setenv("WATCHDOG_USEC", "400000", 1)
        XCTAssertEqual(SystemdNotifier().watchdogInterval, .milliseconds(200))
        setenv("WATCHDOG_PID", String(getpid()), 1)
        XCTAssertEqual(SystemdNotifier().watchdogInterval, .milliseconds(200))
        setenv("WATCHDOG_PID", String(getpid() + 1), 1)
        XCTAssertNil(SystemdNotifier().watchdogInterval, "another process's watchdog")
        unsetenv("WATCHDOG_PID")
        setenv("WATCHDOG_USEC", "0", 1)
        XCTAssertNil(SystemdNotifier().watchdogInterval)
    }
}
