// Alamofire's NetworkReachabilityManager on Linux, over this package's
// SystemConfiguration: the same object, callbacks and rules as Alamofire 5's
// (and the spellings of Alamofire 4 that apps still use). README, "Porting
// from iOS", has the table.

import Dispatch
import Foundation
import SystemConfiguration

/// Listens for reachability changes of a host or of the internet (`0.0.0.0`).
///
/// As Alamofire's: ``status``, ``flags`` and `isReachable…` are read now,
/// listening or not; ``startListening(onQueue:onUpdatePerforming:)`` gives
/// the listener the current status at once (SystemConfiguration gives no
/// callback for scheduling), then every change of status (never the same
/// status twice in a row), on the listener's queue (main by default);
/// ``stopListening()`` forgets the last status, so listening again delivers
/// the current one again; `deinit` stops.
///
/// On Linux, `.reachable(.cellular)` is a path that leaves by a link
/// classified WWAN (Alamofire reads `isWWAN` only on iOS, tvOS and visionOS;
/// on a gateway with an LTE modem it is the point).
open class NetworkReachabilityManager: @unchecked Sendable {
    /// The status of the network: unknown (flags could not be read), not
    /// reachable, or reachable over a connection type.
    public enum NetworkReachabilityStatus: Equatable, Sendable {
        /// The flags could not be read. On Linux this happens only when the
        /// kernel cannot be asked (the network namespace is gone, or netlink
        /// fails).
        case unknown
        /// Alamofire's rule finds no usable path. On Linux: the route lookup
        /// finds no usable route, the link needs a connection nothing makes by
        /// itself, or only WWAN carries the path and the process's
        /// cellular-data switch is off.
        case notReachable
        /// A usable path, with the kind of link it leaves by. On Linux the type
        /// is ``ConnectionType/cellular`` when the route's interface is
        /// classified WWAN, and ``ConnectionType/ethernetOrWiFi`` for every other link.
        case reachable(ConnectionType)

        /// Alamofire's rule over the flags: reachable when `.reachable` and no
        /// connection is required, or one would be made without the user;
        /// over cellular when `.isWWAN`.
        ///
        /// - Parameter flags: The target's flags.
        public init(_ flags: SCNetworkReachabilityFlags) {
            guard flags.isActuallyReachable else { self = .notReachable; return }
            self = .reachable(flags.contains(.isWWAN) ? .cellular : .ethernetOrWiFi)
        }

        /// The kind of connection a reachable status uses.
        public enum ConnectionType: Sendable {
            /// A link that is not cellular. On Linux: Ethernet, Wi-Fi, tunnels
            /// and any other interface not classified WWAN.
            case ethernetOrWiFi
            /// A cellular link. On Linux: a route out through an interface
            /// classified WWAN, a flag Alamofire itself reads only on iOS, tvOS
            /// and visionOS.
            case cellular

            /// Alamofire 4's name of ``cellular``: `case .reachable(.wwan)` still matches.
            public static let wwan = ConnectionType.cellular
        }
    }

    /// Called with each new status.
    public typealias Listener = @Sendable (NetworkReachabilityStatus) -> Void

    /// A manager of the internet (the zero address); nil when the kernel cannot be asked.
    public static let `default` = NetworkReachabilityManager()

    /// Reachable over either connection type.
    open var isReachable: Bool { isReachableOnCellular || isReachableOnEthernetOrWiFi }
    /// Reachable over a WWAN link.
    open var isReachableOnCellular: Bool { status == .reachable(.cellular) }
    /// Reachable over another link (Ethernet, Wi-Fi, tunnels).
    open var isReachableOnEthernetOrWiFi: Bool { status == .reachable(.ethernetOrWiFi) }

    /// Where SystemConfiguration's callbacks arrive before they go to the listener's queue.
    public let reachabilityQueue = DispatchQueue(label: "AlamofireReachability.reachabilityQueue")

    /// The flags now (nil when they cannot be read).
    open var flags: SCNetworkReachabilityFlags? {
        var flags = SCNetworkReachabilityFlags()
        return SCNetworkReachabilityGetFlags(reachability, &flags) ? flags : nil
    }

    /// The status now.
    open var status: NetworkReachabilityStatus { flags.map(NetworkReachabilityStatus.init) ?? .unknown }

    private struct State {
        var listener: Listener?
        var listenerQueue: DispatchQueue?
        var previousStatus: NetworkReachabilityStatus?
    }
    private let reachability: SCNetworkReachability
    private let lock = NSLock()
    private var state = State()
    /// Alamofire 4's listener and queue, for `startListening()`.
    private var legacy: (listener: Listener?, queue: DispatchQueue) = (nil, .main)

    /// A manager of a host; nil for the empty string. Text that is no host
    /// name (a URL) gives a manager that is never reachable, as on Apple's
    /// platforms.
    ///
    /// - Parameter host: A host name or an address, without a scheme.
    public convenience init?(host: String) {
        guard let reachability = SCNetworkReachabilityCreateWithName(nil, host) else { return nil }
        self.init(reachability: reachability)
    }

    /// A manager of the internet: the zero address, which stands for the default routes.
    public convenience init?() {
        var zero = sockaddr()
        zero.sa_len = UInt8(MemoryLayout<sockaddr>.size)
        zero.sa_family = sa_family_t(AF_INET)
        guard let reachability = SCNetworkReachabilityCreateWithAddress(nil, &zero) else { return nil }
        self.init(reachability: reachability)
    }

    private init(reachability: SCNetworkReachability) {
        self.reachability = reachability
    }

    deinit { stopListening() }

    /// Starts listening: the listener gets the current status at once, then
    /// each change.
    ///
    /// - Parameters:
    ///   - queue: The queue the listener is called on.
    ///   - listener: Called with the current status, then with each new one.
    /// - Returns: `false` when the reachability object could not be scheduled
    ///   (on Linux: the kernel cannot be watched).
    @preconcurrency
    @discardableResult
    open func startListening(onQueue queue: DispatchQueue = .main,
                             onUpdatePerforming listener: @escaping Listener) -> Bool {
        stopListening()
        lock.withLock {
            state.listener = listener
            state.listenerQueue = queue
        }
        // The context holds the manager weakly: it may go while listening.
        let callbackAdded = SCNetworkReachabilitySetWeakCallback(reachability, self) { manager, flags in
            manager.notifyListener(flags)
        }
        let queueAdded = SCNetworkReachabilitySetDispatchQueue(reachability, reachabilityQueue)
        // Scheduling brings no callback: give the current state, as Alamofire does.
        if let flags = flags {
            reachabilityQueue.compatAsync { self.notifyListener(flags) }
        }
        return callbackAdded && queueAdded
    }

    /// Stops listening and forgets the listener and the last status.
    open func stopListening() {
        SCNetworkReachabilitySetCallback(reachability, nil, nil)
        SCNetworkReachabilitySetDispatchQueue(reachability, nil)
        lock.withLock {
            state.listener = nil
            state.listenerQueue = nil
            state.previousStatus = nil
        }
    }

    /// Gives the status of `flags` to the listener when it differs from the last one given.
    func notifyListener(_ flags: SCNetworkReachabilityFlags) {
        let newStatus = NetworkReachabilityStatus(flags)
        let delivery = lock.withLock { () -> (Listener, DispatchQueue)? in
            guard state.previousStatus != newStatus else { return nil }
            state.previousStatus = newStatus
            guard let listener = state.listener, let queue = state.listenerQueue else { return nil }
            return (listener, queue)
        }
        guard let (listener, queue) = delivery else { return }
        queue.compatAsync { listener(newStatus) }
    }

    // MARK: Alamofire 4's spellings

    /// Alamofire 4: the listener ``startListening()`` uses.
    @preconcurrency
    open var listener: Listener? {
        get { lock.withLock { legacy.listener } }
        set { lock.withLock { legacy.listener = newValue } }
    }

    /// Alamofire 4: the queue ``startListening()`` delivers on (main by default).
    open var listenerQueue: DispatchQueue {
        get { lock.withLock { legacy.queue } }
        set { lock.withLock { legacy.queue = newValue } }
    }

    /// Alamofire 4's name of ``status``.
    open var networkReachabilityStatus: NetworkReachabilityStatus { status }

    /// Alamofire 4: starts listening with ``listener`` on ``listenerQueue``.
    ///
    /// - Returns: `false` when the reachability object could not be scheduled.
    @discardableResult
    open func startListening() -> Bool {
        let (listener, queue) = lock.withLock { legacy }
        return startListening(onQueue: queue) { status in listener?(status) }
    }
}

extension SCNetworkReachabilityFlags {
    /// Alamofire's rule: reachable, and no connection required or one that
    /// can be made without the user.
    var isActuallyReachable: Bool {
        guard contains(.reachable) else { return false }
        let automatic = contains(.connectionOnDemand) || contains(.connectionOnTraffic)
        return !contains(.connectionRequired) || (automatic && !contains(.interventionRequired))
    }
}
