// Issue 52, points 16, 17 and 21: what an operator's or an attacker's file
// does to the exporter's reading of it. Deep YAML is refused while libyaml's
// events are read (no tree, no recursion, no quadratic scan); more targets
// than start-up can register in time are refused by --check-config; a FIFO,
// a directory, a file one byte over the size limit, a second document and a
// signed port are each a one-line error; a receiver's control bytes are
// visible characters on the status page.

@testable import ReachExporterKit
import Dispatch
import LinuxReachability
import Synchronization
import XCTest

#if canImport(Glibc)
import Glibc
#endif

final class HostileInputTests: XCTestCase {
    // MARK: - Point 16: deep YAML

    /// 40,000 levels of block sequences on one line (80 KB): the tree's
    /// release once overflowed the stack (exit 139).
    func testDeepBlockNestingIsRefusedBeforeATreeExists() {
        let text = String(repeating: "- ", count: 40_000) + "x\n"
        XCTAssertThrowsError(try YAMLDocument.compose(text)) { error in
            XCTAssertTrue("\(error)".contains("nested deeper than \(YAMLDocument.maximumDepth)"), "\(error)")
            XCTAssertTrue("\(error)".hasPrefix("line 1 column "), "\(error)")
        }
        // The whole configuration path says it as a configuration error.
        XCTAssertThrowsError(try ExporterConfiguration.parse(yaml: "targets:\n" + String(repeating: "  ", count: 1) + text, source: "deep.yml")) {
            XCTAssertTrue("\($0)".hasPrefix("deep.yml: not valid YAML: line 2"), "\($0)")
        }
    }

    /// 100,000 levels of `[`: libyaml took 108 s over them before the tree's
    /// release crashed; refused after the first levels' events.
    func testDeepFlowNestingIsRefusedAtTheLimit() {
        let text = String(repeating: "[", count: 100_000)
        XCTAssertThrowsError(try YAMLDocument.compose(text)) { error in
            XCTAssertEqual("\(error)", "line 1 column \(YAMLDocument.maximumDepth + 1): nested deeper than \(YAMLDocument.maximumDepth) levels")
        }
        // A mapping of lists at the limit is still read.
        let atLimit = String(repeating: "[", count: YAMLDocument.maximumDepth) + String(repeating: "]", count: YAMLDocument.maximumDepth)
        XCTAssertNoThrow(try YAMLDocument.compose(atLimit))
    }

    // MARK: - Point 21: the file itself

    /// A second document after `---` was ignored without a word.
    func testASecondDocumentIsAnError() {
        XCTAssertThrowsError(try YAMLDocument.compose("listen: 127.0.0.1:1\n---\nlisten: 127.0.0.1:2\n")) {
            XCTAssertEqual("\($0)", "line 2: a second YAML document; a configuration is one document")
        }
        // One document with its explicit start and end markers is fine.
        XCTAssertNoThrow(try YAMLDocument.compose("---\nlisten: 127.0.0.1:1\n...\n"))
    }

    /// `+80` was port 80 (Int's parser takes a sign).
    func testAListenPortIsDigitsOnly() {
        for text in ["127.0.0.1:+80", "[::1]:+80", "127.0.0.1:-0", "127.0.0.1: 80"] {
            XCTAssertThrowsError(try ListenAddress(parsing: text), text) {
                XCTAssertTrue("\($0)".contains("the port must be 1...65535"), "\(text): \($0)")
            }
        }
        XCTAssertEqual(try ListenAddress(parsing: "127.0.0.1:80").port, 80)
    }

    private func temporaryPath(_ name: String) -> String {
        "/tmp/reach-exporter-hostile-\(getpid())-\(name)"
    }

    /// A FIFO as --config: opening it for reading waited for a writer for ever.
    /// The read runs on a thread of its own so that the old code's block is a
    /// failure (the 10 s bound is only a hang guard: the answer is immediate).
    func testAFIFOIsRefusedWithoutWaitingForAWriter() throws {
        let path = temporaryPath("fifo")
        unlink(path)
        XCTAssertEqual(mkfifo(path, 0o600), 0, String(cString: strerror(errno)))
        defer { unlink(path) }
        let done = DispatchSemaphore(value: 0)
        let outcome = Outcome()
        DispatchQueue.global().async {
            let text: String
            do {
                _ = try ConfigurationFile.read(path)
                text = "read"
            } catch {
                text = "\(error)"
            }
            outcome.text.withLock { $0 = text }
            done.signal()
        }
        guard done.wait(timeout: .now() + 10) == .success else {
            // Release the blocked reader before failing.
            let writer = open(path, O_WRONLY | O_NONBLOCK)
            if writer >= 0 { close(writer) }
            return XCTFail("reading a FIFO did not return in 10 s (it waits for a writer)")
        }
        XCTAssertEqual(outcome.text.withLock { $0 }, "\(path): not a regular file (a FIFO)")
    }

    /// A directory said only "read error".
    func testADirectoryIsSaidSo() throws {
        let path = temporaryPath("directory")
        mkdir(path, 0o700)
        defer { rmdir(path) }
        XCTAssertThrowsError(try ConfigurationFile.read(path)) {
            XCTAssertEqual("\($0)", "\(path): not a regular file (a directory)")
        }
    }

    /// The size check read in 64 KiB chunks and admitted 1 MiB + 64 KiB - 1
    /// bytes while saying "larger than 1 MiB".
    func testOneByteOverOneMiBIsRefused() throws {
        let path = temporaryPath("large.yml")
        defer { unlink(path) }
        func write(_ count: Int) {
            let file = fopen(path, "w")
            let line = Array("# padding padding padding padding padding padding padding padding padding padding pad\n".utf8)
            var written = 0
            while written + line.count <= count { written += fwrite(line, 1, line.count, file) }
            written += fwrite(Array(repeating: UInt8(ascii: "#"), count: count - written), 1, count - written, file)
            fclose(file)
        }
        write(1 << 20)
        XCTAssertEqual(try ConfigurationFile.read(path).utf8.count, 1 << 20, "exactly 1 MiB is read")
        write((1 << 20) + 1000)
        XCTAssertThrowsError(try ConfigurationFile.read(path)) {
            XCTAssertEqual("\($0)", "\(path): larger than 1 MiB")
        }
    }

    // MARK: - Point 17: start-up grows with the square of the targets

    /// swift-prometheus, when it held the series, copied a family's
    /// dictionary for every series it added: 1,000 targets took 3.4 s to
    /// listening, 4,000 68 s (past the unit's TimeoutStartSec=60s). The limit
    /// stays: --check-config (the same `load`) refuses more than
    /// `maximumTargets`, from the file and the flags alike.
    func testMoreTargetsThanStartUpCanRegisterAreRefused() throws {
        func addresses(_ count: Int) -> [String] {
            (0 ..< count).map { "10.\($0 / 65536).\($0 / 256 % 256).\($0 % 256)" }
        }
        let limit = ExporterConfiguration.maximumTargets
        XCTAssertEqual(limit, 1000)
        var configuration = try ExporterConfiguration.parse(yaml: "targets: [\(addresses(limit).joined(separator: ", "))]\n", source: "f.yml")
        XCTAssertNoThrow(try configuration.finish())
        configuration.targets.append(try Target(parsing: "192.0.2.1"))
        XCTAssertThrowsError(try configuration.finish()) {
            XCTAssertEqual("\($0)", "1001 targets: at most 1000 (each target's series are registered at start-up, "
                           + "in a time that grows with the square of their number)")
        }
    }

    // MARK: - Point 21: control bytes on the status page

    /// A receiver's answer (remote write's last error) carried ESC and CR to
    /// the page as they came.
    func testControlCharactersAreShownNotSent() {
        let escaped = HTMLBuilder.escaped("bad \u{1B}[31mred\r\nnext\u{7F}\u{85}<b>\ttab")
        XCTAssertEqual(escaped, "bad \\x1B[31mred\\x0D\\x0Anext\\x7F\\x85&lt;b&gt;\ttab")
        XCTAssertFalse(escaped.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\t") || (0x7F ... 0x9F).contains($0.value) })
    }
}

/// What a thread the test started found.
final class Outcome: Sendable {
    let text = Mutex("")
}
