// ashleymills/Reachability.swift 4.x on Linux, over this package's
// SystemConfiguration: the class as v4.3.1 declares it (failable
// initialisers, `Connection.none`, errors without payloads of SCError(),
// closures and notification always on the main queue). Reachability.swift
// 5.x code imports `ReachabilitySwift`; the two versions differ where an
// initialiser or a switch can see it, so each has its module.
// docs/compat-surface/ReachabilitySwift4.md has the table.

import Dispatch
import Foundation
import SystemConfiguration

/// What went wrong, as Reachability.swift 4.x names it (no `SCError()` payload).
public enum ReachabilityError: Error {
    /// Making an object for an address failed. Declared by 4.x, never thrown
    /// by it nor here: the address initializer is failable instead.
    case FailedToCreateWithAddress(sockaddr_in)
    /// Making an object for a host name failed. Declared by 4.x, never thrown
    /// by it nor here: the host-name initializer is failable instead.
    case FailedToCreateWithHostname(String)
    /// Setting the SystemConfiguration callback failed. Never thrown on Linux:
    /// this package's `SCNetworkReachabilitySetCallback` always succeeds.
    case UnableToSetCallback
    /// Scheduling on the serial queue failed. On Linux: the kernel cannot be
    /// watched (the network namespace is gone, or netlink failed).
    case UnableToSetDispatchQueue
    /// The first check in ``Reachability/startNotifier()`` could not read the flags. On
    /// Linux: the kernel could not be asked.
    case UnableToGetInitialFlags
}

extension Notification.Name {
    /// Posted on the main queue after each change, the ``Reachability`` as object.
    public static let reachabilityChanged = Notification.Name("reachabilityChanged")
}

/// Reachability of a host or of the internet, as Reachability.swift 4.x gives it.
///
/// ``startNotifier()`` reads the flags at once (on its serial queue, before it
/// returns); that first reading and each later change of the flags call
/// ``whenReachable`` or ``whenUnreachable`` (chosen by ``connection`` when the
/// flags change) and then post `.reachabilityChanged`, both on the main
/// queue. Duplicates are suppressed by the flags, not by ``connection``.
/// ``stopNotifier()`` keeps the last flags, so starting again notifies only if
/// they changed.
///
/// Unlike 4.x, whose context holds the object unretained, the callback holds
/// it weakly: a `Reachability` released while notifying is never called into.
///
/// On Linux, ``Connection/cellular`` is a path that leaves by a link classified WWAN
/// (4.x reads `isWWAN` on iOS only), and ``Connection/wifi`` any other link.
public class Reachability {
    /// The closure type of ``whenReachable``; it gets the ``Reachability`` whose
    /// flags changed.
    public typealias NetworkReachable = (Reachability) -> ()
    /// The closure type of ``whenUnreachable``; it gets the ``Reachability`` whose
    /// flags changed.
    public typealias NetworkUnreachable = (Reachability) -> ()

    /// How the target can be reached now: not at all, over Wi-Fi, or over
    /// cellular. On Linux ``wifi`` stands for every link not classified WWAN.
    public enum Connection: CustomStringConvertible {
        /// No usable path. On Linux: no usable route from the kernel, a link
        /// that needs a connection nothing makes, a WWAN path while
        /// ``Reachability/allowsCellularConnection`` is false, or a WWAN-only path under the
        /// process's cellular-data switch.
        case none
        /// A path over a link that is not WWAN: on Linux Ethernet, Wi-Fi or a
        /// tunnel.
        case wifi
        /// A path out through an interface classified WWAN; 4.x reads that
        /// flag on iOS only, this module on Linux too.
        case cellular

        /// "No Connection", "WiFi" or "Cellular".
        public var description: String {
            switch self {
            case .cellular: return "Cellular"
            case .wifi: return "WiFi"
            case .none: return "No Connection"
            }
        }
    }

    /// Called on the main queue when the flags change (the first check
    /// counts) and the connection is not ``Connection/none``. On Linux the changes come
    /// from the engine's monitor of the kernel's routes and links.
    public var whenReachable: NetworkReachable?
    /// Called on the main queue when the flags change (the first check
    /// counts) and the connection is ``Connection/none``.
    public var whenUnreachable: NetworkUnreachable?

    /// The old, constant spelling of ``allowsCellularConnection``: always true
    /// (deprecated). To refuse WWAN, set ``allowsCellularConnection`` to false.
    @available(*, deprecated, renamed: "allowsCellularConnection")
    public let reachableOnWWAN: Bool = true

    /// When false, a path over WWAN is ``Connection/none`` (default true).
    public var allowsCellularConnection: Bool

    /// Where `.reachabilityChanged` is posted.
    public var notificationCenter: NotificationCenter = NotificationCenter.default

    /// The connection's text: "No Connection", "WiFi" or "Cellular"
    /// (deprecated for `connection.description`).
    @available(*, deprecated, renamed: "connection.description")
    public var currentReachabilityString: String { "\(connection)" }

    /// The connection now; reads the flags first when none were read yet
    /// (which notifies, as any first reading does).
    public var connection: Connection {
        if flags == nil { try? setReachabilityFlags() }
        switch flags.map(Self.connection(of:)) {
        case .none?, nil: return .none
        case .cellular?: return allowsCellularConnection ? .cellular : .none
        case .wifi?: return .wifi
        }
    }

    fileprivate var notifierRunning = false
    fileprivate let reachabilityRef: SCNetworkReachability
    fileprivate let reachabilitySerialQueue: DispatchQueue
    fileprivate(set) var flags: SCNetworkReachabilityFlags? {
        didSet {
            guard flags != oldValue else { return }
            reachabilityChanged()
        }
    }

    /// Makes a ``Reachability`` for an object of this package's
    /// SystemConfiguration. The closures and the notification run on the main
    /// queue.
    ///
    /// - Parameters:
    ///   - reachabilityRef: The target's reachability object.
    ///   - queueQoS: The quality of service of the serial queue that reads the flags.
    ///   - targetQueue: The target queue of that serial queue.
    required public init(reachabilityRef: SCNetworkReachability, queueQoS: DispatchQoS = .default,
                         targetQueue: DispatchQueue? = nil) {
        self.allowsCellularConnection = true
        self.reachabilityRef = reachabilityRef
        self.reachabilitySerialQueue = DispatchQueue(label: "ReachabilitySwift4.serial", qos: queueQoS, target: targetQueue)
    }

    /// Reachability of a host. Text that is no host name gives an object whose
    /// connection is ``Connection/none``, as on Apple's platforms; nil only for
    /// the empty string.
    ///
    /// - Parameters:
    ///   - hostname: A host name, or an address in text.
    ///   - queueQoS: The quality of service of the serial queue that reads the flags.
    ///   - targetQueue: The target queue of that serial queue.
    public convenience init?(hostname: String, queueQoS: DispatchQoS = .default, targetQueue: DispatchQueue? = nil) {
        guard let ref = SCNetworkReachabilityCreateWithName(nil, hostname) else { return nil }
        self.init(reachabilityRef: ref, queueQoS: queueQoS, targetQueue: targetQueue)
    }

    /// Reachability of the internet: the zero address. On Linux never nil.
    ///
    /// - Parameters:
    ///   - queueQoS: The quality of service of the serial queue that reads the flags.
    ///   - targetQueue: The target queue of that serial queue.
    public convenience init?(queueQoS: DispatchQoS = .default, targetQueue: DispatchQueue? = nil) {
        var zeroAddress = sockaddr()
        zeroAddress.sa_len = UInt8(MemoryLayout<sockaddr>.size)
        zeroAddress.sa_family = sa_family_t(AF_INET)
        guard let ref = SCNetworkReachabilityCreateWithAddress(nil, &zeroAddress) else { return nil }
        self.init(reachabilityRef: ref, queueQoS: queueQoS, targetQueue: targetQueue)
    }

    deinit { stopNotifier() }
}

extension Reachability {
    /// Starts notifying: the flags are read now (notifying if they are new),
    /// then each change. Does nothing when already running.
    ///
    /// - Throws: ``ReachabilityError/UnableToSetDispatchQueue`` when the kernel
    ///   cannot be watched, ``ReachabilityError/UnableToGetInitialFlags`` when
    ///   it cannot be asked.
    public func startNotifier() throws {
        guard !notifierRunning else { return }
        // The context holds the object weakly: it may go while notifying.
        let callbackSet = SCNetworkReachabilitySetWeakCallback(reachabilityRef, self) { reachability, flags in
            reachability.flags = flags
        }
        if !callbackSet {
            stopNotifier()
            throw ReachabilityError.UnableToSetCallback
        }
        if !SCNetworkReachabilitySetDispatchQueue(reachabilityRef, reachabilitySerialQueue) {
            stopNotifier()
            throw ReachabilityError.UnableToSetDispatchQueue
        }
        try setReachabilityFlags()   // the first check, synchronous
        notifierRunning = true
    }

    /// Stops notifying; the last flags stay.
    public func stopNotifier() {
        defer { notifierRunning = false }
        SCNetworkReachabilitySetCallback(reachabilityRef, nil, nil)
        SCNetworkReachabilitySetDispatchQueue(reachabilityRef, nil)
    }

    /// Whether ``connection`` is anything but ``Connection/none`` (deprecated).
    @available(*, deprecated, message: "Please use `connection != .none`")
    public var isReachable: Bool { connection != .none }

    /// Whether ``connection`` is ``Connection/cellular``: on Linux, a path over a link
    /// classified WWAN (deprecated).
    @available(*, deprecated, message: "Please use `connection == .cellular`")
    public var isReachableViaWWAN: Bool { connection == .cellular }

    /// Whether ``connection`` is ``Connection/wifi``: on Linux, a path over any other link,
    /// Ethernet included (deprecated).
    @available(*, deprecated, message: "Please use `connection == .wifi`")
    public var isReachableViaWiFi: Bool { connection == .wifi }

    /// The flags in Reachability.swift's letters (`WR ctiCDld`), or
    /// "unavailable flags" before the first reading.
    public var description: String {
        guard let flags = flags else { return "unavailable flags" }
        func letter(_ flag: SCNetworkReachabilityFlags, _ set: Character) -> Character { flags.contains(flag) ? set : "-" }
        return String([letter(.isWWAN, "W"), letter(.reachable, "R"), " ",
                       letter(.connectionRequired, "c"), letter(.transientConnection, "t"),
                       letter(.interventionRequired, "i"), letter(.connectionOnTraffic, "C"),
                       letter(.connectionOnDemand, "D"), letter(.isLocalAddress, "l"), letter(.isDirect, "d")])
    }

    /// Reads the flags on the serial queue; stops the notifier when they cannot be read.
    fileprivate func setReachabilityFlags() throws {
        try reachabilitySerialQueue.sync { [unowned self] in
            var flags = SCNetworkReachabilityFlags()
            if !SCNetworkReachabilityGetFlags(self.reachabilityRef, &flags) {
                self.stopNotifier()
                throw ReachabilityError.UnableToGetInitialFlags
            }
            self.flags = flags
        }
    }

    /// 4.x's order: the closure is chosen now (by the new flags), then run
    /// on the main queue, then the notification posted there.
    fileprivate func reachabilityChanged() {
        let block = connection != .none ? whenReachable : whenUnreachable
        DispatchQueue.main.compatAsync { [weak self] in
            guard let self = self else { return }
            block?(self)
            self.notificationCenter.post(name: .reachabilityChanged, object: self)
        }
    }

    /// Reachability.swift's rule (Apple's sample's), `isWWAN` read on Linux too.
    fileprivate static func connection(of flags: SCNetworkReachabilityFlags) -> Connection {
        guard flags.contains(.reachable) else { return .none }
        var connection = Connection.none
        if !flags.contains(.connectionRequired) { connection = .wifi }
        if flags.contains(.connectionOnTraffic) || flags.contains(.connectionOnDemand) {
            if !flags.contains(.interventionRequired) { connection = .wifi }
        }
        if flags.contains(.isWWAN) { connection = .cellular }
        return connection
    }
}
