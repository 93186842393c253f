// ashleymills/Reachability.swift 5 on Linux, over this package's
// SystemConfiguration: the same class, errors, notification and timing.
// README, "Porting from iOS", has the table.

import Dispatch
import Foundation
import SystemConfiguration

/// What went wrong, with `SCError()` of the failed call.
public enum ReachabilityError: Error {
    /// Making an object for an address failed; it carries the address and
    /// `SCError()`. On Linux only a family other than `AF_INET` or `AF_INET6`
    /// fails (`kSCStatusInvalidArgument`), so the internet initializer never
    /// throws it.
    case failedToCreateWithAddress(sockaddr, Int32)
    /// Making an object for a host name failed; it carries the name and
    /// `SCError()`. On Linux, as on Apple's platforms, only the empty string
    /// (`kSCStatusInvalidArgument`): text that is no host name gives an
    /// object that is never reachable; nothing is resolved at that point.
    case failedToCreateWithHostname(String, Int32)
    /// Setting the SystemConfiguration callback failed. Never thrown on Linux:
    /// this package's `SCNetworkReachabilitySetCallback` always succeeds.
    case unableToSetCallback(Int32)
    /// Scheduling on the serial queue failed, with `SCError()`. On Linux: the
    /// kernel cannot be watched (`kSCStatusReachabilityUnknown`: the namespace
    /// is gone, or netlink failed).
    case unableToSetDispatchQueue(Int32)
    /// The first check in ``Reachability/startNotifier()`` could not read the flags, with
    /// `SCError()`. On Linux: `kSCStatusReachabilityUnknown`, the kernel could
    /// not be asked.
    case unableToGetFlags(Int32)
}

extension Notification.Name {
    /// Posted on each change, the ``Reachability`` as object, on the notification queue.
    public static let reachabilityChanged = Notification.Name("reachabilityChanged")
}

/// Reachability of a host or of the internet, as Reachability.swift gives it.
///
/// ``startNotifier()`` reads the flags at once (on its serial queue, before it
/// returns) and notifies: ``whenReachable`` or ``whenUnreachable``, then
/// `.reachabilityChanged`, on the notification queue (main by default; nil
/// runs them on the serial queue). After that, each change of the flags
/// notifies once: duplicates are suppressed by the flags, not by
/// ``connection``. ``stopNotifier()`` keeps the last flags, so starting again
/// notifies only if they changed.
///
/// On Linux, ``Connection/cellular`` is a path that leaves by a link classified WWAN
/// (Reachability.swift reads `isWWAN` on iOS only), and ``Connection/wifi`` any other link.
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
        case unavailable
        /// A path over a link that is not WWAN: on Linux Ethernet, Wi-Fi or a
        /// tunnel.
        case wifi
        /// A path out through an interface classified WWAN; the original reads
        /// that flag on iOS only, this module on Linux too.
        case cellular

        public var description: String {
            switch self {
            case .cellular: return "Cellular"
            case .wifi: return "WiFi"
            case .unavailable: return "No Connection"
            }
        }

        /// The old name of ``unavailable``, kept so that code comparing with
        /// `.none` still compiles (deprecated).
        @available(*, deprecated, renamed: "unavailable")
        public static let none: Connection = .unavailable
    }

    /// Called on the notification queue when the flags change (the first check
    /// counts) and the connection is not ``Connection/unavailable``. On Linux the changes
    /// come from the engine's monitor of the kernel's routes and links, not
    /// from polling.
    public var whenReachable: NetworkReachable?
    /// Called on the notification queue when the flags change (the first check
    /// counts) and the connection is ``Connection/unavailable``. On Linux the changes come
    /// from the engine's monitor of the kernel's routes and links.
    public var whenUnreachable: NetworkUnreachable?

    /// The old, constant spelling of ``allowsCellularConnection``: always true
    /// (deprecated). To refuse WWAN, set ``allowsCellularConnection`` to false.
    @available(*, deprecated, renamed: "allowsCellularConnection")
    public let reachableOnWWAN: Bool = true

    /// When false, a path over WWAN is ``Connection/unavailable`` (default true).
    public var allowsCellularConnection: Bool

    /// Where `.reachabilityChanged` is posted.
    public var notificationCenter: NotificationCenter = NotificationCenter.default

    /// The connection's text: "No Connection", "WiFi" or "Cellular" (deprecated
    /// for `connection.description`). On Linux "WiFi" names any link not
    /// classified WWAN.
    @available(*, deprecated, renamed: "connection.description")
    public var currentReachabilityString: String { "\(connection)" }

    /// The connection now; reads the flags first when none were read yet.
    public var connection: Connection {
        if flags == nil { try? setReachabilityFlags() }
        switch flags?.connection {
        case .unavailable?, nil: return .unavailable
        case .cellular?: return allowsCellularConnection ? .cellular : .unavailable
        case .wifi?: return .wifi
        }
    }

    fileprivate(set) var notifierRunning = false
    fileprivate(set) var flags: SCNetworkReachabilityFlags? {
        didSet {
            guard flags != oldValue else { return }
            notifyReachabilityChanged()
        }
    }

    private let reachabilityRef: SCNetworkReachability
    private let reachabilitySerialQueue: DispatchQueue
    private let notificationQueue: DispatchQueue?

    /// Makes a ``Reachability`` for an object of this package's
    /// SystemConfiguration.
    ///
    /// - Parameters:
    ///   - reachabilityRef: The target's reachability object.
    ///   - queueQoS: The quality of service of the serial queue that reads the flags.
    ///   - targetQueue: The target queue of that serial queue.
    ///   - notificationQueue: Where the closures and the notification run;
    ///     nil runs them on the serial queue.
    required public init(reachabilityRef: SCNetworkReachability, queueQoS: DispatchQoS = .default,
                         targetQueue: DispatchQueue? = nil, notificationQueue: DispatchQueue? = .main) {
        self.allowsCellularConnection = true
        self.reachabilityRef = reachabilityRef
        self.reachabilitySerialQueue = DispatchQueue(label: "ReachabilitySwift.serial", qos: queueQoS, target: targetQueue)
        self.notificationQueue = notificationQueue
    }

    /// Reachability of a host.
    ///
    /// - Parameters:
    ///   - hostname: A host name, or an address in text.
    ///   - queueQoS: The quality of service of the serial queue that reads the flags.
    ///   - targetQueue: The target queue of that serial queue.
    ///   - notificationQueue: Where the closures and the notification run;
    ///     nil runs them on the serial queue.
    /// - Throws: ``ReachabilityError/failedToCreateWithHostname(_:_:)`` for the
    ///   empty string (text that is no host name gives an object that is never
    ///   reachable, as Apple's).
    public convenience init(hostname: String, queueQoS: DispatchQoS = .default, targetQueue: DispatchQueue? = nil,
                            notificationQueue: DispatchQueue? = .main) throws {
        guard let ref = SCNetworkReachabilityCreateWithName(nil, hostname) else {
            throw ReachabilityError.failedToCreateWithHostname(hostname, SCError())
        }
        self.init(reachabilityRef: ref, queueQoS: queueQoS, targetQueue: targetQueue, notificationQueue: notificationQueue)
    }

    /// Reachability of the internet: the zero address.
    ///
    /// - Parameters:
    ///   - queueQoS: The quality of service of the serial queue that reads the flags.
    ///   - targetQueue: The target queue of that serial queue.
    ///   - notificationQueue: Where the closures and the notification run;
    ///     nil runs them on the serial queue.
    /// - Throws: ``ReachabilityError/failedToCreateWithAddress(_:_:)``, which
    ///   never happens on Linux.
    public convenience init(queueQoS: DispatchQoS = .default, targetQueue: DispatchQueue? = nil,
                            notificationQueue: DispatchQueue? = .main) throws {
        var zeroAddress = sockaddr()
        zeroAddress.sa_len = UInt8(MemoryLayout<sockaddr>.size)
        zeroAddress.sa_family = sa_family_t(AF_INET)
        guard let ref = SCNetworkReachabilityCreateWithAddress(nil, &zeroAddress) else {
            throw ReachabilityError.failedToCreateWithAddress(zeroAddress, SCError())
        }
        self.init(reachabilityRef: ref, queueQoS: queueQoS, targetQueue: targetQueue, notificationQueue: notificationQueue)
    }

    deinit { stopNotifier() }
}

extension Reachability {
    /// Starts notifying: the flags are read now and notified, then each change.
    /// A second call while notifying does nothing.
    ///
    /// - Throws: ``ReachabilityError/unableToSetDispatchQueue(_:)`` when the
    ///   kernel cannot be watched, ``ReachabilityError/unableToGetFlags(_:)``
    ///   when the first check cannot read the flags.
    public func startNotifier() throws {
        guard !notifierRunning else { return }
        let callback: SCNetworkReachabilityCallBack = { _, flags, info in
            guard let info else { return }
            // The weak box: a Reachability released while notifying gets nothing.
            Unmanaged<ReachabilityWeakifier>.fromOpaque(info).takeUnretainedValue().reachability?.flags = flags
        }
        let weakifier = ReachabilityWeakifier(reachability: self)
        var context = SCNetworkReachabilityContext(
            version: 0, info: Unmanaged.passUnretained(weakifier).toOpaque(),
            retain: { info in UnsafeRawPointer(Unmanaged<ReachabilityWeakifier>.fromOpaque(info).retain().toOpaque()) },
            release: { info in Unmanaged<ReachabilityWeakifier>.fromOpaque(info).release() },
            copyDescription: { info in
                let reachability = Unmanaged<ReachabilityWeakifier>.fromOpaque(info).takeUnretainedValue().reachability
                return Unmanaged.passRetained((reachability?.description ?? "nil") as CFString)
            })
        if !SCNetworkReachabilitySetCallback(reachabilityRef, callback, &context) {
            stopNotifier()
            throw ReachabilityError.unableToSetCallback(SCError())
        }
        if !SCNetworkReachabilitySetDispatchQueue(reachabilityRef, reachabilitySerialQueue) {
            stopNotifier()
            throw ReachabilityError.unableToSetDispatchQueue(SCError())
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

    /// Whether ``connection`` is anything but ``Connection/unavailable`` (deprecated).
    /// Reading it reads the kernel's answer first when no flags were read yet.
    @available(*, deprecated, message: "Please use `connection != .unavailable`")
    public var isReachable: Bool { connection != .unavailable }

    /// Whether ``connection`` is ``Connection/cellular``: on Linux, a path over a link
    /// classified WWAN (deprecated).
    @available(*, deprecated, message: "Please use `connection == .cellular`")
    public var isReachableViaWWAN: Bool { connection == .cellular }

    /// Whether ``connection`` is ``Connection/wifi``: on Linux, a path over any other link,
    /// Ethernet included (deprecated).
    @available(*, deprecated, message: "Please use `connection == .wifi`")
    public var isReachableViaWiFi: Bool { connection == .wifi }

    /// The flags in Reachability.swift's letters (`WR ctiCDld`), or "unavailable flags".
    public var description: String { flags?.letters ?? "unavailable flags" }

    fileprivate func setReachabilityFlags() throws {
        try reachabilitySerialQueue.sync { [unowned self] in
            var flags = SCNetworkReachabilityFlags()
            if !SCNetworkReachabilityGetFlags(self.reachabilityRef, &flags) {
                self.stopNotifier()
                throw ReachabilityError.unableToGetFlags(SCError())
            }
            self.flags = flags
        }
    }

    fileprivate func notifyReachabilityChanged() {
        let notify = { [weak self] in
            guard let self else { return }
            self.connection != .unavailable ? self.whenReachable?(self) : self.whenUnreachable?(self)
            self.notificationCenter.post(name: .reachabilityChanged, object: self)
        }
        notificationQueue?.compatAsync(notify) ?? notify()
    }
}

/// The context's box: the Reachability, weakly.
private final class ReachabilityWeakifier {
    weak var reachability: Reachability?
    init(reachability: Reachability) { self.reachability = reachability }
}

extension SCNetworkReachabilityFlags {
    /// Reachability.swift's rule (Apple's sample's), `isWWAN` read on Linux too.
    var connection: Reachability.Connection {
        guard contains(.reachable) else { return .unavailable }
        var connection = Reachability.Connection.unavailable
        if !contains(.connectionRequired) { connection = .wifi }
        if contains(.connectionOnTraffic) || contains(.connectionOnDemand) {
            if !contains(.interventionRequired) { connection = .wifi }
        }
        if contains(.isWWAN) { connection = .cellular }
        return connection
    }

    /// `WR ctiCDld`: one letter per flag, `-` when clear.
    var letters: String {
        func letter(_ flag: SCNetworkReachabilityFlags, _ set: Character) -> Character { contains(flag) ? set : "-" }
        return String([letter(.isWWAN, "W"), letter(.reachable, "R"), " ",
                       letter(.connectionRequired, "c"), letter(.transientConnection, "t"),
                       letter(.interventionRequired, "i"), letter(.connectionOnTraffic, "C"),
                       letter(.connectionOnDemand, "D"), letter(.isLocalAddress, "l"), letter(.isDirect, "d")])
    }
}
