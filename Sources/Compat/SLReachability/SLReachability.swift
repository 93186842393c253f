// SLReachability on Linux: Apple's sample extended with the radio
// generation and a WWAN switch, as Swift imports its header, over this
// package's SystemConfiguration and CoreTelephony. README, "Porting from
// iOS", has the table.

import Dispatch
import Foundation
import CoreTelephony
import SystemConfiguration

/// The three states of Apple's sample rule, under SLReachability's names. On
/// Linux they come from this package's SystemConfiguration flags for the
/// object's target.
public enum SLReachStatus: Int, Sendable {
    /// No usable path, or flags that could not be read. On Linux this includes
    /// a WWAN-only path under the process's cellular-data switch;
    /// `allowUseWWAN = false` alone does not change it.
    case notReachable = 0
    /// Reachable over a link that is not WWAN: on Linux Ethernet and tunnels
    /// count, as well as Wi-Fi.
    case reachableViaWiFi = 1
    /// Reachable over the cellular network: on Linux, a route out through an
    /// interface classified WWAN.
    case reachableViaWWAN = 2
}

/// The generation of the cellular radio, or why there is none. On Linux the
/// kernel does not know the radio: it comes from the technology set in
/// `RadioSource.processDefault` for the data service.
public enum SLWWANStatus: UInt, Sendable {
    /// No radio generation is known. On Linux: no technology is set in
    /// `RadioSource.processDefault` for the data service, and WWAN is not
    /// refused.
    case wwanNotReachable = 0
    /// WWAN is refused: `allowUseWWAN == false`, or the process's cellular-data switch.
    case netWorkStatusWWANRefused = 3
    /// 4G: LTE set for the data service. On Linux 5G (NR and NR NSA) counts
    /// here too, as the mask has no 5G value.
    case netWorkStatusWWAN4G = 4
    /// 3G: WCDMA, HSDPA or HSUPA set for the data service (UMTS, TD-SCDMA and
    /// HSPA map to these on Linux).
    case netWorkStatusWWAN3G = 5
    /// 2G, as the original sorts it: GPRS, EDGE, CDMA 1x, EV-DO or eHRPD set
    /// for the data service.
    case netWorkStatusWWAN2G = 6
}

/// One situation per value (an `NS_ENUM` in the original, so Swift sees an
/// enum; the composite values are cases of it too).
public enum SLNetWorkStatusMask: UInt, Sendable {
    /// No usable path. On Linux: the flags show no reachable route, or could
    /// not be read, and WWAN was not what refused it.
    case unavailable = 1
    /// Reachable over a link that is not WWAN (on Linux, Ethernet and tunnels
    /// too).
    case reachableWiFi = 2
    /// The path is over WWAN and refused, by `allowUseWWAN = false` or by the
    /// process's cellular-data switch. The original declared this value but
    /// never gave it; on Linux it is given.
    case wwanRefused = 8
    /// Reachable over WWAN with a 4G technology set (LTE, or 5G counted as 4G).
    case reachableWWAN4G = 16
    /// Reachable over WWAN with a 3G technology set (WCDMA, HSDPA, HSUPA).
    case reachableWWAN3G = 32
    /// Reachable over WWAN with a 2G technology set (GPRS, EDGE, CDMA 1x,
    /// EV-DO, eHRPD).
    case reachableWWAN2G = 64
    /// Over WWAN, generation unknown (2G, 3G and 4G bits).
    case reachableWWAN = 112
    /// The bits of ``unavailable`` and ``wwanRefused`` together, for testing a
    /// mask. ``SLReachability/SLReachability/netWorkMask`` never holds it: it
    /// always holds one of the single values.
    case notReachable = 9
    /// The Wi-Fi bit and every WWAN bit together, for testing a mask.
    /// ``SLReachability/SLReachability/netWorkMask`` never holds it.
    case reachable = 114
}

/// Whether the mask has the Wi-Fi bit. On Linux that bit means a path over any
/// link not classified WWAN.
///
/// - Parameter mask: A mask value.
/// - Returns: Whether `mask` has the bit of ``SLNetWorkStatusMask/reachableWiFi``.
public func isWiFiWithMask(_ mask: SLNetWorkStatusMask) -> Bool { mask.rawValue & SLNetWorkStatusMask.reachableWiFi.rawValue != 0 }
/// Whether the status is ``SLReachStatus/reachableViaWiFi``, which on Linux
/// covers every link not classified WWAN.
///
/// - Parameter status: A status.
/// - Returns: Whether `status` is ``SLReachStatus/reachableViaWiFi``.
public func isWiFiWithStatus(_ status: SLReachStatus) -> Bool { status == .reachableViaWiFi }

/// The original's words for each mask (Chinese, as its header has them).
///
/// - Parameter mask: A mask value.
/// - Returns: The mask's words; never nil here.
public func SLNetWorkStatusMask2String(_ mask: SLNetWorkStatusMask) -> String? {
    switch mask {
    case .unavailable: return "没有网络！"
    case .reachableWiFi: return "WiFi"
    case .wwanRefused: return "不允许使用WWAN"
    case .reachableWWAN4G: return "4G"
    case .reachableWWAN3G: return "3G"
    case .reachableWWAN2G: return "2G"
    case .reachableWWAN: return "WWAN"
    case .notReachable: return "没有网络或者不允许使用WWAN"
    case .reachable: return "WiFi或者WWAN"
    }
}

/// Posted (object: the SLReachability, no userInfo) when
/// ``SLReachability/SLReachability/reachStatus`` changes.
public let kSLReachabilityReachStatusChanged = "kSLReachabilityReachStatusChanged"
/// Posted when ``SLReachability/SLReachability/wwanType`` changes.
public let kSLReachabilityWWANChanged = "kSLReachabilityWWANChanged"
/// Posted when ``SLReachability/SLReachability/netWorkMask`` changes.
public let kSLReachabilityMaskChanged = "kSLReachabilityMaskChanged"

/// Reachability with the radio generation and a WWAN switch. It observes by
/// itself from creation (the original's "auto start observer!"): its status
/// is read at once, and it follows changes on the main queue, posting each of
/// its three notifications only when its value changes.
///
/// Linux facts: ``SLReachStatus/reachableViaWWAN`` is a path over a link
/// classified WWAN; ``wwanType`` comes from `CTTelephonyNetworkInfo`
/// (`RadioSource.processDefault`).
/// Decisions where the original is silent or wrong: 5G (NR and NR NSA)
/// counts as 4G, the highest generation the mask has (the original gives
/// "not reachable" for a working 5G link); WWAN with no technology set is
/// ``SLNetWorkStatusMask/reachableWWAN`` (all WWAN bits); `allowUseWWAN = false` gives
/// ``SLNetWorkStatusMask/wwanRefused`` as the original's article promises (its code ignored the
/// switch), and so does the process's cellular-data switch.
open class SLReachability: NSObject, @unchecked Sendable {
    private let reachabilityRef: SCNetworkReachability
    private let networkInfo = CTTelephonyNetworkInfo()
    private let lock = NSLock()
    private var values: (reach: SLReachStatus, wwan: SLWWANStatus, mask: SLNetWorkStatusMask, allow: Bool)
    private var radioObserver: NSObjectProtocol?

    private init(_ reachabilityRef: SCNetworkReachability) {
        self.reachabilityRef = reachabilityRef
        values = (.notReachable, .wwanNotReachable, .unavailable, true)
        super.init()
        update(post: false)
        startNotifier()
    }

    /// An object for a host that observes from now on; nil for the empty
    /// string (text that is no host name gives one that is never reachable, as
    /// SystemConfiguration's). On Linux its first status is optimistic (the
    /// internet's route) until the name is resolved.
    ///
    /// - Parameter hostName: A host name, or an address in text.
    public convenience init!(hostName: String!) {
        guard let hostName, let ref = SCNetworkReachabilityCreateWithName(nil, hostName) else { return nil }
        self.init(ref)
    }

    /// An object for a socket address that observes from now on; nil for
    /// another family.
    ///
    /// - Parameter hostAddress: An `AF_INET` or `AF_INET6` socket address. The
    ///   zero address means the internet: both families' default routes.
    public convenience init!(address hostAddress: UnsafePointer<sockaddr>!) {
        guard let hostAddress, let ref = SCNetworkReachabilityCreateWithAddress(nil, hostAddress) else { return nil }
        self.init(ref)
    }

    /// An object for the internet (the zero IPv4 address, which on Linux stands
    /// for both families' default routes) that observes from now on.
    ///
    /// - Returns: A new object, observing already.
    open class func forInternetConnection() -> SLReachability! {
        var zeroAddress = sockaddr_in()
        zeroAddress.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        zeroAddress.sin_family = sa_family_t(AF_INET)
        return withUnsafePointer(to: &zeroAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { SLReachability(address: $0) }
        }
    }

    deinit {
        SCNetworkReachabilitySetCallback(reachabilityRef, nil, nil)
        SCNetworkReachabilitySetDispatchQueue(reachabilityRef, nil)
        if let radioObserver { NotificationCenter.default.removeObserver(radioObserver) }
    }

    /// The status by Apple's sample rule, updated on the main queue. On Linux
    /// it is read from the kernel's routes and links at creation and after each
    /// change.
    open var reachStatus: SLReachStatus { lock.withLock { values.reach } }
    /// The radio generation, or ``SLWWANStatus/netWorkStatusWWANRefused`` when the WWAN path
    /// is refused. On Linux the generation comes from `CTTelephonyNetworkInfo`
    /// (`RadioSource.processDefault`), and may be set while another link
    /// carries the path.
    open var wwanType: SLWWANStatus { lock.withLock { values.wwan } }
    /// The one mask value for the situation now: unavailable, Wi-Fi, WWAN
    /// refused, or the bit of the WWAN generation (``SLNetWorkStatusMask/reachableWWAN`` when no
    /// technology is set).
    open var netWorkMask: SLNetWorkStatusMask { lock.withLock { values.mask } }

    /// Whether this object may count WWAN (default true). False makes a WWAN
    /// path ``SLNetWorkStatusMask/wwanRefused``; ``reachStatus`` keeps what the link is.
    open var allowUseWWAN: Bool {
        get { lock.withLock { values.allow } }
        set {
            lock.withLock { values.allow = newValue }
            update(post: true)
        }
    }
    /// The original's getter name.
    open var isAllowUseWWAN: Bool { allowUseWWAN }

    /// Reachability changes (the SC callback) and radio changes, on the main queue.
    private func startNotifier() {
        SCNetworkReachabilitySetWeakCallback(reachabilityRef, self) { reachability, _ in reachability.update(post: true) }
        SCNetworkReachabilitySetDispatchQueue(reachabilityRef, .main)
        radioObserver = NotificationCenter.default.addObserver(forName: .CTRadioAccessTechnologyDidChange, object: nil,
                                                               queue: nil) { [weak self] _ in
            DispatchQueue.main.compatAsync { self?.update(post: true) }
        }
    }

    /// Reads the flags and the radio; posts a notification for each value that changed.
    private func update(post: Bool) {
        var flags = SCNetworkReachabilityFlags()
        let read = SCNetworkReachabilityGetFlags(reachabilityRef, &flags)
        let reach = read ? Self.reachStatus(flags) : .notReachable
        let generation = Self.generation(networkInfo.currentRadioAccessTechnology)
        let (old, new) = lock.withLock { () -> ((SLReachStatus, SLWWANStatus, SLNetWorkStatusMask), (SLReachStatus, SLWWANStatus, SLNetWorkStatusMask)) in
            // A path over WWAN that this object or the process refuses (the
            // process's switch takes .reachable away and leaves .isWWAN).
            let refused = read && flags.contains(.isWWAN) && (!values.allow || !flags.contains(.reachable))
            let wwan: SLWWANStatus = refused ? .netWorkStatusWWANRefused : generation ?? .wwanNotReachable
            let old = (values.reach, values.wwan, values.mask)
            values = (reach, wwan, Self.mask(reach, refused: refused, generation: generation), values.allow)
            return (old, (values.reach, values.wwan, values.mask))
        }
        guard post else { return }
        let center = NotificationCenter.default
        if old.0 != new.0 { center.post(name: Notification.Name(kSLReachabilityReachStatusChanged), object: self) }
        if old.1 != new.1 { center.post(name: Notification.Name(kSLReachabilityWWANChanged), object: self) }
        if old.2 != new.2 { center.post(name: Notification.Name(kSLReachabilityMaskChanged), object: self) }
    }

    /// Apple's sample's rule over the flags.
    static func reachStatus(_ flags: SCNetworkReachabilityFlags) -> SLReachStatus {
        guard flags.contains(.reachable) else { return .notReachable }
        var status = SLReachStatus.notReachable
        if !flags.contains(.connectionRequired) { status = .reachableViaWiFi }
        if (flags.contains(.connectionOnDemand) || flags.contains(.connectionOnTraffic)) && !flags.contains(.interventionRequired) {
            status = .reachableViaWiFi
        }
        if flags.contains(.isWWAN) { status = .reachableViaWWAN }
        return status
    }

    /// The generation of a CoreTelephony technology; 5G counts as 4G.
    static func generation(_ technology: String?) -> SLWWANStatus? {
        switch technology {
        case CTRadioAccessTechnologyGPRS?, CTRadioAccessTechnologyEdge?, CTRadioAccessTechnologyCDMA1x?,
             CTRadioAccessTechnologyCDMAEVDORev0?, CTRadioAccessTechnologyCDMAEVDORevA?,
             CTRadioAccessTechnologyCDMAEVDORevB?, CTRadioAccessTechnologyeHRPD?:
            return .netWorkStatusWWAN2G
        case CTRadioAccessTechnologyWCDMA?, CTRadioAccessTechnologyHSDPA?, CTRadioAccessTechnologyHSUPA?:
            return .netWorkStatusWWAN3G
        case CTRadioAccessTechnologyLTE?, CTRadioAccessTechnologyNRNSA?, CTRadioAccessTechnologyNR?:
            return .netWorkStatusWWAN4G
        default:
            return nil
        }
    }

    /// The mask: unavailable, WiFi, refused, or WWAN's generation bit.
    static func mask(_ reach: SLReachStatus, refused: Bool, generation: SLWWANStatus?) -> SLNetWorkStatusMask {
        switch reach {
        case .reachableViaWiFi: return .reachableWiFi
        case .notReachable: return refused ? .wwanRefused : .unavailable
        case .reachableViaWWAN:
            if refused { return .wwanRefused }
            switch generation {
            case .netWorkStatusWWAN4G?: return .reachableWWAN4G
            case .netWorkStatusWWAN3G?: return .reachableWWAN3G
            case .netWorkStatusWWAN2G?: return .reachableWWAN2G
            default: return .reachableWWAN
            }
        }
    }
}
