import ReachabilityModel
#if canImport(Glibc)
internal import Glibc
#endif

/// A POSIX error number, as reported by a system call or by the kernel in a
/// netlink error message.
/// (Not `Errno`: swift-system's `Errno` would make the name ambiguous in
/// any file importing both modules.)
public struct SystemErrno: RawRepresentable, Error, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// No route to the network. The corresponding C error is `ENETUNREACH`.
    public static let networkUnreachable = SystemErrno(rawValue: ENETUNREACH)
    /// No route to the host (an `unreachable` route). The corresponding C error is `EHOSTUNREACH`.
    public static let hostUnreachable = SystemErrno(rawValue: EHOSTUNREACH)
    /// Permission denied (a `prohibit` route). The corresponding C error is `EACCES`.
    public static let permissionDenied = SystemErrno(rawValue: EACCES)
    /// Invalid argument (a `blackhole` route answers this). The corresponding C error is `EINVAL`.
    public static let invalidArgument = SystemErrno(rawValue: EINVAL)
    /// No such device. The corresponding C error is `ENODEV`.
    public static let noSuchDevice = SystemErrno(rawValue: ENODEV)
    /// No such file or directory. The corresponding C error is `ENOENT`.
    public static let noSuchFileOrDirectory = SystemErrno(rawValue: ENOENT)
    /// Operation not permitted. The corresponding C error is `EPERM`.
    public static let notPermitted = SystemErrno(rawValue: EPERM)
    /// Bad message (a malformed netlink message). The corresponding C error is `EBADMSG`.
    public static let badMessage = SystemErrno(rawValue: EBADMSG)
    /// Timed out. The corresponding C error is `ETIMEDOUT`.
    public static let timedOut = SystemErrno(rawValue: ETIMEDOUT)

    /// The calling thread's current `errno`, read from the C library itself:
    /// Glibc's Swift overlay's `errno` would link that whole overlay into a
    /// static program (one object: its tgmath wrappers import libm functions
    /// by the dozen, which the dynamic linker looks up at every start).
    package static var current: SystemErrno { SystemErrno(rawValue: __errno_location().pointee) }

    public var description: String {
        guard let text = strerror(rawValue) else { return "errno \(rawValue)" }
        return String(cString: text)
    }
}
