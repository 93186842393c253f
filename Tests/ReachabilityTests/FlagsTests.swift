import XCTest
import LinuxReachability
@testable import ReachabilityCore
@testable import ReachabilityKernel

/// Every flag pinned to the raw value of its SCNetworkReachabilityFlags twin
/// (SystemConfiguration/SCNetworkReachability.h), and the sample's format.
final class FlagsTests: XCTestCase {
    func testRawValuesMatchSystemConfiguration() {
        XCTAssertEqual(ReachabilityFlags.transientConnection.rawValue, 1 << 0)   // kSCNetworkReachabilityFlagsTransientConnection
        XCTAssertEqual(ReachabilityFlags.reachable.rawValue, 1 << 1)             // kSCNetworkReachabilityFlagsReachable
        XCTAssertEqual(ReachabilityFlags.connectionRequired.rawValue, 1 << 2)    // kSCNetworkReachabilityFlagsConnectionRequired
        XCTAssertEqual(ReachabilityFlags.connectionOnTraffic.rawValue, 1 << 3)   // kSCNetworkReachabilityFlagsConnectionOnTraffic
        XCTAssertEqual(ReachabilityFlags.interventionRequired.rawValue, 1 << 4)  // kSCNetworkReachabilityFlagsInterventionRequired
        XCTAssertEqual(ReachabilityFlags.connectionOnDemand.rawValue, 1 << 5)    // kSCNetworkReachabilityFlagsConnectionOnDemand
        XCTAssertEqual(ReachabilityFlags.isLocalAddress.rawValue, 1 << 16)       // kSCNetworkReachabilityFlagsIsLocalAddress
        XCTAssertEqual(ReachabilityFlags.isDirect.rawValue, 1 << 17)             // kSCNetworkReachabilityFlagsIsDirect
        XCTAssertEqual(ReachabilityFlags.isWWAN.rawValue, 1 << 18)               // kSCNetworkReachabilityFlagsIsWWAN
        XCTAssertEqual(ReachabilityFlags.connectionAutomatic, .connectionOnTraffic)
    }

    func testNamesAreInRawOrderAndComplete() {
        XCTAssertEqual(ReachabilityFlags.named.count, 9)
        let all = ReachabilityFlags.named.reduce(ReachabilityFlags()) { $0.union($1.flag) }
        XCTAssertEqual(all.rawValue, 0x7_003F)
        XCTAssertEqual(ReachabilityFlags([.isDirect, .reachable]).names, ["reachable", "isDirect"])
    }

    func testDescriptionUsesTheSampleFormat() {
        XCTAssertEqual(ReachabilityFlags.reachable.description, "-R -------")
        XCTAssertEqual(ReachabilityFlags().description, "-- -------")
        XCTAssertEqual(ReachabilityFlags([.reachable, .isLocalAddress, .isDirect]).description, "-R -----ld")
        XCTAssertEqual(ReachabilityFlags([.isWWAN, .reachable, .transientConnection]).description, "WR t------")
        let every = ReachabilityFlags(rawValue: 0x7_003F)
        XCTAssertEqual(every.description, "WR tcCiDld")
    }
}
