#if canImport(Glibc)
import Glibc
#endif

/// The files a configuration names: the configuration itself (`--config`)
/// and the secrets it points to (a password or token file).
package enum ConfigurationFile {
    /// The most a configuration file holds.
    package static let maximumSize = 1 << 20

    /// A file's text; a missing or unreadable file, one that is not a regular
    /// file (a FIFO's open would wait for a writer for ever: it is opened
    /// without waiting, then refused), or one larger than `maximumSize`
    /// is a configuration error.
    package static func read(_ path: String) throws(ConfigurationError) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else { throw ConfigurationError("\(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw ConfigurationError("\(path): \(String(cString: strerror(errno)))") }
        guard status.st_mode & S_IFMT == S_IFREG else {
            let kind: String
            switch status.st_mode & S_IFMT {
            case S_IFDIR: kind = "a directory"
            case S_IFIFO: kind = "a FIFO"
            case S_IFSOCK: kind = "a socket"
            case S_IFCHR: kind = "a character device"
            case S_IFBLK: kind = "a block device"
            default: kind = "not a file"
            }
            throw ConfigurationError("\(path): not a regular file (\(kind))")
        }
        // One byte more than allowed is read, so that a larger file is seen
        // whatever its size said (it may grow while being read).
        var bytes = [UInt8](repeating: 0, count: maximumSize + 1)
        var count = 0
        while count < bytes.count {
            let got = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + count, $0.count - count) }
            if got < 0 && errno == EINTR { continue }
            guard got >= 0 else { throw ConfigurationError("\(path): \(String(cString: strerror(errno)))") }
            if got == 0 { break }
            count += got
        }
        guard count <= maximumSize else { throw ConfigurationError("\(path): larger than 1 MiB") }
        return String(decoding: bytes[..<count], as: UTF8.self)
    }

    /// A file's secret: its text without the final newline.
    static func secret(_ path: String) throws(ConfigurationError) -> String {
        var text = try read(path)
        while text.hasSuffix("\n") || text.hasSuffix("\r") { text.removeLast() }
        return text
    }
}
