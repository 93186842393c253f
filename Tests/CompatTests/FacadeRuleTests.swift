// Each library's status over all 512 sets of the nine flag bits, against the
// rule its original publishes, written here independently of the facade.

@testable import AFNetworkReachability
@testable import AlamofireReachability
@testable import AppleReachability
@testable import ReachabilitySwift
@testable import SLReachability
import SystemConfiguration
import XCTest

final class FacadeRuleTests: XCTestCase {
    private let bits: [SCNetworkReachabilityFlags] = [
        .transientConnection, .reachable, .connectionRequired, .connectionOnTraffic, .interventionRequired,
        .connectionOnDemand, .isLocalAddress, .isDirect, .isWWAN,
    ]

    /// Every combination of the nine bits.
    private var everyFlagSet: [SCNetworkReachabilityFlags] {
        (0..<512).map { n in bits.enumerated().reduce(into: SCNetworkReachabilityFlags()) { if n & (1 << $1.offset) != 0 { $0.insert($1.element) } } }
    }

    /// The rule all of them publish (Apple's sample, AFNetworking's
    /// AFNetworkReachabilityStatusForFlags, Alamofire's isActuallyReachable,
    /// Reachability.swift's connection): reachable, and either no connection
    /// is required or it comes on demand or on traffic without the user; WWAN
    /// when isWWAN (read on Linux, where the originals read it on iOS only).
    private func published(_ flags: SCNetworkReachabilityFlags) -> (reachable: Bool, wwan: Bool) {
        let r = flags.contains(.reachable), c = flags.contains(.connectionRequired)
        let auto = flags.contains(.connectionOnDemand) || flags.contains(.connectionOnTraffic)
        let i = flags.contains(.interventionRequired)
        return (r && (!c || (auto && !i)), flags.contains(.isWWAN))
    }

    func testEveryFlagSetAgainstThePublishedRules() {
        XCTAssertEqual(Set(everyFlagSet.map(\.rawValue)).count, 512)
        for flags in everyFlagSet {
            let (reachable, wwan) = published(flags)
            // Alamofire: notReachable / reachable(.cellular | .ethernetOrWiFi).
            let alamofire = NetworkReachabilityManager.NetworkReachabilityStatus(flags)
            XCTAssertEqual(alamofire, !reachable ? .notReachable : .reachable(wwan ? .cellular : .ethernetOrWiFi), "\(flags)")
            // AFNetworking: never unknown from flags.
            let af = AFNetworkReachabilityManager.status(flags)
            XCTAssertEqual(af, !reachable ? .notReachable : wwan ? .reachableViaWWAN : .reachableViaWiFi, "\(flags)")
            // Apple's sample and SLReachability: a reachable isWWAN path is WWAN even when a
            // connection is required (the sample sets WWAN last, whatever came before).
            let sample = !flags.contains(.reachable) ? NotReachable : wwan ? ReachableViaWWAN : reachable ? ReachableViaWiFi : NotReachable
            XCTAssertEqual(AppleReachability.Reachability.networkStatus(for: flags), sample, "\(flags)")
            XCTAssertEqual(SLReachability.reachStatus(flags).rawValue, sample.rawValue, "\(flags)")
            // Reachability.swift: the sample's rule as Connection.
            let connection: ReachabilitySwift.Reachability.Connection = sample == NotReachable ? .unavailable
                : sample == ReachableViaWWAN ? .cellular : .wifi
            XCTAssertEqual(flags.connection, connection, "\(flags)")
        }
    }

    func testTheStringsAndValuesAreTheOriginals() {
        XCTAssertEqual(AFStringFromNetworkReachabilityStatus(.unknown), "Unknown")
        XCTAssertEqual(AFStringFromNetworkReachabilityStatus(.notReachable), "Not Reachable")
        XCTAssertEqual(AFStringFromNetworkReachabilityStatus(.reachableViaWWAN), "Reachable via WWAN")
        XCTAssertEqual(AFStringFromNetworkReachabilityStatus(.reachableViaWiFi), "Reachable via WiFi")
        XCTAssertEqual([AFNetworkReachabilityStatus.unknown, .notReachable, .reachableViaWWAN, .reachableViaWiFi].map(\.rawValue),
                       [-1, 0, 1, 2])
        XCTAssertEqual(NSNotification.Name.AFNetworkingReachabilityDidChange.rawValue, "com.alamofire.networking.reachability.change")
        XCTAssertEqual(AFNetworkingReachabilityNotificationStatusItem, "AFNetworkingReachabilityNotificationStatusItem")
        XCTAssertEqual(kReachabilityChangedNotification, "kNetworkReachabilityChangedNotification")
        XCTAssertEqual([NotReachable, ReachableViaWiFi, ReachableViaWWAN].map(\.rawValue), [0, 1, 2])
        XCTAssertEqual(Notification.Name.reachabilityChanged.rawValue, "reachabilityChanged")
        XCTAssertEqual([ReachabilitySwift.Reachability.Connection.unavailable, .wifi, .cellular].map(\.description),
                       ["No Connection", "WiFi", "Cellular"])
        XCTAssertEqual(SCNetworkReachabilityFlags([.isWWAN, .reachable, .connectionRequired, .isDirect]).letters, "WR c-----d")
        XCTAssertEqual([SLNetWorkStatusMask.unavailable, .reachableWiFi, .wwanRefused, .reachableWWAN4G, .reachableWWAN3G,
                        .reachableWWAN2G, .reachableWWAN, .notReachable, .reachable].map(\.rawValue),
                       [1, 2, 8, 16, 32, 64, 112, 9, 114])
        XCTAssertEqual(SLNetWorkStatusMask.reachableWWAN.rawValue,
                       SLNetWorkStatusMask.reachableWWAN2G.rawValue | SLNetWorkStatusMask.reachableWWAN3G.rawValue
                           | SLNetWorkStatusMask.reachableWWAN4G.rawValue)
        XCTAssertTrue(isWiFiWithMask(.reachable))
        XCTAssertFalse(isWiFiWithMask(.reachableWWAN))
        XCTAssertEqual(SLNetWorkStatusMask2String(.wwanRefused), "不允许使用WWAN")
        if case .reachable(.wwan) = NetworkReachabilityManager.NetworkReachabilityStatus.reachable(.cellular) {} else {
            XCTFail("Alamofire 4's .wwan must match .cellular")
        }
    }

    func testSLMaskDecisions() {
        XCTAssertEqual(SLReachability.mask(.reachableViaWWAN, refused: false, generation: .netWorkStatusWWAN3G), .reachableWWAN3G)
        XCTAssertEqual(SLReachability.mask(.reachableViaWWAN, refused: false, generation: nil), .reachableWWAN,
                       "no technology set: every WWAN bit")
        XCTAssertEqual(SLReachability.mask(.reachableViaWWAN, refused: true, generation: .netWorkStatusWWAN4G), .wwanRefused)
        XCTAssertEqual(SLReachability.mask(.notReachable, refused: true, generation: nil), .wwanRefused)
        XCTAssertEqual(SLReachability.mask(.notReachable, refused: false, generation: nil), .unavailable)
        XCTAssertEqual(SLReachability.generation("CTRadioAccessTechnologyNR"), .netWorkStatusWWAN4G, "5G counts as 4G")
        XCTAssertEqual(SLReachability.generation("CTRadioAccessTechnologyeHRPD"), .netWorkStatusWWAN2G)
        XCTAssertEqual(SLReachability.generation("CTRadioAccessTechnologyHSDPA"), .netWorkStatusWWAN3G)
        XCTAssertNil(SLReachability.generation(nil))
    }
}
