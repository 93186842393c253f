import Logging
import LinuxReachability
import ServiceLifecycle
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// systemd's notify protocol (sd_notify(3)), without libsystemd: datagrams to
/// `$NOTIFY_SOCKET` (a path, or `@name` for the abstract namespace). Without
/// the variable (not started by systemd), nothing is sent.
package struct SystemdNotifier: Sendable {
    let socketPath: String?
    /// Half of `$WATCHDOG_USEC`, when the watchdog is on for this process.
    let watchdogInterval: Duration?

    package init(environment: [String: String] = SystemdNotifier.environment()) {
        socketPath = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
        if let usec = environment["WATCHDOG_USEC"].flatMap({ UInt64($0) }), usec > 0,
           environment["WATCHDOG_PID"].map({ Int32($0) == getpid() }) ?? true {
            watchdogInterval = .microseconds(Int64(clamping: usec / 2))
        } else {
            watchdogInterval = nil
        }
    }

    static func environment() -> [String: String] {
        var values: [String: String] = [:]
        for key in ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"] {
            if let value = getenv(key) { values[key] = String(cString: value) }
        }
        return values
    }

    /// Sends `state` ("READY=1", "WATCHDOG=1", "STOPPING=1", ...); false when
    /// there is no socket or sending failed (systemd then sees no readiness:
    /// the failure is its to report).
    @discardableResult
    func notify(_ state: String) -> Bool {
        guard let socketPath else { return false }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var path = Array(socketPath.utf8)
        let abstract = path.first == UInt8(ascii: "@")
        if abstract { path[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.count < capacity, path.count > 0 else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: path)
        }
        let length = MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + path.count + (abstract ? 0 : 1)
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let bytes = Array(state.utf8)
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sockaddrPointer in
                sendto(fd, bytes, bytes.count, Int32(MSG_NOSIGNAL), sockaddrPointer, socklen_t(length))
            }
        }
        return sent == bytes.count
    }
}
