// Running the programs a sandbox is built with (`ip`, `nginx`, `dnsmasq`,
// `unshare`): no shell, output captured. Our own integration tests use the
// same functions (package access).

import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// What a finished command left behind.
package struct CommandResult: Sendable {
    package var status: Int32
    package var stdout: String
    package var stderr: String

    package init(status: Int32, stdout: String, stderr: String) {
        self.status = status; self.stdout = stdout; self.stderr = stderr
    }

    /// `stderr` split into non-empty lines.
    package var stderrLines: [String] { stderr.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) }
    /// `stdout` split into non-empty lines.
    package var stdoutLines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) }
}

package enum CommandError: Error, CustomStringConvertible {
    case notFound(String)
    case launchFailed(String, Error)

    package var description: String {
        switch self {
        case let .notFound(name): return "executable '\(name)' not found"
        case let .launchFailed(command, error): return "cannot launch \(command): \(error)"
        }
    }
}

/// Runs `executable` with `arguments`, no shell, capturing stdout and stderr
/// (read together as they come, so neither can fill up and block); `input`,
/// when given, is the child's standard input, else /dev/null; `environment`
/// replaces this process's.
///
/// posix_spawn and waitpid, not Foundation's `Process`: inside the suite's
/// wrapper (`unshare -Urnm`) the process's own network namespace has no
/// loopback up, Foundation cannot make the wakeup sockets its run loop
/// learns of a child's exit through, and `waitUntilExit()` never returns.
package func runCommand(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil,
                        input: String? = nil) throws -> CommandResult {
    let output = try ChildChannel(), errors = try ChildChannel()
    let inputChannel = try input.map { _ in try ChildChannel() }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    if let inputChannel {
        posix_spawn_file_actions_adddup2(&actions, inputChannel.childEnd, 0)
    } else {
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    }
    posix_spawn_file_actions_adddup2(&actions, output.childEnd, 1)
    posix_spawn_file_actions_adddup2(&actions, errors.childEnd, 2)
    closeInheritedDescriptors(&actions)
    let pid = try spawn(executable, arguments, environment: environment, actions: &actions)
    [output, errors, inputChannel].forEach { $0?.closeChildEnd() }
    if let inputChannel, let input {
        // Small texts (a few `ip -batch` lines): they fit the socket's buffer.
        _ = Array(input.utf8).withUnsafeBytes { write(inputChannel.parentEnd, $0.baseAddress, $0.count) }
        inputChannel.closeParentEnd()
    }
    let (stdout, stderr) = readUntilEnd(output.parentEnd, errors.parentEnd)
    return CommandResult(status: try waitForExit(pid), stdout: String(decoding: stdout, as: UTF8.self),
                         stderr: String(decoding: stderr, as: UTF8.self))
}

/// A socket pair between this process and a child: the child's end becomes one
/// of its standard descriptors. Close-on-exec, so no other child inherits it
/// (Swift's Glibc has no pipe2).
private final class ChildChannel {
    private(set) var parentEnd: Int32
    private(set) var childEnd: Int32

    init() throws {
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            throw SandboxError("socketpair: \(String(cString: strerror(errno)))")
        }
        parentEnd = ends[0]
        childEnd = ends[1]
    }

    func closeChildEnd() { if childEnd >= 0 { close(childEnd); childEnd = -1 } }
    func closeParentEnd() { if parentEnd >= 0 { close(parentEnd); parentEnd = -1 } }
    deinit { closeChildEnd(); closeParentEnd() }
}

/// Reads both descriptors until each reaches its end.
private func readUntilEnd(_ first: Int32, _ second: Int32) -> ([UInt8], [UInt8]) {
    var data: [[UInt8]] = [[], []]
    var open = [pollfd(fd: first, events: Int16(POLLIN), revents: 0), pollfd(fd: second, events: Int16(POLLIN), revents: 0)]
    var buffer = [UInt8](repeating: 0, count: 65536)
    while open.contains(where: { $0.fd >= 0 }) {
        guard poll(&open, nfds_t(open.count), -1) >= 0 || errno == EINTR else { break }
        for index in open.indices where open[index].fd >= 0 && open[index].revents != 0 {
            let count = buffer.withUnsafeMutableBytes { read(open[index].fd, $0.baseAddress, $0.count) }
            if count > 0 {
                data[index] += buffer[..<count]
            } else if count == 0 || errno != EINTR {
                open[index].fd = -1   // poll ignores a negative descriptor
            }
        }
    }
    return (data[0], data[1])
}

/// posix_spawn with the default signal handlers and no blocked signal: the
/// calling thread may block signals (libdispatch's and Swift concurrency's
/// workers do), and a child inherits that mask, so a daemon would never see
/// the SIGTERM that stops it.
private func spawn(_ executable: URL, _ arguments: [String], environment: [String: String]?,
                   actions: inout posix_spawn_file_actions_t) throws -> pid_t {
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var signals = sigset_t()
    sigemptyset(&signals)
    posix_spawnattr_setsigmask(&attributes, &signals)
    sigfillset(&signals)
    posix_spawnattr_setsigdefault(&attributes, &signals)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    let words = [executable.path] + arguments
    let argv = words.map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    let envp = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
    defer { envp?.forEach { free($0) } }
    var pid: pid_t = 0
    let spawned = envp.map { posix_spawn(&pid, executable.path, &actions, &attributes, argv, $0) }
        ?? posix_spawn(&pid, executable.path, &actions, &attributes, argv, environ)
    guard spawned == 0 else {
        throw CommandError.launchFailed(words.joined(separator: " "), SandboxError(String(cString: strerror(spawned))))
    }
    return pid
}

/// Waits for child `pid`; its exit status, or 128 + N when signal N ended it.
private func waitForExit(_ pid: pid_t) throws -> Int32 {
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 {
        guard errno == EINTR else { throw SandboxError("waitpid \(pid): \(String(cString: strerror(errno)))") }
    }
    return status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
}

/// The program `name` on PATH or in the sbin directories (where Debian puts
/// `ip`, `nginx` and `dnsmasq`, often not on a normal user's PATH); nil when absent.
package func findExecutable(_ name: String) -> URL? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
    let directories = path.split(separator: ":").map(String.init) + ["/usr/sbin", "/sbin", "/usr/bin", "/bin"]
    for directory in directories {
        let candidate = URL(fileURLWithPath: directory).appendingPathComponent(name)
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    }
    return nil
}

/// The `ip` binary of iproute2, or nil.
package let ipExecutable: URL? = findExecutable("ip")

/// Whether process `pid` is gone: no such process, or a zombie that nobody
/// reaps (a daemon's parent is init, or a container's pid 1 that never waits).
package func processIsGone(_ pid: pid_t) -> Bool {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = stat.lastIndex(of: ")") else { return kill(pid, 0) != 0 && errno == ESRCH }
    return stat[stat.index(after: close)...].dropFirst().first == "Z"
}

/// Runs `executable` with `arguments`, its output appended to the file
/// `output`, and waits for it; returns its exit status (128 + N when signal N
/// ended it). For launchers of daemons: the child inherits none of this
/// process's descriptors (`closefrom` 3), so the daemon it forks keeps none
/// of them open (with `Process`, it kept the socket through which Foundation
/// learns that its child exited, and `waitUntilExit()` waited as long as the
/// daemon ran).
package func runLauncher(_ executable: URL, _ arguments: [String], output: String) throws -> Int32 {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_APPEND, 0o644)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    closeInheritedDescriptors(&actions)
    return try waitForExit(try spawn(executable, arguments, environment: nil, actions: &actions))
}

/// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34), which Swift's
/// Glibc module does not declare.
private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
private let addCloseFrom: AddCloseFrom? = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np")
    .map { unsafeBitCast($0, to: AddCloseFrom.self) }

/// Closes every descriptor from 3 on in the child: at once with glibc's
/// closefrom action, else one close action per descriptor open now (a close
/// of one that is closed by then is no error).
private func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) {
    if let addCloseFrom, addCloseFrom(&actions, 3) == 0 { return }
    for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? [] {
        if let fd = Int32(name), fd >= 3 { posix_spawn_file_actions_addclose(&actions, fd) }
    }
}
