import ReachabilityModel
internal import CReachability
#if canImport(Glibc)
internal import Glibc
#endif

/// Which network namespace to ask: this process's, or another one, by name
/// (`/run/netns/NAME`, as `ip netns` makes them) or by path
/// (`/proc/PID/ns/net`). Opening another namespace needs `CAP_SYS_ADMIN`;
/// the calling thread never moves into it.
public enum NetworkNamespace: Hashable, Sendable, CustomStringConvertible {
    /// The namespace of this process: nothing is opened, and no capability is needed.
    case current
    /// A namespace by name, as `ip netns add` creates it: the file /run/netns/NAME. Host names in it
    /// resolve with /etc/netns/NAME/resolv.conf when that exists.
    case named(String)
    /// A namespace file by path, such as `/proc/PID/ns/net` or a bind mount of one.
    case path(String)
    #if !REACH_NO_SIMULATION   // firmware builds have no simulated namespace (firmware.flags)
    /// A kernel simulated in memory (ReachabilityTesting's `SimulatedNetwork.namespace`):
    /// its facts answer every lookup, its events and test clock drive monitors and trackers.
    /// Firmware builds leave it out (`-DREACH_NO_SIMULATION`, Tools/Footprint/firmware.flags).
    case simulated(SimulatedKernel)
    #endif

    /// Parses a namespace as the `reach` command's `--netns` takes it: a name,
    /// or a path when the text contains a `/`.
    ///
    /// Only the text is checked here: the namespace is opened (and found or
    /// not) when an evaluator, monitor, tracker or prober is created in it.
    ///
    /// - Parameter text: `NAME` for ``named(_:)`` (the file /run/netns/NAME),
    ///   or a path for ``path(_:)``.
    /// - Throws: ``ReachabilityError/invalidNamespace(_:reason:)`` for an empty
    ///   name or path, a name that is `.` or `..` or longer than 255 bytes, or
    ///   text that contains NUL.
    public init(parsing text: String) throws(ReachabilityError) {
        if text.contains("/") {
            try Self.validatePath(text)
            self = .path(text)
        } else {
            try Self.validateName(text)
            self = .named(text)
        }
    }

    private static func validateName(_ text: String) throws(ReachabilityError) {
        guard !text.isEmpty else { throw .invalidNamespace(text, reason: "empty name") }
        guard text != "." && text != ".." else { throw .invalidNamespace(text, reason: "not a name") }
        guard text.utf8.count <= 255 else { throw .invalidNamespace(text, reason: "longer than 255 bytes") }
        guard !text.utf8.contains(0) else { throw .invalidNamespace(text, reason: "contains NUL") }
        guard !text.contains("/") else { throw .invalidNamespace(text, reason: "a name cannot contain '/'") }
    }

    /// A C string ends at its first NUL: "/run/netns/a\0b" would open /run/netns/a.
    private static func validatePath(_ text: String) throws(ReachabilityError) {
        guard !text.isEmpty else { throw .invalidNamespace(text, reason: "empty path") }
        guard !text.utf8.contains(0) else { throw .invalidNamespace(text, reason: "contains NUL") }
    }

    /// The name or path as given to `creach_netns_open`, nil for `.current`.
    var argument: String? {
        switch self {
        case .current: return nil
        case let .named(name): return name
        case let .path(path): return path
        #if !REACH_NO_SIMULATION   // the .simulated case exists only outside firmware builds
        case .simulated: return nil
        #endif
        }
    }

    public var description: String {
        #if !REACH_NO_SIMULATION   // the .simulated case exists only outside firmware builds
        if case let .simulated(kernel) = self { return kernel.description }
        #endif
        return argument ?? "current"
    }

    /// The simulation of a `.simulated` namespace (always nil in a firmware
    /// build, where the optimizer then drops every simulated branch).
    package var simulation: (any KernelSimulation)? {
        #if !REACH_NO_SIMULATION   // the .simulated case exists only outside firmware builds
        if case let .simulated(kernel) = self { return kernel.backend }
        #endif
        return nil
    }

    /// An fd of the namespace (O_CLOEXEC) for the caller to close; -1 for `.current`.
    func open() throws(ReachabilityError) -> Int32 {
        switch self {
        case .current: return -1
        #if !REACH_NO_SIMULATION   // the .simulated case exists only outside firmware builds
        case .simulated: return -1
        #endif
        case let .named(name): try Self.validateName(name)
        case let .path(path): try Self.validatePath(path)
        }
        guard let argument else { return -1 }
        let fd = creach_netns_open(argument)
        guard fd >= 0 else {
            let error = SystemErrno.current
            if error == .noSuchFileOrDirectory || error.rawValue == ENOTDIR { throw .unknownNamespace(argument) }
            if error == .permissionDenied || error == .notPermitted {
                throw .permissionDenied(operation: "open network namespace '\(argument)'", needs: enterHint)
            }
            throw .system(operation: "open network namespace \(argument)", errno: error)
        }
        if let reason = Self.notANetworkNamespace(fd) {
            close(fd)
            throw .invalidNamespace(argument, reason: reason)
        }
        return fd
    }

    /// Why `fd` is not a network namespace; nil when it is one (or the kernel
    /// cannot tell, and setns will decide). Without this check a regular file
    /// or another kind of namespace fails later, in setns, as a bare EINVAL.
    private static func notANetworkNamespace(_ fd: Int32) -> String? {
        let cloneNewNet: Int32 = 0x4000_0000      // CLONE_NEWNET
        let type = creach_netns_type(fd)
        if type >= 0 {
            return type == cloneNewNet ? nil : "a namespace of another type, not a network namespace"
        }
        // ENOTTY: not a namespace file, or a kernel without NS_GET_NSTYPE (before
        // 4.11; qemu-user does not pass the ioctl on either). Every namespace
        // file lives on the one nsfs, so its device tells them apart; the
        // descriptor's link then names the type, as "net:[4026531840]".
        var file = stat()
        var known = stat()
        guard fstat(fd, &file) == 0, stat("/proc/self/ns/net", &known) == 0 else { return nil }
        guard file.st_dev == known.st_dev else { return "not a network namespace file" }
        var link = [CChar](repeating: 0, count: 64)
        let length = readlink("/proc/self/fd/\(fd)", &link, link.count - 1)
        guard length > 0 else { return nil }
        let name = link.prefix(length)
        guard let colon = name.firstIndex(of: CChar(UInt8(ascii: ":"))) else { return nil }
        return name[..<colon].elementsEqual("net".utf8.lazy.map { CChar(bitPattern: $0) })
            ? nil : "a namespace of another type, not a network namespace"
    }
}

extension NetworkNamespace {
    /// The resolv.conf that programs in this namespace read, as `ip netns exec`
    /// arranges it: /etc/netns/NAME/resolv.conf for a named namespace when it
    /// exists, else /etc/resolv.conf.
    public var resolvConfPath: String {
        if case let .named(name) = self {
            let path = "/etc/netns/\(name)/resolv.conf"
            if access(path, F_OK) == 0 { return path }
        }
        return "/etc/resolv.conf"
    }

    /// The `nameserver` addresses of ``resolvConfPath``, at most three (as the
    /// C library reads them).
    ///
    /// - Returns: The addresses in the file's order; empty when the file is
    ///   missing or names none.
    public func nameServers() -> [IPAddress] {
        Self.nameServers(at: resolvConfPath)
    }

    /// The `nameserver` addresses of the resolv.conf at `path` (see `nameServers()`).
    static func nameServers(at path: String) -> [IPAddress] {
        guard let file = fopen(path, "re") else { return [] }
        defer { fclose(file) }
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        var servers: [IPAddress] = []
        while servers.count < 3, getline(&line, &capacity, file) > 0, let line {
            let words = String(cString: line).split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" })
            if words.count >= 2, words[0] == "nameserver", let address = IPAddress(String(words[1])) {
                servers.append(address)
            }
        }
        return servers
    }
}
