// CoreTelephony's CTCellularData on Linux: iOS's per-app "use cellular data"
// switch is, on a Linux box, the policy that keeps this process off the WWAN
// link. README, "Porting from iOS", has the table.

import Dispatch
import Foundation
import LinuxReachability
import ReachabilityCompatSupport

/// Whether this process may use cellular data (WWAN links).
///
/// On Linux: ``restricted`` when a WWAN link exists (up or down) and this
/// process is refused it, by `ReachabilityPolicy.processDefault.allowsWWAN ==
/// false` (the iOS switch, also `REACH_ALLOW_WWAN=0`) or by a kernel
/// `prohibit` route or rule that answers this process (its uid, the link's
/// source addresses) on every WWAN link (route lookups: nothing is sent); ``notRestricted``
/// when a WWAN link exists and is allowed; ``restrictedStateUnknown`` when the
/// box has no WWAN link at all, or the kernel cannot be asked.
public enum CTCellularDataRestrictedState: UInt, Sendable, Hashable {
    /// Whether cellular data is refused cannot be told. On Linux: the box has
    /// no WWAN link at all, or the kernel cannot be asked for its links.
    case restrictedStateUnknown = 0
    /// This app may not use cellular data. On Linux: a WWAN link exists and
    /// this process is refused it, by its cellular-data switch
    /// (`CompatEnvironment.allowsWWAN`, `REACH_ALLOW_WWAN=0`) or by a kernel
    /// `prohibit` route or rule on every WWAN link.
    case restricted = 1
    /// This app may use cellular data. On Linux: a WWAN link exists, the switch
    /// is on, and at least one WWAN link is not refused by a `prohibit` route
    /// or rule.
    case notRestricted = 2
}

/// The block CoreTelephony calls with the restricted state.
public typealias CellularDataRestrictionDidUpdateNotifier = (CTCellularDataRestrictedState) -> Void

/// Whether the app (this process) can use cellular data, and its changes.
///
/// As on iOS, ``cellularDataRestrictionDidUpdateNotifier`` is called once with
/// the current state when it is set, then at every change of the state (never
/// twice with the same state), on a global Dispatch queue. Changes come from
/// the engine: a monitor of the namespace's links, routes and rules (no
/// polling), and every change of `ReachabilityPolicy.processDefault`.
open class CTCellularData: NSObject, @unchecked Sendable {
    private struct State {
        var notifier: CellularDataRestrictionDidUpdateNotifier?
        /// Bumped by every set: a delivery for an older notifier is dropped.
        var generation: UInt64 = 0
        /// The state last given to the notifier.
        var delivered: CTCellularDataRestrictedState?
        var monitor: ReachabilityMonitor?
        var policyObserver: UInt64?
    }
    private let state = NSLock()
    private var shared = State()
    /// Where notifiers run and facts are read again, one at a time.
    private let queue = DispatchQueue(label: "CoreTelephony.CTCellularData")

    /// Makes an object that reads the restriction whenever asked. It watches
    /// nothing until ``cellularDataRestrictionDidUpdateNotifier`` is set; then it
    /// follows kernel changes and the process's policy.
    public override init() { super.init() }

    deinit {
        shared.monitor?.stop()
        if let id = shared.policyObserver { ProcessDefaultPolicy.shared.removeObserver(id) }
    }

    /// The current state, read from the kernel and the process's policy now.
    open var restrictedState: CTCellularDataRestrictedState { Self.readState() }

    /// Called with the current state when set, then on every change; nil stops.
    open var cellularDataRestrictionDidUpdateNotifier: CellularDataRestrictionDidUpdateNotifier? {
        get { state.withLock { shared.notifier } }
        set {
            let (generation, old) = state.withLock { () -> (UInt64, (ReachabilityMonitor?, UInt64?)) in
                shared.notifier = newValue
                shared.generation &+= 1
                shared.delivered = nil
                let old = (shared.monitor, shared.policyObserver)
                shared.monitor = nil
                shared.policyObserver = nil
                return (shared.generation, old)
            }
            old.0?.stop()
            if let id = old.1 { ProcessDefaultPolicy.shared.removeObserver(id) }
            guard newValue != nil else { return }
            watch(generation)
            queue.compatAsync { self.update(generation) }
        }
    }

    /// Follows the facts the state is made of: the namespace's kernel changes
    /// (through a monitor of the internet target) and the process's policy.
    private func watch(_ generation: UInt64) {
        let policyObserver = ProcessDefaultPolicy.shared.addObserver { [weak self] in
            guard let self else { return }
            self.queue.compatAsync { self.update(generation) }
        }
        var monitor: ReachabilityMonitor?
        do {
            let watching = try CompatEnvironment.makeMonitor([.internet])
            watching.observeKernelChanges { [weak self] in
                guard let self else { return }
                self.queue.compatAsync { self.update(generation) }
            }
            try watching.start()
            monitor = watching
        } catch {
            // The kernel cannot be watched: the first state is still given
            // (restrictedStateUnknown when it cannot be read either).
        }
        let stale = state.withLock { () -> Bool in
            guard shared.generation == generation else { return true }
            shared.monitor = monitor
            shared.policyObserver = policyObserver
            return false
        }
        if stale {
            monitor?.stop()
            ProcessDefaultPolicy.shared.removeObserver(policyObserver)
        }
    }

    /// On `queue`: reads the state and gives it to the notifier when it differs.
    private func update(_ generation: UInt64) {
        let current = Self.readState()
        let notifier = state.withLock { () -> CellularDataRestrictionDidUpdateNotifier? in
            guard shared.generation == generation, shared.delivered != current else { return nil }
            shared.delivered = current
            return shared.notifier
        }
        guard let notifier else { return }
        // Apple's block type is not Sendable: it runs on one queue, as there.
        nonisolated(unsafe) let block = notifier
        DispatchQueue.global().compatAsync { block(current) }
    }

    /// The state from the kernel's links and rules and the process's policy.
    static func readState() -> CTCellularDataRestrictedState {
        guard let evaluator = try? CompatEnvironment.evaluator(),
              let links = try? evaluator.interfaces() else { return .restrictedStateUnknown }
        let wwan = links.filter { $0.kind == .wwan }
        guard !wwan.isEmpty else { return .restrictedStateUnknown }
        if !evaluator.policy.allowsWWAN { return .restricted }
        return wwan.allSatisfy { isRefused($0, evaluator) } ? .restricted : .notRestricted
    }

    /// Whether a kernel `prohibit` answers this process on `link`: the route
    /// lookups of the internet's addresses from the link's own addresses (as
    /// a socket bound to it is routed: multi-WAN policy rules select by
    /// source), or, for a link without addresses, as the process's uid alone.
    /// A lookup restricted to the link's index cannot tell: the kernel
    /// answers a refused lookup that names an output interface with a route
    /// "on link" (table 0) whatever the rules say.
    private static func isRefused(_ link: InterfaceSummary, _ evaluator: ReachabilityEvaluator) -> Bool {
        var verdicts: [RouteVerdict?] = []
        for probe in Target.internetProbeAddresses {
            let sources: [IPAddress?] = link.addresses.map(\.address).filter { $0.family == probe.family }
            if sources.isEmpty && !link.addresses.isEmpty { continue }   // the link cannot carry this family
            for source in sources.isEmpty ? [nil] : sources {
                verdicts.append((try? evaluator.lookupRoute(probe, options: LookupOptions(source: source)))?.verdict)
            }
        }
        return verdicts.contains(.prohibit) && !verdicts.contains { $0?.isUsable == true }
    }
}
