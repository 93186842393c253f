// A process left running, its output collected as it comes: `reach watch`,
// an example program, a server under test.

import Foundation
import ReachabilityTesting   // CommandError
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A process left running (`reach watch`), its output collected as it comes.
///
/// Each pipe is drained by a blocking `read(2)` loop on its own thread, not by
/// `FileHandle.readabilityHandler`: tearing down the libdispatch read source
/// behind that handler races the descriptor's close and intermittently crashes
/// the test process in `_dispatch_event_loop_drain` (swift-corelibs-libdispatch
/// issue 949). A blocking read registers nothing with libdispatch's epoll loop.
package final class RunningProcess: @unchecked Sendable {
    private let process = Process()
    private final class Output: Sendable {
        let state = Mutex<(lines: [String], partial: String, stderr: String)>(([], "", ""))
    }
    private let output = Output()
    private let readers = DispatchGroup()
    /// The child's standard input, when it was started with `input: true`.
    private let input: FileHandle?

    package init(_ executable: URL, _ arguments: [String], input: Bool = false) throws {
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
    package func send(_ line: String) {
        input?.write(Data((line + "\n").utf8))
    }

    package var lines: [String] { output.state.withLock { $0.lines } }
    package var stderr: String { output.state.withLock { $0.stderr } }
    package var isRunning: Bool { process.isRunning }
    package var pid: Int32 { process.processIdentifier }

    /// Waits until `count` lines were printed (or `timeout`); returns the lines so far.
    package func waitForLines(_ count: Int, timeout: TimeInterval = 5) -> [String] {
        let deadline = Date().addingTimeInterval(timeout)
        while lines.count < count && Date() < deadline { usleep(2000) }
        return lines
    }

    /// The exit status, or nil when it is still running after `timeout`.
    package func waitForExit(timeout: TimeInterval) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(2000) }
        if process.isRunning { return nil }
        _ = readers.wait(timeout: .now() + 5)   // the output it left in the pipes
        return process.terminationStatus
    }

    /// Stops the process (SIGTERM; SIGKILL when it is still running 10 s
    /// later: a command that ignores SIGTERM, or hangs in its stop, must not
    /// hang the suite) and waits for it and for the last of its output.
    package func terminate() {
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
