// The responder side of the probe tests: small TCP, HTTP and DNS servers
// whose sockets live inside a test namespace. Each socket is created on a
// thread that entered the namespace (`TestNamespace.onThreadInside`), so it
// belongs to that namespace for good and is then served from a thread of its
// own. Every server polls with a short timeout, so `stop()` (idempotent, also
// run by deinit) ends it within about 50 ms, joins its thread and closes its fds.

import CReachability
import Foundation
import LinuxReachability
import ReachabilityTesting
import ReachabilityTestSupport
import XCTest

#if canImport(Glibc)
import Glibc
#endif

// MARK: - Shared machinery

/// A value behind an NSLock.
final class ResponderLocked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    var current: Value {
        get { withLock { $0 } }
        set { withLock { $0 = newValue } }
    }
}

/// Errors of the responders' own setup (the namespace thread's errors are `TestNamespace.ThreadError`).
struct ResponderError: Error, CustomStringConvertible {
    var description: String
}

/// Socket helpers used by the responders and their self-tests.
enum ResponderSocket {
    /// `address` (an IPv4 or IPv6 literal) and `port` as a sockaddr, or nil when it is no literal.
    static func socketAddress(_ address: String, port: UInt16) -> (storage: sockaddr_storage, length: socklen_t)? {
        func stored<T>(_ value: T) -> (storage: sockaddr_storage, length: socklen_t) {
            var storage = sockaddr_storage()
            withUnsafeBytes(of: value) { source in
                withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: source) }
            }
            return (storage, socklen_t(MemoryLayout<T>.size))
        }
        if address.contains(":") {
            var sin6 = sockaddr_in6()
            sin6.sin6_family = sa_family_t(AF_INET6)
            sin6.sin6_port = port.bigEndian
            guard inet_pton(AF_INET6, address, &sin6.sin6_addr) == 1 else { return nil }
            return stored(sin6)
        }
        var sin = sockaddr_in()
        sin.sin_family = sa_family_t(AF_INET)
        sin.sin_port = port.bigEndian
        guard inet_pton(AF_INET, address, &sin.sin_addr) == 1 else { return nil }
        return stored(sin)
    }

    /// A socket of `type` (SOCK_STREAM or SOCK_DGRAM) created inside `namespace`,
    /// close-on-exec and non-blocking, with SO_REUSEADDR, bound to `address`:`port`
    /// (and listening, for a stream socket).
    static func bound(in namespace: TestNamespace, address: String, port: UInt16,
                      type: __socket_type) throws -> Int32 {
        let typeValue = Int32(type.rawValue)
        return try namespace.onThreadInside { () throws(TestNamespace.ThreadError) -> Int32 in
            guard case (var storage, let length)? = socketAddress(address, port: port) else {
                throw TestNamespace.ThreadError(description: "'\(address)' is not an IPv4 or IPv6 literal")
            }
            let fd = socket(Int32(storage.ss_family),
                            typeValue | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard fd >= 0 else { throw TestNamespace.ThreadError("socket") }
            var one: Int32 = 1
            guard setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
                let error = TestNamespace.ThreadError("SO_REUSEADDR")
                close(fd)
                throw error
            }
            let bound = withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
            }
            guard bound == 0 else {
                let error = TestNamespace.ThreadError("bind \(address) port \(port)")
                close(fd)
                throw error
            }
            if typeValue == Int32(SOCK_STREAM.rawValue) {
                guard listen(fd, 64) == 0 else {
                    let error = TestNamespace.ThreadError("listen \(address) port \(port)")
                    close(fd)
                    throw error
                }
            }
            return fd
        }
    }

    /// The local port of `fd` (0 when getsockname fails).
    static func localPort(_ fd: Int32) -> UInt16 {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let rc = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard rc == 0 else { return 0 }
        return withUnsafeBytes(of: storage) { raw -> UInt16 in
            // sin_port and sin6_port are both at offset 2, in network order.
            UInt16(raw[2]) << 8 | UInt16(raw[3])
        }
    }

    /// Waits up to `milliseconds` for `events` on `fd`; the returned revents (0 on timeout or EINTR).
    static func wait(_ fd: Int32, _ events: Int16 = Int16(POLLIN), milliseconds: Int32 = 50) -> Int16 {
        var entry = pollfd(fd: fd, events: events, revents: 0)
        let rc = poll(&entry, 1, milliseconds)
        return rc > 0 ? entry.revents : 0
    }

    /// `ip:port` as a URL authority: IPv6 literals in brackets.
    static func authority(_ address: String, _ port: UInt16) -> String {
        address.contains(":") ? "[\(address)]:\(port)" : "\(address):\(port)"
    }
}

/// One bound socket served by one pthread. `stop()` asks the loop to end,
/// joins the thread (once; concurrent callers wait for the join too) and
/// closes the socket.
final class ResponderServer: @unchecked Sendable {
    let fd: Int32
    let port: UInt16
    private let stopping = ResponderLocked(false)
    private let joinLock = NSLock()
    private var thread = pthread_t()
    private var finished = false

    private final class Start {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    /// Binds in `namespace`, then runs `serve(self)` on a new thread; `serve`
    /// must return soon after `isStopping` becomes true.
    init(in namespace: TestNamespace, address: String, port: UInt16, type: __socket_type,
         serve: @escaping @Sendable (ResponderServer) -> Void) throws {
        fd = try ResponderSocket.bound(in: namespace, address: address, port: port, type: type)
        self.port = ResponderSocket.localPort(fd)
        let start = Start { [self] in serve(self) }
        let argument = Unmanaged.passRetained(start).toOpaque()
        let rc = pthread_create(&thread, nil, { argument in
            Unmanaged<Start>.fromOpaque(argument!).takeRetainedValue().body()
            return nil
        }, argument)
        guard rc == 0 else {
            Unmanaged<Start>.fromOpaque(argument).release()
            close(fd)
            finished = true
            throw ResponderError(description: "pthread_create: \(String(cString: strerror(rc)))")
        }
    }

    var isStopping: Bool { stopping.current }

    func stop() {
        stopping.current = true
        joinLock.lock()
        defer { joinLock.unlock() }
        guard !finished else { return }
        finished = true
        if pthread_equal(pthread_self(), thread) != 0 {
            pthread_detach(thread)   // stopped from its own loop: it ends at its next check
        } else {
            pthread_join(thread, nil)
        }
        close(fd)
    }

    deinit { stop() }

    /// glibc's accept4, which the Glibc module does not export (it is a _GNU_SOURCE function).
    private typealias Accept4 = @convention(c) (Int32, UnsafeMutablePointer<sockaddr>?,
                                                UnsafeMutablePointer<socklen_t>?, Int32) -> Int32
    private static let accept4: Accept4? = dlsym(UnsafeMutableRawPointer(bitPattern: 0) /* RTLD_DEFAULT */, "accept4")
        .map { unsafeBitCast($0, to: Accept4.self) }

    /// Accepts one pending connection (non-blocking, close-on-exec), or nil.
    func acceptConnection() -> Int32? {
        let flags = Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        if let accept4 = Self.accept4 {
            let connection = accept4(fd, nil, nil, flags)
            return connection >= 0 ? connection : nil
        }
        let connection = accept(fd, nil, nil)
        guard connection >= 0 else { return nil }
        _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
        _ = fcntl(connection, F_SETFL, fcntl(connection, F_GETFL) | O_NONBLOCK)
        return connection
    }

    /// Writes all of `bytes` to the non-blocking `connection` (no SIGPIPE); false when the peer is gone,
    /// the server stops, or nothing can be written for 2 s.
    @discardableResult
    func send(_ bytes: [UInt8], to connection: Int32) -> Bool {
        var offset = 0
        let deadline = Date().addingTimeInterval(2)
        while offset < bytes.count {
            if isStopping || Date() > deadline { return false }
            let sent = bytes.withUnsafeBytes {
                Glibc.send(connection, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            }
            if sent > 0 {
                offset += sent
            } else if sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
                _ = ResponderSocket.wait(connection, Int16(POLLOUT))
            } else {
                return false
            }
        }
        return true
    }
}

// MARK: - TCP

/// Listens on `address`:`port` in a namespace; accepts each connection and closes it at once.
final class TCPResponder: @unchecked Sendable {
    let address: String
    /// The bound port (the kernel's choice when 0 was asked).
    let port: UInt16
    private let count = AcceptCount()
    private let server: ResponderServer

    /// Connections accepted so far (each is counted before it is closed).
    /// A client's connect returns once the kernel has queued the connection,
    /// before this thread accepts it: after a client is done, wait with
    /// `waitForAccepted(_:)` (PrivilegeTests once read 1 of 2, issue 39).
    var accepted: Int { count.value }

    /// Waits until at least `connections` were accepted (or `timeout` passed);
    /// returns how many were.
    func waitForAccepted(_ connections: Int, timeout: TimeInterval = 5) -> Int {
        count.wait(for: connections, until: Date().addingTimeInterval(timeout))
    }

    /// The count, and a condition its waiters sleep on.
    private final class AcceptCount: @unchecked Sendable {
        private let condition = NSCondition()
        private var count = 0

        var value: Int {
            condition.lock()
            defer { condition.unlock() }
            return count
        }

        func increment() {
            condition.lock()
            count += 1
            condition.broadcast()
            condition.unlock()
        }

        func wait(for target: Int, until deadline: Date) -> Int {
            condition.lock()
            defer { condition.unlock() }
            while count < target && condition.wait(until: deadline) {}
            return count
        }
    }

    /// `acceptGate`: the thread accepts nothing until it is signalled (tests of the responder).
    init(in namespace: TestNamespace, address: String, port: UInt16 = 0, acceptGate: DispatchSemaphore? = nil) throws {
        self.address = address
        let count = self.count
        server = try ResponderServer(in: namespace, address: address, port: port, type: SOCK_STREAM) { server in
            acceptGate?.wait()
            while !server.isStopping {
                guard ResponderSocket.wait(server.fd) != 0 else { continue }
                while let connection = server.acceptConnection() {
                    count.increment()
                    close(connection)
                }
            }
        }
        self.port = server.port
    }

    /// Stops listening, joins the thread, closes the socket. Idempotent.
    func stop() { server.stop() }

    deinit { stop() }
}

// MARK: - HTTP

/// Listens on `address`:`port` in a namespace and answers one connection at a
/// time: reads the request head (up to 8 KiB, until CRLFCRLF or 2 s), records
/// it, writes `response` (read when the request was read, so a change applies
/// to the next connection) and closes.
final class HTTPResponder: @unchecked Sendable {
    enum Response: Sendable, Equatable {
        /// `HTTP/1.1 <code> <reason>`, empty body, `Connection: close`.
        case status(Int)
        /// `302 Found` with `Location: <location>`.
        case redirect(location: String)
        /// Exactly these bytes.
        case raw([UInt8])
        /// Each piece in its own write, `pause` seconds apart; then the
        /// connection is closed, or with `hold` kept open as `.silent` keeps it
        /// (a body that runs until close and never ends).
        case pieces([[UInt8]], pause: TimeInterval, hold: Bool)
        /// Reads the request and sends nothing; the connection stays open until
        /// `stop()`, 10 s, or the client closes or resets it.
        case silent

        /// The bytes written for this response (nil for `.silent`).
        var bytes: [UInt8]? {
            switch self {
            case let .status(code):
                return Array("HTTP/1.1 \(code) \(Self.reason(code))\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)
            case let .redirect(location):
                return Array("HTTP/1.1 302 Found\r\nLocation: \(location)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)
            case let .raw(bytes):
                return bytes
            case let .pieces(pieces, _, _):
                return pieces.flatMap { $0 }
            case .silent:
                return nil
            }
        }

        static func reason(_ code: Int) -> String {
            switch code {
            case 200: return "OK"
            case 204: return "No Content"
            case 301: return "Moved Permanently"
            case 302: return "Found"
            case 307: return "Temporary Redirect"
            case 308: return "Permanent Redirect"
            case 400: return "Bad Request"
            case 403: return "Forbidden"
            case 404: return "Not Found"
            case 500: return "Internal Server Error"
            case 502: return "Bad Gateway"
            case 503: return "Service Unavailable"
            case 511: return "Network Authentication Required"
            default: return "Status"
            }
        }
    }

    private struct State {
        var response: Response = .status(204)
        var requests: [String] = []
    }

    let address: String
    /// The bound port (the kernel's choice when 0 was asked).
    let port: UInt16
    private let state = ResponderLocked(State())
    private let server: ResponderServer

    /// What the next connection gets; `.status(204)` at first.
    var response: Response {
        get { state.withLock { $0.response } }
        set { state.withLock { $0.response = newValue } }
    }

    /// The raw request heads read so far, one per connection that sent anything.
    var requests: [String] { state.withLock { $0.requests } }

    /// `http://ADDRESS:PORT` + `path` (IPv6 in brackets).
    func url(path: String = "/") -> String { "http://\(ResponderSocket.authority(address, port))\(path)" }

    init(in namespace: TestNamespace, address: String, port: UInt16 = 0) throws {
        self.address = address
        let state = self.state
        server = try ResponderServer(in: namespace, address: address, port: port, type: SOCK_STREAM) { server in
            while !server.isStopping {
                guard ResponderSocket.wait(server.fd) != 0 else { continue }
                while !server.isStopping, let connection = server.acceptConnection() {
                    Self.serve(connection, server: server, state: state)
                    close(connection)
                }
            }
        }
        self.port = server.port
    }

    /// Stops listening (ending a silent connection too), joins the thread, closes every fd. Idempotent.
    func stop() { server.stop() }

    deinit { stop() }

    private static func serve(_ connection: Int32, server: ResponderServer, state: ResponderLocked<State>) {
        let (head, peerClosed) = readHead(connection, server: server)
        let response = state.withLock { state -> Response in
            if !head.isEmpty { state.requests.append(String(decoding: head, as: UTF8.self)) }
            return state.response
        }
        if case let .pieces(pieces, pause, hold) = response {
            for (index, piece) in pieces.enumerated() {
                if index > 0 { usleep(useconds_t(pause * 1_000_000)) }
                guard server.send(piece, to: connection) else { return }
            }
            guard hold else { return }
        } else if let bytes = response.bytes {
            server.send(bytes, to: connection)
            return
        }
        // Silent (or held after its pieces): hold the connection, draining
        // whatever else arrives, until stop, 10 s, or the client is gone.
        guard !peerClosed else { return }
        let deadline = Date().addingTimeInterval(10)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !server.isStopping && Date() < deadline {
            let events = ResponderSocket.wait(connection)
            if events == 0 { continue }
            let n = read(connection, &buffer, buffer.count)
            if n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR) { return }
            if events & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 && n <= 0 { return }
        }
    }

    /// The request head (up to 8 KiB, through the first CRLFCRLF, or what came
    /// within 2 s), and whether the client closed or reset the connection.
    private static func readHead(_ connection: Int32, server: ResponderServer) -> ([UInt8], Bool) {
        let limit = 8192
        var head: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: limit)
        let deadline = Date().addingTimeInterval(2)
        while head.count < limit && !server.isStopping && Date() < deadline {
            if ResponderSocket.wait(connection) == 0 { continue }
            let n = read(connection, &buffer, limit - head.count)
            if n > 0 {
                head += buffer[0 ..< n]
                if let end = Self.endOfHead(head) {
                    return (Array(head[..<end]), false)
                }
            } else if n == 0 || (errno != EAGAIN && errno != EINTR) {
                return (head, true)
            }
        }
        return (head, false)
    }

    /// The index just past the first "\r\n\r\n", if any.
    private static func endOfHead(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for i in 0 ... bytes.count - 4
        where bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 {
            return i + 4
        }
        return nil
    }
}

// MARK: - nginx

/// A real nginx (Debian's `nginx-light`) serving `address`:`port` inside a
/// test namespace, with a config of fixed locations written into a temporary
/// directory that also takes its pid file, error log and temp paths; started
/// as the sandbox starts its endpoints (`Nginx.start`: one process, a daemon).
/// Ready once a TCP connect from inside the namespace reaches its listening
/// socket (bounded tries, no fixed sleep). `stop()` (idempotent, also run by
/// deinit) ends it and removes the directory.
final class NginxServer: @unchecked Sendable {
    /// What each location answers (`return` needs no file; `sub_filter` turns a
    /// body into a chunked one, `chunked_transfer_encoding off` into one that
    /// runs until close).
    static let locations: [(path: String, directives: String)] = [
        ("/generate_204", "return 204;"),
        ("/redirect", "return 302 http://portal.invalid/login;"),
        ("/moved", "return 301;"),                              // nginx sends an empty Location
        ("/long-redirect", "return 302 \(longLocation);"),
        ("/page", "default_type text/html; return 200 \"<html>login</html>\";"),
        ("/empty", "return 200;"),                              // Content-Length: 0
        ("/chunked", "default_type text/html; sub_filter login LOGIN; return 200 \"<html>login</html>\";"),
        ("/chunked-empty", "default_type text/html; sub_filter x \"\"; return 200 x;"),    // 0 CRLF CRLF
        ("/until-close", "default_type text/html; chunked_transfer_encoding off; sub_filter login LOGIN; "
            + "return 200 \"<html>login</html>\";"),
        ("/until-close-empty", "default_type text/html; chunked_transfer_encoding off; sub_filter x \"\"; return 200 x;"),
        ("/continue", "return 100;"),
        ("/missing", "return 404;"),
        ("/error", "return 500;"),
        ("/auth", "return 511;"),
        // A portal that redirects until the user "logs in" (`openPortal()`), then answers 204.
        ("/portal", "if (-f $document_root/open) { return 204; } return 302 http://portal.invalid/login;"),
    ]

    /// A Location of 1100 bytes: longer than the probe keeps (1023).
    static let longLocation = "http://portal.invalid/" + String(repeating: "a", count: 1100 - 22)

    let addresses: [String]
    let port: UInt16
    let directory: URL
    private let daemon: ServerDaemon

    /// The nginx binary (PATH, then /usr/sbin), or nil.
    static let executable: String? = Nginx.executable?.path

    /// Starts nginx in `namespace` listening on each of `addresses` (IPv4 or
    /// IPv6 literals) at `port`, and waits until it accepts connections.
    init(in namespace: TestNamespace, addresses: [String], port: UInt16 = 80) throws {
        self.addresses = addresses
        self.port = port
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("reach-nginx-\(getpid())-\(UInt32.random(in: 0 ... UInt32.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        do {
            daemon = try Nginx.start(in: namespace.name, directory: directory,
                                     config: Nginx.config(directory: directory.path, addresses: addresses, port: port,
                                                          locations: Self.locations)) {
                (try? Self.canConnect(in: namespace, to: addresses[0], port: port)) == true
            }
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw ResponderError(description: "cannot start nginx: \(error)")
        }
    }

    /// `/portal` answers 204 from now on, as a captive portal does once the user logged in.
    func openPortal() throws {
        let www = directory.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: www, withIntermediateDirectories: true)
        guard FileManager.default.createFile(atPath: www.appendingPathComponent("open").path, contents: nil) else {
            throw ResponderError(description: "cannot open the portal in \(www.path)")
        }
    }

    /// nginx's error log, for failure messages.
    var diagnostics: String { "error.log: " + daemon.log("error.log") }

    /// `http://ADDRESS[:PORT]PATH` for the first address.
    func url(_ path: String) -> String {
        let address = addresses[0]
        let host = address.contains(":") ? "[\(address)]" : address
        return port == 80 ? "http://\(host)\(path)" : "http://\(host):\(port)\(path)"
    }

    /// Whether a TCP connect from inside `namespace` to `address`:`port` completes within 200 ms.
    private static func canConnect(in namespace: TestNamespace, to address: String, port: UInt16) throws -> Bool {
        try namespace.onThreadInside { () throws(TestNamespace.ThreadError) -> Bool in
            guard case (var storage, let length)? = ResponderSocket.socketAddress(address, port: port) else {
                throw TestNamespace.ThreadError(description: "'\(address)' is not an IPv4 or IPv6 literal")
            }
            let fd = socket(Int32(storage.ss_family), Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { throw TestNamespace.ThreadError("socket") }
            defer { close(fd) }
            var time = timeval(tv_sec: 0, tv_usec: 200_000)
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
            let rc = withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, length) }
            }
            return rc == 0
        }
    }

    /// SIGTERM (fast shutdown), up to 5 s for nginx to exit, then SIGKILL; removes the directory. Idempotent.
    func stop() { daemon.stop() }

    deinit { stop() }
}

extension NamespaceTestCase {
    /// nginx in `namespace` on `addresses` port 80, stopped when the test ends
    /// however it ends. Without an nginx binary the test is skipped, or fails
    /// when REACH_REQUIRE_NETNS=1 (CI installs Debian's nginx-light).
    func startNginx(in namespace: TestNamespace, addresses: [String], port: UInt16 = 80,
                    file: StaticString = #filePath, line: UInt = #line) throws -> NginxServer {
        _ = try requireServer(NginxServer.executable, "nginx", package: "nginx-light", file: file, line: line)
        return try startServer(file: file, line: line) {
            try NginxServer(in: namespace, addresses: addresses, port: port)
        } stop: { $0.stop() }
    }

    /// The server's binary, or a skip (a failure when REACH_REQUIRE_NETNS=1:
    /// `make setup` installs the package).
    func requireServer(_ executable: String?, _ name: String, package: String,
                       file: StaticString, line: UInt) throws -> String {
        if let executable { return executable }
        try skipOrFail("\(name) is not installed (apt-get install \(package))", requiredBy: requireNetnsVariable, file: file, line: line)
    }

    /// Starts a server, failing the test when it cannot; stopped when the test ends however it ends.
    func startServer<Server>(file: StaticString, line: UInt, _ start: () throws -> Server,
                             stop: @escaping (Server) -> Void) throws -> Server {
        do {
            let server = try start()
            addTeardownBlock { stop(server) }
            return server
        } catch {
            XCTFail("\(error)", file: file, line: line)
            throw TestStopped(reason: "\(error)")
        }
    }
}

// MARK: - dnsmasq

/// A real name server (Debian's `dnsmasq-base`) on `address`:53 inside a test
/// namespace, answering `records` (name → IPv4 address) and nothing else, as
/// the sandbox's providers run it (`Dnsmasq.start`: a daemon known by its pid
/// file). Ready once a query from `client` is answered (bounded tries, no
/// fixed sleep).
final class DnsmasqServer: @unchecked Sendable {
    let address: String
    private let directory: URL
    private let daemon: ServerDaemon

    static let executable: String? = Dnsmasq.executable?.path

    init(in namespace: TestNamespace, address: String, records: [String: String], readyFrom client: TestNamespace) throws {
        self.address = address
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("reach-dnsmasq-\(getpid())-\(UInt32.random(in: 0 ... UInt32.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        let prober = try Prober(namespace: .named(client.name))
        // "#" is dnsmasq's every name (`--address=/#/...`) outside .test (`--local=/test/`).
        let name = records.keys.sorted().first { $0 != "#" } ?? (records["#"] != nil ? "ready.example" : "ready.test")
        do {
            daemon = try Dnsmasq.start(in: namespace.name, address: address, records: records, directory: directory) {
                (try? prober.probe(IPAddress(address)!, method: .dns(name: name, type: .a),
                                   options: ProbeOptions(timeout: .milliseconds(100))))?.verdict == .answered
            }
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw ResponderError(description: "\(error)")
        }
    }

    /// SIGTERM, then SIGKILL after 5 s; waits until the process is gone. Idempotent.
    func stop() { daemon.stop() }

    deinit { stop() }
}

extension NamespaceTestCase {
    /// dnsmasq in `namespace` on `address`, stopped when the test ends however
    /// it ends. Without dnsmasq the test is skipped, or fails when
    /// REACH_REQUIRE_NETNS=1 (make setup installs Debian's dnsmasq-base).
    func startDnsmasq(in namespace: TestNamespace, address: String, records: [String: String], readyFrom client: TestNamespace,
                      file: StaticString = #filePath, line: UInt = #line) throws -> DnsmasqServer {
        _ = try requireServer(DnsmasqServer.executable, "dnsmasq", package: "dnsmasq-base", file: file, line: line)
        return try startServer(file: file, line: line) {
            try DnsmasqServer(in: namespace, address: address, records: records, readyFrom: client)
        } stop: { $0.stop() }
    }
}

// MARK: - DNS

/// A UDP name server on `address`:`port` in a namespace, answering A and AAAA
/// questions from `records`.
final class DNSResponder: @unchecked Sendable {
    private struct State {
        var records: [String: [String]] = [:]
        var silent = false
        var queries: [(name: String, type: UInt16)] = []
    }

    static let typeA: UInt16 = 1
    static let typeAAAA: UInt16 = 28

    let address: String
    /// The bound port (the kernel's choice when 0 was asked).
    let port: UInt16
    private let state = ResponderLocked(State())
    private let server: ResponderServer

    /// Name → IPv4/IPv6 literals. Names match case-insensitively, a trailing dot ignored.
    /// A name that is absent is NXDOMAIN; a present name with no literal of the
    /// asked type is an empty NOERROR answer.
    var records: [String: [String]] {
        get { state.withLock { $0.records } }
        set { state.withLock { $0.records = newValue } }
    }

    /// When true, queries are recorded but never answered.
    var silent: Bool {
        get { state.withLock { $0.silent } }
        set { state.withLock { $0.silent = newValue } }
    }

    /// Every well-formed query received: its name (lowercased, dotted, no trailing dot) and type.
    var queries: [(name: String, type: UInt16)] { state.withLock { $0.queries } }

    init(in namespace: TestNamespace, address: String, port: UInt16 = 0) throws {
        self.address = address
        let state = self.state
        server = try ResponderServer(in: namespace, address: address, port: port, type: SOCK_DGRAM) { server in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !server.isStopping {
                guard ResponderSocket.wait(server.fd) != 0 else { continue }
                while true {
                    var peer = sockaddr_storage()
                    var peerLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
                    let n = withUnsafeMutablePointer(to: &peer) {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                            recvfrom(server.fd, &buffer, buffer.count, 0, $0, &peerLength)
                        }
                    }
                    guard n >= 0 else { break }   // EAGAIN: drained
                    guard let reply = Self.answer(Array(buffer[0 ..< n]), state: state) else { continue }
                    _ = withUnsafePointer(to: &peer) {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                            sendto(server.fd, reply, reply.count, Int32(MSG_NOSIGNAL), $0, peerLength)
                        }
                    }
                }
            }
        }
        self.port = server.port
    }

    /// Stops serving, joins the thread, closes the socket. Idempotent.
    func stop() { server.stop() }

    deinit { stop() }

    /// A parsed query: id, the question's name and type, and where the question ends.
    struct Query {
        var id: UInt16
        var name: String
        var type: UInt16
        var questionEnd: Int
    }

    /// Parses a standard query with exactly one question (no compression); nil when malformed.
    static func parse(_ message: [UInt8]) -> Query? {
        guard message.count >= 12 else { return nil }
        let flags = UInt16(message[2]) << 8 | UInt16(message[3])
        guard flags & 0x8000 == 0, (flags >> 11) & 0xF == 0 else { return nil }   // a query, opcode QUERY
        let questions = UInt16(message[4]) << 8 | UInt16(message[5])
        guard questions == 1 else { return nil }
        var labels: [String] = []
        var index = 12
        var nameLength = 0
        while true {
            guard index < message.count else { return nil }
            let length = Int(message[index])
            index += 1
            if length == 0 { break }
            guard length <= 63, index + length <= message.count else { return nil }
            nameLength += length + 1
            guard nameLength <= 255 else { return nil }
            labels.append(String(decoding: message[index ..< index + length], as: UTF8.self))
            index += length
        }
        guard index + 4 <= message.count else { return nil }
        let type = UInt16(message[index]) << 8 | UInt16(message[index + 1])
        return Query(id: UInt16(message[0]) << 8 | UInt16(message[1]),
                     name: labels.joined(separator: ".").lowercased(),
                     type: type,
                     questionEnd: index + 4)
    }

    /// Records the query and builds the reply; nil for a malformed query or when silent.
    private static func answer(_ message: [UInt8], state: ResponderLocked<State>) -> [UInt8]? {
        guard let query = parse(message) else { return nil }
        let (silent, literals) = state.withLock { state -> (Bool, [String]?) in
            state.queries.append((name: query.name, type: query.type))
            let match = state.records.first { Self.normalized($0.key) == query.name }
            return (state.silent, match?.value)
        }
        guard !silent else { return nil }
        return reply(to: query, question: Array(message[12 ..< query.questionEnd]), literals: literals)
    }

    /// The reply: NXDOMAIN when `literals` is nil, else one answer per literal of the asked type.
    static func reply(to query: Query, question: [UInt8], literals: [String]?) -> [UInt8] {
        var rdatas: [[UInt8]] = []
        for literal in literals ?? [] {
            switch query.type {
            case typeA:
                var address = in_addr()
                if inet_pton(AF_INET, literal, &address) == 1 { rdatas.append(withUnsafeBytes(of: address) { Array($0) }) }
            case typeAAAA:
                var address = in6_addr()
                if inet_pton(AF_INET6, literal, &address) == 1 { rdatas.append(withUnsafeBytes(of: address) { Array($0) }) }
            default:
                break
            }
        }
        func be16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
        let flags: UInt16 = literals == nil ? 0x8183 : 0x8180
        var out = be16(query.id) + be16(flags) + be16(1) + be16(UInt16(rdatas.count)) + be16(0) + be16(0)
        out += question
        for rdata in rdatas {
            // Appended in steps: one `+` chain is more than Swift 6.0's type checker solves in time.
            out += [0xC0, 0x0C] + be16(query.type) + be16(1)
            out += [0, 0, 0, 60] + be16(UInt16(rdata.count))
            out += rdata
        }
        return out
    }

    private static func normalized(_ name: String) -> String {
        var name = name.lowercased()
        while name.hasSuffix(".") { name.removeLast() }
        return name
    }
}

// MARK: - Self-tests

/// The responders against clients made in the same namespace (loopback only).
final class ResponderSelfTests: NamespaceTestCase {

    /// A socket of `type` made inside `ns`, connected to `address`:`port`, with
    /// receive/send timeouts of `timeout` ms (blocking I/O from the test's thread).
    /// The caller closes it.
    private func client(_ ns: TestNamespace, _ address: String, _ port: UInt16,
                        type: __socket_type = SOCK_STREAM, timeout: Int = 2000) throws -> Int32 {
        let typeValue = Int32(type.rawValue)
        let fd = try ns.onThreadInside { () throws(TestNamespace.ThreadError) -> Int32 in
            guard case (var storage, let length)? = ResponderSocket.socketAddress(address, port: port) else {
                throw TestNamespace.ThreadError(description: "bad address \(address)")
            }
            let fd = socket(Int32(storage.ss_family), typeValue | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { throw TestNamespace.ThreadError("client socket") }
            var time = timeval(tv_sec: timeout / 1000, tv_usec: (timeout % 1000) * 1000)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
            let rc = withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, length) }
            }
            guard rc == 0 else {
                let error = TestNamespace.ThreadError("connect \(address) port \(port)")
                close(fd)
                throw error
            }
            return fd
        }
        return fd
    }

    /// Reads until EOF, error or timeout.
    private func readAll(_ fd: Int32) -> (bytes: [UInt8], errno: Int32) {
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n > 0 { result += buffer[0 ..< n]; continue }
            return (result, n == 0 ? 0 : errno)
        }
    }

    private func writeAll(_ fd: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        XCTAssertEqual(write(fd, bytes, bytes.count), bytes.count, "write: \(String(cString: strerror(errno)))")
    }

    private func get(_ ns: TestNamespace, _ responder: HTTPResponder, path: String) throws -> String {
        let fd = try client(ns, responder.address, responder.port)
        defer { close(fd) }
        writeAll(fd, "GET \(path) HTTP/1.1\r\nHost: \(ResponderSocket.authority(responder.address, responder.port))\r\n\r\n")
        let (bytes, error) = readAll(fd)
        XCTAssertEqual(error, 0, "read: \(String(cString: strerror(error)))")
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Why `accepted` is waited for: a client's connect returns as soon as
    /// the kernel has queued the connection, before the responder's thread
    /// accepts it (PrivilegeTests read 1 of 2 once, in a loaded run).
    func testAClientsConnectReturnsBeforeTheResponderAcceptsIt() throws {
        let ns = try makeNamespace()
        let gate = DispatchSemaphore(value: 0)
        let responder = try TCPResponder(in: ns, address: "127.0.0.1", acceptGate: gate)
        let fd = try client(ns, "127.0.0.1", responder.port)
        defer { close(fd) }
        XCTAssertEqual(responder.accepted, 0, "connected, and not accepted yet")
        gate.signal()
        XCTAssertEqual(responder.waitForAccepted(1), 1)
    }

    func testTCPResponderAcceptsAndClosesOverIPv4AndIPv6() throws {
        let ns = try makeNamespace()
        for address in ["127.0.0.1", "::1"] {
            let responder = try TCPResponder(in: ns, address: address)
            XCTAssertNotEqual(responder.port, 0)
            for attempt in 1 ... 3 {
                let fd = try client(ns, address, responder.port)
                defer { close(fd) }
                let (bytes, error) = readAll(fd)
                XCTAssertEqual(bytes, [], address)
                XCTAssertEqual(error, 0, "\(address): expected EOF, got \(String(cString: strerror(error)))")
                XCTAssertEqual(responder.accepted, attempt, address)
            }
            let start = Date()
            responder.stop()
            responder.stop()
            XCTAssertLessThan(Date().timeIntervalSince(start), 1, "stop took too long")
            XCTAssertThrowsError(try { close(try client(ns, address, responder.port)) }(),
                                 "\(address): still listening after stop")
        }
        // Many responders created and stopped leave no thread or fd behind.
        func count(_ directory: String) -> Int {
            (try? FileManager.default.contentsOfDirectory(atPath: directory).count) ?? 0
        }
        let fdsBefore = count("/proc/self/fd")
        let threadsBefore = count("/proc/self/task")
        for _ in 0 ..< 20 {
            let responder = try TCPResponder(in: ns, address: "127.0.0.1", port: 0)
            _ = try HTTPResponder(in: ns, address: "::1")   // released at once: deinit stops it
            responder.stop()
        }
        let fdsAfter = count("/proc/self/fd")
        let threadsAfter = count("/proc/self/task")
        XCTAssertLessThanOrEqual(fdsAfter, fdsBefore + 2, "fds leaked: \(fdsBefore) → \(fdsAfter)")
        XCTAssertLessThanOrEqual(threadsAfter, threadsBefore + 2, "threads leaked: \(threadsBefore) → \(threadsAfter)")
    }

    func testHTTPResponderRecordsRequestsAndAnswersWhatItIsTold() throws {
        let ns = try makeNamespace()
        let responder = try HTTPResponder(in: ns, address: "127.0.0.1")
        defer { responder.stop() }

        let first = try get(ns, responder, path: "/generate_204")
        XCTAssertTrue(first.hasPrefix("HTTP/1.1 204 No Content\r\n"), first)
        XCTAssertEqual(first, "HTTP/1.1 204 No Content\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        XCTAssertEqual(responder.requests.count, 1)
        XCTAssertTrue(responder.requests.first?.hasPrefix("GET /generate_204 HTTP/1.1\r\n") == true, "\(responder.requests)")
        XCTAssertTrue(responder.requests.first?.hasSuffix("\r\n\r\n") == true)

        responder.response = .redirect(location: "http://portal.test/login")
        let second = try get(ns, responder, path: "/again")
        XCTAssertTrue(second.hasPrefix("HTTP/1.1 302 Found\r\n"), second)
        XCTAssertTrue(second.contains("\r\nLocation: http://portal.test/login\r\n"), second)
        XCTAssertEqual(responder.requests.count, 2)
        XCTAssertTrue(responder.requests.last?.hasPrefix("GET /again ") == true)

        responder.response = .raw(Array("garbage".utf8))
        XCTAssertEqual(try get(ns, responder, path: "/raw"), "garbage")

        // Silent: nothing comes back within the client's timeout; the next
        // connection is served as soon as the silent one's client closes.
        responder.response = .silent
        let silentClient = try client(ns, responder.address, responder.port, timeout: 300)
        writeAll(silentClient, "GET /silent HTTP/1.1\r\n\r\n")
        let (bytes, error) = readAll(silentClient)
        XCTAssertEqual(bytes, [])
        XCTAssertTrue(error == EAGAIN || error == EWOULDBLOCK, "expected a timeout, got \(String(cString: strerror(error)))")
        close(silentClient)
        responder.response = .status(200)
        let start = Date()
        XCTAssertTrue(try get(ns, responder, path: "/after").hasPrefix("HTTP/1.1 200 OK\r\n"))
        XCTAssertLessThan(Date().timeIntervalSince(start), 1)
        XCTAssertEqual(responder.requests.count, 5)

        // stop() ends a silent connection that is still held, promptly, and closes it.
        responder.response = .silent
        let held = try client(ns, responder.address, responder.port)
        defer { close(held) }
        writeAll(held, "GET /held HTTP/1.1\r\n\r\n")
        let deadline = Date().addingTimeInterval(2)
        while responder.requests.count < 6 && Date() < deadline { usleep(2000) }
        XCTAssertEqual(responder.requests.count, 6)
        let stopStart = Date()
        responder.stop()
        XCTAssertLessThan(Date().timeIntervalSince(stopStart), 1, "stop took too long")
        let (rest, restError) = readAll(held)
        XCTAssertEqual(rest, [])
        XCTAssertEqual(restError, 0, "expected EOF after stop, got \(String(cString: strerror(restError)))")
    }

    func testDNSResponderAnswersRecordsAndNXDOMAIN() throws {
        let ns = try makeNamespace()
        let responder = try DNSResponder(in: ns, address: "127.0.0.1")
        defer { responder.stop() }
        responder.records = ["Host.Test.": ["10.9.0.7", "10.9.0.8", "fd09::7"]]
        let fd = try client(ns, "127.0.0.1", responder.port, type: SOCK_DGRAM, timeout: 1000)
        defer { close(fd) }

        func query(_ id: UInt16, _ name: String, _ type: UInt16) -> [UInt8]? {
            var message: [UInt8] = [UInt8(id >> 8), UInt8(id & 0xFF), 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0]
            for label in name.split(separator: ".") { message += [UInt8(label.utf8.count)] + Array(label.utf8) }
            message += [0, UInt8(type >> 8), UInt8(type & 0xFF), 0, 1]
            guard send(fd, message, message.count, 0) == message.count else { return nil }
            var buffer = [UInt8](repeating: 0, count: 1500)
            let n = recv(fd, &buffer, buffer.count, 0)
            return n > 0 ? Array(buffer[0 ..< n]) : nil
        }
        func be16(_ bytes: [UInt8], _ at: Int) -> UInt16 { UInt16(bytes[at]) << 8 | UInt16(bytes[at + 1]) }

        let a = try XCTUnwrap(query(0x1234, "host.test", 1))
        XCTAssertEqual(be16(a, 0), 0x1234)
        XCTAssertEqual(be16(a, 2), 0x8180)
        XCTAssertEqual(be16(a, 4), 1)
        XCTAssertEqual(be16(a, 6), 2, "two A answers")
        let questionEnd = 12 + 11 + 4   // "\4host\4test\0" + type + class
        XCTAssertEqual(a.count, questionEnd + 2 * 16)
        XCTAssertEqual(Array(a[questionEnd ..< questionEnd + 16]),
                       [0xC0, 0x0C, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 10, 9, 0, 7])
        XCTAssertEqual(Array(a[questionEnd + 28 ..< questionEnd + 32]), [10, 9, 0, 8])

        let aaaa = try XCTUnwrap(query(0x2345, "HOST.test", 28))
        XCTAssertEqual(be16(aaaa, 2), 0x8180)
        XCTAssertEqual(be16(aaaa, 6), 1, "one AAAA answer")
        XCTAssertEqual(be16(aaaa, questionEnd + 10), 16)
        XCTAssertEqual(Array(aaaa[(questionEnd + 12)...]), [0xfd, 0x09] + [UInt8](repeating: 0, count: 13) + [7])

        let missing = try XCTUnwrap(query(0x3456, "missing.test", 1))
        XCTAssertEqual(be16(missing, 0), 0x3456)
        XCTAssertEqual(be16(missing, 2), 0x8183)
        XCTAssertEqual(be16(missing, 2) & 0xF, 3, "NXDOMAIN")
        XCTAssertEqual(be16(missing, 6), 0)
        XCTAssertEqual(missing.count, 12 + 14 + 4)

        // Malformed datagrams are ignored; the next query is still answered.
        XCTAssertEqual(send(fd, [1, 2, 3], 3, 0), 3)
        XCTAssertEqual(send(fd, [0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0xC0, 0x0C, 0, 1, 0, 1], 18, 0), 18)
        responder.silent = true
        XCTAssertNil(query(0x4567, "host.test", 1), "a silent responder answered")
        responder.silent = false
        XCTAssertEqual(try XCTUnwrap(query(0x5678, "host.test", 1)).prefix(2), [0x56, 0x78])

        let recorded = responder.queries.map { "\($0.name)/\($0.type)" }
        XCTAssertEqual(recorded, ["host.test/1", "host.test/28", "missing.test/1", "host.test/1", "host.test/1"])
    }
}
