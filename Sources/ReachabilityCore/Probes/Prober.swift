internal import CReachability
#if canImport(Glibc)
internal import Glibc
#endif

/// Sends active probes from one network namespace: ICMP echo, TCP connect,
/// an HTTP captive-portal check and DNS. Each probe opens its own socket inside the
/// namespace (the calling thread never moves), binds it to the options'
/// interface, mark and source, does one exchange bounded by the timeout,
/// and closes it.
///
/// ``probe(_:method:options:)`` blocks for at most the timeout; its `async`
/// twin runs the probe on a thread of its own. A probe that gets no answer
/// is a result (`.timedOut`, `.unreachable` ...), not an error: errors are
/// for input that cannot be probed (a bad interface, a source that is not
/// local, a mark without `CAP_NET_ADMIN`).
public final class Prober: Sendable {
    /// The network namespace every probe's socket is created in; the calling thread never moves into it.
    public let namespace: NetworkNamespace
    /// The namespace, held open (by its resolver threads too); fd -1 for the current one.
    let handle: NamespaceHandle
    /// For the LinuxReachability module's async lookups. A computed property on
    /// purpose: a stored one is read at a field offset compiled into that
    /// module, which an incremental build can leave stale when this class's
    /// private storage changes (a release binary then freed a wrong pointer).
    package var namespaceHandle: NamespaceHandle { handle }
    var namespaceFD: Int32 { namespaceHandle.fd }
    /// The ICMP identifier of raw-socket echoes (a ping socket's is set by the kernel).
    fileprivate let identifier: UInt16
    private let sequence = Locked<UInt16>(0)
    /// A simulated namespace's answers, chosen once here; nil for a real one.
    private let simulation: (any EngineSimulation)?

    /// A prober for `namespace`, which it holds open for its lifetime.
    ///
    /// - Parameter namespace: The network namespace every probe's socket is
    ///   created in; the process's own by default.
    /// - Throws: `ReachabilityError.unknownNamespace(_:)`,
    ///   `.invalidNamespace(_:reason:)`, `.permissionDenied(operation:needs:)`
    ///   or `.system(operation:errno:)` when the namespace cannot be opened.
    public init(namespace: NetworkNamespace = .current) throws(ReachabilityError) {
        self.namespace = namespace
        self.handle = try NamespaceHandle(namespace)
        self.identifier = UInt16.random(in: 1...UInt16.max)
        self.simulation = namespace.engineSimulation
    }

    /// What ICMP sockets this process may open in the namespace.
    ///
    /// - Returns: Whether `CAP_NET_RAW` is in this thread's effective set
    ///   (read with libcap), and the namespace's `net.ipv4.ping_group_range`
    ///   with the process's groups.
    public func icmpPermissions() -> ICMPPermissions {
        let raw = (try? Capabilities.current())?.netRaw ?? false
        var low: UInt32 = 0
        var high: UInt32 = 0
        let range = creach_ping_group_range(namespaceFD, &low, &high) == 0 ? GroupRange(low: low, high: high) : nil
        return ICMPPermissions(raw: raw, pingGroupRange: range, groups: Self.groups())
    }

    /// Probes `address` and waits for the answer, for at most `options.timeout`.
    ///
    /// A probe that gets no answer is a result (``ProbeOutcome/timedOut``,
    /// ``ProbeOutcome/unreachable(_:)`` ...), not an error.
    ///
    /// - Parameters:
    ///   - address: The address to probe.
    ///   - method: What to send; an ICMP echo by default.
    ///   - options: Where the probe leaves from and how long it may take.
    /// - Returns: What came back, over which transport, and the round trip.
    /// - Throws: `ReachabilityError.invalidConfiguration(_:reason:)` or
    ///   `.invalidInterfaceName(_:reason:)` for `options` out of range or a
    ///   source that is not local or not of `address`'s family;
    ///   `.unknownInterface(_:)` when `options.interface` names no link;
    ///   `.invalidProbe(_:reason:)` for a method that parsing would have
    ///   refused; `.system(operation:errno:)` when the socket cannot be set up
    ///   (a mark without `CAP_NET_ADMIN`, for one).
    public func probe(_ address: IPAddress, method: ProbeMethod = .icmp,
                      options: ProbeOptions = ProbeOptions()) throws(ReachabilityError) -> ProbeResult {
        try probe(address, method: method, options: options, wakeFD: -1)
    }

    /// The probe; a signal on `wakeFD` (an eventfd, or -1) cancels its wait.
    package func probe(_ address: IPAddress, method: ProbeMethod, options: ProbeOptions,
               wakeFD: Int32) throws(ReachabilityError) -> ProbeResult {
        try options.validate()
        try method.validate()
        // A simulated namespace answers from its script, at once.
        if let simulation { return try simulation.probe(address, method: method, options: options) }
        var target = try Self.target(address, options: options)
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: Self.bufferSize, alignment: 8)
        defer { buffer.deallocate() }
        let exchange = Exchange(prober: self, address: address, method: method, options: options, wakeFD: wakeFD,
                                buffer: buffer)
        switch method {
        case .icmp:
            let permissions = icmpPermissions()
            var failures: [String] = []
            for transport in permissions.transports {
                let reason = permissions.fallbackReason(for: transport, failures: failures)
                if transport == .tcpConnect {
                    target.port = options.fallbackPort
                    return try exchange.tcp(&target, transport: .tcpConnect, fallbackReason: reason)
                }
                // The permission check can be wrong (a seccomp filter, a user namespace): try, then fall back.
                switch try exchange.icmp(&target, transport: transport, fallbackReason: reason) {
                case let .done(result): return result
                case let .refused(error): failures.append("\(transport.rawValue) socket refused (\(error))")
                }
            }
            fatalError("unreachable: transports always end with tcp-connect")
        case let .tcp(port):
            target.port = port
            return try exchange.tcp(&target, transport: .tcpConnect, fallbackReason: nil)
        case let .http(url):
            target.port = url.port
            return try exchange.http(&target, url: url)
        case let .dns(name, type):
            target.port = 53
            return try exchange.dns(&target, name: name, type: type)
        }
    }

    static let bufferSize = 4096

    static func target(_ address: IPAddress, options: ProbeOptions) throws(ReachabilityError) -> creach_probe_target {
        var target = creach_probe_target()
        target.family = address.family.rawFamily
        address.copy(into: &target.dst)
        target.has_src = try address.copySource(options.source, into: &target.src) ? 1 : 0
        target.dont_fragment = options.dontFragment ? 1 : 0
        if let mark = options.mark {
            target.has_mark = 1
            target.mark = mark
        }
        if let interface = options.interface {
            withUnsafeMutableBytes(of: &target.ifname) { field in
                for (index, byte) in interface.utf8.enumerated() { field[index] = byte }
            }
        }
        return target
    }

    /// Our effective gid and supplementary groups, as the kernel checks them for ping sockets.
    static func groups() -> [UInt32] {
        var result = [UInt32(getegid())]
        let count = getgroups(0, nil)
        guard count > 0 else { return result }
        var list = [gid_t](repeating: 0, count: Int(count))
        let filled = getgroups(count, &list)
        for group in list.prefix(Int(max(filled, 0))) where !result.contains(group) { result.append(group) }
        return result
    }

    func nextSequence() -> UInt16 {
        sequence.withLock { $0 &+= 1; return $0 }
    }
}

/// One probe's sockets and results (the work of `Prober.probe`).
private struct Exchange {
    let prober: Prober
    let address: IPAddress
    let method: ProbeMethod
    let options: ProbeOptions
    let wakeFD: Int32
    let buffer: UnsafeMutableRawPointer

    var timeout: Int64 { Int64(clamping: options.timeout.clampedNanoseconds) }

    enum ICMPAttempt {
        case done(ProbeResult)
        /// The kernel refused this kind of ICMP socket (EPERM / EACCES): the next may be tried.
        case refused(SystemErrno)
    }

    func icmp(_ target: inout creach_probe_target, transport: ProbeTransport,
              fallbackReason: String?) throws(ReachabilityError) -> ICMPAttempt {
        let kind = transport == .icmpRaw ? CREACH_PROBE_ICMP_RAW : CREACH_PROBE_ICMP_DGRAM
        let fd = creach_probe_socket(prober.namespaceFD, &target, kind)
        if fd < 0 {
            let error = SystemErrno.current
            if error == .notPermitted || error == .permissionDenied { return .refused(error) }
            throw socketError(error, transport: transport)
        }
        defer { close(fd) }
        var raw = creach_probe_result()
        guard creach_probe_icmp(fd, kind, &target, prober.identifier, prober.nextSequence(),
                                options.payloadSize, timeout, wakeFD, buffer, Prober.bufferSize, &raw) == 0 else {
            throw .system(operation: "ICMP probe \(address)", errno: .current)
        }
        return .done(result(raw, transport: transport, port: nil, fallbackReason: fallbackReason,
                            outcome: icmpOutcome(raw)))
    }

    func tcp(_ target: inout creach_probe_target, transport: ProbeTransport,
             fallbackReason: String?) throws(ReachabilityError) -> ProbeResult {
        let fd = try socket(&target, kind: CREACH_PROBE_TCP, transport: transport)
        defer { close(fd) }
        var raw = creach_probe_result()
        guard creach_probe_tcp(fd, &target, timeout, wakeFD, &raw) == 0 else {
            throw .system(operation: "TCP probe \(address)", errno: .current)
        }
        return result(raw, transport: transport, port: target.port, fallbackReason: fallbackReason, outcome: outcome(raw))
    }

    func http(_ target: inout creach_probe_target, url: HTTPProbeURL) throws(ReachabilityError) -> ProbeResult {
        var request = [UInt8](repeating: 0, count: 2048)
        let length = url.hostHeader(for: address).withCString { host in
            url.path.withCString { path in creach_http_build_request(host, path, &request, request.count) }
        }
        guard length > 0 else { throw .invalidProbe("http:\(url)", reason: "host or path cannot be sent (\(SystemErrno.current))") }
        let fd = try socket(&target, kind: CREACH_PROBE_TCP, transport: .http)
        defer { close(fd) }
        var raw = creach_probe_result()
        // About 1.1 KiB (the Location field): on the heap, as the read buffer is.
        let head = UnsafeMutablePointer<creach_http_head>.allocate(capacity: 1)
        head.initialize(to: creach_http_head())
        defer { head.deallocate() }
        guard creach_probe_http(fd, &target, request, Int(length), timeout, wakeFD, buffer, Prober.bufferSize,
                                &raw, head) == 0 else {
            throw .system(operation: "HTTP probe \(address)", errno: .current)
        }
        var found = outcome(raw)
        if raw.error == 0 {
            found = .http(status: Int(head.pointee.status), body: Self.body(head.pointee),
                          location: Self.location(head.pointee))
        }
        return result(raw, transport: .http, port: target.port, fallbackReason: nil, outcome: found)
    }

    /// The settled body facts (`creach_probe_http` resolves UNKNOWN for the
    /// statuses it decides; any other status does not look at them).
    private static func body(_ head: creach_http_head) -> HTTPBody {
        switch Int32(head.body) {
        case CREACH_HTTP_BODY_PRESENT: return .present
        case CREACH_HTTP_BODY_MALFORMED: return .malformed
        default: return .empty
        }
    }

    /// The Location value (bytes >= 0x80 decoded as UTF-8, invalid ones
    /// replaced), nil when absent, empty (nginx's bare `return 301;`) or too
    /// long for its field.
    private static func location(_ head: creach_http_head) -> String? {
        guard head.has_location != 0, head.location_too_long == 0, head.location_len > 0 else { return nil }
        var field = head.location
        return withUnsafeBytes(of: &field) { bytes in
            String(decoding: bytes.prefix(Int(head.location_len)), as: UTF8.self)
        }
    }

    func dns(_ target: inout creach_probe_target, name: String, type: DNSRecordType) throws(ReachabilityError) -> ProbeResult {
        let id = UInt16.random(in: 0...UInt16.max)
        var query = [UInt8](repeating: 0, count: 512)
        let length = creach_dns_build_query(id, name, type.rawType, &query, query.count)
        guard length > 0 else { throw .invalidProbe("dns:\(name)", reason: "not a name DNS can carry") }
        let fd = try socket(&target, kind: CREACH_PROBE_UDP, transport: .dns)
        defer { close(fd) }
        var raw = creach_probe_result()
        var answer = creach_dns_result()
        guard creach_probe_dns(fd, &target, query, Int(length), id, name, type.rawType, timeout, wakeFD, buffer,
                               Prober.bufferSize, &raw, &answer) == 0 else {
            throw .system(operation: "DNS probe \(address)", errno: .current)
        }
        var found = outcome(raw)
        var resolved: IPAddress?
        if raw.error == 0 {
            if answer.rcode == 0 && answer.answers > 0 {
                found = .answered
                resolved = withUnsafeBytes(of: &answer.first) {
                    IPAddress(family: type == .a ? .v4 : .v6, bytes: $0)
                }
            } else {
                found = .noAddress(rcode: Int(answer.rcode))
            }
        }
        return result(raw, transport: .dns, port: target.port, fallbackReason: nil, outcome: found,
                      resolved: resolved)
    }

    private func socket(_ target: inout creach_probe_target, kind: Int32,
                        transport: ProbeTransport) throws(ReachabilityError) -> Int32 {
        let fd = creach_probe_socket(prober.namespaceFD, &target, kind)
        guard fd >= 0 else { throw socketError(.current, transport: transport) }
        return fd
    }

    /// Setting up the socket failed: the options cannot be used here.
    private func socketError(_ error: SystemErrno, transport: ProbeTransport) -> ReachabilityError {
        if error == .noSuchDevice, let interface = options.interface { return .unknownInterface(interface) }
        if error.rawValue == EADDRNOTAVAIL, let source = options.source {
            return .invalidConfiguration("source", reason: "\(source) is not an address of this host")
        }
        if error == .notPermitted, options.mark != nil {
            return .system(operation: "set firewall mark (SO_MARK needs CAP_NET_ADMIN)", errno: error)
        }
        return .system(operation: "open \(transport.rawValue) probe socket", errno: error)
    }

    /// The outcome carried by `raw.error` (0 is `.answered`; HTTP and DNS refine it).
    private func outcome(_ raw: creach_probe_result) -> ProbeOutcome {
        switch raw.error {
        case 0: return .answered
        case ECONNREFUSED: return .refused
        case ETIMEDOUT: return .timedOut
        case EBADMSG: return .malformedAnswer
        case ECANCELED: return .canceled
        default: return .unreachable(SystemErrno(rawValue: raw.error))
        }
    }

    /// The outcome of an ICMP echo. A ping socket reports an ICMP error about
    /// the echo with the errno the kernel derived from it, `.unreachable` like
    /// the rest, except ECONNREFUSED (a port unreachable quoting the echo),
    /// which is no TCP reset: as `.refused` it would answer an ICMP probe.
    private func icmpOutcome(_ raw: creach_probe_result) -> ProbeOutcome {
        raw.error == ECONNREFUSED ? .unreachable(SystemErrno(rawValue: raw.error)) : outcome(raw)
    }

    private func result(_ raw: creach_probe_result, transport: ProbeTransport, port: UInt16?, fallbackReason: String?,
                        outcome: ProbeOutcome, resolved: IPAddress? = nil) -> ProbeResult {
        let timedOut = outcome == .timedOut || outcome == .canceled
        return ProbeResult(address: address, method: method, transport: transport, fallbackReason: fallbackReason,
                           port: port, outcome: outcome,
                           httpStatus: transport == .http && raw.http_status > 0 ? Int(raw.http_status) : nil,
                           roundTrip: timedOut ? nil : .nanoseconds(Int64(clamping: raw.rtt_ns)),
                           resolvedAddress: resolved, ignoredDatagrams: Int(raw.ignored))
    }
}

extension ProbeResult {
    /// A result from its parts: what a simulated kernel's script answers
    /// (`EngineSimulation.probe`), over the transport the method asks first.
    package init(simulatedAddress address: IPAddress, method: ProbeMethod, outcome: ProbeOutcome, httpStatus: Int? = nil,
                 roundTrip: Duration? = nil, resolvedAddress: IPAddress? = nil) {
        let port: UInt16?
        let transport: ProbeTransport
        switch method {
        case .icmp: port = nil; transport = .icmpRaw
        case let .tcp(number): port = number; transport = .tcpConnect
        case let .http(url): port = url.port; transport = .http
        case .dns: port = 53; transport = .dns
        }
        self.init(address: address, method: method, transport: transport, fallbackReason: nil, port: port,
                  outcome: outcome, httpStatus: httpStatus, roundTrip: roundTrip, resolvedAddress: resolvedAddress,
                  ignoredDatagrams: 0)
    }
}
