// SLReachability on Linux: Apple's sample extended with the radio
// generation and a WWAN switch, as Swift imports its header, over this
// package's SystemConfiguration and CoreTelephony. README, "Porting from
// iOS", has the table.

import Dispatch
import Foundation
import CoreTelephony
import SystemConfiguration

public enum SLReachStatus: Int, Sendable {
    case notReachable = 0
    case reachableViaWiFi = 1
    case reachableViaWWAN = 2
}

public enum SLWWANStatus: UInt, Sendable {
    case wwanNotReachable = 0
    /// WWAN is refused: `allowUseWWAN == false`, or the process's cellular-data switch.
    case netWorkStatusWWANRefused = 3
    case netWorkStatusWWAN4G = 4
    case netWorkStatusWWAN3G = 5
    case netWorkStatusWWAN2G = 6
}

/// One situation per value (an `NS_ENUM` in the original, so Swift sees an
/// enum; the composite values are cases of it too).
public enum SLNetWorkStatusMask: UInt, Sendable {
    case unavailable = 1
    case reachableWiFi = 2
    case wwanRefused = 8
    case reachableWWAN4G = 16
    case reachableWWAN3G = 32
    case reachableWWAN2G = 64
    /// Over WWAN, generation unknown (2G, 3G and 4G bits).
    case reachableWWAN = 112
    case notReachable = 9
    case reachable = 114
}

public func isWiFiWithMask(_ mask: SLNetWorkStatusMask) -> Bool { mask.rawValue & SLNetWorkStatusMask.reachableWiFi.rawValue != 0 }
public func isWiFiWithStatus(_ status: SLReachStatus) -> Bool { status == .reachableViaWiFi }

/// The original's words for each mask (Chinese, as its header has them).
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

/// Posted (object: the SLReachability, no userInfo) when `reachStatus` changes.
public let kSLReachabilityReachStatusChanged = "kSLReachabilityReachStatusChanged"
/// Posted when `wwanType` changes.
public let kSLReachabilityWWANChanged = "kSLReachabilityWWANChanged"
/// Posted when `netWorkMask` changes.
public let kSLReachabilityMaskChanged = "kSLReachabilityMaskChanged"

/// Reachability with the radio generation and a WWAN switch. It observes by
/// itself from creation (the original's "auto start observer!"): its status
/// is read at once, and it follows changes on the main queue, posting each of
/// its three notifications only when its value changes.
///
/// Linux facts: `reachableViaWWAN` is a path over a link classified WWAN;
/// `wwanType` comes from `CTTelephonyNetworkInfo` (`RadioSource.processDefault`).
/// Decisions where the original is silent or wrong: 5G (NR and NR NSA)
/// counts as 4G, the highest generation the mask has (the original gives
/// "not reachable" for a working 5G link); WWAN with no technology set is
/// `.reachableWWAN` (all WWAN bits); `allowUseWWAN = false` gives
/// `.wwanRefused` as the original's article promises (its code ignored the
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

    public convenience init!(hostName: String!) {
        guard let hostName, let ref = SCNetworkReachabilityCreateWithName(nil, hostName) else { return nil }
        self.init(ref)
    }

    public convenience init!(address hostAddress: UnsafePointer<sockaddr>!) {
        guard let hostAddress, let ref = SCNetworkReachabilityCreateWithAddress(nil, hostAddress) else { return nil }
        self.init(ref)
    }

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

    open var reachStatus: SLReachStatus { lock.withLock { values.reach } }
    open var wwanType: SLWWANStatus { lock.withLock { values.wwan } }
    open var netWorkMask: SLNetWorkStatusMask { lock.withLock { values.mask } }

    /// Whether this object may count WWAN (default true). False makes a WWAN
    /// path `.wwanRefused`; `reachStatus` keeps what the link is.
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
            DispatchQueue.main.async { self?.update(post: true) }
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
