internal import CReachability
#if canImport(Glibc)
import Glibc
#endif

/// Resolves host names with getaddrinfo(3) on a thread of its own, so that a
/// slow resolver blocks neither the caller nor Swift's cooperative pool. The
/// thread enters the evaluator's network namespace first, so a name resolves
/// as it would for a process in that namespace.
package enum HostResolver {
    /// Resolver threads alive at once, across the process. getaddrinfo cannot
    /// be cancelled, so a thread whose caller timed out runs on until the
    /// resolver gives up; with a name server that never answers, lookups
    /// beyond this fail at once (typed) instead of piling up threads.
    static let maximumInFlight = 16
    private static let inFlight = Locked(0)
    /// Called on a resolver thread before it looks `host` up (tests hold it there).
    nonisolated(unsafe) static var beforeLookUp: (@Sendable (String) -> Void)?

    /// The number of resolver threads alive now.
    static var threadsInFlight: Int { inFlight.withLock { $0 } }

    /// Looks `host` up on a resolver thread of its own (which holds the
    /// namespace until it ends) and hands the answer to `completion` there.
    /// Throws `.resolutionFailed` when `maximumInFlight` lookups are running.
    package static func startLookUp(_ host: String, in namespace: NamespaceHandle,
                            completion: @escaping @Sendable (Result<[IPAddress], ReachabilityError>) -> Void) throws(ReachabilityError) {
        guard inFlight.withLock({ $0 += 1; return $0 }) <= maximumInFlight else {
            inFlight.withLock { $0 -= 1 }
            throw .resolutionFailed(host: host, reason: "\(maximumInFlight) lookups already in flight (is a name server not answering?)")
        }
        do {
            try startThread(.resolver) {
                defer { inFlight.withLock { $0 -= 1 } }
                beforeLookUp?(host)
                completion(Result { () throws(ReachabilityError) in try lookUp(host, in: namespace) })
            }
        } catch {
            inFlight.withLock { $0 -= 1 }
            throw error
        }
    }

    /// The blocking part, on a thread the library owns: it enters the
    /// namespace, with its /etc/netns/NAME configuration as `ip netns exec`
    /// shows it. Addresses keep the resolver's order (RFC 6724), duplicates removed.
    static func lookUp(_ host: String, in namespace: NamespaceHandle) throws(ReachabilityError) -> [IPAddress] {
        // getaddrinfo would see the name cut at the NUL ("localhost\0x" resolving as localhost).
        guard !host.utf8.contains(0) else { throw .invalidTarget(host, reason: "contains NUL") }
        if namespace.fd >= 0 && creach_netns_enter_thread_config(namespace.fd, namespace.configurationName) != 0 {
            throw .system(operation: "enter network namespace to resolve \(host)", errno: .current)
        }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, nil, &hints, &list)
        guard rc == 0 else {
            let reason = rc == EAI_SYSTEM ? Errno.current.description : String(cString: gai_strerror(rc))
            throw .resolutionFailed(host: host, reason: reason)
        }
        defer { freeaddrinfo(list) }
        var addresses: [IPAddress] = []
        var entry = list
        while let info = entry?.pointee {
            entry = info.ai_next
            guard let sockaddr = info.ai_addr else { continue }
            let address: IPAddress
            switch info.ai_family {
            case AF_INET:
                var sin = UnsafeRawPointer(sockaddr).loadUnaligned(as: sockaddr_in.self)
                address = withUnsafeBytes(of: &sin.sin_addr) { IPAddress(family: .v4, bytes: $0) }
            case AF_INET6:
                var sin6 = UnsafeRawPointer(sockaddr).loadUnaligned(as: sockaddr_in6.self)
                address = withUnsafeBytes(of: &sin6.sin6_addr) { IPAddress(family: .v6, bytes: $0) }
            default:
                continue
            }
            if !addresses.contains(address) { addresses.append(address) }
        }
        guard !addresses.isEmpty else { throw .resolutionFailed(host: host, reason: "no IPv4 or IPv6 address") }
        return addresses
    }
}
