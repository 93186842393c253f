// Running the programs a sandbox is built with (`ip`, `nginx`, `dnsmasq`,
// `unshare`): no shell, output captured. Our own integration tests use the
// same functions (package access).

import Foundation
import Synchronization

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
/// (both pipes are drained concurrently, so neither can fill up and block);
/// `input`, when given, is the child's standard input, else /dev/null.
package func runCommand(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil,
                        input: String? = nil) throws -> CommandResult {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if let environment { process.environment = environment }
    let out = Pipe()
    let err = Pipe()
    let inputPipe = input.map { _ in Pipe() }
    process.standardOutput = out
    process.standardError = err
    process.standardInput = inputPipe ?? FileHandle.nullDevice
    do {
        try process.run()
    } catch {
        throw CommandError.launchFailed(([executable.path] + arguments).joined(separator: " "), error)
    }
    if let inputPipe, let input {
        // Small texts (a few `ip -batch` lines): they fit the pipe's buffer.
        inputPipe.fileHandleForWriting.write(Data(input.utf8))
        try? inputPipe.fileHandleForWriting.close()
    }
    let group = DispatchGroup()
    let errorData = Mutex(Data())
    group.enter()
    DispatchQueue.global().async {
        let data = err.fileHandleForReading.readDataToEndOfFile()
        errorData.withLock { $0 = data }
        group.leave()
    }
    let outputData = out.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    process.waitUntilExit()
    return CommandResult(status: process.terminationStatus,
                         stdout: String(decoding: outputData, as: UTF8.self),
                         stderr: String(decoding: errorData.withLock { $0 }, as: UTF8.self))
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
/// of them open. With `Process` it would keep the socket through which
/// Foundation learns that its child exited, and `waitUntilExit()` would wait
/// as long as the daemon runs.
package func runLauncher(_ executable: URL, _ arguments: [String], output: String) throws -> Int32 {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_APPEND, 0o644)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    closeInheritedDescriptors(&actions)
    // The calling thread may block signals (libdispatch's and Swift
    // concurrency's workers do), and a child inherits that mask: a daemon
    // would never see the SIGTERM that stops it. It gets no mask and the
    // default handlers.
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
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, executable.path, &actions, &attributes, argv, environ)
    guard spawned == 0 else {
        throw CommandError.launchFailed(words.joined(separator: " "), SandboxError(String(cString: strerror(spawned))))
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 {
        guard errno == EINTR else { throw SandboxError("waitpid \(pid): \(String(cString: strerror(errno)))") }
    }
    return status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
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
