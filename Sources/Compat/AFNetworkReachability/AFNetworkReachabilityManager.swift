// AFNetworking's AFNetworkReachabilityManager on Linux, as Swift imports
// AFNetworking 4's header, over this package's SystemConfiguration. README,
// "Porting from iOS", has the table.

import Dispatch
import Foundation
import SystemConfiguration

/// The status AFNetworking reports.
public enum AFNetworkReachabilityStatus: Int, Sendable {
    /// No status yet: the value before the first answer after
    /// ``AFNetworkReachabilityManager/startMonitoring()``. The flags never produce it; on Linux too it only
    /// means that no route lookup has been delivered yet.
    case unknown = -1
    /// The target cannot be reached now. On Linux: the kernel's route lookup
    /// finds no usable route, the link needs a connection nothing makes by
    /// itself, or only WWAN carries the path and the process's cellular-data
    /// switch is off.
    case notReachable = 0
    /// Reachable over the cellular network. On Linux: the route leaves by an
    /// interface the engine classifies WWAN (the `isWWAN` flag), such as an LTE
    /// modem's `wwan0`.
    case reachableViaWWAN = 1
    /// Reachable over a local network link. On Linux it stands for every link
    /// that is not WWAN (Ethernet, Wi-Fi, tunnels), because AFNetworking's rule
    /// has no third answer.
    case reachableViaWiFi = 2
}

/// The notification posted with each status, the manager as object and the
/// status (an `NSNumber`) under ``AFNetworkingReachabilityNotificationStatusItem``.
extension NSNotification.Name {
    /// The name AFNetworking posts under, on the main queue, after each
    /// delivered status. On Linux it is posted for the first answer and for
    /// every SystemConfiguration callback (a change of the kernel's flags),
    /// even when the status stays the same, as AFNetworking does.
    public static let AFNetworkingReachabilityDidChange =
        NSNotification.Name("com.alamofire.networking.reachability.change")
}

/// The `userInfo` key of the status in `AFNetworkingReachabilityDidChange`.
public let AFNetworkingReachabilityNotificationStatusItem = "AFNetworkingReachabilityNotificationStatusItem"

/// AFNetworking's words for a status.
///
/// - Parameter status: A status.
/// - Returns: `Not Reachable`, `Reachable via WWAN`, `Reachable via WiFi` or
///   `Unknown`, in English.
public func AFStringFromNetworkReachabilityStatus(_ status: AFNetworkReachabilityStatus) -> String {
    switch status {
    case .notReachable: return "Not Reachable"
    case .reachableViaWWAN: return "Reachable via WWAN"
    case .reachableViaWiFi: return "Reachable via WiFi"
    case .unknown: return "Unknown"
    }
}

/// Monitors the reachability of a domain, an address, or the internet.
///
/// As AFNetworking's: the status is ``AFNetworkReachabilityStatus/unknown``
/// until the first answer after ``startMonitoring()``, which reads the flags
/// at once and delivers them; each answer (the first, then every
/// SystemConfiguration callback, none suppressed) sets the status, calls the
/// block and posts `AFNetworkingReachabilityDidChange`, on the main queue.
/// ``stopMonitoring()`` only unschedules: the block and the last status stay.
///
/// AFNetworking schedules on the main run loop and hops to the main queue;
/// here the reachability object is on a private queue and hops to the main
/// queue, so the block runs the same way whether the program runs
/// `RunLoop.main` or `dispatchMain()`. ``AFNetworkReachabilityStatus/reachableViaWWAN`` is a path that
/// leaves by a link classified WWAN (AFNetworking reads `isWWAN` on iOS only).
open class AFNetworkReachabilityManager: NSObject, @unchecked Sendable {
    private let reachability: SCNetworkReachability
    private let queue = DispatchQueue(label: "AFNetworkReachability.callbacks")
    private let lock = NSLock()
    private var status: AFNetworkReachabilityStatus = .unknown
    private var block: ((AFNetworkReachabilityStatus) -> Void)?
    private static let sharedManager = AFNetworkReachabilityManager.manager()

    /// The manager of the internet, made once.
    ///
    /// - Returns: The same manager at every call.
    open class func shared() -> AFNetworkReachabilityManager { sharedManager }

    /// A new manager of the internet (the zero IPv6 address, as AFNetworking 4
    /// uses: both families' default routes).
    ///
    /// - Returns: A manager that does not monitor yet.
    open class func manager() -> AFNetworkReachabilityManager {
        var address = sockaddr_in6()
        address.sin6_len = UInt8(MemoryLayout<sockaddr_in6>.size)
        address.sin6_family = sa_family_t(AF_INET6)
        return AFNetworkReachabilityManager(forAddress: &address)
    }

    /// A manager of a host name.
    ///
    /// - Parameter domain: The host name. A text that is no host name, the
    ///   empty text included, gives a manager that is never reachable.
    public convenience init(forDomain domain: String) {
        // Any text but "" gives an object (one that is no host name is never
        // reachable); "" gets one of those too, where AFNetworking would hold NULL.
        let reachability = SCNetworkReachabilityCreateWithName(nil, domain)
            ?? SCNetworkReachabilityCreateWithName(nil, " ")!
        self.init(reachability: reachability)
    }

    /// A manager of a socket address.
    ///
    /// - Parameter address: A `sockaddr_in` or `sockaddr_in6`; another family
    ///   gives a manager that is never reachable.
    public convenience init(forAddress address: UnsafeRawPointer) {
        let reachability = SCNetworkReachabilityCreateWithAddress(nil, address.assumingMemoryBound(to: sockaddr.self))
            ?? SCNetworkReachabilityCreateWithName(nil, "invalid.")!
        self.init(reachability: reachability)
    }

    /// A new manager of the internet (AFNetworking's header makes `init`
    /// unavailable; Swift code written for older headers calls it).
    public convenience override init() {
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        self.init(forAddress: &address)
    }

    /// A manager of a reachability object.
    ///
    /// - Parameter reachability: The target's reachability object, which the
    ///   manager schedules while it monitors.
    public init(reachability: SCNetworkReachability) {
        self.reachability = reachability
        super.init()
    }

    deinit { stopMonitoring() }

    /// The last status delivered; ``AFNetworkReachabilityStatus/unknown`` until
    /// the first after ``startMonitoring()``.
    open var networkReachabilityStatus: AFNetworkReachabilityStatus { lock.withLock { status } }
    /// Whether the last delivered status is one of the two reachable ones. Like
    /// ``networkReachabilityStatus``, it stays false on Linux until monitoring
    /// has delivered a first answer.
    open var isReachable: Bool { isReachableViaWWAN || isReachableViaWiFi }
    /// Whether the last delivered status is ``AFNetworkReachabilityStatus/reachableViaWWAN``: on Linux, the
    /// route left by a link classified WWAN.
    open var isReachableViaWWAN: Bool { networkReachabilityStatus == .reachableViaWWAN }
    /// Whether the last delivered status is ``AFNetworkReachabilityStatus/reachableViaWiFi``: on Linux, the
    /// route left by any link that is not WWAN, Ethernet included.
    open var isReachableViaWiFi: Bool { networkReachabilityStatus == .reachableViaWiFi }

    /// The words of the last status delivered.
    ///
    /// - Returns: ``AFStringFromNetworkReachabilityStatus(_:)`` of ``networkReachabilityStatus``.
    open func localizedNetworkReachabilityStatusString() -> String {
        AFStringFromNetworkReachabilityStatus(networkReachabilityStatus)
    }

    /// Sets the block called with each status.
    ///
    /// - Parameter block: Called on the main queue with each status; nil removes the block.
    open func setReachabilityStatusChange(_ block: ((AFNetworkReachabilityStatus) -> Void)?) {
        lock.withLock { self.block = block }
    }

    /// Starts monitoring: the current status is read and delivered at once,
    /// then every change.
    open func startMonitoring() {
        stopMonitoring()
        // The context holds the manager weakly (AFNetworking's holds a block
        // that does): a manager released while monitoring gets no callback.
        SCNetworkReachabilitySetWeakCallback(reachability, self) { manager, flags in manager.deliver(flags) }
        SCNetworkReachabilitySetDispatchQueue(reachability, queue)
        DispatchQueue.global().compatAsync {
            var flags = SCNetworkReachabilityFlags()
            if SCNetworkReachabilityGetFlags(self.reachability, &flags) { self.deliver(flags) }
        }
    }

    /// Stops monitoring; the block and the last status stay.
    open func stopMonitoring() {
        SCNetworkReachabilitySetDispatchQueue(reachability, nil)
    }

    /// On the main queue: the status, the block, the notification.
    private func deliver(_ flags: SCNetworkReachabilityFlags) {
        let status = Self.status(flags)
        DispatchQueue.main.compatAsync {
            let block = self.lock.withLock { () -> ((AFNetworkReachabilityStatus) -> Void)? in
                self.status = status
                return self.block
            }
            block?(status)
            NotificationCenter.default.post(name: .AFNetworkingReachabilityDidChange, object: self,
                                            userInfo: [AFNetworkingReachabilityNotificationStatusItem: NSNumber(value: status.rawValue)])
        }
    }

    /// AFNetworking's rule: not reachable unless `.reachable` and no
    /// connection is required or one can be made without the user; WWAN when
    /// `.isWWAN`, else WiFi. Never `.unknown`.
    static func status(_ flags: SCNetworkReachabilityFlags) -> AFNetworkReachabilityStatus {
        let reachable = flags.contains(.reachable)
        let needsConnection = flags.contains(.connectionRequired)
        let automatic = flags.contains(.connectionOnDemand) || flags.contains(.connectionOnTraffic)
        let withoutUser = automatic && !flags.contains(.interventionRequired)
        guard reachable && (!needsConnection || withoutUser) else { return .notReachable }
        return flags.contains(.isWWAN) ? .reachableViaWWAN : .reachableViaWiFi
    }
}
