#if canImport(Glibc)
import Glibc
#endif

/// Hooks for the integration tests (Tests/IntegrationTests), and for nothing
/// else: each does nothing unless its environment variable is set. They let a
/// test put an event where a race would otherwise need luck.
enum TestHooks {
    /// `REACH_TEST_PAUSE_BEFORE_START=PATH`, for tests only: `watch` and
    /// `track` pause just before starting the monitor or tracker, after their
    /// SIGTERM handler is in place. They write `reach: test: paused before
    /// start` to standard error, then wait for one byte written to the FIFO
    /// at PATH (`mkfifo`); and, while the variable is set, write `reach: test:
    /// SIGTERM handled` once SIGTERM's stop has run. So a test can deliver a
    /// SIGTERM before the start, then let the command go on.
    static let pauseBeforeStartVariable = "REACH_TEST_PAUSE_BEFORE_START"

    /// The FIFO's path; read once, before any thread of ours could change the environment.
    private static let pausePath: String? = getenv(pauseBeforeStartVariable).map { String(cString: $0) }

    /// Pauses until the test writes a byte to the FIFO (see `pauseBeforeStartVariable`).
    static func pauseBeforeStart() {
        guard let path = pausePath else { return }
        // Read and write: the open returns at once, and the read waits for a
        // byte instead of seeing the end of file while no writer has it open.
        let fifo = open(path, O_RDWR | O_CLOEXEC)
        guard fifo >= 0 else { Reach.fail("\(pauseBeforeStartVariable)=\(path): \(String(cString: strerror(errno)))") }
        defer { close(fifo) }
        say("paused before start")
        var byte: UInt8 = 0
        while read(fifo, &byte, 1) < 0 && errno == EINTR {}
    }

    /// SIGTERM's stop has run: the test may let a paused command go on.
    static func sawSIGTERM() {
        if pausePath != nil { say("SIGTERM handled") }
    }

    private static func say(_ event: String) {
        var standardError = StandardError()
        print("reach: test: \(event)", to: &standardError)
    }
}
