import ReachabilityCore
import Synchronization

extension ReachabilityEvaluator {
    /// Evaluates a target. A host name is resolved on a thread of its own (from
    /// inside the evaluator's namespace), never on the caller's thread; all its
    /// addresses are evaluated.
    ///
    /// - Parameters:
    ///   - target: The address, host name or internet to evaluate.
    ///   - options: The lookup's selectors: uid, firewall mark, output interface, source.
    ///   - resolveTimeout: How long a host name may take to resolve.
    /// - Returns: The answer for every address of the target. A name that does
    ///   not resolve, or not in time, is not reachable and carries the
    ///   resolver's error (`TargetEvaluation.error`).
    /// - Throws: `ReachabilityError` when a kernel exchange fails
    ///   (`ReachabilityError.system(operation:errno:)`).
    public func evaluate(_ target: Target, options: LookupOptions = LookupOptions(),
                         resolveTimeout: Duration = .seconds(5)) async throws(ReachabilityError) -> TargetEvaluation {
        guard case let .host(name) = target else {
            return try evaluate(target, at: target.addressesWithoutLookup ?? [], options: options)
        }
        let addresses: [IPAddress]
        do {
            addresses = try await HostResolver.resolve(name, in: namespaceHandle, timeout: resolveTimeout)
        } catch {
            return TargetEvaluation(target: target, addresses: [], error: error)
        }
        return try evaluate(target, at: addresses, options: options)
    }
}

extension Prober {
    /// Probes an address on a thread of its own, never on the caller's.
    ///
    /// - Parameters:
    ///   - address: The address to probe.
    ///   - method: How to probe: ICMP echo, TCP connect, HTTP or DNS.
    ///   - options: The probe's timeout, payload and fallback port.
    /// - Returns: What the probe found.
    /// - Throws: `ReachabilityError.invalidProbe(_:reason:)` or
    ///   `ReachabilityError.invalidConfiguration(_:reason:)` for a method or
    ///   options that cannot be used, `ReachabilityError.system(operation:errno:)`
    ///   when a socket cannot be opened or used, or the probe's thread cannot start.
    public func probe(_ address: IPAddress, method: ProbeMethod = .icmp,
                      options: ProbeOptions = ProbeOptions()) async throws(ReachabilityError) -> ProbeResult {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<ProbeResult, ReachabilityError>, Never>) in
            do throws(ReachabilityError) {
                try startThread(.probe) {
                    continuation.resume(returning: Result { () throws(ReachabilityError) in
                        try self.probe(address, method: method, options: options, wakeFD: -1)
                    })
                }
            } catch {
                continuation.resume(returning: .failure(error))
            }
        }
        return try result.get()
    }

    /// Resolves a host name from inside the prober's namespace, on a thread of its own.
    ///
    /// - Parameters:
    ///   - host: The host name to resolve.
    ///   - timeout: How long the resolution may take.
    /// - Returns: The addresses the name resolved to.
    /// - Throws: `ReachabilityError.invalidTarget(_:reason:)` for a text that
    ///   cannot be a host name, `ReachabilityError.resolutionFailed(host:reason:)`
    ///   when the name does not resolve, `ReachabilityError.resolutionTimedOut(host:)`
    ///   when it does not within `timeout`.
    public func resolve(_ host: String, timeout: Duration = .seconds(5)) async throws(ReachabilityError) -> [IPAddress] {
        try Target.validateHostName(host)
        return try await HostResolver.resolve(host, in: namespaceHandle, timeout: timeout)
    }
}

extension HostResolver {
    /// `startLookUp` awaited, with a timeout: the answer or `.resolutionTimedOut`,
    /// whichever comes first. A lookup that times out while it waits for a
    /// resolver thread is withdrawn before this returns, so callers that try
    /// again and again while a name server never answers do not fill the queue.
    static func resolve(_ host: String, in namespace: NamespaceHandle, timeout: Duration) async throws(ReachabilityError) -> [IPAddress] {
        let pending = Pending()
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<[IPAddress], ReachabilityError>, Never>) in
            pending.install(continuation)
            do throws(ReachabilityError) {
                let lookUp = try startLookUp(host, in: namespace) { pending.finish($0) }
                // Before the timer exists, so that a timeout always withdraws the lookup before it resumes the caller.
                pending.onFinish { lookUp.cancel() }
            } catch {
                pending.finish(.failure(error))
                return
            }
            let timer = Task {
                try? await Task.sleep(for: timeout)
                pending.finish(.failure(.resolutionTimedOut(host: host)))
            }
            pending.onFinish { timer.cancel() }
        }
        return try result.get()
    }
}

/// Resumes the continuation exactly once, whichever of answer and timeout
/// comes first, after running the actions that clean up after the other.
private final class Pending: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Result<[IPAddress], ReachabilityError>, Never>?
        var result: Result<[IPAddress], ReachabilityError>?
        var onFinish: [@Sendable () -> Void] = []
    }
    private let state = Mutex(State())

    func install(_ continuation: CheckedContinuation<Result<[IPAddress], ReachabilityError>, Never>) {
        state.withLock { $0.continuation = continuation }
    }

    /// Runs `action` when the result is in, before the caller resumes; at once if it is in already.
    func onFinish(_ action: @escaping @Sendable () -> Void) {
        let finished = state.withLock { state -> Bool in
            if state.result != nil { return true }
            state.onFinish.append(action)
            return false
        }
        if finished { action() }
    }

    func finish(_ result: Result<[IPAddress], ReachabilityError>) {
        let (continuation, actions) = state.withLock { state -> (CheckedContinuation<Result<[IPAddress], ReachabilityError>, Never>?, [@Sendable () -> Void]) in
            guard state.result == nil else { return (nil, []) }
            state.result = result
            defer { state.continuation = nil; state.onFinish = [] }
            return (state.continuation, state.onFinish)
        }
        for action in actions { action() }
        continuation?.resume(returning: result)
    }
}
