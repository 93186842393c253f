/// What a probe found.
public enum ProbeOutcome: Hashable, Sendable, CustomStringConvertible {
    /// The expected answer: an echo reply, a completed handshake, `204` (or an
    /// empty 2xx), an address.
    case answered
    /// A TCP reset or a UDP port unreachable: the host is there, the port is closed.
    case refused
    /// HTTP answered as a captive portal does: a redirect (3xx; `location` is
    /// its `Location` header, nil when it had none, an empty one, or one
    /// longer than 1023 bytes) or a page (a 2xx other than 204, or a 3xx, with a body;
    /// `location` nil for a 2xx).
    case captivePortal(status: Int, location: String?)
    /// HTTP answered with a status that is neither an answer nor a portal:
    /// 1xx, 4xx, 5xx. The probe failed.
    case unexpectedStatus(Int)
    /// The DNS server answered without an address (`rcode` 0 with no
    /// record, 3 NXDOMAIN, 2 SERVFAIL ...).
    case noAddress(rcode: Int)
    /// No answer within the timeout.
    case timedOut
    /// An ICMP error came back, or the kernel had no usable route (the errno
    /// a socket gets: `ENETUNREACH`, `EHOSTUNREACH`, `EACCES` for prohibit ...).
    case unreachable(SystemErrno)
    /// Something answered, but not in the protocol's terms.
    case malformedAnswer
    /// Stopped before it ended (a tracker being stopped).
    case canceled

    public var description: String {
        switch self {
        case .answered: return "answered"
        case .refused: return "refused"
        case let .captivePortal(status, location?): return "captive-portal \(status) → \(location)"
        case let .captivePortal(status, nil): return "captive-portal \(status)"
        case let .unexpectedStatus(status): return "unexpected-status \(status)"
        case let .noAddress(rcode): return "no-address rcode \(rcode)"
        case .timedOut: return "timed-out"
        case let .unreachable(errno): return "unreachable (\(errno))"
        case .malformedAnswer: return "malformed-answer"
        case .canceled: return "canceled"
        }
    }
}

/// The result of one probe.
public struct ProbeResult: Hashable, Sendable {
    /// The address that was probed.
    public let address: IPAddress
    /// What was asked.
    public let method: ProbeMethod
    /// The socket that was used (for `.icmp`, the raw or ping socket, or the TCP fallback).
    public let transport: ProbeTransport
    /// Why the transport is not the method's first choice (no `CAP_NET_RAW`,
    /// not in `ping_group_range` ...), nil when it is.
    public let fallbackReason: String?
    /// The destination port (TCP, HTTP, DNS), nil for ICMP.
    public let port: UInt16?
    /// What came back: an answer, a refusal, a captive portal, an ICMP error, a timeout ...
    public let outcome: ProbeOutcome
    /// The status code of an HTTP answer (204, 302 ...).
    public let httpStatus: Int?
    /// The `Location` of an HTTP redirect (a 3xx captive portal), nil otherwise.
    public var location: String? {
        if case let .captivePortal(_, location) = outcome { return location }
        return nil
    }
    /// From sending to the answer (or the error that ended the probe); nil on timeout.
    public let roundTrip: Duration?
    /// The first address of a DNS answer.
    public let resolvedAddress: IPAddress?
    /// Datagrams that arrived but were not this probe's answer.
    public let ignoredDatagrams: Int

    /// For the decision tables: answered, failed, or captive portal. A reset
    /// answers an ICMP probe that fell back to TCP (the host is there) but
    /// fails a `tcp:PORT` probe (the port is what was asked about). An HTTP
    /// 1xx, 4xx or 5xx (`.unexpectedStatus`) fails: no portal answers so.
    public var verdict: ProbeVerdict {
        switch outcome {
        case .answered: return .answered
        case .refused: return method == .icmp ? .answered : .failed
        case .captivePortal: return .captivePortal
        default: return .failed
        }
    }
}

extension ProbeResult {
    /// What this probe alone says of the uplink it left by, in an uplink
    /// tracker's words ("Uplinks that fail dirty" in LinuxReachability's
    /// documentation): a monitor's validation result read as a verdict.
    /// Answered is `.healthy`; a captive portal `.captive`; a DNS probe
    /// without an address `.dnsFailing`; a refused port, an HTTP 1xx/4xx/5xx
    /// or an answer that does not parse `.partial` (something answered);
    /// a timeout or an ICMP error `.down`; canceled nil (it said nothing).
    /// One probe cannot tell degraded, hijacked or a path-MTU black hole:
    /// an `UplinkTracker` with checks can.
    public var uplinkVerdict: UplinkVerdict? {
        switch outcome {
        case .answered: return .healthy
        case .refused: return method == .icmp ? .healthy : .partial
        case .captivePortal: return .captive
        case .noAddress: return .dnsFailing
        case .timedOut, .unreachable:
            if case .dns = method { return .dnsFailing }
            return .down
        case .unexpectedStatus, .malformedAnswer: return .partial
        case .canceled: return nil
        }
    }
}

/// What the bytes after an HTTP head showed (`creach_http_head.body`, settled).
enum HTTPBody: Hashable, Sendable {
    /// No content: `Content-Length: 0`, a first chunk of size 0, or no byte before the end.
    case empty
    /// Content announced (`Content-Length` > 0, a chunk) or received.
    case present
    /// A chunked body whose first chunk-size line is none.
    case malformed
}

extension ProbeOutcome {
    /// The outcome of a valid HTTP head, as Android's NetworkMonitor and
    /// Chromium's captive-portal detector read it: 204 and an empty 2xx are
    /// answered (a proxy may turn a 204 into an empty 200); a 2xx with a body
    /// (a login page) and any 3xx (a redirect; its `location`) are a captive
    /// portal; 1xx, 4xx and 5xx are `.unexpectedStatus` (failed). A 2xx whose
    /// chunked framing is broken is `.malformedAnswer`.
    static func http(status: Int, body: HTTPBody, location: String?) -> ProbeOutcome {
        switch status {
        case 204:
            return .answered
        case 200...299:
            switch body {
            case .empty: return .answered
            case .present: return .captivePortal(status: status, location: nil)
            case .malformed: return .malformedAnswer
            }
        case 300...399:
            return .captivePortal(status: status, location: location)
        default:
            return .unexpectedStatus(status)
        }
    }
}
