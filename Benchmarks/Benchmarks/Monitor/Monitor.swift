// Kernel-timed measurements of ReachabilityMonitor, against real network
// namespaces (needs root):
//
//   1. change latency: IFF_UP of a veth flipped with an ioctl, until the
//      monitor's change (its CLOCK_MONOTONIC timestamp);
//   2. start-to-first-answer and RSS of a fresh process against 0, 10k and
//      100k routes (and after 1000 route changes);
//   3. CPU of this process to absorb a burst of 100k route notifications.
//
//   Monitor [--flaps N] [--quick] --output PATH.json
//   Monitor child-rss --netns NAME          (internal: one sample of 2.)
//
// Every namespace is `reach-bench-<pid>-<n>` and is deleted before exiting,
// on success, on failure and on SIGINT/SIGTERM. No packet is sent: the
// monitor only asks the kernel's FIB.

import CBenchLimits
import Dispatch
import Foundation
import Reachability
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

// MARK: - Small system helpers

func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

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
        let deadline = Date().addingTimeInterval(5)
        while true {
            let line = try run(ipPath, ["-n", name, "-o", "link", "show", "dev", "va"]).stdout
            if line.contains(" state UP ") { break }
            guard Date() < deadline else { throw BenchmarkError("va in \(name) never came up: \(line)") }
            usleep(20_000)
        }
        try ip(name, "route add default via 10.1.0.254")
        return name
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

    /// The first change from index `start` on whose reachability is `reachable`.
    func waitForChange(from start: Int, reachable: Bool, timeout: Double) -> (ReachabilityChange, Int)? {
        guard let changes = wait(timeout: timeout, until: { changes in
            changes.dropFirst(start).contains { !$0.isInitial && $0.isReachable == reachable }
        }) else { return nil }
        let index = changes.indices.dropFirst(start).first { !changes[$0].isInitial && changes[$0].isReachable == reachable }!
        return (changes[index], index)
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
    let start = monotonicNanoseconds()
    guard request.withUnsafeMutableBytes({ ioctl(fd, setFlags, $0.baseAddress!) }) == 0 else {
        throw BenchmarkError("SIOCSIFFLAGS \(device): \(String(cString: strerror(errno)))")
    }
    return start
}

/// The kernel's own first message of each change: a raw C listener
/// (CBenchLimits) subscribed to RTNLGRP_LINK in the namespace, on a thread of
/// its own (SCHED_FIFO, so it wakes before any other thread) that notes
/// CLOCK_MONOTONIC as each datagram wakes it. Every latency below is measured
/// above this stamp: the limit any listener has. Netlink sockets carry no
/// SO_TIMESTAMP, so a wake-up is the nearest stamp there is; a flap whose
/// listener stamp still came after the change is counted, not measured.
final class KernelListener: @unchecked Sendable {
    private let condition = NSCondition()
    private var stamps: [UInt64] = []
    private var stopping = false
    private let finished = DispatchSemaphore(value: 0)
    private let fd: Int32

    init(namespace: String) throws {
        fd = try onThreadInside(namespace) { () throws -> Int32 in
            let fd = bench_link_listener()
            guard fd >= 0 else { throw BenchmarkError("link listener: \(String(cString: strerror(errno)))") }
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
                    condition.broadcast()
                }
                let done = stopping || stamp == .max
                condition.unlock()
                if done { return }
            }
        }.start()
    }

    /// The first message stamped at or after `t0`, waiting up to `timeout` seconds.
    func first(after t0: UInt64, timeout: Double) -> UInt64? {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let stamp = stamps.first(where: { $0 >= t0 }) { return stamp }
            if !condition.wait(until: deadline) { return stamps.first { $0 >= t0 } }
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

struct LatencyResult {
    /// Kernel's first message → our change, per direction (ms).
    var down: [Double] = []
    var up: [Double] = []
    /// The ioctl → the kernel's first message (ms): what no listener can save.
    var kernel: [Double] = []
    /// Changes that arrived besides the one each flap waited for.
    var extraChanges = 0
    /// Flaps whose listener stamp came after the change (left out).
    var lateListener = 0
}

/// `flaps` flaps of va (down, then up) under a monitor of 10.1.0.7 with
/// `settleTime`; each change's stamp above the kernel's first message.
func measureLatency(flaps: Int, settleTime: Duration? = nil) throws -> LatencyResult {
    let namespace = try Namespaces.shared.createWithUplink()
    defer { Namespaces.shared.delete(namespace) }
    let control = try linkControlSocket(namespace)
    defer { close(control) }
    let kernel = try KernelListener(namespace: namespace)
    defer { kernel.stop() }

    var configuration = ReachabilityMonitor.Configuration()
    if let settleTime { configuration.settleTime = settleTime }
    let monitor = try ReachabilityMonitor(targets: [probe], namespace: .named(namespace), configuration: configuration)
    defer { monitor.stop() }
    let recorder = Recorder()
    monitor.onChange { recorder.record($0) }
    try monitor.start()
    guard let initial = recorder.wait(timeout: 10, until: { $0.contains(where: \.isInitial) })?.first else {
        throw BenchmarkError("no initial state within 10 s")
    }
    guard initial.isReachable else { throw BenchmarkError("10.1.0.7 is not reachable at the start: \(initial.status)") }
    usleep(50_000)   // let the set-up's notifications pass

    var result = LatencyResult()
    let before = recorder.count
    for flap in 0 ..< flaps {
        for up in [false, true] {
            let start = recorder.count
            let t0 = try setLink("va", up: up, socket: control)
            guard let (change, _) = recorder.waitForChange(from: start, reachable: up, timeout: 2) else {
                throw BenchmarkError("flap \(flap + 1): no change to \(up ? "reachable" : "not reachable") within 2 s "
                    + "after va \(up ? "up" : "down") (counters \(monitor.counters))")
            }
            guard let first = kernel.first(after: t0, timeout: 2) else {
                throw BenchmarkError("flap \(flap + 1): the listener saw no message")
            }
            result.kernel.append(milliseconds(first &- t0))
            guard first <= change.timeNanoseconds else {
                result.lateListener += 1
                usleep(5_000)
                continue
            }
            let latency = milliseconds(change.timeNanoseconds &- first)
            if up { result.up.append(latency) } else { result.down.append(latency) }
            usleep(5_000)
        }
    }
    usleep(100_000)
    result.extraChanges = recorder.count - before - 2 * flaps
    return result
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
    let t0 = monotonicNanoseconds()
    let baseline = residentKilobytes()
    let monitor = try ReachabilityMonitor(targets: [.internet, probe], namespace: .named(namespace))
    let created = monotonicNanoseconds()
    let recorder = Recorder()
    monitor.onChange { recorder.record($0) }
    try monitor.start()
    let started = monotonicNanoseconds()
    guard let initial = recorder.wait(timeout: 10, until: { $0.filter(\.isInitial).count >= 2 }) else {
        throw BenchmarkError("child: no initial state for both targets within 10 s")
    }
    let first = initial.filter(\.isInitial).map(\.timeNanoseconds).min()!
    let last = initial.filter(\.isInitial).map(\.timeNanoseconds).max()!
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
    let wallBefore = monotonicNanoseconds()
    let command = try RunningCommand(ipPath, ["-n", namespace, "-batch", path])
    var events = monitor.counters.events
    var lastIncrease = monotonicNanoseconds()
    var ipDone: UInt64?
    while true {
        usleep(5_000)
        let now = monotonicNanoseconds()
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
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == "child-rss" {
            guard arguments.count == 3, arguments[1] == "--netns" else { fail("usage: Monitor child-rss --netns NAME") }
            do { try childRSS(namespace: arguments[2]) } catch { fail("child-rss: \(error)") }
            exit(0)
        }

        var flaps: Int?
        var quick = false
        var output: String?
        var glib: String?
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--flaps":
                guard let value = rest.popFirst().flatMap({ Int($0) }), value > 0 else { fail("--flaps needs a positive number") }
                flaps = value
            case "--quick": quick = true
            case "--glib":
                guard let value = rest.popFirst() else { fail("--glib needs the path of Peers/glib-monitor") }
                glib = value
            case "--output":
                guard let value = rest.popFirst() else { fail("--output needs a path") }
                output = value
            default:
                fail("unknown argument \(argument)\nusage: Monitor [--flaps N (default 100)] [--quick] [--glib GLIB-MONITOR] --output PATH.json")
            }
        }
        guard let output else { fail("usage: Monitor [--flaps N (default 100)] [--quick] [--glib GLIB-MONITOR] --output PATH.json") }
        guard geteuid() == 0 else { fail("needs root (network namespaces)") }
        let flapCount = flaps ?? (quick ? 20 : 100)
        let routeCounts = quick ? [0, 10_000] : [0, 10_000, 100_000]

        // Ctrl-C or a kill: delete the namespaces first.
        for signalNumber in [SIGINT, SIGTERM, SIGHUP] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { fail("signal \(signalNumber)") }
            source.resume()
            signalSources.append(source)
        }
        defer { Namespaces.shared.deleteAll() }

        let began = Date()
        do {
            let (host, kernel) = hostDescription()
            log("Monitor benchmark: \(flapCount) flaps, routes \(routeCounts), burst 100000 (\(host))")

            log("1. change latency...")
            let latency = try measureLatency(flaps: flapCount)
            log("   ...again with settleTime 0 (every notification evaluated at once)...")
            let immediate = try measureLatency(flaps: flapCount, settleTime: .zero)
            let glibFlaps = min(flapCount, 20)
            var glibLatency: (first: [Double], right: [Double], missed: Int)?
            if let glib {
                log("   ...and GLib's GNetworkMonitor (\(glibFlaps) flaps)...")
                glibLatency = try measureGLibLatency(flaps: glibFlaps, executable: glib)
            }
            log("2. start-to-first-answer and RSS...")
            let routes = try measureRoutes(counts: routeCounts, repeats: 3)
            log("3. burst of 100000 route changes...")
            let burst = try measureBurst(routes: 100_000)

            let report: [String: Any] = [
                "host": host,
                "kernel": kernel,
                "latency_ms": ["down": latency.down.map(rounded), "up": latency.up.map(rounded),
                               "kernel": latency.kernel.map(rounded), "extra_changes": latency.extraChanges,
                               "late_listener": latency.lateListener],
                "latency_settle0_ms": ["down": immediate.down.map(rounded), "up": immediate.up.map(rounded),
                                       "extra_changes": immediate.extraChanges, "late_listener": immediate.lateListener],
                "glib_latency_ms": glibLatency.map { ["first": $0.first.map(rounded), "right": $0.right.map(rounded),
                                                       "missed": $0.missed] as [String: Any] } ?? NSNull(),
                "routes": routes,
                "burst": burst,
            ]
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
            log("change latency (\(flapCount) flaps, the kernel's first message → change timestamp):")
            log("  down: " + figures(latency.down))
            log("  up:   " + figures(latency.up))
            log("  (ioctl → the kernel's first message: " + figures(latency.kernel) + ")")
            log("  settleTime 0: " + figures(immediate.down + immediate.up))
            log("  changes besides the awaited ones: \(latency.extraChanges), with settleTime 0: \(immediate.extraChanges)")
            log("  listener stamped after the change (left out): \(latency.lateListener), with settleTime 0: \(immediate.lateListener)")
            if let glibLatency {
                log("  GLib, first signal:  " + figures(glibLatency.first))
                log("  GLib, right answer:  " + figures(glibLatency.right) + " (\(glibLatency.missed) missed)")
            }
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
            log(String(format: "wrote %@ in %.1f s", output, Date().timeIntervalSince(began)))
        } catch {
            fail("\(error)")
        }
    }
}

/// Kept for the life of the process (set up once, on the main thread).
nonisolated(unsafe) var signalSources: [any DispatchSourceSignal] = []
