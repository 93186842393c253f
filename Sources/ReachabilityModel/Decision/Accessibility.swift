// Accessibility: is the routed network usable by *us*, in the manner of
// ZYNetworkAccessibity and the "not reachable and restricted" check. Pure.

/// What an active probe (ICMP, TCP, HTTP 204) said, if one ran.
public enum ProbeVerdict: String, Hashable, Sendable, CaseIterable {
    /// No probe ran for this answer: it rests on the route and the policy alone.
    case notProbed
    /// The probe was answered as expected.
    case answered
    /// No answer, or not the expected one, within the timeout.
    case failed
    /// An HTTP "expect 204" probe got another answer or a redirect.
    case captivePortal
}

/// Why a network that exists may not be used.
public enum RestrictionReason: String, Hashable, Sendable, CaseIterable {
    /// A `prohibit` route or rule answers for this uid or firewall mark.
    case prohibited
    /// The only way out is WWAN, and the policy refuses WWAN.
    case wwanRefused
    /// The link is up and routed, but the probe got no answer.
    case probeFailed
}

/// Whether this process, under its policy, can actually use the network a
/// route leads to, as ZYNetworkAccessibity asks: the FIB's verdict, the WWAN
/// switch and a probe's verdict combined.
public enum Accessibility: Hashable, Sendable, CustomStringConvertible {
    /// A usable route that the policy does not refuse, and any probe that ran
    /// was answered (a route that was not probed counts as accessible).
    case accessible
    /// A network exists but this process may not use it: a `prohibit` route or
    /// rule, WWAN refused by the policy, or a failed probe over an up link.
    case restricted(RestrictionReason)
    /// Routed and not refused, but the probe found a captive portal
    /// (``ProbeVerdict/captivePortal``): traffic meets a sign-in page first.
    case captive
    /// Nothing to be restricted from: there is no usable network at all.
    /// (Not "not evaluated yet": that is ``ReachabilityStatus/unknown``.)
    case noNetwork

    /// Whether this process can use the network a destination's route leads
    /// to, decided in this order: a prohibit route restricts; without a
    /// usable network the answer is ``noNetwork``; WWAN refused by policy
    /// restricts; a captive portal is ``captive``; a failed probe restricts;
    /// otherwise ``accessible`` (a route with no probe counts as accessible).
    ///
    /// - Parameters:
    ///   - verdict: What the FIB said about the destination, nil when it is not known.
    ///   - flags: The destination's flags, with the policy's part applied.
    ///   - allowsWWAN: Whether the policy allows WWAN (``ReachabilityPolicy/allowsWWAN``).
    ///   - probe: What an active probe said, or ``ProbeVerdict/notProbed``.
    @inlinable @inline(__always)
    public init(verdict: RouteVerdict?, flags: ReachabilityFlags, allowsWWAN: Bool, probe: ProbeVerdict) {
        // Pattern matches, not `==`: enums with raw values would compare
        // through a witness call when inlined into another module.
        if case .prohibit? = verdict {
            self = .restricted(.prohibited)
        } else if !flags.isNetworkReachable {
            self = .noNetwork
        } else if flags.rawValue & wwanFlagBit != 0 && !allowsWWAN {
            self = .restricted(.wwanRefused)
        } else {
            switch probe {
            case .captivePortal: self = .captive
            case .failed: self = .restricted(.probeFailed)
            case .notProbed, .answered: self = .accessible
            }
        }
    }

    /// Whether the answer is ``Accessibility/restricted(_:)``, whatever the reason.
    public var isRestricted: Bool { if case .restricted = self { return true } else { return false } }

    /// `accessible`, `restricted.prohibited`, `captive`, `noNetwork`.
    public var description: String {
        switch self {
        case .accessible: return "accessible"
        case let .restricted(reason): return "restricted.\(reason.rawValue)"
        case .captive: return "captive"
        case .noNetwork: return "noNetwork"
        }
    }
}

/// The case's name (its raw value), as reflection printed it: also in a
/// build without reflection metadata (Tools/Footprint/firmware-minimal.flags).
extension ProbeVerdict: CustomStringConvertible {
    public var description: String { rawValue }
}

/// The case's name (its raw value), as reflection printed it: also in a
/// build without reflection metadata (Tools/Footprint/firmware-minimal.flags).
extension RestrictionReason: CustomStringConvertible {
    public var description: String { rawValue }
}
