// What a tracked uplink is good for, as one word: the verdict of an uplink
// that fails dirty. Pure: the tracker gathers the facts (carrier, the next
// hop's neighbour state, the mwan3 score, the quality level, what the
// checks found) and `UplinkHealth` decides, with flap damping. The table
// of faults and verdicts is in UplinksThatFailDirty.md.

/// The verdict on an uplink, from best to worst use. Its raw value is what
/// `reach track --json`, the exporter's series and the status page show.
public enum UplinkVerdict: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// Probes answer within the quality thresholds, and every configured check passed.
    case healthy
    /// Probes answer, but loss or latency is at or over a degraded threshold
    /// (``UplinkQuality/degradedLoss``, ``UplinkQuality/degradedLatency``):
    /// poor but usable; nothing fails over.
    case degraded
    /// Some traffic passes and some does not: a checked TCP port is reset or
    /// silent while others connect, or the other family's check host is
    /// black-holed while this family answers (Android's "partial connectivity").
    case partial
    /// Full-size packets with the don't-fragment bit vanish while small ones
    /// pass, and no ICMP "fragmentation needed" comes back: TCP stalls on
    /// anything larger than its first segments.
    case pathMTUBlackHole = "pmtu-black-hole"
    /// The resolver of the uplink does not answer, or answers SERVFAIL, while
    /// probes by address do.
    case dnsFailing = "dns-failing"
    /// The resolver answers a name that cannot exist (`.invalid`, RFC 6761)
    /// with an address: every name is answered with one address.
    case dnsHijacked = "dns-hijacked"
    /// The HTTP check is redirected or answered with a page: a captive portal.
    case captive
    /// Probes answer, but loss or latency is over a failure threshold
    /// (``QualityLevel/failed``): fail over, and come back only under the
    /// recovery thresholds.
    case unusable
    /// It failed over ``UplinkHealth/flapLimit`` times within
    /// ``UplinkHealth/flapWindow``; it is held unusable until a whole window
    /// passes without a failure.
    case flapping
    /// No carrier, the next hop's neighbour entry failed, or probes have
    /// stopped answering (the mwan3 score is offline or connecting).
    case down

    /// Whether default traffic should use the uplink: healthy, degraded, or
    /// partial (traffic that avoids the failing port or family still flows).
    public var isUsable: Bool {
        switch self {
        case .healthy, .degraded, .partial: return true
        default: return false
        }
    }

    public var description: String { rawValue }
}

/// What an uplink's checks found; each finding names the verdict it gives.
public struct UplinkFindings: Sendable {
    /// The resolver did not answer, or answered without an address.
    public var dnsFailing = false
    /// A name that cannot exist was answered with an address.
    public var dnsHijacked = false
    /// The HTTP check was redirected or answered with a page.
    public var captive = false
    /// The path-MTU probe was lost while small probes were answered.
    public var pathMTUBlackHole = false
    /// A checked port or the other family failed while the rest passed.
    public var partial = false
    /// A line for people: which check found what ("port 443 refused").
    public var detail: String?

    /// Nothing found.
    public init() {}

    /// The worst verdict among the findings, nil when there is none.
    public var verdict: UplinkVerdict? {
        if captive { return .captive }
        if dnsHijacked { return .dnsHijacked }
        if dnsFailing { return .dnsFailing }
        if pathMTUBlackHole { return .pathMTUBlackHole }
        if partial { return .partial }
        return nil
    }
}

/// The facts of one moment, as the tracker has them.
public struct UplinkFacts: Sendable {
    /// The interface has carrier (`IFF_LOWER_UP`); false when it lost it or is gone.
    public var carrier: Bool
    /// The next hop's neighbour entry is `NUD_FAILED` (ARP or NDP went unanswered).
    public var neighbourFailed: Bool
    /// The mwan3 score's state.
    public var state: UplinkState
    /// The quality level.
    public var quality: QualityLevel
    /// What the checks found.
    public var findings: UplinkFindings

    /// Facts as given.
    public init(carrier: Bool = true, neighbourFailed: Bool = false, state: UplinkState = .online,
                quality: QualityLevel = .good, findings: UplinkFindings = UplinkFindings()) {
        self.carrier = carrier
        self.neighbourFailed = neighbourFailed
        self.state = state
        self.quality = quality
        self.findings = findings
    }

    /// The verdict these facts give, before damping.
    public var verdict: UplinkVerdict {
        if !carrier || neighbourFailed || !state.isUsable { return .down }
        if quality == .failed { return .unusable }
        if let found = findings.verdict { return found }
        return quality == .degraded ? .degraded : .healthy
    }
}

/// The verdict over time, with flap damping: every change from a usable
/// verdict to one that is not is a failover; the ``flapLimit``-th failover
/// within ``flapWindow`` holds the uplink at ``UplinkVerdict/flapping``
/// until a whole window passes without a failure. So an uplink fails over at
/// most ``flapLimit`` times per window, whatever it does.
public struct UplinkHealth: Sendable {
    /// Failovers within ``flapWindow`` that hold the uplink (0: no damping).
    public let flapLimit: Int
    /// The window the failovers are counted in, and the quiet time that ends a hold.
    public let flapWindow: Duration
    /// The last failovers, oldest first; at most ``flapLimit`` of them.
    private var failovers: [MonotonicInstant] = []
    /// While held: the end of the hold, pushed back by every failure.
    private var heldUntil: MonotonicInstant?
    /// The verdict as the last update left it.
    public private(set) var verdict: UplinkVerdict
    /// Failovers so far (usable → not usable), for a counter.
    public private(set) var failoverCount = 0

    /// Damping after `flapLimit` failovers within `flapWindow`, starting at `initial`.
    public init(flapLimit: Int = 3, flapWindow: Duration = .seconds(60), initial: UplinkVerdict = .healthy) {
        self.flapLimit = max(0, flapLimit)
        self.flapWindow = flapWindow
        self.verdict = initial
        failovers.reserveCapacity(self.flapLimit)
    }

    /// Takes the facts of `now`.
    ///
    /// - Returns: The new verdict when it changed, nil otherwise.
    @discardableResult
    public mutating func update(_ facts: UplinkFacts, now: MonotonicInstant) -> UplinkVerdict? {
        let before = verdict
        let raw = facts.verdict
        let window = flapWindow.clampedNanoseconds
        if let until = heldUntil {
            if !raw.isUsable {
                heldUntil = max(until, MonotonicInstant(nanoseconds: now.nanoseconds &+ window))
            } else if now >= until {
                heldUntil = nil
                failovers.removeAll(keepingCapacity: true)
            }
            if heldUntil != nil { return nil }   // still .flapping
            verdict = raw
            return verdict == before ? nil : verdict
        }
        if before.isUsable && !raw.isUsable {
            failoverCount += 1
            failovers.removeAll { now.nanoseconds &- $0.nanoseconds >= window }
            failovers.append(now)
            if flapLimit > 0 && failovers.count >= flapLimit {
                heldUntil = MonotonicInstant(nanoseconds: now.nanoseconds &+ window)
                verdict = .flapping
                return verdict
            }
        }
        verdict = raw
        return verdict == before ? nil : verdict
    }
}
