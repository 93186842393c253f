// The up/down hysteresis of an uplink tracker: mwan3track's score as a pure
// value. Rounds of probes succeed or fail; the score moves between 0 and
// down + up, and the state follows from it.

/// The state of a tracked uplink, as mwan3track names them.
public enum UplinkState: String, Hashable, Sendable, CaseIterable {
    /// Every recent round succeeded (score down + up).
    case online
    /// Was online; failed rounds are counting down (up < score < down + up).
    case disconnecting
    /// `down` rounds failed in a row (score 0), or it started offline.
    case offline
    /// Was offline; good rounds are counting up (0 < score < up).
    case connecting

    /// Whether traffic should use the uplink: online or still disconnecting.
    public var isUsable: Bool { self == .online || self == .disconnecting }
}

/// mwan3track's score. Starting online it is `down + up`; each failed round
/// takes one off, and after `down` of them in a row (score == up) the uplink
/// is offline and the score drops to 0. From 0 each good round adds one, and
/// after `up` of them in a row the uplink is online and the score is full
/// again. A good round while disconnecting restores the full score; a failed
/// round while connecting starts again from 0 — the hysteresis.
public struct TrackerScore: Hashable, Sendable {
    /// Failed rounds in a row that take an online uplink offline (mwan3's `down`).
    public let down: Int
    /// Good rounds in a row that bring an offline uplink online (mwan3's `up`).
    public let up: Int
    /// The current score, from 0 (offline) to `down + up` (online).
    public fileprivate(set) var score: Int
    /// The uplink's state, as the last round left it.
    public fileprivate(set) var state: UplinkState

    /// A score that starts full (online) or at 0 (offline).
    ///
    /// - Parameters:
    ///   - down: Failed rounds in a row that take an online uplink offline.
    ///   - up: Good rounds in a row that bring an offline uplink online.
    ///   - initial: The state to start in: ``UplinkState/online`` or ``UplinkState/offline``.
    /// - Precondition: `down` and `up` are at least 1.
    public init(down: Int, up: Int, initial: UplinkState) {
        precondition(down >= 1 && up >= 1, "validated by UplinkTracker.Configuration")
        self.down = down
        self.up = up
        let online = initial.isUsable
        self.score = online ? down + up : 0
        self.state = online ? .online : .offline
    }

    /// Records one round of probes.
    ///
    /// - Parameter roundSucceeded: Whether the round succeeded.
    /// - Returns: The new state when the round changed it, nil otherwise.
    @discardableResult
    public mutating func record(roundSucceeded: Bool) -> UplinkState? {
        let before = state
        if roundSucceeded {
            score += 1
            if state == .disconnecting || score >= up {
                score = down + up
                state = .online
            } else {
                state = .connecting
            }
        } else {
            score -= 1
            if score <= up {
                // Reached the threshold while disconnecting, or failed while connecting.
                score = 0
                state = .offline
            } else {
                state = .disconnecting
            }
        }
        return state == before ? nil : state
    }
}

extension TrackerScore {
    /// The kernel said the uplink cannot carry traffic (no carrier, the
    /// next hop's neighbour entry failed): offline at once, score 0, as
    /// mwan3track's ifdown event. Coming back takes `up` good rounds.
    ///
    /// - Returns: ``UplinkState/offline`` when it was not offline, nil otherwise.
    @discardableResult
    public mutating func forceOffline() -> UplinkState? {
        let before = state
        score = 0
        state = .offline
        return before == .offline ? nil : .offline
    }
}

/// The case's name (its raw value), as reflection printed it: also in a
/// build without reflection metadata (Tools/Footprint/firmware-minimal.flags).
extension UplinkState: CustomStringConvertible {
    public var description: String { rawValue }
}
