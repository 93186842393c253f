// Alamofire 4.x's NetworkReachabilityManager on Linux, over this package's
// SystemConfiguration: the class as Alamofire 4.9.1 declares it (its own
// `ConnectionType { ethernetOrWiFi, wwan }`, a `listener` property, a failable
// `init?()`), so that a 4.x switch over the status is exhaustive here too.
// Alamofire 5.x code imports `Alamofire` (AlamofireReachability); the two
// versions' types differ where a switch can see it, so each has its module.
// docs/compat-surface/Alamofire4.md has the table.

import Dispatch
import Foundation
import SystemConfiguration

/// Listens for reachability changes of a host or of the internet (`0.0.0.0`),
/// as Alamofire 4's manager does.
///
/// ``networkReachabilityStatus``, ``flags`` and `isReachable…` are read now,
/// listening or not. ``startListening()`` schedules on ``listenerQueue`` and
/// gives ``listener`` the current status there at once, then the status of
/// every change of the flags: as in 4.x, duplicates are suppressed by the
/// flags (``previousFlags``), not by the status, so two different sets of
/// flags with the same status call the listener twice. ``stopListening()``
/// keeps ``listener``; starting again delivers the current status again.
///
/// Unlike 4.x, whose context holds the manager unretained, the callback holds
/// it weakly (a manager released while listening is never called into), and
/// a first delivery still pending when ``stopListening()`` runs is dropped.
///
/// On Linux, `.reachable(.wwan)` is a path that leaves by a link classified
/// WWAN (Alamofire 4 reads `isWWAN` only on iOS).
open class NetworkReachabilityManager {
    /// The status of the network: unknown (flags could not be read), not
    /// reachable, or reachable over a connection type.
    public enum NetworkReachabilityStatus {
        /// The flags could not be read. On Linux this happens only when the
        /// kernel cannot be asked (the network namespace is gone, or netlink
        /// fails).
        case unknown
        /// Alamofire's rule finds no usable path: on Linux no usable route, a
        /// link that needs a connection nothing makes by itself, or a path
        /// only WWAN carries while the process's cellular-data switch is off.
        case notReachable
        /// A usable path, with the kind of link it leaves by.
        case reachable(ConnectionType)
    }

    /// The kind of connection a reachable status uses (Alamofire 4 nests it
    /// in the manager, not in the status).
    public enum ConnectionType {
        /// A link that is not WWAN. On Linux: Ethernet, Wi-Fi, tunnels and
        /// any other interface not classified WWAN.
        case ethernetOrWiFi
        /// A WWAN (cellular) link. On Linux: a route out through an interface
        /// classified WWAN, a flag Alamofire 4 itself reads only on iOS.
        case wwan
    }

    /// Called on ``listenerQueue`` with the status of each new set of flags.
    public typealias Listener = (NetworkReachabilityStatus) -> Void

    // MARK: Properties

    /// Reachable over either connection type.
    open var isReachable: Bool { isReachableOnWWAN || isReachableOnEthernetOrWiFi }

    /// Reachable over a WWAN link.
    open var isReachableOnWWAN: Bool { networkReachabilityStatus == .reachable(.wwan) }

    /// Reachable over another link (Ethernet, Wi-Fi, tunnels).
    open var isReachableOnEthernetOrWiFi: Bool { networkReachabilityStatus == .reachable(.ethernetOrWiFi) }

    /// The status now: ``NetworkReachabilityStatus/unknown`` when the flags cannot be read.
    open var networkReachabilityStatus: NetworkReachabilityStatus {
        guard let flags = flags else { return .unknown }
        return networkReachabilityStatusForFlags(flags)
    }

    /// The queue SystemConfiguration calls back on and ``listener`` runs on
    /// (main by default). Read by ``startListening()``: set it before.
    open var listenerQueue: DispatchQueue = DispatchQueue.main

    /// Called with the status of each new set of flags while listening; read
    /// at each delivery, so a new listener takes effect at the next one.
    open var listener: Listener?

    /// The flags now (nil when they cannot be read).
    open var flags: SCNetworkReachabilityFlags? {
        var flags = SCNetworkReachabilityFlags()
        return SCNetworkReachabilityGetFlags(reachability, &flags) ? flags : nil
    }

    /// The flags of the last delivery; an unassigned bit (`1 << 30`) before
    /// the first, and again at each ``startListening()``, so that the first
    /// delivery of a start is never suppressed.
    open var previousFlags: SCNetworkReachabilityFlags

    private let reachability: SCNetworkReachability
    private let lock = NSLock()
    /// Bumped by every start and stop: a first delivery of an older start is dropped.
    private var generation: UInt64 = 0

    /// The value of `previousFlags` that stands for "nothing delivered yet".
    private static let noFlagsYet = SCNetworkReachabilityFlags(rawValue: 1 << 30)

    // MARK: Initialization

    /// A manager of a host. Text that is no host name gives a manager whose
    /// status is ``NetworkReachabilityStatus/notReachable``, as on
    /// Apple's platforms; nil only for the empty string.
    ///
    /// - Parameter host: A host name or an address, without a scheme.
    public convenience init?(host: String) {
        guard let reachability = SCNetworkReachabilityCreateWithName(nil, host) else { return nil }
        self.init(reachability: reachability)
    }

    /// A manager of the internet: the zero address (`0.0.0.0`), which stands
    /// for the default routes of both IPv4 and IPv6. On Linux never nil.
    public convenience init?() {
        var address = sockaddr_in()
        address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        address.sin_family = sa_family_t(AF_INET)
        let made = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { SCNetworkReachabilityCreateWithAddress(nil, $0) }
        }
        guard let reachability = made else { return nil }
        self.init(reachability: reachability)
    }

    private init(reachability: SCNetworkReachability) {
        self.reachability = reachability
        self.previousFlags = Self.noFlagsYet
    }

    deinit { stopListening() }

    // MARK: Listening

    /// Starts listening: schedules on ``listenerQueue``, where ``listener`` gets
    /// the current status at once (asynchronously), then the status of each
    /// change of the flags.
    ///
    /// - Returns: `false` when the reachability object could not be scheduled
    ///   (on Linux: the kernel cannot be watched).
    @discardableResult
    open func startListening() -> Bool {
        let queue = listenerQueue
        // The context holds the manager weakly: it may go while listening.
        let callbackEnabled = SCNetworkReachabilitySetWeakCallback(reachability, self) { manager, flags in
            manager.notifyListener(flags)
        }
        let queueEnabled = SCNetworkReachabilitySetDispatchQueue(reachability, queue)
        let started = lock.withLock { () -> UInt64 in
            generation &+= 1
            return generation
        }
        // Scheduling brings no callback: give the current state, as 4.x does.
        // The block holds the manager until it has run, as 4.x's does.
        queue.compatAsync {
            guard self.lock.withLock({ self.generation == started }) else { return }
            self.previousFlags = Self.noFlagsYet
            guard let flags = self.flags else { return }
            self.notifyListener(flags)
        }
        return callbackEnabled && queueEnabled
    }

    /// Stops listening. ``listener`` and ``listenerQueue`` stay set.
    open func stopListening() {
        SCNetworkReachabilitySetCallback(reachability, nil, nil)
        SCNetworkReachabilitySetDispatchQueue(reachability, nil)
        lock.withLock { generation &+= 1 }
    }

    // MARK: Internal (the names 4.x's own tests reach with @testable)

    /// Gives `listener` the status of `flags` unless they are the flags last
    /// given. Runs on `listenerQueue`.
    func notifyListener(_ flags: SCNetworkReachabilityFlags) {
        guard previousFlags != flags else { return }
        previousFlags = flags
        listener?(networkReachabilityStatusForFlags(flags))
    }

    /// Alamofire 4's rule: `.notReachable` unless `isNetworkReachable(with:)`;
    /// `.reachable(.wwan)` when `.isWWAN` (read on Linux too).
    func networkReachabilityStatusForFlags(_ flags: SCNetworkReachabilityFlags) -> NetworkReachabilityStatus {
        guard isNetworkReachable(with: flags) else { return .notReachable }
        return .reachable(flags.contains(.isWWAN) ? .wwan : .ethernetOrWiFi)
    }

    /// Reachable, and no connection required or one that can be made
    /// without the user.
    func isNetworkReachable(with flags: SCNetworkReachabilityFlags) -> Bool {
        guard flags.contains(.reachable) else { return false }
        let automatic = flags.contains(.connectionOnDemand) || flags.contains(.connectionOnTraffic)
        return !flags.contains(.connectionRequired) || (automatic && !flags.contains(.interventionRequired))
    }
}

// MARK: Equatable, as 4.x declares it: a conformance and a global operator.

extension NetworkReachabilityManager.NetworkReachabilityStatus: Equatable {}

/// Whether two statuses are the same: the same case, and for `.reachable`
/// the same connection type.
public func == (lhs: NetworkReachabilityManager.NetworkReachabilityStatus,
                rhs: NetworkReachabilityManager.NetworkReachabilityStatus) -> Bool {
    switch (lhs, rhs) {
    case (.unknown, .unknown), (.notReachable, .notReachable): return true
    case let (.reachable(left), .reachable(right)): return left == right
    case (.unknown, _), (.notReachable, _), (.reachable, _): return false
    }
}
