// Real-kernel fixtures: a network namespace per test, built with `ip`, and an
// independent oracle (`ip route get`) to check the library's answers against.
//
// The tests send no packets. They only create links, addresses, routes and
// rules inside namespaces they own, and ask the kernel's FIB (`RTM_GETROUTE`
// sends nothing on the wire). The host's interfaces are never touched.

import CReachability
import CTestSupport
import Foundation
import LinuxReachability
// runCommand, CommandResult and ipExecutable: the sandbox's, shared (package access).
import ReachabilityTesting
import Synchronization
import XCTest

#if canImport(Glibc)
import Glibc
#endif

// MARK: - Running commands

/// A process left running (`reach watch`), its output collected as it comes.
///
/// Each pipe is drained by a blocking `read(2)` loop on its own thread, not by
/// `FileHandle.readabilityHandler`: tearing down the libdispatch read source
/// behind that handler races the descriptor's close and intermittently crashes
/// the test process in `_dispatch_event_loop_drain` (swift-corelibs-libdispatch
/// issue 949). A blocking read registers nothing with libdispatch's epoll loop.
final class RunningProcess: @unchecked Sendable {
    private let process = Process()
    private final class Output: Sendable {
        let state = Mutex<(lines: [String], partial: String, stderr: String)>(([], "", ""))
    }
    private let output = Output()
    private let readers = DispatchGroup()
    /// The child's standard input, when it was started with `input: true`.
    private let input: FileHandle?

    init(_ executable: URL, _ arguments: [String], input: Bool = false) throws {
        process.executableURL = executable
        process.arguments = arguments
        let out = Pipe(), err = Pipe(), inputPipe = input ? Pipe() : nil
        process.standardOutput = out
        process.standardError = err
        process.standardInput = inputPipe ?? FileHandle.nullDevice
        self.input = inputPipe?.fileHandleForWriting
        do {
            try process.run()
        } catch {
            throw CommandError.launchFailed(([executable.path] + arguments).joined(separator: " "), error)
        }
        // The child has its copies; closing ours lets the readers see EOF.
        try? out.fileHandleForWriting.close()
        try? err.fileHandleForWriting.close()
        try? inputPipe?.fileHandleForReading.close()
        drain(out.fileHandleForReading) { [output] text in
            output.state.withLock { state in
                var pieces = (state.partial + text).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                state.partial = pieces.removeLast()
                state.lines += pieces.filter { !$0.isEmpty }
            }
        }
        drain(err.fileHandleForReading) { [output] text in
            output.state.withLock { $0.stderr += text }
        }
    }

    /// Reads `handle` until end of file on a thread of its own, handing each
    /// chunk to `body`; the handle (and its descriptor) lives until then.
    private func drain(_ handle: FileHandle, _ body: @escaping @Sendable (String) -> Void) {
        readers.enter()
        let thread = Thread { [readers] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(handle.fileDescriptor, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                body(String(decoding: buffer[..<count], as: UTF8.self))
            }
            try? handle.close()
            readers.leave()
        }
        thread.start()
    }

    /// Writes `line` and a newline to the child's standard input (started with `input: true`).
    func send(_ line: String) {
        input?.write(Data((line + "\n").utf8))
    }

    var lines: [String] { output.state.withLock { $0.lines } }
    var stderr: String { output.state.withLock { $0.stderr } }
    var isRunning: Bool { process.isRunning }
    var pid: Int32 { process.processIdentifier }

    /// Waits until `count` lines were printed (or `timeout`); returns the lines so far.
    func waitForLines(_ count: Int, timeout: TimeInterval = 5) -> [String] {
        let deadline = Date().addingTimeInterval(timeout)
        while lines.count < count && Date() < deadline { usleep(2000) }
        return lines
    }

    /// The exit status, or nil when it is still running after `timeout`.
    func waitForExit(timeout: TimeInterval) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(2000) }
        if process.isRunning { return nil }
        _ = readers.wait(timeout: .now() + 5)   // the output it left in the pipes
        return process.terminationStatus
    }

    /// Stops the process (SIGTERM; SIGKILL when it is still running 10 s
    /// later: a command that ignores SIGTERM, or hangs in its stop, must not
    /// hang the suite) and waits for it and for the last of its output.
    func terminate() {
        try? input?.close()
        if process.isRunning {
            process.terminate()
            if waitForExit(timeout: 10) == nil {
                kill(process.processIdentifier, SIGKILL)
                print("RunningProcess: pid \(process.processIdentifier) ignored SIGTERM for 10 s; sent SIGKILL")
            }
        }
        process.waitUntilExit()
        _ = readers.wait(timeout: .now() + 5)
    }
}

// MARK: - `ip route get`, parsed

/// One answer of `ip route get`, as iproute2 prints it: the route's fields, or
/// the kernel's refusal ("Network is unreachable", "No route to host",
/// "Permission denied", "Invalid argument").
struct IPRouteAnswer: Equatable, CustomStringConvertible {
    /// `unicast`, `local`, `broadcast`, `multicast`, `anycast`, ... (ip omits
    /// `unicast`; it is filled in here); nil when the lookup was refused.
    var type: String?
    var destination: String?
    var dev: String?
    var via: String?
    var src: String?
    /// `table` as `ip -d` shows it (it omits only table 0: an oif lookup that
    /// matched no route answers with no table).
    var table: String?
    /// The refusal text, without ip's "RTNETLINK answers: " prefix.
    var error: String?
    /// The raw output, for failure messages.
    var raw: String

    /// The table number: ip's names mapped (local 255, main 254, default 253), 0 when not shown.
    var tableNumber: UInt32? {
        guard error == nil else { return nil }
        switch table {
        case nil: return 0
        case "main": return 254
        case "local": return 255
        case "default": return 253
        case let text?: return UInt32(text)
        }
    }

    var description: String { raw.trimmingCharacters(in: .whitespacesAndNewlines) }

    static let routeTypes: Set<String> = [
        "unicast", "local", "broadcast", "multicast", "anycast", "unreachable", "blackhole", "prohibit", "throw", "nat",
    ]

    /// Parses ip's output (first line: `[TYPE] DEST [from SRC] [via [FAMILY] GW] dev DEV [table T] [src S] ...`;
    /// plain `ip` omits the type `unicast`, `ip -d` prints it)
    /// or, when it failed, its error text.
    init(status: Int32, stdout: String, stderr: String) {
        raw = stdout + stderr
        guard status == 0 else {
            let line = stderr.split(separator: "\n").first.map(String.init) ?? ""
            let prefixes = ["RTNETLINK answers: ", "Error: "]
            var text = line
            for prefix in prefixes where text.hasPrefix(prefix) { text = String(text.dropFirst(prefix.count)) }
            error = text.trimmingCharacters(in: .whitespaces)
            return
        }
        let firstLine = stdout.split(separator: "\n").first.map(String.init) ?? ""
        var tokens = firstLine.split(separator: " ", omittingEmptySubsequences: true).map(String.init)[...]
        if let first = tokens.first, Self.routeTypes.contains(first) {
            type = first
            tokens = tokens.dropFirst()
        } else {
            type = "unicast"
        }
        destination = tokens.popFirst()
        while let key = tokens.popFirst() {
            switch key {
            case "via":
                var value = tokens.popFirst()
                if value == "inet" || value == "inet6" { value = tokens.popFirst() }
                via = value
            case "dev": dev = tokens.popFirst()
            case "src": src = tokens.popFirst()
            case "table": table = tokens.popFirst()
            case "from", "uid", "mark", "proto", "metric", "pref", "iif", "oif", "tos", "expires", "mtu", "scope",
                 "realms", "hoplimit", "error":
                _ = tokens.popFirst()
            default:
                break   // flags without a value: linkdown, onlink, rt_offload_failed, ...
            }
        }
    }
}

// MARK: - The namespace

/// A network namespace owned by one test: `reach-it-<pid>-<counter>-<random>`,
/// with `lo` up. Create it through `NamespaceTestCase.makeNamespace()`, which
/// guarantees its removal however the test ends.
final class TestNamespace: @unchecked Sendable {
    static let prefix = "reach-it-"
    private static let counter = Atomic<Int>(0)

    let name: String
    private let ip: URL
    private let destroyed = Mutex(false)

    enum SetupError: Error, CustomStringConvertible {
        case noIP
        case cannotCreate(name: String, stderr: String)

        var description: String {
            switch self {
            case .noIP: return "iproute2's `ip` is not installed"
            case let .cannotCreate(name, stderr): return "`ip netns add \(name)` failed: \(stderr)"
            }
        }
    }

    /// Creates the namespace and brings `lo` up.
    init() throws {
        guard let ip = ipExecutable else { throw SetupError.noIP }
        self.ip = ip
        let count = Self.counter.wrappingAdd(1, ordering: .relaxed).newValue
        name = "\(Self.prefix)\(getpid())-\(count)-\(UInt32.random(in: 0 ... UInt32.max))"
        let added = try runCommand(ip, ["netns", "add", name])
        guard added.status == 0 else {
            throw SetupError.cannotCreate(name: name, stderr: added.stderr.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        // Keep the links quiet: no automatic IPv6 link-local address means no
        // duplicate-address probe and no router solicitation when a link comes
        // up (tests that use IPv6 add their addresses with `nodad`). Best
        // effort: a kernel without IPv6 has no such files.
        try? setSysctl("net.ipv6.conf.default.addr_gen_mode", "1")
        try? setSysctl("net.ipv6.conf.default.router_solicitations", "0")
        try? setSysctl("net.ipv6.conf.default.accept_dad", "0")
        let lo = try runCommand(ip, ["-n", name, "link", "set", "lo", "up"])
        guard lo.status == 0 else {
            destroy()
            throw SetupError.cannotCreate(name: name, stderr: "lo up: " + lo.stderr)
        }
    }

    /// Runs `ip -n NAME ARGS...`; a non-zero exit fails the calling test with the command and its stderr.
    @discardableResult
    func run(_ args: [String], file: StaticString = #filePath, line: UInt = #line) -> CommandResult {
        let command = "ip -n \(name) " + args.joined(separator: " ")
        do {
            let result = try runCommand(ip, ["-n", name] + args)
            if result.status != 0 {
                XCTFail("`\(command)` exited \(result.status): \(result.stderr.trimmingCharacters(in: .whitespacesAndNewlines))",
                        file: file, line: line)
            }
            return result
        } catch {
            XCTFail("`\(command)`: \(error)", file: file, line: line)
            return CommandResult(status: -1, stdout: "", stderr: "\(error)")
        }
    }

    /// Runs several `ip` commands, each given as one string split on spaces.
    func run(_ commands: String..., file: StaticString = #filePath, line: UInt = #line) {
        for command in commands {
            run(command.split(separator: " ").map(String.init), file: file, line: line)
        }
    }

    /// A veth pair `name` (with `address`) ⟷ `peer`, both up, `name` operational.
    func addVethPair(_ name: String, peer: String, address: String, file: StaticString = #filePath, line: UInt = #line) {
        run("link add \(name) type veth peer name \(peer)",
            "addr add \(address) dev \(name)",
            "link set \(name) up",
            "link set \(peer) up", file: file, line: line)
        waitForState(name, "UP", file: file, line: line)
    }

    /// `ip -n NAME -d [-6] route get ADDR EXTRA...`, parsed (`-d` makes ip show
    /// the main table too). A refusal is an answer, not a failure.
    func routeGet(_ address: String, extra: [String] = [], file: StaticString = #filePath, line: UInt = #line) -> IPRouteAnswer {
        var args = ["-n", name, "-d"]
        if address.contains(":") { args.append("-6") }
        args += ["route", "get", address] + extra
        do {
            let result = try runCommand(ip, args)
            return IPRouteAnswer(status: result.status, stdout: result.stdout, stderr: result.stderr)
        } catch {
            XCTFail("ip \(args.joined(separator: " ")): \(error)", file: file, line: line)
            return IPRouteAnswer(status: -1, stdout: "", stderr: "\(error)")
        }
    }

    /// The `ip -o link show dev DEV` line (flags in `<...>`, `state X`).
    func linkLine(_ device: String) -> String {
        (try? runCommand(ip, ["-n", name, "-o", "link", "show", "dev", device]).stdout) ?? ""
    }

    /// Waits (up to `timeout`) until `ip link show dev DEV` satisfies `condition`:
    /// operstate changes reach netlink through the kernel's linkwatch work, a
    /// little after the command that caused them. Fails the test on timeout.
    @discardableResult
    func waitForLink(_ device: String, timeout: TimeInterval = 5, file: StaticString = #filePath, line: UInt = #line,
                     _ what: String, until condition: (String) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        var current = linkLine(device)
        while !condition(current) {
            if Date() > deadline {
                XCTFail("\(device) never became \(what) within \(timeout)s: \(current)", file: file, line: line)
                return false
            }
            Thread.sleep(forTimeInterval: 0.02)
            current = linkLine(device)
        }
        return true
    }

    /// Waits until the kernel routes `address` (one of this namespace's IPv6
    /// addresses) as `local`: an address added with `nodad` gets its local
    /// route from the DAD work, a kworker's, a moment after `ip addr add`
    /// returns (RouteScenarioTests read the on-link route once, in a loaded run).
    @discardableResult
    func waitForLocalRoute(_ address: String, timeout: TimeInterval = 5, file: StaticString = #filePath,
                           line: UInt = #line) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        var answer = routeGet(address, file: file, line: line)
        while answer.type != "local" {
            if Date() > deadline {
                XCTFail("\(address) never became local within \(timeout)s: \(answer.raw)", file: file, line: line)
                return false
            }
            Thread.sleep(forTimeInterval: 0.002)
            answer = routeGet(address, file: file, line: line)
        }
        return true
    }

    /// Waits until DEV's operstate is `state` (`UP`, `DOWN`, `LOWERLAYERDOWN`, `UNKNOWN`).
    @discardableResult
    func waitForState(_ device: String, _ state: String, file: StaticString = #filePath, line: UInt = #line) -> Bool {
        waitForLink(device, file: file, line: line, "state \(state)") { $0.contains(" state \(state) ") }
    }

    struct ThreadError: Error, CustomStringConvertible {
        var description: String
        /// The failed step with the thread's errno text.
        init(_ step: String) { description = "\(step): \(String(cString: strerror(errno)))" }
        init(description: String) { self.description = description }
    }

    /// Runs `body` on a throwaway thread that entered this namespace first
    /// (setns moves only the calling thread): sockets, /dev/net/tun and
    /// /proc/sys/net opened there belong to the namespace, while the test's own
    /// threads never leave the host's.
    func onThreadInside<T: Sendable>(_ body: @escaping @Sendable () throws(ThreadError) -> T) throws(ThreadError) -> T {
        let result = Mutex<Result<T, ThreadError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let namespaceName = name
        let thread = Thread {
            defer { done.signal() }
            let outcome = Result { () throws(ThreadError) -> T in
                let nsfd = creach_netns_open(namespaceName)
                guard nsfd >= 0 else { throw ThreadError("open netns \(namespaceName)") }
                defer { close(nsfd) }
                guard creach_netns_enter_thread(nsfd) == 0 else { throw ThreadError("setns \(namespaceName)") }
                return try body()
            }
            result.withLock { $0 = outcome }
        }
        thread.start()
        guard done.wait(timeout: .now() + 10) == .success else { throw ThreadError(description: "namespace thread hung") }
        return try result.withLock { $0! }.get()
    }

    /// Sends `message` to the netlink socket with port id `portID`, from a
    /// NETLINK_ROUTE socket of this process inside the namespace: a unicast
    /// whose sender is a process (`nl_pid` not 0), never the kernel.
    func sendNetlink(_ message: [UInt8], toPort portID: UInt32) throws(ThreadError) {
        try onThreadInside { () throws(ThreadError) in
            let fd = socket(AF_NETLINK, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), NETLINK_ROUTE)
            guard fd >= 0 else { throw ThreadError("socket") }
            defer { close(fd) }
            var address = sockaddr_nl()
            address.nl_family = sa_family_t(AF_NETLINK)
            address.nl_pid = portID
            let sent = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, message, message.count, 0, $0, socklen_t(MemoryLayout<sockaddr_nl>.size))
                }
            }
            guard sent == message.count else { throw ThreadError("sendto") }
        }
    }

    /// A socket of this namespace for switching its links up and down.
    func linkControl() throws(ThreadError) -> LinkControl {
        LinkControl(fd: try onThreadInside { () throws(ThreadError) -> Int32 in
            let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { throw ThreadError("socket") }
            return fd
        })
    }

    /// Writes a sysctl of this namespace (`net.ipv6.conf.default.addr_gen_mode` → /proc/sys/net/ipv6/conf/default/addr_gen_mode).
    func setSysctl(_ key: String, _ value: String) throws(ThreadError) {
        let path = "/proc/sys/" + key.replacingOccurrences(of: ".", with: "/")
        try onThreadInside { () throws(ThreadError) in
            let fd = open(path, O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else { throw ThreadError("open \(path)") }
            defer { close(fd) }
            let bytes = Array((value + "\n").utf8)
            guard write(fd, bytes, bytes.count) == bytes.count else { throw ThreadError("write \(path)") }
        }
    }

    /// Attaches this process to the persistent tun device `device` of the
    /// namespace (which gives it carrier) and returns the queue's fd; closing it
    /// detaches. /dev/net/tun binds to the network namespace of whoever opens
    /// it, and TUNSETIFF looks the name up there, so both run on a thread
    /// inside the namespace; the host's interfaces are never touched.
    func attachTun(_ device: String) throws(ThreadError) -> Int32 {
        try onThreadInside { () throws(ThreadError) -> Int32 in
            let fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC)
            guard fd >= 0 else { throw ThreadError("open /dev/net/tun") }
            // struct ifreq: ifr_name[IFNAMSIZ] then the union; ifr_flags is a short at offset 16.
            var request = [UInt8](repeating: 0, count: 40)
            for (i, byte) in device.utf8.prefix(15).enumerated() { request[i] = byte }
            let flags: Int16 = 0x0001 | 0x1000   // IFF_TUN | IFF_NO_PI
            withUnsafeBytes(of: flags) { request[16] = $0[0]; request[17] = $0[1] }
            let tunSetIff: UInt = 0x4004_54CA     // TUNSETIFF = _IOW('T', 202, int)
            let rc = request.withUnsafeMutableBytes { ioctl(fd, tunSetIff, $0.baseAddress!) }
            guard rc == 0 else {
                let error = ThreadError("TUNSETIFF \(device)")
                close(fd)
                throw error
            }
            return fd
        }
    }

    /// Deletes the namespace (once; later calls do nothing).
    func destroy() {
        let already = destroyed.withLock { done -> Bool in
            defer { done = true }
            return done
        }
        guard !already else { return }
        _ = try? runCommand(ip, ["netns", "delete", name])
    }

    /// Names of all namespaces that currently exist.
    static func existingNames() -> [String] {
        guard let ip = ipExecutable, let result = try? runCommand(ip, ["netns", "list"]) else { return [] }
        return result.stdoutLines.compactMap { $0.split(separator: " ").first.map(String.init) }
    }

    /// Removes namespaces left by earlier runs of this suite whose process is
    /// gone (a crash skips teardown). Namespaces of live processes — parallel
    /// runs — are left alone.
    static func removeStale() {
        guard let ip = ipExecutable else { return }
        for name in existingNames() where name.hasPrefix(prefix) {
            let rest = name.dropFirst(prefix.count)
            guard let pidText = rest.split(separator: "-").first, let pid = Int32(pidText) else { continue }
            if pid != getpid() && kill(pid, 0) != 0 && errno == ESRCH {
                _ = try? runCommand(ip, ["netns", "delete", name])
            }
        }
    }
}

// MARK: - Base class

/// Thrown after `XCTFail` to end a test that cannot run.
/// A socket opened inside a namespace: interface ioctls on it act on that
/// namespace's links (a socket keeps the namespace it was made in), from any
/// thread, without a thread per change.
final class LinkControl: Sendable {
    let fd: Int32
    init(fd: Int32) { self.fd = fd }
    deinit { close(fd) }

    /// Sets or clears IFF_UP of `device`; returns CLOCK_MONOTONIC just before
    /// the change (the start of a latency measurement).
    @discardableResult
    func set(_ device: String, up: Bool) throws(TestNamespace.ThreadError) -> UInt64 {
        // struct ifreq: ifr_name[16], then ifr_flags (a short) at offset 16.
        var request = [UInt8](repeating: 0, count: 40)
        for (i, byte) in device.utf8.prefix(15).enumerated() { request[i] = byte }
        let getFlags: UInt = 0x8913, setFlags: UInt = 0x8914   // SIOCGIFFLAGS, SIOCSIFFLAGS
        guard request.withUnsafeMutableBytes({ ioctl(fd, getFlags, $0.baseAddress!) }) == 0 else {
            throw TestNamespace.ThreadError("SIOCGIFFLAGS \(device)")
        }
        var flags = UInt16(request[16]) | UInt16(request[17]) << 8
        flags = up ? flags | 1 : flags & ~1                    // IFF_UP
        request[16] = UInt8(flags & 0xFF)
        request[17] = UInt8(flags >> 8)
        let start = creach_monotonic_ns()
        guard request.withUnsafeMutableBytes({ ioctl(fd, setFlags, $0.baseAddress!) }) == 0 else {
            throw TestNamespace.ThreadError("SIOCSIFFLAGS \(device)")
        }
        return start
    }
}

struct TestStopped: Error, CustomStringConvertible {
    let reason: String
    var description: String { "test stopped: \(reason)" }
}

class NamespaceTestCase: XCTestCase {
    static let requireEnvironment = "REACH_REQUIRE_NETNS"

    override class func setUp() {
        super.setUp()
        if geteuid() == 0 { TestNamespace.removeStale() }
    }

    /// Skips the test when it cannot make namespaces (not root), or fails it
    /// when REACH_REQUIRE_NETNS=1 says that it must run.
    func requireRoot(file: StaticString = #filePath, line: UInt = #line) throws {
        guard geteuid() != 0 else { return }
        try unavailable("needs root to create network namespaces (euid \(geteuid()))", file: file, line: line)
    }

    private func unavailable(_ reason: String, file: StaticString, line: UInt) throws -> Never {
        if ProcessInfo.processInfo.environment[Self.requireEnvironment] == "1" {
            XCTFail("\(reason); this test needs root (\(Self.requireEnvironment)=1)", file: file, line: line)
            throw TestStopped(reason: reason)
        }
        throw XCTSkip("\(reason): run as root or set \(Self.requireEnvironment)=1 to make this a failure",
                      file: file, line: line)
    }

    /// A fresh namespace, deleted when the test ends, pass or fail.
    /// /etc/netns/NAME/FILE for the test's namespace (as `ip netns exec` shows
    /// them), removed when the test ends.
    func configureNetns(_ ns: TestNamespace, _ files: [String: String]) throws {
        let directory = "/etc/netns/\(ns.name)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: directory) }
        for (name, text) in files { try text.write(toFile: "\(directory)/\(name)", atomically: true, encoding: .utf8) }
    }

    func makeNamespace(file: StaticString = #filePath, line: UInt = #line) throws -> TestNamespace {
        try requireRoot(file: file, line: line)
        let namespace: TestNamespace
        do {
            namespace = try TestNamespace()
        } catch {
            try unavailable("cannot create a network namespace: \(error)", file: file, line: line)
        }
        addTeardownBlock { namespace.destroy() }
        return namespace
    }

    /// An evaluator bound to `namespace`; a failure to open it fails the test.
    /// A namespace (lo only) in which resolving a name cannot send a packet:
    /// nsswitch uses only files/dns, no resolver daemon socket exists, and no
    /// name server of resolv.conf is routable there, so the resolver's connect
    /// fails before anything is built. Skips the test otherwise.
    func makeNamespaceWhereDNSCannotLeave(file: StaticString = #filePath, line: UInt = #line) throws -> TestNamespace {
        let nsswitch = (try? String(contentsOfFile: "/etc/nsswitch.conf", encoding: .utf8)) ?? ""
        let hostsLine = nsswitch.split(separator: "\n").first { $0.hasPrefix("hosts:") }
        let sources = hostsLine.map { $0.dropFirst("hosts:".count).split(whereSeparator: { $0 == " " || $0 == "\t" }) } ?? []
        let foreign = sources.filter { !$0.hasPrefix("[") && $0 != "files" && $0 != "dns" }
        guard hostsLine != nil, foreign.isEmpty else {
            throw XCTSkip("nsswitch hosts uses \(foreign.map(String.init)): a lookup could leave the namespace")
        }
        for socket in ["/var/run/nscd/socket", "/run/nscd/socket", "/run/systemd/resolve/io.systemd.Resolve"]
        where FileManager.default.fileExists(atPath: socket) {
            throw XCTSkip("\(socket) exists: a resolver daemon could query DNS from the host namespace")
        }
        let resolvConf = (try? String(contentsOfFile: "/etc/resolv.conf", encoding: .utf8)) ?? ""
        var servers = resolvConf.split(separator: "\n").compactMap { line -> String? in
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            return fields.count >= 2 && fields[0] == "nameserver" ? String(fields[1]) : nil
        }
        if servers.isEmpty { servers = ["127.0.0.1", "::1"] }   // glibc's default

        let ns = try makeNamespace(file: file, line: line)
        for server in servers {
            let route = ns.routeGet(server, file: file, line: line)
            guard route.error != nil else {
                throw XCTSkip("name server \(server) is routable in the test namespace (\(route)): a query could be sent")
            }
        }
        return ns
    }

    func makeEvaluator(_ namespace: TestNamespace, overrides: [String] = [],
                       file: StaticString = #filePath, line: UInt = #line) throws -> ReachabilityEvaluator {
        do {
            let rules = try overrides.map { (text) throws(ReachabilityError) in try InterfaceKindOverride(parsing: text) }
            return try ReachabilityEvaluator(namespace: .named(namespace.name), kindOverrides: rules)
        } catch {
            XCTFail("cannot open an evaluator in \(namespace.name): \(error)", file: file, line: line)
            throw TestStopped(reason: "\(error)")
        }
    }

    /// Live threads of this process named `name` (`reach.monitor`,
    /// `reach.tracker`); a joined thread still leaving the kernel's task list
    /// is not one (test_live_threads).
    func threads(named name: String) -> Int {
        Int(test_live_threads(name, 0))
    }

    /// Attaches to a tun device in `namespace`; the fd is closed (detaching) when the test ends.
    func attachTun(_ device: String, in namespace: TestNamespace) throws -> Int32 {
        let fd = try namespace.attachTun(device)
        addTeardownBlock { close(fd) }
        return fd
    }
}
