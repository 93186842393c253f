internal import CReachability
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Resolves host names with getaddrinfo(3) on a thread of its own, so that a
/// slow resolver blocks neither the caller nor Swift's cooperative pool. The
/// thread enters the evaluator's network namespace first, so a name resolves
/// as it would for a process in that namespace.
enum HostResolver {
    static func resolve(_ host: String, namespaceFD: Int32, timeout: Duration) async throws(ReachabilityError) -> [IPAddress] {
        let pending = Pending()
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<[IPAddress], ReachabilityError>, Never>) in
            pending.install(continuation)
            let timer = Task {
                try? await Task.sleep(for: timeout)
                pending.finish(.failure(.resolutionTimedOut(host: host)))
            }
            pending.onFinish { timer.cancel() }
            do throws(ReachabilityError) {
                // getaddrinfo cannot be cancelled: on a timeout the thread runs on and its answer is dropped.
                try startThread(.resolver) {
                    pending.finish(Result { () throws(ReachabilityError) in try lookUp(host, namespaceFD: namespaceFD) })
                }
            } catch {
                pending.finish(.failure(error))
            }
        }
        return try result.get()
    }

    /// The blocking part, run on a resolver thread (the monitor starts its own). Addresses keep the
    /// resolver's order (RFC 6724), duplicates removed.
    static func lookUp(_ host: String, namespaceFD: Int32) throws(ReachabilityError) -> [IPAddress] {
        // getaddrinfo would see the name cut at the NUL ("localhost\0x" resolving as localhost).
        guard !host.utf8.contains(0) else { throw .invalidTarget(host, reason: "contains NUL") }
        if namespaceFD >= 0 && creach_netns_enter_thread(namespaceFD) != 0 {
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

    /// Resumes the continuation exactly once, whichever of answer and timeout comes first.
    private final class Pending: Sendable {
        private struct State {
            var continuation: CheckedContinuation<Result<[IPAddress], ReachabilityError>, Never>?
            var result: Result<[IPAddress], ReachabilityError>?
            var onFinish: (@Sendable () -> Void)?
        }
        private let state = Mutex(State())

        func install(_ continuation: CheckedContinuation<Result<[IPAddress], ReachabilityError>, Never>) {
            state.withLock { $0.continuation = continuation }
        }

        func onFinish(_ action: @escaping @Sendable () -> Void) {
            let finished = state.withLock { state -> Bool in
                if state.result != nil { return true }
                state.onFinish = action
                return false
            }
            if finished { action() }
        }

        func finish(_ result: Result<[IPAddress], ReachabilityError>) {
            let (continuation, action) = state.withLock { state -> (CheckedContinuation<Result<[IPAddress], ReachabilityError>, Never>?, (@Sendable () -> Void)?) in
                guard state.result == nil else { return (nil, nil) }
                state.result = result
                defer { state.continuation = nil; state.onFinish = nil }
                return (state.continuation, state.onFinish)
            }
            action?()
            continuation?.resume(returning: result)
        }
    }
}
