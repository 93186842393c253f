internal import CReachability
#if canImport(Glibc)
import Glibc
#endif

/// Which network namespace to ask: this process's, or another one, by name
/// (`/run/netns/NAME`, as `ip netns` makes them) or by path
/// (`/proc/PID/ns/net`). Opening another namespace needs `CAP_SYS_ADMIN`;
/// the calling thread never moves into it.
public enum NetworkNamespace: Hashable, Sendable, CustomStringConvertible {
    case current
    case named(String)
    case path(String)

    /// `NAME` → `.named`, anything with a `/` → `.path`; validates the name.
    public init(parsing text: String) throws(ReachabilityError) {
        if text.contains("/") {
            self = .path(text)
        } else {
            guard !text.isEmpty else { throw .invalidNamespace(text, reason: "empty name") }
            guard text != "." && text != ".." else { throw .invalidNamespace(text, reason: "not a name") }
            guard text.utf8.count <= 255 else { throw .invalidNamespace(text, reason: "longer than 255 bytes") }
            guard !text.utf8.contains(0) else { throw .invalidNamespace(text, reason: "contains NUL") }
            self = .named(text)
        }
    }

    /// The name or path as given to `creach_netns_open`, nil for `.current`.
    var argument: String? {
        switch self {
        case .current: return nil
        case let .named(name): return name
        case let .path(path): return path
        }
    }

    public var description: String { argument ?? "current" }

    /// An fd of the namespace (O_CLOEXEC) for the caller to close; -1 for `.current`.
    func open() throws(ReachabilityError) -> Int32 {
        guard let argument else { return -1 }
        let fd = creach_netns_open(argument)
        guard fd >= 0 else {
            let error = Errno.current
            if error == .noSuchFileOrDirectory || error.rawValue == ENOTDIR { throw .unknownNamespace(argument) }
            throw .system(operation: "open network namespace \(argument)", errno: error)
        }
        return fd
    }
}
