// Compile test of our `SLReachability` module: every `provided` and `Linux
// meaning` row of docs/compat-surface/SLReachability.md (which says where the
// original's API was read), in the Swift spelling and types its users write.
// Never run: it only has to compile, in Swift 5 and Swift 6 language modes.
//
// The original's users see its header through the bridging header, with
// Foundation, SystemConfiguration and CoreTelephony; so this file imports
// only our module, and names `sockaddr` as they would
// (Visibility/SLReachability.swift checks the rest of what they see).

import SLReachability

private func isSendable<T: Sendable>(_: T.Type) {}
private func isHashable<T: Hashable>(_: T.Type) {}

// MARK: class SLReachability: NSObject, open: every member overridable from
// another module, with the imported signatures.

final class SurfaceSLReachability: SLReachability {
    override var netWorkMask: SLNetWorkStatusMask { super.netWorkMask }
    override var reachStatus: SLReachStatus { super.reachStatus }
    override var wwanType: SLWWANStatus { super.wwanType }
}

func surface_SLReachability() {
    // MARK: enum SLReachStatus: Int (NS_ENUM), Sendable, Hashable
    isSendable(SLReachStatus.self)
    isHashable(SLReachStatus.self)
    func describe(_ status: SLReachStatus) -> String {
        switch status {
        case .notReachable: return "not reachable"
        case .reachableViaWiFi: return "WiFi"
        case .reachableViaWWAN: return "WWAN"
        }
    }
    _ = describe(.notReachable)
    let _: (Int) -> SLReachStatus? = SLReachStatus.init(rawValue:)
    let _: Int = SLReachStatus.reachableViaWWAN.rawValue

    // MARK: enum SLWWANStatus: UInt (NS_ENUM), Sendable, Hashable (its cases
    // are not provided as spelled: see the table)
    isSendable(SLWWANStatus.self)
    isHashable(SLWWANStatus.self)
    let _: (UInt) -> SLWWANStatus? = SLWWANStatus.init(rawValue:)
    let _: UInt? = SLWWANStatus(rawValue: 4)?.rawValue

    // MARK: enum SLNetWorkStatusMask: UInt (NS_ENUM), Sendable, Hashable
    isSendable(SLNetWorkStatusMask.self)
    isHashable(SLNetWorkStatusMask.self)
    func bits(_ mask: SLNetWorkStatusMask) -> UInt {
        switch mask {
        case .unavailable: return 1
        case .reachableWiFi: return 2
        case .wwanRefused: return 8
        case .reachableWWAN4G: return 16
        case .reachableWWAN3G: return 32
        case .reachableWWAN2G: return 64
        case .reachableWWAN: return 112
        case .notReachable: return 9
        case .reachable: return 114
        }
    }
    _ = bits(.reachable)
    let _: (UInt) -> SLNetWorkStatusMask? = SLNetWorkStatusMask.init(rawValue:)
    let _: UInt = SLNetWorkStatusMask.reachableWWAN.rawValue

    // MARK: isWiFiWithMask(_:), isWiFiWithStatus(_:) (NS_INLINE C functions)
    let _: (SLNetWorkStatusMask) -> Bool = isWiFiWithMask
    let _: (SLReachStatus) -> Bool = isWiFiWithStatus
    let _: Bool = isWiFiWithMask(.reachableWiFi) && isWiFiWithStatus(.reachableViaWiFi)

    // MARK: kSLReachabilityReachStatusChanged, kSLReachabilityWWANChanged,
    // kSLReachabilityMaskChanged (String constants)
    let _: [String] = [kSLReachabilityReachStatusChanged, kSLReachabilityWWANChanged, kSLReachabilityMaskChanged]

    // MARK: convenience init!(hostName: String!)
    let _: (String?) -> SLReachability? = SLReachability.init(hostName:)
    let reachability: SLReachability = SLReachability(hostName: "www.apple.com")   // IUO: unwrapped implicitly
    let none: SLReachability? = SLReachability(hostName: nil)
    _ = none

    // MARK: convenience init!(address hostAddress: UnsafePointer<sockaddr>!)
    let _: (UnsafePointer<sockaddr>?) -> SLReachability? = SLReachability.init(address:)
    let noAddress: SLReachability? = SLReachability(address: nil)
    _ = noAddress

    // MARK: Inherited from NSObject (found by member lookup)
    let _: Bool = reachability.isEqual(reachability)

    // MARK: Properties netWorkMask, reachStatus, wwanType (read-only)
    let _: SLNetWorkStatusMask = reachability.netWorkMask
    let _: SLReachStatus = reachability.reachStatus
    let _: SLWWANStatus = reachability.wwanType
}
