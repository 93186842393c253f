// Real-kernel fixtures: a network namespace per test, built with `ip`, and an
// independent oracle (`ip route get`, IPRouteAnswer) to check the library's
// answers against.
//
// The tests send no packets. They only create links, addresses, routes and
// rules inside namespaces they own, and ask the kernel's FIB (`RTM_GETROUTE`
// sends nothing on the wire). The host's interfaces are never touched.

import CReachability
import Foundation
import ReachabilityTesting   // runCommand, CommandResult, ipExecutable
import Synchronization
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// A network namespace owned by one test: `reach-it-<pid>-<counter>-<random>`,
/// with `lo` up. Create it through `NamespaceTestCase.makeNamespace()`, which
/// guarantees its removal however the test ends.
package final class TestNamespace: @unchecked Sendable {
    package static let prefix = "reach-it-"
    private static let counter = Atomic<Int>(0)

    package let name: String
    private let ip: URL
    private let destroyed = Mutex(false)

    package enum SetupError: Error, CustomStringConvertible {
        case noIP
        case cannotCreate(name: String, stderr: String)

        package var description: String {
            switch self {
            case .noIP: return "iproute2's `ip` is not installed"
            case let .cannotCreate(name, stderr): return "`ip netns add \(name)` failed: \(stderr)"
            }
        }
    }

    /// Creates the namespace and brings `lo` up.
    package init() throws {
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
    package func run(_ args: [String], file: StaticString = #filePath, line: UInt = #line) -> CommandResult {
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
    package func run(_ commands: String..., file: StaticString = #filePath, line: UInt = #line) {
        for command in commands {
            run(command.split(separator: " ").map(String.init), file: file, line: line)
        }
    }

    /// A veth pair `name` (with `address`) ⟷ `peer`, both up, `name` operational.
    package func addVethPair(_ name: String, peer: String, address: String, file: StaticString = #filePath, line: UInt = #line) {
        run("link add \(name) type veth peer name \(peer)",
            "addr add \(address) dev \(name)",
            "link set \(name) up",
            "link set \(peer) up", file: file, line: line)
        waitForState(name, "UP", file: file, line: line)
    }

    /// `ip -n NAME -d [-6] route get ADDR EXTRA...`, parsed (`-d` makes ip show
    /// the main table too). A refusal is an answer, not a failure.
    package func routeGet(_ address: String, extra: [String] = [], file: StaticString = #filePath, line: UInt = #line) -> IPRouteAnswer {
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
    package func linkLine(_ device: String) -> String {
        (try? runCommand(ip, ["-n", name, "-o", "link", "show", "dev", device]).stdout) ?? ""
    }

    /// Waits (up to `timeout`) until `ip link show dev DEV` satisfies `condition`:
    /// operstate changes reach netlink through the kernel's linkwatch work, a
    /// little after the command that caused them. Fails the test on timeout.
    @discardableResult
    package func waitForLink(_ device: String, timeout: TimeInterval = 5, file: StaticString = #filePath, line: UInt = #line,
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
    package func waitForLocalRoute(_ address: String, timeout: TimeInterval = 5, file: StaticString = #filePath,
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
    package func waitForState(_ device: String, _ state: String, file: StaticString = #filePath, line: UInt = #line) -> Bool {
        waitForLink(device, file: file, line: line, "state \(state)") { $0.contains(" state \(state) ") }
    }

    package struct ThreadError: Error, CustomStringConvertible {
        package var description: String
        /// The failed step with the thread's errno text.
        package init(_ step: String) { description = "\(step): \(String(cString: strerror(errno)))" }
        package init(description: String) { self.description = description }
    }

    /// Runs `body` on a throwaway thread that entered this namespace first
    /// (setns moves only the calling thread): sockets, /dev/net/tun and
    /// /proc/sys/net opened there belong to the namespace, while the test's own
    /// threads never leave the host's.
    package func onThreadInside<T: Sendable>(_ body: @escaping @Sendable () throws(ThreadError) -> T) throws(ThreadError) -> T {
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
    package func sendNetlink(_ message: [UInt8], toPort portID: UInt32) throws(ThreadError) {
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
    package func linkControl() throws(ThreadError) -> LinkControl {
        LinkControl(fd: try onThreadInside { () throws(ThreadError) -> Int32 in
            let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { throw ThreadError("socket") }
            return fd
        })
    }

    /// Writes a sysctl of this namespace (`net.ipv6.conf.default.addr_gen_mode` → /proc/sys/net/ipv6/conf/default/addr_gen_mode).
    package func setSysctl(_ key: String, _ value: String) throws(ThreadError) {
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
    package func attachTun(_ device: String) throws(ThreadError) -> Int32 {
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
    package func destroy() {
        let already = destroyed.withLock { done -> Bool in
            defer { done = true }
            return done
        }
        guard !already else { return }
        _ = try? runCommand(ip, ["netns", "delete", name])
    }

    /// Names of all namespaces that currently exist.
    package static func existingNames() -> [String] {
        guard let ip = ipExecutable, let result = try? runCommand(ip, ["netns", "list"]) else { return [] }
        return result.stdoutLines.compactMap { $0.split(separator: " ").first.map(String.init) }
    }

    /// Removes namespaces left by earlier runs of this suite whose process is
    /// gone (a crash skips teardown). Namespaces of live processes — parallel
    /// runs — are left alone.
    package static func removeStale() {
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
