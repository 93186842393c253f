// A gateway component as our users write them: it watches each uplink on its
// own (a lookup bound to the interface, validated by a probe through it),
// picks the active one by priority, and pauses a sync job while the network
// cannot carry it: behind a captive portal, or with mobile data refused.

import LinuxReachability
import Synchronization

/// Picks the active uplink of a multi-WAN gateway and says when the sync job must pause.
public final class GatewayFailover: Sendable {
    /// What the gateway does now.
    public struct Decision: Equatable, Sendable, CustomStringConvertible {
        /// The uplink traffic should leave by: the first of the priority list that reaches the internet.
        public var activeUplink: String?
        /// The sync job waits.
        public var syncPaused: Bool
        /// Why, in words for the operator's log.
        public var reason: String

        /// A decision from its parts.
        public init(activeUplink: String?, syncPaused: Bool, reason: String) {
            self.activeUplink = activeUplink; self.syncPaused = syncPaused; self.reason = reason
        }

        public var description: String {
            "\(activeUplink ?? "none")\(syncPaused ? " (sync paused: \(reason))" : "")"
        }
    }

    /// The uplinks, best first (`["wan0", "wwan0"]`).
    public let uplinks: [String]
    private let monitors: [ReachabilityMonitor]
    private let answers: Mutex<[String: TargetEvaluation]>
    private let observers: Mutex<[@Sendable (Decision) -> Void]>

    /// One monitor per uplink in `namespace`, validating through it when `validation` is given.
    public init(uplinks: [String], namespace: NetworkNamespace = .current, validation: Validation? = nil,
                kindOverrides: [InterfaceKindOverride] = []) throws {
        self.uplinks = uplinks
        var configuration = ReachabilityMonitor.Configuration()
        configuration.validation = validation
        monitors = try uplinks.map { name in
            try ReachabilityMonitor(targets: [.internet], options: LookupOptions(interface: name), namespace: namespace,
                                    kindOverrides: kindOverrides, configuration: configuration)
        }
        answers = Mutex([:])
        observers = Mutex([])
        for (name, monitor) in zip(uplinks, monitors) {
            monitor.onChange { [weak self] change in self?.record(change.evaluation, for: name) }
        }
    }

    /// Starts watching.
    public func start() throws {
        for monitor in monitors { try monitor.start() }
    }

    /// Stops watching.
    public func stop() {
        for monitor in monitors { monitor.stop() }
    }

    /// Calls `body` with every new decision.
    public func onDecision(_ body: @escaping @Sendable (Decision) -> Void) {
        observers.withLock { $0.append(body) }
    }

    /// The decision from what each uplink's monitor answered last.
    public var decision: Decision {
        answers.withLock { Self.decide(uplinks, $0) }
    }

    private func record(_ evaluation: TargetEvaluation, for uplink: String) {
        let (before, after) = answers.withLock { answers in
            let before = Self.decide(uplinks, answers)
            answers[uplink] = evaluation
            return (before, Self.decide(uplinks, answers))
        }
        guard before != after else { return }
        for observer in observers.withLock({ $0 }) { observer(after) }
    }

    /// The rule: the first uplink whose path is satisfied (NWPath's word:
    /// reachable, and neither behind a portal nor refused by the policy) is
    /// active; the sync job pauses when none is, saying why the best
    /// candidate cannot serve.
    static func decide(_ uplinks: [String], _ answers: [String: TargetEvaluation]) -> Decision {
        if let active = uplinks.first(where: { answers[$0]?.pathStatus == .satisfied }) {
            return Decision(activeUplink: active, syncPaused: false, reason: "")
        }
        for uplink in uplinks {
            guard let answer = answers[uplink] else { continue }
            if answer.flags.contains(.interventionRequired) {
                return Decision(activeUplink: nil, syncPaused: true, reason: "captive portal on \(uplink)")
            }
            if answer.unsatisfiedReason == .wwanRefused {
                return Decision(activeUplink: nil, syncPaused: true, reason: "mobile data refused on \(uplink)")
            }
        }
        return Decision(activeUplink: nil, syncPaused: true, reason: "no uplink reaches the internet")
    }
}
