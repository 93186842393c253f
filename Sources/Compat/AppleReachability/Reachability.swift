// Apple's Reachability sample (version 5.0) on Linux, as Swift imports its
// Objective-C header, over this package's SystemConfiguration. README,
// "Porting from iOS", has the table.

import Foundation
import SystemConfiguration

/// The sample's three states (an anonymous C enum: Swift sees a struct and
/// global constants).
public struct NetworkStatus: Equatable, Hashable, RawRepresentable, Sendable {
    public var rawValue: Int
    /// Makes a status from the sample's integer, as Swift imports the C enum.
    ///
    /// - Parameter rawValue: 0, 1 or 2. Any other value is kept as it is and
    ///   equals none of the three constants.
    public init(_ rawValue: Int) { self.rawValue = rawValue }
    public init(rawValue: Int) { self.rawValue = rawValue }
}

/// The sample's state for a target with no usable path. On Linux: no usable
/// route from the kernel, a link that needs a connection nothing makes, a
/// WWAN-only path while the process's cellular-data switch is off, or flags
/// that could not be read because the kernel cannot be asked.
public let NotReachable = NetworkStatus(0)
/// The sample's state for a path over a local network link. On Linux it stands
/// for every link not classified WWAN, so Ethernet and tunnels give it too.
public let ReachableViaWiFi = NetworkStatus(1)
/// The sample's state for a path over the cellular network. On Linux: the route
/// leaves by an interface classified WWAN.
public let ReachableViaWWAN = NetworkStatus(2)

/// The notification the sample posts on each change, the ``Reachability`` as
/// object and no userInfo (`NSNotification.Name(rawValue: kReachabilityChangedNotification)`).
nonisolated(unsafe) public var kReachabilityChangedNotification: String! = "kNetworkReachabilityChangedNotification"

/// Reachability of a host, an address or the internet, as Apple's sample
/// gives it: ``currentReachabilityStatus()`` reads the flags now;
/// ``startNotifier()`` schedules on the calling thread's run loop (which must
/// run: `RunLoop.current.run()`), and each change posts
/// ``kReachabilityChangedNotification`` on that thread. There is no
/// notification for starting: read the status yourself, as the sample's
/// view controller does.
///
/// On Linux, ``ReachableViaWWAN`` is a path that leaves by a link classified
/// WWAN; Ethernet, like Wi-Fi, is ``ReachableViaWiFi``.
open class Reachability: NSObject, @unchecked Sendable {
    private let reachabilityRef: SCNetworkReachability
    private var scheduledOn: CFRunLoop?

    private init(_ reachabilityRef: SCNetworkReachability) {
        self.reachabilityRef = reachabilityRef
        super.init()
    }

    /// Reachability of a host; nil for the empty string (text that is no host
    /// name gives an object that is never reachable).
    ///
    /// - Parameter hostName: A host name, or an address in text.
    public convenience init!(hostName: String!) {
        guard let hostName, let ref = SCNetworkReachabilityCreateWithName(nil, hostName) else { return nil }
        self.init(ref)
    }

    /// Reachability of a socket address; nil for another family.
    ///
    /// - Parameter hostAddress: A `sockaddr_in` or `sockaddr_in6`.
    public convenience init!(address hostAddress: UnsafePointer<sockaddr>!) {
        guard let hostAddress, let ref = SCNetworkReachabilityCreateWithAddress(nil, hostAddress) else { return nil }
        self.init(ref)
    }

    /// Reachability of the internet: the zero address, which stands for both
    /// families' default routes.
    ///
    /// - Returns: A new object, not scheduled yet.
    open class func forInternetConnection() -> Reachability! {
        var zeroAddress = sockaddr_in()
        zeroAddress.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        zeroAddress.sin_family = sa_family_t(AF_INET)
        return withUnsafePointer(to: &zeroAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Reachability(address: $0) }
        }
    }

    deinit { stopNotifier() }

    /// Schedules on the current run loop, whose thread then gets
    /// ``kReachabilityChangedNotification`` at each change.
    ///
    /// - Returns: `true` when the callback and the schedule took.
    open func startNotifier() -> Bool {
        var context = SCNetworkReachabilityContext(
            version: 0, info: Unmanaged.passUnretained(self).toOpaque(), retain: nil, release: nil, copyDescription: nil)
        guard SCNetworkReachabilitySetCallback(reachabilityRef, { _, _, info in
            guard let info else { return }
            let noteObject = Unmanaged<Reachability>.fromOpaque(info).takeUnretainedValue()
            NotificationCenter.default.post(name: NSNotification.Name(rawValue: kReachabilityChangedNotification),
                                            object: noteObject)
        }, &context) else { return false }
        let runLoop = CFRunLoopGetCurrent()!
        guard SCNetworkReachabilityScheduleWithRunLoop(reachabilityRef, runLoop, kCFRunLoopDefaultMode) else { return false }
        scheduledOn = runLoop
        return true
    }

    /// Unschedules from the run loop ``startNotifier()`` used.
    open func stopNotifier() {
        if let runLoop = scheduledOn {
            SCNetworkReachabilityUnscheduleFromRunLoop(reachabilityRef, runLoop, kCFRunLoopDefaultMode)
            scheduledOn = nil
        }
    }

    /// Reads the flags now.
    ///
    /// - Returns: The status by the sample's rule; ``NotReachable`` when the
    ///   flags cannot be read.
    open func currentReachabilityStatus() -> NetworkStatus {
        var flags = SCNetworkReachabilityFlags()
        guard SCNetworkReachabilityGetFlags(reachabilityRef, &flags) else { return NotReachable }
        return Self.networkStatus(for: flags)
    }

    /// Reads the flags now.
    ///
    /// - Returns: Whether a connection must be made first (`.connectionRequired`);
    ///   `false` when the flags cannot be read.
    open func connectionRequired() -> Bool {
        var flags = SCNetworkReachabilityFlags()
        guard SCNetworkReachabilityGetFlags(reachabilityRef, &flags) else { return false }
        return flags.contains(.connectionRequired)
    }

    /// The sample's rule over the flags.
    static func networkStatus(for flags: SCNetworkReachabilityFlags) -> NetworkStatus {
        guard flags.contains(.reachable) else { return NotReachable }
        var status = NotReachable
        // Reachable and no connection needed: WiFi (here: any link but WWAN).
        if !flags.contains(.connectionRequired) { status = ReachableViaWiFi }
        // A connection made on demand or on traffic, without the user: WiFi too.
        if (flags.contains(.connectionOnDemand) || flags.contains(.connectionOnTraffic))
            && !flags.contains(.interventionRequired) {
            status = ReachableViaWiFi
        }
        // Over WWAN.
        if flags.contains(.isWWAN) { status = ReachableViaWWAN }
        return status
    }
}
