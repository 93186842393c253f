import ReachabilityModel
#if canImport(Glibc)
internal import Glibc
#endif

/// Every error the library throws. Bad input is always one of these, never a crash.
///
/// An enum, not a struct of codes, on purpose: the library throws it typed
/// (`throws(ReachabilityError)`), so a `switch` over a caught error (as the
/// `reach` command's) is checked exhaustive by the compiler and covers each
/// failure at compile time. New cases are added only in a minor version, with
/// a CHANGELOG entry; a `default:` clause opts out of that check.
public enum ReachabilityError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The text is neither an IPv4/IPv6 address, a host name, nor `internet`.
    case invalidTarget(String, reason: String)
    /// The text is not an IPv4 or IPv6 address.
    case invalidAddress(String)
    /// An interface name that Linux cannot have (empty, longer than 15 bytes, `/`, white space, `.` or `..`).
    case invalidInterfaceName(String, reason: String)
    /// No interface of that name exists in the namespace.
    case unknownInterface(String)
    /// A namespace name that cannot name a file in /run/netns.
    case invalidNamespace(String, reason: String)
    /// No network namespace of that name or path.
    case unknownNamespace(String)
    /// A uid must be in 0...4294967294 (4294967295 is `(uid_t)-1`, "no uid").
    /// Thrown when a uid is given as an untyped integer (the `reach` command's
    /// `--uid`); ``LookupOptions/uid`` is a `UInt32` and cannot be negative.
    case invalidUID(Int64)
    /// A firewall mark must be in 0...4294967295.
    case invalidMark(Int64)
    /// An interface kind override is not `PATTERN=KIND` with a known kind.
    case invalidKindOverride(String, reason: String)
    /// A host name did not resolve.
    case resolutionFailed(host: String, reason: String)
    /// A host name did not resolve within the time allowed.
    case resolutionTimedOut(host: String)
    /// A monitor configuration value out of range (a negative time, an empty buffer).
    case invalidConfiguration(String, reason: String)
    /// A probe method or URL that cannot be used (`tcp:0`, `https://`, a bad host).
    case invalidProbe(String, reason: String)
    /// The process lacks a capability the operation needs (`EPERM`): entering
    /// another network namespace needs `CAP_SYS_ADMIN`. Lookups and monitoring
    /// in the process's own namespace need none.
    case permissionDenied(operation: String, needs: String)
    /// A system call or kernel exchange failed.
    case system(operation: String, errno: SystemErrno)

    public var description: String {
        switch self {
        case let .invalidTarget(text, reason): return "invalid target '\(text)': \(reason)"
        case let .invalidAddress(text): return "invalid IP address '\(text)'"
        case let .invalidInterfaceName(name, reason): return "invalid interface name '\(name)': \(reason)"
        case let .unknownInterface(name): return "no interface named '\(name)'"
        case let .invalidNamespace(name, reason): return "invalid network namespace '\(name)': \(reason)"
        case let .unknownNamespace(name): return "no network namespace '\(name)'"
        case let .invalidUID(uid): return "invalid uid \(uid): must be 0...4294967294"
        case let .invalidMark(mark): return "invalid firewall mark \(mark): must be 0...4294967295"
        case let .invalidKindOverride(text, reason): return "invalid interface kind override '\(text)': \(reason)"
        case let .resolutionFailed(host, reason): return "cannot resolve '\(host)': \(reason)"
        case let .resolutionTimedOut(host): return "resolving '\(host)' timed out"
        case let .invalidConfiguration(name, reason): return "invalid \(name): \(reason)"
        case let .invalidProbe(text, reason): return "invalid probe '\(text)': \(reason)"
        case let .permissionDenied(operation, needs): return "\(operation): permission denied, needs \(needs)"
        case let .system(operation, errno): return "\(operation): \(errno)"
        }
    }
}

extension ReachabilityError {
    /// A netlink socket could not be opened in `namespace`:
    /// EPERM there means the process may not enter it.
    package static func openingSocket(_ operation: String, in namespace: NetworkNamespace, errno: SystemErrno) -> ReachabilityError {
        guard errno == .notPermitted, case let .some(name) = namespace.argument else {
            return .system(operation: operation, errno: errno)
        }
        return .permissionDenied(operation: "\(operation) in network namespace '\(name)'", needs: namespace.enterHint)
    }
}

extension NetworkNamespace {
    /// What it takes to enter the namespace, and how to run inside it instead.
    var enterHint: String {
        switch self {
        case .current: return "CAP_SYS_ADMIN"
        #if !REACH_NO_SIMULATION   // the .simulated case exists only outside firmware builds
        case .simulated: return "nothing (a simulated kernel asks no permission)"
        #endif
        case let .named(name): return "CAP_SYS_ADMIN to enter it (or run inside it: ip netns exec \(name) ...)"
        case let .path(path):
            return "CAP_SYS_ADMIN to enter it, and to open a /proc/PID/ns/net of another user's process the right to "
                + "ptrace it (or run inside it: nsenter --net=\(path) ...)"
        }
    }
}
