// ZYNetworkAccessibity on Linux: "may this app use the network?",
// from reachability and the cellular-data restriction, as Swift imports its
// header (and its later spelling ZYNetworkAccessibility), over this
// package's SystemConfiguration and CoreTelephony. README, "Porting from
// iOS", has the table.

import Dispatch
import Foundation
import CoreTelephony
import SystemConfiguration

/// Whether this app may use the network, as ZYNetworkAccessibity reports it. On
/// Linux it is made from the route to 223.5.5.5 (nothing is sent) and
/// `CTCellularData`'s restriction.
public enum ZYNetworkAccessibleState: UInt, Sendable {
    /// Not started, or stopped.
    case checking = 0
    /// The original's answer when cellular data is restricted but it can find
    /// neither Wi-Fi nor cellular. Never given on Linux: a restricted state
    /// always has a WWAN link here, and a box without one is ``accessible``.
    case unknown = 1
    /// The app may use the network (not: the network works).
    case accessible = 2
    /// Cellular data is refused to this app.
    case restricted = 3
}

/// The block ``ZYNetworkAccessibity/ZYNetworkAccessibity/setStateDidUpdateNotifier(_:)``
/// takes; it is called on the main queue with each new state.
public typealias NetworkAccessibleStateNotifier = (ZYNetworkAccessibleState) -> Void

extension Notification.Name {
    /// Posted (object nil, no userInfo) when the state changes.
    public static let ZYNetworkAccessibityChanged = Notification.Name("ZYNetworkAccessibityChangedNotification")
    /// The later spelling's notification.
    public static let ZYNetworkAccessibilityChanged = Notification.Name("ZYNetworkAccessibilityChangedNotification")
}

/// Whether this process may use the network, and its changes.
///
/// The original's rule on Linux facts: the internet reachable → accessible;
/// otherwise by `CTCellularData`: restricted (a WWAN link exists and this
/// process is refused it) → restricted; not restricted → accessible. The
/// original retries every 0.1 s while the cellular state is unknown, which
/// on a phone lasts a moment; on Linux "unknown" means the box has no WWAN
/// link at all, a fact that lasts: nothing can refuse this process cellular
/// data, so the state is ``ZYNetworkAccessibleState/accessible`` (ZY's accessible is a permission, not
/// connectivity), and nothing polls.
///
/// Changes arrive on the main queue (run it: `dispatchMain()` or
/// `RunLoop.main.run()`): the notifier is called and
/// `ZYNetworkAccessibityChanged` (and `ZYNetworkAccessibilityChanged`) posted
/// only when the state changes. ``stop()`` returns the state to
/// ``ZYNetworkAccessibleState/checking``. `setAlertEnable(true)` cannot show
/// iOS's alert (a Linux box has no
/// screen): each time the state becomes restricted it writes one line to
/// standard error instead. The original's first-run delay (it waits for the
/// app to be active) has no meaning here and is not kept.
open class ZYNetworkAccessibity: NSObject, @unchecked Sendable {
    private static let shared = ZYNetworkAccessibity()
    private let lock = NSLock()
    private var state = ZYNetworkAccessibleState.checking
    private var notifier: NetworkAccessibleStateNotifier?
    private var alertEnabled = false
    private var reachability: SCNetworkReachability?
    private var cellularData: CTCellularData?
    /// Bumped by every stop: a start under way when one comes undoes itself.
    private var generation: UInt64 = 0
    /// A start is under way (a second one does nothing).
    private var starting = false
    private var beforeStore: ((SCNetworkReachability) -> Void)?

    /// Starts checking; the first state follows at once, on the main queue.
    open class func start() { shared.start() }

    /// Stops checking; the state is ``ZYNetworkAccessibleState/checking`` again.
    open class func stop() { shared.stop() }

    /// Turns the original's alert on or off. On Linux there is no alert: one
    /// line on standard error each time the state becomes restricted.
    ///
    /// - Parameter setAlertEnable: Whether to write the line.
    open class func setAlertEnable(_ setAlertEnable: Bool) { shared.lock.withLock { shared.alertEnabled = setAlertEnable } }

    /// Sets the block called with each new state. Setting it checks nothing.
    ///
    /// - Parameter block: Called on the main queue with each new state; nil removes it.
    open class func setStateDidUpdateNotifier(_ block: NetworkAccessibleStateNotifier!) {
        shared.lock.withLock { shared.notifier = block }
    }

    /// The last state.
    ///
    /// - Returns: The last state given; ``ZYNetworkAccessibleState/checking``
    ///   before ``start()`` and after ``stop()``.
    open class func currentState() -> ZYNetworkAccessibleState { shared.lock.withLock { shared.state } }

    /// For a test: runs between `start`'s scheduling (of the object given) and
    /// its keeping what it scheduled, where another thread's `stop()` can come
    /// (nil outside tests).
    package static var testHookBeforeStore: ((SCNetworkReachability) -> Void)? {
        get { shared.lock.withLock { shared.beforeStore } }
        set { shared.lock.withLock { shared.beforeStore = newValue } }
    }

    private func start() {
        let generation = lock.withLock { () -> UInt64? in
            guard reachability == nil, !starting else { return nil }
            starting = true
            return self.generation
        }
        guard let generation else { return }
        // The original's target, an address: a route lookup, nothing is sent.
        guard let reachability = SCNetworkReachabilityCreateWithName(nil, "223.5.5.5") else {
            lock.withLock { if self.generation == generation { starting = false } }
            return
        }
        SCNetworkReachabilitySetWeakCallback(reachability, self) { accessibility, _ in accessibility.check() }
        SCNetworkReachabilitySetDispatchQueue(reachability, .main)
        let cellularData = CTCellularData()
        cellularData.cellularDataRestrictionDidUpdateNotifier = { [weak self] _ in
            DispatchQueue.main.compatAsync { self?.check() }
        }
        lock.withLock { beforeStore }?(reachability)
        let current = lock.withLock { () -> Bool in
            // A stop() meanwhile found nothing to stop: this start undoes itself.
            guard self.generation == generation else { return false }
            starting = false
            self.reachability = reachability
            self.cellularData = cellularData
            return true
        }
        guard current else {
            Self.unwatch(reachability, cellularData)
            return
        }
        DispatchQueue.main.compatAsync { self.check() }
    }

    private func stop() {
        let (reachability, cellularData) = lock.withLock { () -> (SCNetworkReachability?, CTCellularData?) in
            defer {
                self.reachability = nil
                self.cellularData = nil
                state = .checking
                generation &+= 1
                starting = false
            }
            return (self.reachability, self.cellularData)
        }
        if let reachability, let cellularData { Self.unwatch(reachability, cellularData) }
    }

    private static func unwatch(_ reachability: SCNetworkReachability, _ cellularData: CTCellularData) {
        SCNetworkReachabilitySetCallback(reachability, nil, nil)
        SCNetworkReachabilitySetDispatchQueue(reachability, nil)
        cellularData.cellularDataRestrictionDidUpdateNotifier = nil
    }

    /// On the main queue: the state now, given when it changed.
    private func check() {
        guard let reachability = lock.withLock({ self.reachability }) else { return }
        var flags = SCNetworkReachabilityFlags()
        let reachable = SCNetworkReachabilityGetFlags(reachability, &flags) && flags.contains(.reachable)
        let state = Self.state(reachable: reachable, cellular: CTCellularData().restrictedState)
        let change = lock.withLock { () -> (NetworkAccessibleStateNotifier?, Bool)? in
            guard self.reachability != nil, state != self.state else { return nil }
            self.state = state
            return (notifier, alertEnabled)
        }
        guard let (notifier, alert) = change else { return }
        if alert && state == .restricted {
            let line = "ZYNetworkAccessibity: cellular data is turned off for this program\n"
            FileHandle.standardError.write(Data(line.utf8))
        }
        notifier?(state)
        NotificationCenter.default.post(name: .ZYNetworkAccessibityChanged, object: nil)
        NotificationCenter.default.post(name: .ZYNetworkAccessibilityChanged, object: nil)
    }

    /// The original's rule (a restricted state always has a WWAN link on Linux).
    static func state(reachable: Bool, cellular: CTCellularDataRestrictedState) -> ZYNetworkAccessibleState {
        if reachable { return .accessible }
        switch cellular {
        case .restricted: return .restricted
        case .notRestricted, .restrictedStateUnknown: return .accessible
        }
    }
}

/// The later, correct spelling of the same class.
public typealias ZYNetworkAccessibility = ZYNetworkAccessibity
