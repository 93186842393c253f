import XCTest
import Glibc
@testable import ReachabilityCore
@testable import ReachabilityKernel

/// The evaluator's resolv.conf cache (`NameServerCache`): read again exactly
/// when the file changed, including a same-size rewrite in place within the
/// kernel's timestamp granularity.
final class NameServerCacheTests: XCTestCase {
    private var directory = ""
    private var path: String { directory + "/resolv.conf" }

    override func setUpWithError() throws {
        var template = Array("/tmp/reach-resolvconf-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw XCTSkip("mkdtemp failed: errno \(errno)") }
        directory = String(cString: made)
    }

    override func tearDown() {
        unlink(path)
        unlink(path + ".new")
        rmdir(directory)
    }

    private func write(_ text: String, to file: String) {
        let fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        XCTAssertGreaterThanOrEqual(fd, 0)
        _ = text.withCString { Glibc.write(fd, $0, strlen($0)) }
        close(fd)
    }

    /// The later of the file's modification and change times, in seconds.
    private func stampSecond() -> Int {
        var info = stat()
        XCTAssertEqual(stat(path, &info), 0)
        return max(info.st_mtim.tv_sec, info.st_ctim.tv_sec)
    }

    private let first = [IPAddress("192.0.2.1")!]
    private let second = [IPAddress("192.0.2.2")!]

    func testASettledUnchangedFileIsReadOnce() {
        write("nameserver 192.0.2.1\n", to: path)
        var cache = NameServerCache()
        let later = stampSecond() + 10
        for _ in 0..<5 { XCTAssertEqual(cache.nameServers(at: path, now: later), first) }
        XCTAssertEqual(cache.reads, 1, "a settled, unchanged file is not read again")
    }

    func testAFileReadWithinASecondOfItsLastWriteIsReadAgain() {
        write("nameserver 192.0.2.1\n", to: path)
        var cache = NameServerCache()
        let soon = stampSecond()
        XCTAssertEqual(cache.nameServers(at: path, now: soon), first)
        XCTAssertEqual(cache.nameServers(at: path, now: soon), first)
        XCTAssertEqual(cache.reads, 2, "a file written this second may change again with the same stamp")
        // Once settled, kept.
        XCTAssertEqual(cache.nameServers(at: path, now: soon + 10), first)
        XCTAssertEqual(cache.nameServers(at: path, now: soon + 10), first)
        XCTAssertEqual(cache.reads, 3)
    }

    func testASameSizeRewriteInPlaceIsSeenAtOnce() {
        write("nameserver 192.0.2.1\n", to: path)
        var cache = NameServerCache()
        XCTAssertEqual(cache.nameServers(at: path), first)
        // Same size, same inode, and within one timestamp tick on a kernel
        // with coarse timestamps: seen because the file had not settled.
        write("nameserver 192.0.2.2\n", to: path)
        XCTAssertEqual(cache.nameServers(at: path), second)
    }

    func testAChangedSizeIsSeenEvenWhenTheStampWasKept() {
        write("nameserver 192.0.2.1\n", to: path)
        var cache = NameServerCache()
        let later = stampSecond() + 10
        XCTAssertEqual(cache.nameServers(at: path, now: later), first)
        write("nameserver 192.0.2.2\nnameserver 192.0.2.3\n", to: path)
        XCTAssertEqual(cache.nameServers(at: path, now: later), second + [IPAddress("192.0.2.3")!])
    }

    func testAFileReplacedByRenameIsSeen() {
        write("nameserver 192.0.2.1\n", to: path)
        var cache = NameServerCache()
        let later = stampSecond() + 10
        XCTAssertEqual(cache.nameServers(at: path, now: later), first)
        // The same size as the file it replaces: its inode tells it apart.
        write("nameserver 192.0.2.2\n", to: path + ".new")
        XCTAssertEqual(rename(path + ".new", path), 0)
        XCTAssertEqual(cache.nameServers(at: path, now: later), second)
    }

    func testAMissingFileHasNoServersAndIsSeenWhenItAppears() {
        var cache = NameServerCache()
        XCTAssertEqual(cache.nameServers(at: path), [])
        write("nameserver 192.0.2.1\n", to: path)
        XCTAssertEqual(cache.nameServers(at: path), first)
        unlink(path)
        XCTAssertEqual(cache.nameServers(at: path), [])
    }

    /// The file's grammar, as the C library reads it: `nameserver` and an
    /// address as the first two words (spaces and tabs between words, leading
    /// blanks allowed), comments and other keywords skipped, an address that
    /// does not parse skipped, at most three servers, a last line without a
    /// newline read.
    func testNameServersAreReadAsTheCLibraryReadsThem() {
        write("""
            # nameserver 198.51.100.1
            ; nameserver 198.51.100.2
            search example.org
            nameservers 198.51.100.3
            nameserver
            nameserver not-an-address
            nameserver 192.0.2.1
            \tnameserver\t2001:db8::53 # a comment after the address
              nameserver   192.0.2.2\t
            nameserver 192.0.2.3\r
            nameserver 192.0.2.4
            nameserver 192.0.2.5
            """, to: path)
        XCTAssertEqual(NetworkNamespace.nameServers(at: path),
                       ["192.0.2.1", "2001:db8::53", "192.0.2.2"].map { IPAddress($0)! })
        write("nameserver 192.0.2.9", to: path)
        XCTAssertEqual(NetworkNamespace.nameServers(at: path), [IPAddress("192.0.2.9")!])
        write("", to: path)
        XCTAssertEqual(NetworkNamespace.nameServers(at: path), [])
    }
}
