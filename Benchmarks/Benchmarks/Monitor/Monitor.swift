// Kernel-timed measurements of ReachabilityMonitor, against real network
// namespaces (needs root):
//
//   1. change latency above the kernel's first message of the change, for
//      a link flap (IFF_UP of a veth flipped with an ioctl) and a route change
//      (the default route moved to another uplink and back), both where the
//      monitor stamped the change (its CLOCK_MONOTONIC timestamp) and where
//      the observer received it: an `onChange` callback on the monitor's
//      thread, one on a Dispatch queue, the `changes()` stream, and the lines
//      of `reach watch --json`; link flaps again over background route churn
//      (settleTime 5 ms, maximumSettleTime 50 ms), and with settleTime 0;
//      with `targets`, the same changes for each kind of target (an address,
//      a host name, the internet) and each delivery of the engine (issue 41);
//   2. start-to-first-answer and RSS of a fresh process against 0, 10k and
//      100k routes (and after 1000 route changes);
//   3. CPU of this process to absorb a burst of 100k route notifications.
//
//   Monitor [--flaps N] [--route-changes N] [--churn-flaps N] [--churn-interval-us N]
//           [--reach PATH | --no-reach] [--quick] [--latency-only] [--glib GLIB-MONITOR] --output PATH.json
//   Monitor targets [--flaps N] [--route-changes N] [--reach PATH | --no-reach] --output PATH.json
//   Monitor child-rss --netns NAME          (internal: one sample of 2.)
//
// Every namespace is `reach-bench-<pid>-<n>`, with a hosts file of its own
// (/etc/netns/<name>/hosts, for the host-name targets); both are deleted
// before exiting, on success, on failure and on SIGINT/SIGTERM. No packet is
// sent: the monitor only asks the kernel's FIB, and the names resolve from
// that file.

import CBenchLimits
import Dispatch
import Foundation
import Network
import LinuxReachability
import ReachabilityCompatSupport
import Synchronization
import SystemConfiguration

#if canImport(Glibc)
import Glibc
#endif

// MARK: - Small system helpers


func milliseconds(_ nanoseconds: UInt64) -> Double { Double(nanoseconds) / 1e6 }

/// Rounded to the microsecond, for a readable report.
func rounded(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }

/// user + system CPU of this process, in milliseconds.
func cpuMilliseconds() -> Double {
    var usage = rusage()
    getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
    func ms(_ time: timeval) -> Double { Double(time.tv_sec) * 1000 + Double(time.tv_usec) / 1000 }
    return ms(usage.ru_utime) + ms(usage.ru_stime)
}

/// VmRSS of this process in kB, from /proc/self/status.
func residentKilobytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
        if fields.count >= 2, let value = Int(fields[1]) { return value }
    }
    return -1
}

/// The uname fields: (`sysname nodename release version machine`, release).
func hostDescription() -> (String, String) {
    var names = utsname()
    uname(&names)
    func field<T>(_ value: T) -> String {
        withUnsafeBytes(of: value) { bytes in
            String(decoding: bytes.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
    }
    let release = field(names.release)
    let host = [field(names.sysname), field(names.nodename), release, field(names.version), field(names.machine)]
        .joined(separator: " ")
    return (host, release)
}

func percentile(_ values: [Double], _ fraction: Double) -> Double {
    guard !values.isEmpty else { return .nan }
    let sorted = values.sorted()
    let rank = Int((fraction * Double(sorted.count)).rounded(.up))   // nearest rank
    return sorted[min(max(rank, 1), sorted.count) - 1]
}

func median(_ values: [Double]) -> Double {
    guard !values.isEmpty else { return .nan }
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

func log(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

// MARK: - Failing loudly, cleaning up always

struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Deletes every namespace this process made, then exits 1.
func fail(_ message: String) -> Never {
    log("Monitor benchmark failed: \(message)")
    Namespaces.shared.deleteAll()
    exit(1)
}

// MARK: - Commands

let ipPath: String = {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
    let directories = path.split(separator: ":").map(String.init) + ["/usr/sbin", "/sbin", "/usr/bin", "/bin"]
    for directory in directories where FileManager.default.isExecutableFile(atPath: directory + "/ip") {
        return directory + "/ip"
    }
    return "/usr/sbin/ip"
}()

struct CommandResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Starts `executable` with both pipes drained concurrently; `wait()` collects the result.
final class RunningCommand: @unchecked Sendable {
    let process = Process()
    let commandLine: String
    private let group = DispatchGroup()
    private let output = Mutex<(Data, Data)>((Data(), Data()))

    init(_ executable: String, _ arguments: [String]) throws {
        commandLine = ([executable] + arguments).joined(separator: " ")
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw BenchmarkError("cannot launch \(commandLine): \(error)")
        }
        for (index, pipe) in [out, err].enumerated() {
            group.enter()
            DispatchQueue.global().async { [self] in
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                output.withLock { if index == 0 { $0.0 = data } else { $0.1 = data } }
                group.leave()
            }
        }
    }

    var isRunning: Bool { process.isRunning }

    func wait() -> CommandResult {
        group.wait()
        process.waitUntilExit()
        let (out, err) = output.withLock { $0 }
        return CommandResult(status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
                             stderr: String(decoding: err, as: UTF8.self))
    }
}

/// Runs a command to completion; a non-zero exit is an error naming it.
@discardableResult
func run(_ executable: String, _ arguments: [String]) throws -> CommandResult {
    let command = try RunningCommand(executable, arguments)
    let result = command.wait()
    guard result.status == 0 else {
        throw BenchmarkError("`\(command.commandLine)` exited \(result.status): "
            + result.stderr.trimmingCharacters(in: .whitespacesAndNewlines))
    }
    return result
}

/// `ip -n NAME ARGS...`, each command one string split on spaces.
func ip(_ namespace: String, _ commands: String...) throws {
    for command in commands {
        try run(ipPath, ["-n", namespace] + command.split(separator: " ").map(String.init))
    }
}

/// Writes `lines` to a batch file in /tmp, runs it in `namespace`, deletes it.
func ipBatch(_ namespace: String, _ lines: [String], tag: String) throws {
    let path = try writeBatch(lines, tag: tag)
    defer { unlink(path) }
    try run(ipPath, ["-n", namespace, "-batch", path])
}

func writeBatch(_ lines: [String], tag: String) throws -> String {
    let path = "/tmp/reach-bench-\(getpid())-\(tag).batch"
    do {
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
    } catch {
        throw BenchmarkError("cannot write \(path): \(error)")
    }
    return path
}

/// `count` distinct /24 routes from 11.0.0.0 upwards (100000 end at 12.134.159.0/24).
func routeLines(_ count: Int) -> [String] {
    (0 ..< count).map { index in
        let base = 11 << 16 + index
        return "route add \(base >> 16).\((base >> 8) & 0xFF).\(base & 0xFF).0/24 via 10.1.0.254"
    }
}

// MARK: - Namespaces

/// setns(2): Glibc declares it only with _GNU_SOURCE, which Swift's Glibc module lacks.
let setnsFunction: @convention(c) (Int32, Int32) -> Int32 = {
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "setns") else { fatalError("no setns in libc") }
    return unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32) -> Int32).self)
}()
let cloneNewNet: Int32 = 0x4000_0000

/// Runs `body` on a new thread that entered namespace `name` first (setns
/// moves only the calling thread; this process's other threads stay put).
func onThreadInside<T: Sendable>(_ name: String, _ body: @escaping @Sendable () throws -> T) throws -> T {
    let result = Mutex<Result<T, Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        defer { done.signal() }
        let outcome = Result { () throws -> T in
            let fd = open("/run/netns/\(name)", O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw BenchmarkError("open /run/netns/\(name): \(String(cString: strerror(errno)))") }
            defer { close(fd) }
            guard setnsFunction(fd, cloneNewNet) == 0 else {
                throw BenchmarkError("setns \(name): \(String(cString: strerror(errno)))")
            }
            return try body()
        }
        result.withLock { $0 = outcome }
    }
    thread.start()
    guard done.wait(timeout: .now() + 10) == .success else { throw BenchmarkError("thread inside \(name) hung") }
    return try result.withLock { $0! }.get()
}

/// Every namespace this process made, so that each is deleted however it ends.
final class Namespaces: Sendable {
    static let shared = Namespaces()
    private let state = Mutex<(counter: Int, names: [String])>((0, []))

    /// A new namespace `reach-bench-<pid>-<n>` with `lo` up and IPv6 kept
    /// quiet (no automatic link-local address, DAD or router solicitation),
    /// so a link flap sends only the notifications of the flap itself.
    func create() throws -> String {
        let name = state.withLock { state -> String in
            state.counter += 1
            return "reach-bench-\(getpid())-\(state.counter)"
        }
        try run(ipPath, ["netns", "add", name])
        state.withLock { $0.names.append(name) }
        try writeHosts(for: name)
        for (key, value) in [("ipv6/conf/default/addr_gen_mode", "1"), ("ipv6/conf/default/router_solicitations", "0"),
                             ("ipv6/conf/default/accept_dad", "0")] {
            _ = try? onThreadInside(name) {   // best effort: a kernel without IPv6 has no such files
                let fd = open("/proc/sys/net/" + key, O_WRONLY | O_CLOEXEC)
                guard fd >= 0 else { return }
                defer { close(fd) }
                let bytes = Array((value + "\n").utf8)
                _ = write(fd, bytes, bytes.count)
            }
        }
        try ip(name, "link set lo up")
        return name
    }

    /// `create()` plus the veth pair va (10.1.0.1/24) ⟷ vb, both up, and a
    /// default route via 10.1.0.254; waits until va is operationally up.
    func createWithUplink() throws -> String {
        let name = try create()
        try ip(name, "link add va type veth peer name vb", "addr add 10.1.0.1/24 dev va", "link set va up",
               "link set vb up")
        try waitUntilUp("va", in: name)
        try ip(name, "route add default via 10.1.0.254")
        return name
    }

    /// `createWithUplink()` plus a second uplink vc (10.2.0.1/24) ⟷ vd, both
    /// up, with no route through it but its own prefix: the default route can
    /// be moved there (via 10.2.0.254) and back.
    func createWithTwoUplinks() throws -> String {
        let name = try createWithUplink()
        try ip(name, "link add vc type veth peer name vd", "addr add 10.2.0.1/24 dev vc", "link set vc up",
               "link set vd up")
        try waitUntilUp("vc", in: name)
        return name
    }

    /// /etc/netns/NAME/hosts: what `ip netns exec` (so `reach watch`) and the
    /// engine's resolver threads see as /etc/hosts in the namespace, so that
    /// the host-name targets resolve from a file, with no name server asked.
    /// Written once the name is recorded, so that `delete` removes it however
    /// the run ends.
    private func writeHosts(for name: String) throws {
        let directory = Namespaces.configurationDirectory(name)
        let lines = ["127.0.0.1 localhost", "::1 localhost ip6-localhost ip6-loopback"]
            + TargetKind.hostsLines
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try (lines.joined(separator: "\n") + "\n").write(toFile: directory + "/hosts", atomically: true,
                                                              encoding: .utf8)
        } catch {
            throw BenchmarkError("cannot write \(directory)/hosts: \(error)")
        }
    }

    /// Where `ip netns exec` looks for the namespace's own /etc files.
    static func configurationDirectory(_ name: String) -> String { "/etc/netns/" + name }

    /// Polls (up to 5 s) until `device` in `namespace` is operationally up.
    private func waitUntilUp(_ device: String, in namespace: String) throws {
        let deadline = Date().addingTimeInterval(5)
        while true {
            let line = try run(ipPath, ["-n", namespace, "-o", "link", "show", "dev", device]).stdout
            if line.contains(" state UP ") { return }
            guard Date() < deadline else { throw BenchmarkError("\(device) in \(namespace) never came up: \(line)") }
            usleep(20_000)
        }
    }

    func delete(_ name: String) {
        let owned = state.withLock { state -> Bool in
            guard let index = state.names.firstIndex(of: name) else { return false }
            state.names.remove(at: index)
            return true
        }
        guard owned else { return }
        if let result = try? RunningCommand(ipPath, ["netns", "delete", name]).wait(), result.status != 0 {
            log("warning: `ip netns delete \(name)` exited \(result.status): \(result.stderr)")
        }
        // `ip netns delete` leaves /etc/netns/NAME behind.
        let directory = Namespaces.configurationDirectory(name)
        if FileManager.default.fileExists(atPath: directory) {
            do {
                try FileManager.default.removeItem(atPath: directory)
            } catch {
                log("warning: cannot remove \(directory): \(error)")
            }
        }
    }

    func deleteAll() {
        for name in state.withLock({ $0.names }) { delete(name) }
    }
}

// MARK: - Observing a monitor

/// Collects a monitor's changes as they are delivered on its thread.
final class Recorder: @unchecked Sendable {
    private let condition = NSCondition()
    private var changes: [ReachabilityChange] = []

    func record(_ change: ReachabilityChange) {
        condition.lock()
        changes.append(change)
        condition.broadcast()
        condition.unlock()
    }

    var all: [ReachabilityChange] {
        condition.lock()
        defer { condition.unlock() }
        return changes
    }

    var count: Int { all.count }

    /// Waits (up to `timeout` seconds) until `predicate` holds for the changes; returns them, or nil on timeout.
    func wait(timeout: Double, until predicate: ([ReachabilityChange]) -> Bool) -> [ReachabilityChange]? {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while !predicate(changes) {
            if !condition.wait(until: deadline) { return predicate(changes) ? changes : nil }
        }
        return changes
    }
}

let probe = Target.address(IPAddress("10.1.0.7")!)

// MARK: - 1. Change latency

/// An AF_INET socket made inside `namespace`: its ioctls act on that
/// namespace's links whichever thread calls them.
func linkControlSocket(_ namespace: String) throws -> Int32 {
    try onThreadInside(namespace) { () throws -> Int32 in
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw BenchmarkError("socket: \(String(cString: strerror(errno)))") }
        return fd
    }
}

/// Sets IFF_UP of `device` with SIOCSIFFLAGS; returns CLOCK_MONOTONIC just before the call.
func setLink(_ device: String, up: Bool, socket fd: Int32) throws -> UInt64 {
    // struct ifreq: ifr_name[16], then ifr_flags (a short) at offset 16.
    var request = [UInt8](repeating: 0, count: 40)
    for (i, byte) in device.utf8.prefix(15).enumerated() { request[i] = byte }
    let getFlags: UInt = 0x8913, setFlags: UInt = 0x8914   // SIOCGIFFLAGS, SIOCSIFFLAGS
    guard request.withUnsafeMutableBytes({ ioctl(fd, getFlags, $0.baseAddress!) }) == 0 else {
        throw BenchmarkError("SIOCGIFFLAGS \(device): \(String(cString: strerror(errno)))")
    }
    var flags = UInt16(request[16]) | UInt16(request[17]) << 8
    flags = up ? flags | 1 : flags & ~1                    // IFF_UP
    request[16] = UInt8(flags & 0xFF)
    request[17] = UInt8(flags >> 8)
    let start = MonotonicInstant.now.nanoseconds
    guard request.withUnsafeMutableBytes({ ioctl(fd, setFlags, $0.baseAddress!) }) == 0 else {
        throw BenchmarkError("SIOCSIFFLAGS \(device): \(String(cString: strerror(errno)))")
    }
    return start
}

/// A NETLINK_ROUTE socket made inside `namespace`, for the IPv4 default
/// route: the changes a route step makes come from this process, as a link
/// flap's ioctl does, not from an `ip` process still running (and taking a
/// CPU from the monitor) while the kernel announces the change.
struct RouteControl: ~Copyable {
    let fd: Int32
    private var sequence: UInt32 = 0

    init(namespace: String) throws {
        fd = try onThreadInside(namespace) { () throws -> Int32 in
            let fd = socket(AF_NETLINK, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0 /* NETLINK_ROUTE */)
            guard fd >= 0 else { throw BenchmarkError("netlink socket: \(String(cString: strerror(errno)))") }
            return fd
        }
    }

    deinit { close(fd) }

    /// `ip route replace default via GATEWAY` (or, not replacing, `ip route
    /// add`); returns CLOCK_MONOTONIC just before the request is sent, once
    /// the kernel has acknowledged it.
    mutating func setDefault(via gateway: String, replace: Bool) throws -> UInt64 {
        var address = in_addr()
        guard inet_pton(AF_INET, gateway, &address) == 1 else { throw BenchmarkError("not an IPv4 address: \(gateway)") }
        sequence &+= 1
        // nlmsghdr (16) + rtmsg (12) + RTA_GATEWAY (8), native byte order.
        var message = [UInt8](repeating: 0, count: 36)
        func put<T: FixedWidthInteger>(_ value: T, at offset: Int) {
            withUnsafeBytes(of: value) { for (i, byte) in $0.enumerated() { message[offset + i] = byte } }
        }
        let create: UInt16 = 0x400, replaceFlag: UInt16 = 0x100, exclusive: UInt16 = 0x200
        put(UInt32(36), at: 0)
        put(UInt16(24), at: 4)                                               // RTM_NEWROUTE
        put(UInt16(1 | 4) | create | (replace ? replaceFlag : exclusive), at: 6)   // REQUEST, ACK
        put(sequence, at: 8)
        message[16] = UInt8(AF_INET)
        message[20] = 254                                                   // RT_TABLE_MAIN
        message[21] = 3                                                     // RTPROT_BOOT, as ip
        message[22] = 0                                                     // RT_SCOPE_UNIVERSE
        message[23] = 1                                                     // RTN_UNICAST
        put(UInt16(8), at: 28)
        put(UInt16(5), at: 30)                                              // RTA_GATEWAY
        withUnsafeBytes(of: address) { for (i, byte) in $0.enumerated() { message[32 + i] = byte } }
        let start = MonotonicInstant.now.nanoseconds
        guard send(fd, message, message.count, 0) == message.count else {
            throw BenchmarkError("RTM_NEWROUTE: \(String(cString: strerror(errno)))")
        }
        var reply = [UInt8](repeating: 0, count: 1024)
        while true {
            let count = recv(fd, &reply, reply.count, 0)
            guard count >= 20 else { throw BenchmarkError("RTM_NEWROUTE: no acknowledgement (\(count))") }
            let type = UInt16(reply[4]) | UInt16(reply[5]) << 8
            let seq = reply.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 8, as: UInt32.self) }
            guard type == 2, seq == sequence else { continue }                  // NLMSG_ERROR, ours
            let error = reply.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 16, as: Int32.self) }
            guard error == 0 else {
                throw BenchmarkError("RTM_NEWROUTE default via \(gateway): \(String(cString: strerror(-error)))")
            }
            return start
        }
    }
}

/// The netlink multicast groups a change is announced in (linux/rtnetlink.h).
enum NetlinkGroup: UInt32 {
    /// `RTNLGRP_LINK`: a link's flags and state.
    case link = 1
    /// `RTNLGRP_IPV4_ROUTE`: IPv4 routes.
    case ipv4Route = 7
}

/// The kernel's own first message of each change: a raw C listener
/// (CBenchLimits) subscribed to the change's netlink groups (RTNLGRP_LINK
/// unless told) in the namespace, on a thread of its own (SCHED_FIFO, so it
/// wakes before any other thread) that notes CLOCK_MONOTONIC as each datagram
/// wakes it. Every latency below is measured above this stamp: the limit any
/// listener has. Netlink sockets carry no SO_TIMESTAMP, so a wake-up is the
/// nearest stamp there is; a change whose listener stamp still came after the
/// monitor's is counted, not measured.
final class KernelListener: @unchecked Sendable {
    private let condition = NSCondition()
    private var stamps: [UInt64] = []
    /// Whether each stamped message announced a default route of the main
    /// table: a step that adds one right after a link change must not take
    /// that change's messages, stamped a moment late, for its own.
    private var defaultRoutes: [Bool] = []
    private var stopping = false
    private let finished = DispatchSemaphore(value: 0)
    private let fd: Int32

    init(namespace: String, groups: Set<NetlinkGroup> = [.link]) throws {
        fd = try onThreadInside(namespace) { () throws -> Int32 in
            let fd = bench_link_listener()
            guard fd >= 0 else { throw BenchmarkError("link listener: \(String(cString: strerror(errno)))") }
            // The C listener joins RTNLGRP_LINK at bind; other groups are joined
            // (and that one left) afterwards, so one listener serves every change.
            let solNetlink: Int32 = 270, addMembership: Int32 = 1, dropMembership: Int32 = 2
            for group in [NetlinkGroup.link, .ipv4Route] where groups.contains(group) != (group == .link) {
                var number = group.rawValue
                let option = groups.contains(group) ? addMembership : dropMembership
                guard setsockopt(fd, solNetlink, option, &number, socklen_t(MemoryLayout<UInt32>.size)) == 0 else {
                    let reason = String(cString: strerror(errno))
                    close(fd)
                    throw BenchmarkError("listener: netlink group \(group.rawValue): \(reason)")
                }
            }
            return fd
        }
        let fd = fd
        Thread { [self] in
            _ = bench_realtime_self()
            let size = 1 << 16
            let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
            defer { buffer.deallocate(); finished.signal() }
            while true {
                let stamp = bench_link_wait(fd, buffer, size)
                condition.lock()
                if stamp != 0, stamp != .max {
                    stamps.append(stamp)
                    // struct nlmsghdr (type at 4), then struct rtmsg (dst_len at 17, table at 20).
                    let type = buffer.loadUnaligned(fromByteOffset: 4, as: UInt16.self)
                    let prefixLength = buffer.load(fromByteOffset: 17, as: UInt8.self)
                    let table = buffer.load(fromByteOffset: 20, as: UInt8.self)
                    defaultRoutes.append(type == 24 /* RTM_NEWROUTE */ && prefixLength == 0 && table == 254 /* main */)
                    condition.broadcast()
                }
                let done = stopping || stamp == .max
                condition.unlock()
                if done { return }
            }
        }.start()
    }

    /// The first message stamped at or after `t0` (only a default route's
    /// when told), waiting up to `timeout` seconds.
    func first(after t0: UInt64, timeout: Double, defaultRouteOnly: Bool = false) -> UInt64? {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        func found() -> UInt64? {
            stamps.indices.first { stamps[$0] >= t0 && (!defaultRouteOnly || defaultRoutes[$0]) }.map { stamps[$0] }
        }
        while true {
            if let stamp = found() { return stamp }
            if !condition.wait(until: deadline) { return found() }
        }
    }

    func stop() {
        condition.lock()
        stopping = true
        condition.unlock()
        finished.wait()
        close(fd)
    }
}

/// GLib's GNetworkMonitor in the namespace (`glib-monitor events ADDRESS`):
/// each network-changed signal with its CLOCK_MONOTONIC stamp and whether
/// GLib then says the address can be reached.
final class GLibPeer: @unchecked Sendable {
    private let condition = NSCondition()
    private var signals: [(time: UInt64, reachable: Bool)] = []
    private var ready = false
    private let process = Process()

    init(executable: String, namespace: String, address: String) throws {
        process.executableURL = URL(fileURLWithPath: ipPath)
        process.arguments = ["netns", "exec", namespace, executable, "events", address]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { throw BenchmarkError("cannot start \(executable): \(error)") }
        let handle = out.fileHandleForReading
        Thread { [self] in
            var pending = Data()
            while true {
                let data = handle.availableData
                if data.isEmpty { return }
                pending.append(data)
                while let newline = pending.firstIndex(of: 10) {
                    let line = String(decoding: pending[..<newline], as: UTF8.self)
                    pending.removeSubrange(...newline)
                    let fields = line.split(separator: " ")
                    condition.lock()
                    if line == "ready" {
                        ready = true
                    } else if fields.count == 3, let time = UInt64(fields[0]) {
                        signals.append((time, fields[2] == "1"))
                    }
                    condition.broadcast()
                    condition.unlock()
                }
            }
        }.start()
        let deadline = Date().addingTimeInterval(10)
        condition.lock()
        defer { condition.unlock() }
        while !ready {
            guard condition.wait(until: deadline) else { throw BenchmarkError("glib-monitor never said ready") }
        }
    }

    /// The first signal at or after `t0` (for which `predicate` holds), waiting up to `timeout` seconds.
    func first(after t0: UInt64, timeout: Double, where predicate: (Bool) -> Bool = { _ in true }) -> UInt64? {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let hit = signals.first(where: { $0.time >= t0 && predicate($0.reachable) }) { return hit.time }
            if !condition.wait(until: deadline) { return nil }
        }
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}

// MARK: Where the observer receives the change (issue 27)

/// How an observer receives changes. Each is measured with a monitor (or a
/// `reach` process) of its own that has this one observer, as an application
/// would have it, so no observer's work delays another's.
enum DeliveryKind: String, CaseIterable, Sendable {
    /// `onChange` on the default queue: the callback runs on the monitor's thread.
    case monitorThread = "monitor_thread"
    /// `onChange(on: .dispatch(queue))`, a serial queue.
    case dispatch
    /// `changes()`, iterated by a task.
    case stream
    /// The lines of `reach watch --json` in the namespace, read from a pipe here.
    case reachWatch = "reach_watch"
    /// SystemConfiguration's callback (an `SCNetworkReachability` of the
    /// target scheduled on a serial queue): the compat view's cost (issue 28).
    case scCallback = "sc_callback"
    /// Network's `pathUpdateHandler` (an `NWPathMonitor` started on a serial
    /// queue; it watches the internet, whose only route leaves by va).
    case pathUpdateHandler = "path_update_handler"
    /// The engine's observer that `pathUpdateHandler` is compared with:
    /// `onChange(on: .dispatch(queue))` of the internet target. For both,
    /// "reachable" is va among the usable interfaces: the default route goes
    /// with va when it goes down, so the path of va's return is unsatisfied.
    case internetDispatch = "internet_dispatch"

    /// The engine's kinds that run in this process (every kind but `reach` and the compat views).
    static let inProcess: [DeliveryKind] = [.monitorThread, .dispatch, .stream]
    /// The compat modules' kinds, measured for link flaps (a moved default
    /// route changes no SC flag, so it brings an SC callback no change).
    static let compat: [DeliveryKind] = [.scCallback, .internetDispatch, .pathUpdateHandler]
}

/// One change where its observer received it.
struct Delivery: Sendable {
    /// CLOCK_MONOTONIC when the observer got it, in nanoseconds.
    var received: UInt64
    /// The monitor's own stamp of the change (`time`; `time_ns` of
    /// `reach`): where it was found, which is what the old figure measured.
    var evaluated: UInt64
    var isInitial: Bool
    var isReachable: Bool
    /// The output interface of the target's primary address.
    var interface: String?
}

extension Delivery {
    init(_ change: ReachabilityChange, received: UInt64) {
        self.init(received: received, evaluated: change.time.nanoseconds, isInitial: change.isInitial,
                  isReachable: change.isReachable, interface: change.interface)
    }

    /// One line of `reach watch --json` that arrived at `received`; nil when it is not one.
    init?(jsonLine line: String, received: UInt64) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              let time = (object["time_ns"] as? NSNumber)?.uint64Value,
              let initial = object["initial"] as? Bool, let reachable = object["reachable"] as? Bool else { return nil }
        self.init(received: received, evaluated: time, isInitial: initial, isReachable: reachable,
                  interface: object["interface"] as? String)
    }
}

/// The deliveries of one observer, in order, waited on by the measuring thread.
final class DeliveryRecorder: @unchecked Sendable {
    private let condition = NSCondition()
    private var deliveries: [Delivery] = []

    func record(_ delivery: Delivery) {
        condition.lock()
        deliveries.append(delivery)
        condition.broadcast()
        condition.unlock()
    }

    var count: Int {
        condition.lock()
        defer { condition.unlock() }
        return deliveries.count
    }

    /// The first delivery from index `start` on for which `predicate` holds, waiting up to `timeout` seconds.
    func first(from start: Int, timeout: Double, where predicate: (Delivery) -> Bool) -> Delivery? {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let hit = deliveries.dropFirst(start).first(where: predicate) { return hit }
            if !condition.wait(until: deadline) { return deliveries.dropFirst(start).first(where: predicate) }
        }
    }
}

/// `reach watch --json TARGET` in a namespace, started through `ip netns exec`
/// so that it takes the path a user's `reach watch --json` takes; each line is
/// stamped here as it arrives on the pipe.
final class ReachWatch: @unchecked Sendable {
    private let process = Process()
    private let output = Pipe()

    init(executable: String, namespace: String, target: String, into recorder: DeliveryRecorder) throws {
        process.executableURL = URL(fileURLWithPath: ipPath)
        process.arguments = ["netns", "exec", namespace, executable, "watch", "--json", target]
        process.standardOutput = output
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch { throw BenchmarkError("cannot start \(executable): \(error)") }
        let fd = output.fileHandleForReading.fileDescriptor
        Thread {
            var pending: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let count = read(fd, &chunk, chunk.count)
                let received = MonotonicInstant.now.nanoseconds
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return }
                pending += chunk[..<count]
                while let newline = pending.firstIndex(of: 10) {
                    let line = String(decoding: pending[..<newline], as: UTF8.self)
                    pending.removeSubrange(...newline)
                    if let delivery = Delivery(jsonLine: line, received: received) {
                        recorder.record(delivery)
                    } else {
                        log("warning: reach watch printed a line that is not a change: \(line)")
                    }
                }
            }
        }.start()
    }

    func stop() {
        process.terminate()   // SIGTERM: reach stops its monitor and exits 0
        process.waitUntilExit()
    }
}

/// One observer of `kind` that records the changes of one target in a
/// namespace, with the receiver's stamp taken first thing on receipt.
final class Observer {
    let recorder = DeliveryRecorder()
    private var monitor: ReachabilityMonitor?
    private var watch: ReachWatch?
    private var consumer: Task<Void, Never>?
    private var reachability: SCNetworkReachability?
    private var pathMonitor: NWPathMonitor?

    init(_ kind: DeliveryKind, of change: ChangeKind, target: TargetKind, namespace: String,
         configuration: ReachabilityMonitor.Configuration, reach: String?) throws {
        let recorder = recorder
        let argument = target.reachArgument(for: change)
        if kind == .reachWatch {
            guard let reach else { throw BenchmarkError("reach_watch needs a reach executable (--reach)") }
            watch = try ReachWatch(executable: reach, namespace: namespace, target: argument, into: recorder)
            return
        }
        if kind == .internetDispatch {
            let monitor = try ReachabilityMonitor(targets: [.internet], namespace: .named(namespace),
                                                  configuration: configuration)
            monitor.onChange(on: .dispatch(DispatchQueue(label: "reach-bench.internet"))) { reported in
                let received = MonotonicInstant.now.nanoseconds
                let interfaces = reported.evaluation.availableInterfaces
                recorder.record(Delivery(received: received, evaluated: reported.time.nanoseconds, isInitial: reported.isInitial,
                                         isReachable: interfaces.contains { $0.name == "va" }
                                             && (!reported.isInitial || reported.isReachable),
                                         interface: interfaces.first?.name))
            }
            self.monitor = monitor
            try monitor.start()
            return
        }
        if DeliveryKind.compat.contains(kind) {
            // The compat views have no stamp of the monitor's: theirs is the receipt's.
            CompatEnvironment.namespace = .named(namespace)
            if kind == .scCallback {
                guard let reachability = SCNetworkReachabilityCreateWithName(nil, argument) else {
                    throw BenchmarkError("SCNetworkReachabilityCreateWithName(\(argument)): \(SCError())")
                }
                SCNetworkReachabilitySetCallback(reachability, { _, flags, _ in
                    let received = MonotonicInstant.now.nanoseconds
                    recorder.record(Delivery(received: received, evaluated: received, isInitial: false,
                                             isReachable: flags.contains(.reachable), interface: "va"))
                }, nil)
                guard SCNetworkReachabilitySetDispatchQueue(reachability, DispatchQueue(label: "reach-bench.sc")) else {
                    throw BenchmarkError("SCNetworkReachabilitySetDispatchQueue: \(SCError())")
                }
                // No callback for being scheduled: the answer then is the initial state.
                var flags = SCNetworkReachabilityFlags()
                _ = SCNetworkReachabilityGetFlags(reachability, &flags)
                let now = MonotonicInstant.now.nanoseconds
                recorder.record(Delivery(received: now, evaluated: now, isInitial: true,
                                         isReachable: flags.contains(.reachable), interface: "va"))
                self.reachability = reachability
            } else {
                let pathMonitor = NWPathMonitor()
                let first = Mutex(true)
                pathMonitor.pathUpdateHandler = { path in
                    let received = MonotonicInstant.now.nanoseconds
                    let isInitial = first.withLock { value in defer { value = false }; return value }
                    // "Reachable" is va usable: the default route went with va when
                    // it went down, so once up again the path is unsatisfied with va
                    // back among its interfaces (the path of the change).
                    let usesVA = path.availableInterfaces.contains { $0.name == "va" }
                    recorder.record(Delivery(received: received, evaluated: received, isInitial: isInitial,
                                             isReachable: usesVA && (!isInitial || path.status == .satisfied),
                                             interface: path.availableInterfaces.first?.name))
                }
                pathMonitor.start(queue: DispatchQueue(label: "reach-bench.nw"))
                self.pathMonitor = pathMonitor
            }
            return
        }
        let monitor = try ReachabilityMonitor(targets: [target.target(for: change)], namespace: .named(namespace),
                                              configuration: configuration)
        self.monitor = monitor
        switch kind {
        case .monitorThread:
            monitor.onChange { reported in
                let received = MonotonicInstant.now.nanoseconds
                recorder.record(Delivery(reported, received: received))
            }
        case .dispatch:
            monitor.onChange(on: .dispatch(DispatchQueue(label: "reach-bench.delivery"))) { reported in
                let received = MonotonicInstant.now.nanoseconds
                recorder.record(Delivery(reported, received: received))
            }
        case .stream:
            let changes = monitor.changes()   // before start(): the initial state is its first element
            consumer = Task.detached {
                for await reported in changes {
                    let received = MonotonicInstant.now.nanoseconds
                    recorder.record(Delivery(reported, received: received))
                }
            }
        case .reachWatch, .scCallback, .pathUpdateHandler, .internetDispatch:
            break
        }
        try monitor.start()
    }

    /// The in-process monitor's counters, for an error message.
    var counters: String { monitor.map { "\($0.counters)" } ?? "(in reach)" }

    func stop() {
        monitor?.stop()   // also ends the stream
        consumer?.cancel()
        watch?.stop()
        if let reachability { SCNetworkReachabilitySetDispatchQueue(reachability, nil) }
        pathMonitor?.cancel()
    }
}

/// One step of a change: what is done to the namespace, and the answer it brings.
enum Step: String, CaseIterable, Sendable {
    /// va down: 10.1.0.7 (on va's prefix) becomes unreachable, and so does
    /// the internet (the kernel takes the default route away with va).
    case down
    /// va up again: 10.1.0.7 reachable; the internet once the default route
    /// is added back (`ChangeKind.perform`).
    case up
    /// The default route moved from va to vc: the internet is reached over vc.
    case away
    /// And back to va.
    case back
}

/// What changes under the monitor, a cycle of steps, announced by the kernel
/// in the netlink groups the kernel listener joins.
enum ChangeKind: String, Sendable {
    /// IFF_UP of va flipped by ioctl (down, up), watching 10.1.0.7 unless told.
    case link
    /// The default route replaced (RTM_NEWROUTE from this process, as `ip
    /// route replace default`) from va's gateway to vc's and back, watching
    /// the internet unless told: its interface changes.
    case route

    var steps: [Step] { self == .link ? [.down, .up] : [.away, .back] }
    /// The target of the full run's figures (and of those from before issue 41).
    var defaultTarget: TargetKind { self == .link ? .address : .internet }
    /// The groups whose first message starts a step's clock: for `internet`
    /// under link flaps, the IPv4 routes' too (its `up` is the default route's return).
    func groups(for target: TargetKind) -> Set<NetlinkGroup> {
        self == .link ? (target == .internet ? [.link, .ipv4Route] : [.link]) : [.ipv4Route]
    }

    func makeNamespace() throws -> String {
        self == .link ? try Namespaces.shared.createWithUplink() : try Namespaces.shared.createWithTwoUplinks()
    }

    /// Whether `delivery` is the state before the first step.
    func isStartingState(_ delivery: Delivery) -> Bool {
        delivery.isInitial && delivery.isReachable && delivery.interface == "va"
    }

    /// Whether `delivery` is the answer `step` brings.
    func isAnswer(_ delivery: Delivery, to step: Step) -> Bool {
        guard !delivery.isInitial else { return false }
        switch step {
        case .down: return !delivery.isReachable
        case .up: return delivery.isReachable
        case .away: return delivery.isReachable && delivery.interface == "vc"
        case .back: return delivery.isReachable && delivery.interface == "va"
        }
    }

    /// Whether the clock of `step` starts at a default route's message rather
    /// than at the first message of any kind (`perform`: the internet's `up`).
    func startsWithDefaultRoute(_ step: Step, target: TargetKind) -> Bool {
        self == .link && step == .up && target == .internet
    }

    /// Makes `step` happen for an observer of `target`; returns CLOCK_MONOTONIC
    /// just before what brings its answer.
    func perform(_ step: Step, control: Int32, routes: inout RouteControl, target: TargetKind) throws -> UInt64 {
        switch step {
        case .down, .up:
            let start = try setLink("va", up: step == .up, socket: control)
            guard step == .up, target == .internet else { return start }
            // Taking va down took the default route with it, and va's return
            // brings back only its prefix: the internet stays unreachable until
            // the route is added again, as a gateway's DHCP client or network
            // manager would. Its answer comes with that route, so its clock
            // starts there (the kernel's first message is that route's:
            // `startsWithDefaultRoute`), and the next flap takes a default
            // route down again.
            return try routes.setDefault(via: "10.1.0.254", replace: false)
        case .away, .back:
            return try routes.setDefault(via: step == .away ? "10.2.0.254" : "10.1.0.254", replace: true)
        }
    }
}

/// What kind of target the observer watches (issue 41: the budget holds for
/// each). Each kind of change has its own address, one the change moves: on
/// va's prefix for a link flap, off-link (behind the default route) for a
/// route change.
enum TargetKind: String, CaseIterable, Sendable {
    /// One FIB lookup.
    case address
    /// A name that resolves to that address (the namespace's hosts file):
    /// its first answer comes after its first lookup.
    case host
    /// `.internet`: the default route of each family.
    case internet

    /// The address each change moves; documentation's range (RFC 5737) for
    /// the off-link one, which only the default route covers.
    static func address(for change: ChangeKind) -> String { change == .link ? "10.1.0.7" : "198.51.100.7" }
    static func hostName(for change: ChangeKind) -> String {
        change == .link ? "reach-bench-near" : "reach-bench-far"
    }

    /// Every namespace's hosts file gives both names.
    static let hostsLines = [ChangeKind.link, .route].map { "\(address(for: $0)) \(hostName(for: $0))" }

    func target(for change: ChangeKind) -> Target {
        switch self {
        case .address: return .address(IPAddress(TargetKind.address(for: change))!)
        case .host: return .host(TargetKind.hostName(for: change))
        case .internet: return .internet
        }
    }

    /// The same target as `reach` (and `SCNetworkReachabilityCreateWithName`) takes it.
    func reachArgument(for change: ChangeKind) -> String {
        switch self {
        case .address: return TargetKind.address(for: change)
        case .host: return TargetKind.hostName(for: change)
        case .internet: return "internet"
        }
    }
}

/// Route changes that keep the monitor's bursts from going quiet, as a
/// routing daemon's would: an unrelated route (203.0.113.0/24 dev lo) added
/// and deleted again and again, one change every `interval`. With a settle
/// time longer than `interval` a burst lasts until `maximumSettleTime`.
enum Churn {
    /// All along, from a thread of its own: each step lands in a burst
    /// already under way (after a random pause, so anywhere in it).
    case steady(interval: Duration)
    /// A train of `changes` that starts as each step is done, the way a
    /// daemon answers a link going down: the step's message opens the burst.
    case following(interval: Duration, changes: Int)

    var interval: Duration {
        switch self {
        case let .steady(interval), let .following(interval, _): return interval
        }
    }
}

/// The thread that makes a `Churn` in a namespace, through its own netlink
/// socket (CBenchLimits' `bench_route_toggle`: each change waits for its ack).
final class RouteChurn: @unchecked Sendable {
    private let running = Atomic<Bool>(true)
    private let changes = Atomic<Int>(0)
    private let failure = Mutex<String?>(nil)
    private let finished = DispatchSemaphore(value: 0)
    /// For `.following`: one signal starts a train, one signal says it ended.
    private let trainRequested = DispatchSemaphore(value: 0)
    private let trainDone = DispatchSemaphore(value: 0)

    init(namespace: String, churn: Churn) throws {
        let fd = try onThreadInside(namespace) { () throws -> Int32 in
            let fd = bench_nl_open()
            guard fd >= 0 else { throw BenchmarkError("churn socket: \(String(cString: strerror(errno)))") }
            return fd
        }
        let pause = useconds_t(churn.interval / .microseconds(1))
        Thread { [self] in
            let size = 8192
            let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
            defer { buffer.deallocate(); close(fd); finished.signal() }
            var sequence: UInt32 = 0
            var add = true
            /// One route change, then the pause; false when it failed.
            func change() -> Bool {
                let error = bench_route_toggle(fd, add ? 1 : 0, 1, &sequence, buffer, size)   // 1: lo, in every namespace
                guard error == 0 else {
                    failure.withLock { $0 = "route churn: \(String(cString: strerror(-error)))" }
                    return false
                }
                add.toggle()
                changes.add(1, ordering: .relaxed)
                usleep(pause)
                return true
            }
            while running.load(ordering: .relaxed) {
                switch churn {
                case .steady:
                    guard change() else { return }
                case let .following(_, count):
                    guard trainRequested.wait(timeout: .now() + .milliseconds(100)) == .success else { continue }
                    defer { trainDone.signal() }
                    for _ in 0 ..< count where running.load(ordering: .relaxed) {
                        guard change() else { return }
                    }
                }
            }
        }.start()
    }

    /// `.following`: starts a train of changes.
    func startTrain() { trainRequested.signal() }

    /// `.following`: waits (up to 5 s) until the train started last has ended.
    func waitForTrain() throws {
        guard trainDone.wait(timeout: .now() + 5) == .success else {
            throw BenchmarkError(failure.withLock { $0 } ?? "a train of route changes did not end within 5 s")
        }
    }

    /// Stops the churn (again: no effect); the route changes it made.
    func stop() throws -> Int {
        running.store(false, ordering: .relaxed)
        finished.wait()
        finished.signal()   // so that a second stop() returns too
        if let failure = failure.withLock({ $0 }) { throw BenchmarkError(failure) }
        return changes.load(ordering: .relaxed)
    }
}

/// One delivery kind over the cycles of one change kind: per step, the
/// monitor's stamp and the observer's receipt, in ms above the kernel's
/// first message.
struct DeliveryResult {
    /// The monitor's stamp (`time`, or `time_ns` of `reach`).
    var evaluation: [Step: [Double]] = [:]
    /// The observer's stamp when it received the change.
    var delivery: [Step: [Double]] = [:]
    /// The action → the kernel's first message (ms): what no listener can save.
    var kernel: [Double] = []
    /// Changes that arrived besides the one each step waited for.
    var extraChanges = 0
    /// Steps whose listener stamp came after the monitor's (left out).
    var lateListener = 0
    /// Route changes the background churn made meanwhile; nil without churn.
    var churnChanges: Int?

    var json: [String: Any] {
        func byStep(_ values: [Step: [Double]]) -> [String: [Double]] {
            Dictionary(uniqueKeysWithValues: values.map { ($0.key.rawValue, $0.value.map(rounded)) })
        }
        var json: [String: Any] = ["evaluation": byStep(evaluation), "delivery": byStep(delivery),
                                   "kernel": kernel.map(rounded), "extra_changes": extraChanges,
                                   "late_listener": lateListener]
        if let churnChanges { json["churn_changes"] = churnChanges }
        return json
    }
}

/// `cycles` cycles of `change` (each step once, 5 ms apart) under one
/// observer of `kind` that watches `target` (the change's default target
/// unless told) and whose monitor has `configuration` (`reach` has the
/// defaults), with route churn when given.
func measureDelivery(_ change: ChangeKind, target: TargetKind? = nil, via kind: DeliveryKind, cycles: Int,
                     configuration: ReachabilityMonitor.Configuration = .init(), churn: Churn? = nil,
                     reach: String? = nil) throws -> DeliveryResult {
    let target = target ?? change.defaultTarget
    let namespace = try change.makeNamespace()
    defer { Namespaces.shared.delete(namespace) }
    let control = try linkControlSocket(namespace)
    defer { close(control) }
    var routes = try RouteControl(namespace: namespace)
    let kernel = try KernelListener(namespace: namespace, groups: change.groups(for: target))
    defer { kernel.stop() }
    let observer = try Observer(kind, of: change, target: target, namespace: namespace, configuration: configuration,
                                reach: reach)
    defer { observer.stop() }
    let recorder = observer.recorder
    guard let initial = recorder.first(from: 0, timeout: 10, where: \.isInitial) else {
        throw BenchmarkError("\(kind.rawValue) of \(target.reachArgument(for: change)): no initial state within 10 s")
    }
    guard change.isStartingState(initial) else {
        throw BenchmarkError("\(target.reachArgument(for: change)) does not start reachable over va: \(initial)")
    }
    usleep(50_000)   // let the set-up's notifications pass
    let churner = try churn.map { try RouteChurn(namespace: namespace, churn: $0) }
    defer { _ = try? churner?.stop() }
    let longestBurst = UInt32(configuration.maximumSettleTime.clampedNanoseconds / 1000)

    var result = DeliveryResult()
    let before = recorder.count
    for cycle in 0 ..< cycles {
        for step in change.steps {
            if case .steady = churn { usleep(UInt32.random(in: 0 ... longestBurst)) }
            let start = recorder.count
            let t0 = try change.perform(step, control: control, routes: &routes, target: target)
            if case .following = churn { churner?.startTrain() }
            guard let delivery = recorder.first(from: start, timeout: 3, where: { change.isAnswer($0, to: step) }) else {
                throw BenchmarkError("\(change.rawValue) cycle \(cycle + 1): \(kind.rawValue) of "
                    + "\(target.reachArgument(for: change)) received no answer to \(step.rawValue) within 3 s "
                    + "(counters \(observer.counters))")
            }
            guard let first = kernel.first(after: t0, timeout: 2,
                                           defaultRouteOnly: change.startsWithDefaultRoute(step, target: target)) else {
                throw BenchmarkError("\(change.rawValue) cycle \(cycle + 1): the listener saw no message")
            }
            result.kernel.append(milliseconds(first &- t0))
            if first <= delivery.evaluated {
                result.evaluation[step, default: []].append(milliseconds(delivery.evaluated - first))
                result.delivery[step, default: []].append(milliseconds(delivery.received &- first))
            } else {
                result.lateListener += 1
            }
            if case .following = churn {
                // Quiet before the next step, so that its message opens a burst.
                try churner?.waitForTrain()
                usleep(UInt32(configuration.settleTime.clampedNanoseconds / 1000))
            }
            usleep(5_000)
        }
    }
    result.churnChanges = try churner?.stop()
    usleep(100_000)
    result.extraChanges = recorder.count - before - change.steps.count * cycles
    return result
}

/// The repository's top directory: the nearest ancestor of this executable
/// that holds Benchmarks/report.py (the executable is in Benchmarks/.build).
func repositoryRoot() throws -> String {
    var directory = URL(fileURLWithPath: selfExecutable()).deletingLastPathComponent()
    while directory.path != "/" {
        if FileManager.default.fileExists(atPath: directory.appendingPathComponent("Benchmarks/report.py").path) {
            return directory.path
        }
        directory = directory.deletingLastPathComponent()
    }
    throw BenchmarkError("cannot find the repository above \(selfExecutable()); pass --reach PATH")
}

/// The `reach` whose `watch --json` is measured: the static build that
/// `make bench` and Peers/startup.sh use (`make static`) when no source is
/// newer, else a release build made now, so that the figures are those of the
/// sources checked out.
func findReach() throws -> String {
    let root = try repositoryRoot()
    let staticBuild = root + "/.build-static/reach"
    func modified(_ path: String) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
    }
    var newestSource = modified(root + "/Package.swift") ?? .distantPast
    for directory in ["Sources", "CSupport"] {
        let enumerator = FileManager.default.enumerator(atPath: root + "/" + directory)
        while let file = enumerator?.nextObject() as? String {
            if let date = modified(root + "/" + directory + "/" + file), date > newestSource { newestSource = date }
        }
    }
    if let built = modified(staticBuild), built >= newestSource { return staticBuild }
    log("   building reach (no .build-static/reach newer than the sources; `make static` makes one)...")
    try run("/usr/bin/env", ["swift", "build", "-c", "release", "--product", "reach", "--package-path", root])
    let directory = try run("/usr/bin/env", ["swift", "build", "-c", "release", "--show-bin-path", "--package-path", root])
    return directory.stdout.trimmingCharacters(in: .whitespacesAndNewlines) + "/reach"
}

/// The same flaps under GLib's monitor: its first network-changed signal, and
/// its first signal that gives the right answer for 10.1.0.7, above the
/// kernel's first message (ms); a signal that never came within 3 s is left out
/// and counted.
func measureGLibLatency(flaps: Int, executable: String) throws -> (first: [Double], right: [Double], missed: Int) {
    let namespace = try Namespaces.shared.createWithUplink()
    defer { Namespaces.shared.delete(namespace) }
    let control = try linkControlSocket(namespace)
    defer { close(control) }
    let kernel = try KernelListener(namespace: namespace)
    defer { kernel.stop() }
    let glib = try GLibPeer(executable: executable, namespace: namespace, address: "10.1.0.7")
    defer { glib.stop() }
    usleep(200_000)

    var first: [Double] = [], right: [Double] = [], missed = 0
    for _ in 0 ..< flaps {
        for up in [false, true] {
            let t0 = try setLink("va", up: up, socket: control)
            guard let stamp = kernel.first(after: t0, timeout: 2) else { throw BenchmarkError("no kernel message") }
            // A signal stamped before the listener's own wake-up is left out,
            // as ours are (the two threads woke in the other order).
            if let signal = glib.first(after: t0, timeout: 3) {
                if signal >= stamp { first.append(milliseconds(signal - stamp)) }
            } else {
                missed += 1
            }
            if let signal = glib.first(after: t0, timeout: 3, where: { $0 == up }) {
                if signal >= stamp { right.append(milliseconds(signal - stamp)) }
            } else {
                missed += 1
            }
            usleep(5_000)
        }
    }
    return (first, right, missed)
}

// MARK: - 2. Start-to-first-answer and RSS (one fresh child process per sample)

/// The child: one sample against the routes already in `namespace`; prints one JSON line.
func childRSS(namespace: String) throws {
    // Launch one command first, so that the memory of Foundation's Process
    // and Dispatch's threads (used below to run `ip -batch`) is in every figure
    // and the RSS after the changes shows only what the monitor added.
    try run(ipPath, ["-V"])
    let t0 = MonotonicInstant.now.nanoseconds
    let baseline = residentKilobytes()
    let monitor = try ReachabilityMonitor(targets: [.internet, probe], namespace: .named(namespace))
    let created = MonotonicInstant.now.nanoseconds
    let recorder = Recorder()
    monitor.onChange { recorder.record($0) }
    try monitor.start()
    let started = MonotonicInstant.now.nanoseconds
    guard let initial = recorder.wait(timeout: 10, until: { $0.filter(\.isInitial).count >= 2 }) else {
        throw BenchmarkError("child: no initial state for both targets within 10 s")
    }
    let first = initial.filter(\.isInitial).map(\.time.nanoseconds).min()!
    let last = initial.filter(\.isInitial).map(\.time.nanoseconds).max()!
    let startMilliseconds = milliseconds(last &- t0)
    let resident = residentKilobytes()
    for change in initial where !change.isReachable {
        log("warning: child: \(change.target) is not reachable at the start: \(change.status)")
    }

    var lines: [String] = []
    for _ in 0 ..< 500 {
        lines.append("route replace 10.200.0.0/24 via 10.1.0.254")
        lines.append("route del 10.200.0.0/24")
    }
    try ipBatch(namespace, lines, tag: "child-changes")
    usleep(500_000)
    let residentAfter = residentKilobytes()
    let counters = monitor.counters
    monitor.stop()

    let sample: [String: Any] = [
        "routes": 0,   // filled in by the parent, which knows it
        "start_ms": rounded(startMilliseconds),
        "rss_kb": resident,
        "rss_after_changes_kb": residentAfter,
        "rss_before_monitor_kb": baseline,
        "events": counters.events,
        // Where the start went: init returned, start() returned, first initial answer.
        "init_ms": rounded(milliseconds(created &- t0)),
        "start_returned_ms": rounded(milliseconds(started &- t0)),
        "first_answer_ms": rounded(milliseconds(first &- t0)),
    ]
    let data = try JSONSerialization.data(withJSONObject: sample, options: [.sortedKeys])
    FileHandle.standardOutput.write(data + Data("\n".utf8))
}

func selfExecutable() -> String {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard length > 0 else { return CommandLine.arguments[0] }
    return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

func measureRoutes(counts: [Int], repeats: Int) throws -> [[String: Any]] {
    var rows: [[String: Any]] = []
    let executable = selfExecutable()
    for count in counts {
        let namespace = try Namespaces.shared.createWithUplink()
        defer { Namespaces.shared.delete(namespace) }
        if count > 0 {
            let began = Date()
            try ipBatch(namespace, routeLines(count), tag: "routes-\(count)")
            log(String(format: "  %d routes added in %.1f s", count, Date().timeIntervalSince(began)))
        }
        let listed = try run(ipPath, ["-n", namespace, "-4", "route", "show", "table", "main"]).stdout
            .split(separator: "\n").count
        guard listed >= count + 2 else { throw BenchmarkError("\(namespace) has \(listed) routes, expected \(count + 2)") }

        var samples: [[String: Any]] = []
        for _ in 0 ..< repeats {
            let result = try run(executable, ["child-rss", "--netns", namespace])
            guard let line = result.stdout.split(separator: "\n").last,
                  var sample = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                throw BenchmarkError("child printed no sample: \(result.stdout) \(result.stderr)")
            }
            if !result.stderr.isEmpty { log(result.stderr.trimmingCharacters(in: .whitespacesAndNewlines)) }
            sample["routes"] = count
            samples.append(sample)
        }
        func values(_ key: String) -> [Double] { samples.compactMap { ($0[key] as? NSNumber)?.doubleValue } }
        rows.append([
            "routes": count,
            "start_ms": rounded(median(values("start_ms"))),
            "rss_kb": Int(values("rss_kb").max() ?? -1),
            "rss_after_changes_kb": Int(values("rss_after_changes_kb").max() ?? -1),
            "samples": samples,
        ])
    }
    return rows
}

// MARK: - 3. CPU to absorb a burst of route changes

func measureBurst(routes: Int) throws -> [String: Any] {
    let namespace = try Namespaces.shared.createWithUplink()
    defer { Namespaces.shared.delete(namespace) }
    let monitor = try ReachabilityMonitor(targets: [.internet, probe], namespace: .named(namespace))
    defer { monitor.stop() }
    let recorder = Recorder()
    monitor.onChange { recorder.record($0) }
    try monitor.start()
    guard recorder.wait(timeout: 10, until: { $0.filter(\.isInitial).count >= 2 }) != nil else {
        throw BenchmarkError("no initial state for both targets within 10 s")
    }
    let path = try writeBatch(routeLines(routes), tag: "burst")
    defer { unlink(path) }
    usleep(200_000)   // let the set-up's notifications pass
    let before = monitor.counters

    let cpuBefore = cpuMilliseconds()
    let wallBefore = MonotonicInstant.now.nanoseconds
    let command = try RunningCommand(ipPath, ["-n", namespace, "-batch", path])
    var events = monitor.counters.events
    var lastIncrease = MonotonicInstant.now.nanoseconds
    var ipDone: UInt64?
    while true {
        usleep(5_000)
        let now = MonotonicInstant.now.nanoseconds
        let current = monitor.counters.events
        if current != events { events = current; lastIncrease = now }
        if ipDone == nil && !command.isRunning { ipDone = now }
        if ipDone != nil && now - lastIncrease >= 300_000_000 { break }
        if now - wallBefore > 300_000_000_000 { throw BenchmarkError("the burst was not absorbed within 300 s") }
    }
    let cpuAfter = cpuMilliseconds()
    let result = command.wait()
    guard result.status == 0 else { throw BenchmarkError("ip -batch (burst) exited \(result.status): \(result.stderr)") }
    let counters = monitor.counters
    return [
        "routes": routes,
        "cpu_ms": rounded(cpuAfter - cpuBefore),
        "wall_ms": rounded(milliseconds(lastIncrease - wallBefore)),   // until the last event, without the 300 ms of quiet
        "ip_wall_ms": rounded(milliseconds((ipDone ?? lastIncrease) - wallBefore)),
        "events": counters.events,
        "reevaluations": counters.reevaluations,
        "overflows": counters.overflows,
        "burst_events": counters.events - before.events,
        "burst_reevaluations": counters.reevaluations - before.reevaluations,
        "changes": counters.changes,
    ]
}

// MARK: - Main

@main
struct MonitorBenchmark {
    /// What the command line asks for.
    struct Options {
        var flaps: Int?
        var routeChanges: Int?
        var churnFlaps: Int?
        var churnInterval: Duration = .milliseconds(1)
        var quick = false
        var latencyOnly = false
        var output: String?
        var glib: String?
        var reach: String?
        var withReach = true

        static let usage = """
            usage: Monitor [--flaps N (default 100)] [--route-changes N (default: as --flaps)]
                           [--churn-flaps N (default 50)] [--churn-interval-us N (default 1000)]
                           [--reach PATH | --no-reach] [--quick] [--latency-only] [--glib GLIB-MONITOR] --output PATH.json
                   Monitor targets [--flaps N] [--route-changes N] [--reach PATH | --no-reach] --output PATH.json
            """

        init(_ arguments: [String]) {
            var words = ArgumentWords(arguments)
            while let argument = words.next() {
                switch argument {
                case "--flaps": flaps = words.count(argument)
                case "--route-changes": routeChanges = words.count(argument)
                case "--churn-flaps": churnFlaps = words.count(argument)
                case "--churn-interval-us": churnInterval = .microseconds(words.count(argument))
                case "--quick": quick = true
                case "--latency-only": latencyOnly = true
                case "--glib": glib = words.path(argument)
                case "--reach": reach = words.path(argument)
                case "--no-reach": withReach = false
                case "--output": output = words.path(argument)
                default: fail("unknown argument \(argument)\n" + Options.usage)
                }
            }
        }
    }

    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == "child-rss" {
            guard arguments.count == 3, arguments[1] == "--netns" else { fail("usage: Monitor child-rss --netns NAME") }
            do { try childRSS(namespace: arguments[2]) } catch { fail("child-rss: \(error)") }
            exit(0)
        }
        if arguments.first == "targets" {
            runTargets(TargetsOptions(Array(arguments.dropFirst())))
            exit(0)
        }

        let options = Options(arguments)
        guard let output = options.output else { fail(Options.usage) }
        guard geteuid() == 0 else { fail("needs root (network namespaces)") }
        let flapCount = options.flaps ?? (options.quick ? 20 : 100)
        let routeChangeCount = options.routeChanges ?? flapCount
        let churnFlapCount = options.churnFlaps ?? (options.quick ? 10 : 50)
        let routeCounts = options.latencyOnly ? [] : options.quick ? [0, 10_000] : [0, 10_000, 100_000]

        deleteNamespacesOnSignals()
        defer { Namespaces.shared.deleteAll() }

        let began = Date()
        do {
            let (host, kernel) = hostDescription()
            log("Monitor benchmark: \(flapCount) flaps, \(routeChangeCount) route changes each way, \(churnFlapCount) "
                + "flaps over route churn, routes \(routeCounts)\(options.latencyOnly ? "" : ", burst 100000") (\(host))")
            let reach = options.withReach ? try options.reach ?? findReach() : nil
            if let reach { log("reach: \(reach)") }

            log("1. change latency, where each observer receives it...")
            let kinds = reach == nil ? DeliveryKind.inProcess : DeliveryKind.allCases
            var deliveries: [ChangeKind: [DeliveryKind: DeliveryResult]] = [:]
            for (change, cycles) in [(ChangeKind.link, flapCount), (.route, routeChangeCount)] {
                for kind in kinds + (change == .link ? DeliveryKind.compat : []) {
                    log("   \(change.rawValue), \(kind.rawValue) (\(cycles) cycles)...")
                    deliveries[change, default: [:]][kind] = try measureDelivery(change, via: kind, cycles: cycles,
                                                                                 reach: reach)
                }
            }
            // Callbacks on the monitor's thread run when a burst has gone quiet:
            // under churn, up to maximumSettleTime after the change.
            var churned = ReachabilityMonitor.Configuration()
            churned.settleTime = .milliseconds(5)
            churned.maximumSettleTime = .milliseconds(50)
            let trainLength = Int(churned.maximumSettleTime / options.churnInterval) + 10
            let churns: [(key: String, churn: Churn)] = [
                ("link_churn", .steady(interval: options.churnInterval)),
                ("link_churn_following", .following(interval: options.churnInterval, changes: trainLength)),
            ]
            var churnResults: [String: [DeliveryKind: DeliveryResult]] = [:]
            for (key, churn) in churns {
                for kind in DeliveryKind.inProcess {
                    let every = String(format: "%g ms", milliseconds(options.churnInterval.clampedNanoseconds))
                    log("   link, \(kind.rawValue), route churn (\(key), a change every \(every); "
                        + "\(churnFlapCount) flaps)...")
                    churnResults[key, default: [:]][kind] = try measureDelivery(
                        .link, via: kind, cycles: churnFlapCount, configuration: churned, churn: churn)
                }
            }
            log("   ...again with settleTime 0 (every notification evaluated at once)...")
            var settle0 = ReachabilityMonitor.Configuration()
            settle0.settleTime = .zero
            let immediate = try measureDelivery(.link, via: .monitorThread, cycles: flapCount, configuration: settle0)
            let glibFlaps = min(flapCount, 20)
            var glibLatency: (first: [Double], right: [Double], missed: Int)?
            if let glib = options.glib {
                log("   ...and GLib's GNetworkMonitor (\(glibFlaps) flaps)...")
                glibLatency = try measureGLibLatency(flaps: glibFlaps, executable: glib)
            }
            var routes: [[String: Any]] = []
            var burst: [String: Any]?
            if !options.latencyOnly {
                log("2. start-to-first-answer and RSS...")
                routes = try measureRoutes(counts: routeCounts, repeats: 3)
                log("3. burst of 100000 route changes...")
                burst = try measureBurst(routes: 100_000)
            }

            // The figures kept from before issue 27: the monitor's stamp with one
            // onChange observer on its thread (that pass is the same flaps).
            let latency = deliveries[.link]![.monitorThread]!
            func section(_ results: [DeliveryKind: DeliveryResult], cycles: Int,
                         configuration: ReachabilityMonitor.Configuration) -> [String: Any] {
                var section: [String: Any] = [
                    "cycles": cycles,
                    "settle_ms": rounded(milliseconds(configuration.settleTime.clampedNanoseconds)),
                    "maximum_settle_ms": rounded(milliseconds(configuration.maximumSettleTime.clampedNanoseconds)),
                    "kinds": Dictionary(uniqueKeysWithValues: results.map { ($0.key.rawValue, $0.value.json) }),
                ]
                if results.values.contains(where: { $0.churnChanges != nil }) {   // the churn's pace
                    section["churn_interval_ms"] = rounded(milliseconds(options.churnInterval.clampedNanoseconds))
                }
                return section
            }
            var report: [String: Any] = [
                "host": host,
                "kernel": kernel,
                "latency_ms": ["down": latency.evaluation[.down, default: []].map(rounded),
                               "up": latency.evaluation[.up, default: []].map(rounded),
                               "kernel": latency.kernel.map(rounded), "extra_changes": latency.extraChanges,
                               "late_listener": latency.lateListener],
                "latency_settle0_ms": ["down": immediate.evaluation[.down, default: []].map(rounded),
                                       "up": immediate.evaluation[.up, default: []].map(rounded),
                                       "extra_changes": immediate.extraChanges, "late_listener": immediate.lateListener],
                "delivery_ms": [
                    "link": section(deliveries[.link]!, cycles: flapCount, configuration: .init()),
                    "route": section(deliveries[.route]!, cycles: routeChangeCount, configuration: .init()),
                    "link_churn": section(churnResults["link_churn"]!, cycles: churnFlapCount, configuration: churned),
                    "link_churn_following": section(churnResults["link_churn_following"]!, cycles: churnFlapCount,
                                                    configuration: churned).merging(["train_changes": trainLength]) { $1 },
                    "link_settle0": section([.monitorThread: immediate], cycles: flapCount, configuration: settle0),
                ],
                "glib_latency_ms": glibLatency.map { ["first": $0.first.map(rounded), "right": $0.right.map(rounded),
                                                       "missed": $0.missed] as [String: Any] } ?? NSNull(),
            ]
            if !options.latencyOnly {
                report["routes"] = routes
                report["burst"] = burst
            }
            let data = try JSONSerialization.data(withJSONObject: report, options: [.prettyPrinted, .sortedKeys])
            do {
                try data.write(to: URL(fileURLWithPath: output))
            } catch {
                throw BenchmarkError("cannot write \(output): \(error)")
            }

            // The summary.
            func figures(_ values: [Double]) -> String {
                String(format: "median %.3f ms, p99 %.3f ms, min %.3f, max %.3f", median(values), percentile(values, 0.99),
                       values.min() ?? .nan, values.max() ?? .nan)
            }
            log("")
            log("change latency (\(flapCount) flaps, the kernel's first message → the monitor's timestamp):")
            log("  down: " + figures(latency.evaluation[.down, default: []]))
            log("  up:   " + figures(latency.evaluation[.up, default: []]))
            log("  (ioctl → the kernel's first message: " + figures(latency.kernel) + ")")
            log("  settleTime 0: " + figures(immediate.evaluation.values.flatMap { $0 }))
            log("  changes besides the awaited ones: \(latency.extraChanges), with settleTime 0: \(immediate.extraChanges)")
            log("  listener stamped after the change (left out): \(latency.lateListener), with settleTime 0: \(immediate.lateListener)")
            log("change latency where the observer receives it (ms above the kernel's first message; median / p99):")
            log("  change          delivered by      monitor's stamp      received              extra  left out")
            summarise("link", [.down, .up], deliveries[.link]!)
            summarise("route", [.away, .back], deliveries[.route]!)
            summarise("churn", [.down, .up], churnResults["link_churn"]!)
            summarise("following", [.down, .up], churnResults["link_churn_following"]!)
            if let glibLatency {
                log("  GLib, first signal:  " + figures(glibLatency.first))
                log("  GLib, right answer:  " + figures(glibLatency.right) + " (\(glibLatency.missed) missed)")
            }
            if let burst {
                log("start-to-first-answer and RSS (fresh process each, 3 samples; median start, max RSS):")
                log("  routes    start_ms   rss_kb   rss_after_1000_changes_kb")
                for row in routes {
                    log(String(format: "  %6d  %9.3f  %7d  %7d", row["routes"] as! Int, row["start_ms"] as! Double,
                               row["rss_kb"] as! Int, row["rss_after_changes_kb"] as! Int))
                }
                log(String(format: "burst of %d route adds: cpu %.1f ms (this process), wall %.1f ms (ip itself %.1f ms)",
                           burst["routes"] as! Int, burst["cpu_ms"] as! Double, burst["wall_ms"] as! Double,
                           burst["ip_wall_ms"] as! Double))
                log("  events \(burst["events"]!), reevaluations \(burst["reevaluations"]!), overflows \(burst["overflows"]!)")
            }
            log(String(format: "wrote %@ in %.1f s", output, Date().timeIntervalSince(began)))
        } catch {
            fail("\(error)")
        }
    }
}

/// Ctrl-C or a kill: delete the namespaces (and their hosts files) first.
func deleteNamespacesOnSignals() {
    for signalNumber in [SIGINT, SIGTERM, SIGHUP] {
        signal(signalNumber, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
        source.setEventHandler { fail("signal \(signalNumber)") }
        source.resume()
        signalSources.append(source)
    }
}

/// The summary's lines of one change: per delivery kind and step, the
/// monitor's stamp and the receipt (median / p99), extra changes, left out.
func summarise(_ label: String, _ steps: [Step], _ results: [DeliveryKind: DeliveryResult], width: Int = 16) {
    for kind in DeliveryKind.allCases {
        guard let result = results[kind] else { continue }
        for step in steps {
            let evaluation = result.evaluation[step, default: []], delivery = result.delivery[step, default: []]
            let name = "\(label) \(step.rawValue)", by = kind.rawValue
            log("  " + name.padding(toLength: width, withPad: " ", startingAt: 0)
                + by.padding(toLength: 16, withPad: " ", startingAt: 0)
                + String(format: "%8.3f / %8.3f  %8.3f / %8.3f  %5d  %d", median(evaluation),
                         percentile(evaluation, 0.99), median(delivery), percentile(delivery, 0.99),
                         result.extraChanges, result.lateListener))
        }
    }
}

// MARK: - Each kind of target (issue 41)

/// What `Monitor targets` takes.
struct TargetsOptions {
    var flaps = 100
    var routeChanges: Int?
    var reach: String?
    var withReach = true
    var output: String?

    static let usage = """
        usage: Monitor targets [--flaps N (default 100)] [--route-changes N (default: as --flaps)]
                               [--reach PATH | --no-reach] --output PATH.json
        """

    init(_ arguments: [String]) {
        var words = ArgumentWords(arguments)
        while let argument = words.next() {
            switch argument {
            case "--flaps": flaps = words.count(argument)
            case "--route-changes": routeChanges = words.count(argument)
            case "--reach": reach = words.path(argument)
            case "--no-reach": withReach = false
            case "--output": output = words.path(argument)
            default: fail("unknown argument \(argument)\n" + TargetsOptions.usage)
            }
        }
    }
}

/// Issue 41's budget holds for each kind of target and each delivery of the
/// engine: the changes of 1. (link flaps, the default route moved) for an
/// address, a host name and the internet, each under an observer of its own
/// (`onChange` on the monitor's thread, on a queue, the stream, `reach watch`).
func runTargets(_ options: TargetsOptions) {
    guard let output = options.output else { fail(TargetsOptions.usage) }
    guard geteuid() == 0 else { fail("needs root (network namespaces)") }
    let routeChangeCount = options.routeChanges ?? options.flaps
    deleteNamespacesOnSignals()
    defer { Namespaces.shared.deleteAll() }

    let began = Date()
    do {
        let (host, kernel) = hostDescription()
        log("Monitor benchmark, each kind of target: \(options.flaps) flaps, \(routeChangeCount) route changes "
            + "each way (\(host))")
        let reach = options.withReach ? try options.reach ?? findReach() : nil
        if let reach { log("reach: \(reach)") }
        let kinds = DeliveryKind.inProcess + (reach == nil ? [] : [.reachWatch])
        let changes = [(ChangeKind.link, options.flaps), (.route, routeChangeCount)]
        var results: [ChangeKind: [TargetKind: [DeliveryKind: DeliveryResult]]] = [:]
        for (change, cycles) in changes {
            for target in TargetKind.allCases {
                for kind in kinds {
                    log("   \(change.rawValue), \(target.rawValue) (\(target.reachArgument(for: change))), "
                        + "\(kind.rawValue) (\(cycles) cycles)...")
                    results[change, default: [:]][target, default: [:]][kind] = try measureDelivery(
                        change, target: target, via: kind, cycles: cycles, reach: reach)
                }
            }
        }

        func json(_ change: ChangeKind) -> [String: Any] {
            Dictionary(uniqueKeysWithValues: results[change, default: [:]].map { target, byKind in
                (target.rawValue, Dictionary(uniqueKeysWithValues: byKind.map { ($0.key.rawValue, $0.value.json) }))
            })
        }
        let report: [String: Any] = [
            "host": host,
            "kernel": kernel,
            "cycles": ["link": options.flaps, "route": routeChangeCount],
            // What each kind of target watched, as `reach` takes it.
            "target_arguments": Dictionary(uniqueKeysWithValues: changes.map { change, _ in
                (change.rawValue, Dictionary(uniqueKeysWithValues: TargetKind.allCases.map {
                    ($0.rawValue, $0.reachArgument(for: change))
                }))
            }),
            "targets": ["link": json(.link), "route": json(.route)],
        ]
        let data = try JSONSerialization.data(withJSONObject: report, options: [.prettyPrinted, .sortedKeys])
        do {
            try data.write(to: URL(fileURLWithPath: output))
        } catch {
            throw BenchmarkError("cannot write \(output): \(error)")
        }

        log("")
        log("change latency where the observer receives it, by target (ms above the kernel's first message; "
            + "median / p99):")
        log("  target, change          delivered by      monitor's stamp      received              extra  left out")
        for (change, _) in changes {
            for target in TargetKind.allCases {
                summarise("\(target.rawValue) \(change.rawValue)", change.steps, results[change]![target]!, width: 24)
            }
        }
        log(String(format: "wrote %@ in %.1f s", output, Date().timeIntervalSince(began)))
    } catch {
        fail("\(error)")
    }
}

/// The command line's words, taken one at a time, with an option's value.
struct ArgumentWords {
    private var rest: ArraySlice<String>

    init(_ arguments: [String]) { rest = arguments[...] }

    mutating func next() -> String? { rest.popFirst() }

    /// The positive number that follows option `name`.
    mutating func count(_ name: String) -> Int {
        guard let value = rest.popFirst().flatMap({ Int($0) }), value > 0 else { fail("\(name) needs a positive number") }
        return value
    }

    /// The path that follows option `name`.
    mutating func path(_ name: String) -> String {
        guard let value = rest.popFirst() else { fail("\(name) needs a path") }
        return value
    }
}

/// Kept for the life of the process (set up once, on the main thread).
nonisolated(unsafe) var signalSources: [any DispatchSourceSignal] = []
