#if canImport(Glibc)
internal import Glibc
#endif

/// Resolves host names with getaddrinfo(3) on a thread of its own, so that a
/// slow resolver blocks neither the caller nor Swift's cooperative pool. The
/// thread enters the evaluator's network namespace first, so a name resolves
/// as it would for a process in that namespace.
///
/// getaddrinfo cannot be cancelled, so a thread whose caller gave up runs on
/// until the resolver does. With a name server that never answers, threads
/// would pile up: at most `maximumInFlight` run at once, across the process,
/// and lookups past them wait for one in a queue, first come first served.
/// A thread that ends starts the longest-waiting lookup on a thread of its
/// own (it cannot take the lookup itself: it stays in its lookup's namespace).
package enum HostResolver {
    /// Resolver threads alive at once, across the process.
    static let maximumInFlight = 16
    /// Lookups waiting for a resolver thread, across the process. A monitor
    /// queues at most one per target and an async caller withdraws its lookup
    /// when it times out, so this only stops what nothing else bounds (a
    /// monitor started again and again while its name server never answers),
    /// so that the queue's memory stays small.
    static let maximumQueued = 4096
    private static let state = Locked(State())
    /// Called on a resolver thread before it looks `host` up (tests hold it there).
    nonisolated(unsafe) static var beforeLookUp: (@Sendable (String) -> Void)?

    /// The number of resolver threads alive now.
    static var threadsInFlight: Int { state.withLock { $0.threads } }

    /// The number of lookups waiting for a resolver thread now.
    static var lookUpsQueued: Int { state.withLock { $0.queue.count } }

    /// A lookup `startLookUp` took on: one still waiting for a thread can be withdrawn.
    package struct LookUp: Sendable {
        /// Its place in the queue; 0 when it had a thread at once.
        fileprivate let ticket: UInt64

        /// Withdraws the lookup if it still waits for a thread: it never runs
        /// and its completion is never called. Returns whether it did; a
        /// lookup already on its thread runs to its end.
        @discardableResult
        package func cancel() -> Bool {
            guard ticket != 0 else { return false }
            // Released after the lock: the lookup holds a namespace handle, which may close its fd.
            let withdrawn = HostResolver.state.withLock { $0.queue.remove(ticket) }
            return withdrawn != nil
        }
    }

    /// Looks `host` up on a resolver thread of its own (which holds the
    /// namespace until it ends) and hands the answer to `completion` there.
    /// When `maximumInFlight` threads run, the lookup waits for one (holding
    /// the namespace too); if no thread can be created for it then, its
    /// completion gets that error on the thread that found out. Throws when
    /// no thread can be created now, or (a local limit) when
    /// `maximumQueued` lookups wait already.
    @discardableResult
    package static func startLookUp(_ host: String, in namespace: NamespaceHandle,
                                    completion: @escaping @Sendable (Result<[IPAddress], ReachabilityError>) -> Void)
        throws(ReachabilityError) -> LookUp {
        let request = Request(host: host, namespace: namespace, completion: completion)
        switch state.withLock({ $0.admit(request) }) {
        case .full:
            throw .resolutionFailed(host: host, reason: "\(maximumQueued) lookups already queued in this process")
        case let .queued(ticket):
            return LookUp(ticket: ticket)
        case .thread:
            do {
                try startResolverThread(for: request)
            } catch {
                // Its place may be what a lookup queued meanwhile waits for.
                handOff()
                throw error
            }
            return LookUp(ticket: 0)
        }
    }

    /// Runs `request` on a thread of its own, which has a place already, and
    /// hands the place on when it is done.
    private static func startResolverThread(for request: Request) throws(ReachabilityError) {
        try startThread(.resolver) {
            beforeLookUp?(request.host)
            request.completion(Result { () throws(ReachabilityError) in try lookUp(request.host, in: request.namespace) })
            handOff()
        }
    }

    /// Gives up a thread's place: to the longest-waiting lookup, started on a
    /// thread of its own, or back when none waits. A lookup whose thread
    /// cannot be created gets the error, and the place goes to the next. (An
    /// ending thread's last act is to start its successor: for that moment
    /// the process has one resolver thread more, on its way out.)
    private static func handOff() {
        while let next = state.withLock({ $0.next() }) {
            do {
                try startResolverThread(for: next)
                return
            } catch {
                next.completion(.failure(error))
            }
        }
    }

    /// A lookup as `startLookUp` took it.
    private struct Request: Sendable {
        let host: String
        let namespace: NamespaceHandle
        let completion: @Sendable (Result<[IPAddress], ReachabilityError>) -> Void
    }

    /// What became of a lookup `startLookUp` took.
    private enum Admission {
        /// It has a place and runs on a thread now.
        case thread
        /// It waits for a place under this ticket.
        case queued(UInt64)
        /// `maximumQueued` lookups wait already.
        case full
    }

    /// The places taken and the lookups waiting for one.
    private struct State {
        var threads = 0
        var queue = Queue()

        mutating func admit(_ request: Request) -> Admission {
            if threads < HostResolver.maximumInFlight {
                threads += 1
                return .thread
            }
            guard queue.count < HostResolver.maximumQueued else { return .full }
            return .queued(queue.append(request))
        }

        /// The longest-waiting lookup, which takes an ending thread's place;
        /// nil, with the place given back, when none waits.
        mutating func next() -> Request? {
            if let request = queue.popFirst() { return request }
            threads -= 1
            return nil
        }
    }

    /// Waiting lookups, oldest first. Tickets grow with each lookup queued,
    /// so a withdrawal finds its lookup by binary search.
    private struct Queue {
        private struct Entry {
            let ticket: UInt64
            /// nil once started (kept until the array is compacted, so that taking the first is amortised O(1)).
            var request: Request?
        }
        /// Entries before `head` have started; those from `head` on wait.
        private var entries: [Entry] = []
        private var head = 0
        private var lastTicket: UInt64 = 0

        var count: Int { entries.count - head }

        /// Queues `request`; returns its ticket (never 0).
        mutating func append(_ request: Request) -> UInt64 {
            lastTicket += 1
            entries.append(Entry(ticket: lastTicket, request: request))
            return lastTicket
        }

        mutating func popFirst() -> Request? {
            guard head < entries.count else { return nil }
            let request = entries[head].request
            entries[head].request = nil
            head += 1
            if head * 2 >= entries.count {
                entries.removeFirst(head)
                head = 0
            }
            return request
        }

        /// Removes the waiting lookup with `ticket`, if it still waits.
        mutating func remove(_ ticket: UInt64) -> Request? {
            var low = head, high = entries.count
            while low < high {
                let middle = (low + high) / 2
                if entries[middle].ticket < ticket { low = middle + 1 } else { high = middle }
            }
            guard low < entries.count, entries[low].ticket == ticket else { return nil }
            return entries.remove(at: low).request
        }
    }

    /// The blocking part, on a thread the library owns: it enters the
    /// namespace, with its /etc/netns/NAME configuration as `ip netns exec`
    /// shows it. Addresses keep the resolver's order (RFC 6724), duplicates removed.
    static func lookUp(_ host: String, in namespace: NamespaceHandle) throws(ReachabilityError) -> [IPAddress] {
        // getaddrinfo would see the name cut at the NUL ("localhost\0x" resolving as localhost).
        guard !host.utf8.contains(0) else { throw .invalidTarget(host, reason: "contains NUL") }
        if let simulation = namespace.simulation { return try simulation.resolve(host) }
        if !namespace.enterOnThisThreadWithConfiguration() {
            throw .system(operation: "enter network namespace to resolve \(host)", errno: .current)
        }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, nil, &hints, &list)
        guard rc == 0 else {
            let reason = rc == EAI_SYSTEM ? SystemErrno.current.description : String(cString: gai_strerror(rc))
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
