import XCTest
import LinuxReachability
@testable import ReachabilityCore
@testable import ReachabilityKernel

/// The status tables over all 512 combinations of the nine flag bits, against
/// references written here from the rules' published form, not from the tables.
final class DecisionTableTests: XCTestCase {
    static let bits: [UInt32] = [1 << 0, 1 << 1, 1 << 2, 1 << 3, 1 << 4, 1 << 5, 1 << 16, 1 << 17, 1 << 18]

    /// All 512 flag sets made of the nine defined bits.
    static var allCombinations: [ReachabilityFlags] {
        (0..<512).map { n in
            ReachabilityFlags(rawValue: bits.enumerated().reduce(0) { acc, e in n & (1 << e.offset) != 0 ? acc | e.element : acc })
        }
    }

    /// AFNetworking's AFNetworkReachabilityStatusForFlags, transcribed.
    static func referenceNetworkReachable(_ raw: UInt32) -> Bool {
        let isReachable = raw & 2 != 0
        let needsConnection = raw & 4 != 0
        let canConnectAutomatically = raw & 32 != 0 || raw & 8 != 0
        let canConnectWithoutUserInteraction = canConnectAutomatically && raw & 16 == 0
        return isReachable && (!needsConnection || canConnectWithoutUserInteraction)
    }

    func testCombinationsAreDistinct() {
        XCTAssertEqual(Set(Self.allCombinations).count, 512)
    }

    func testStatusOverAllCombinations() {
        for flags in Self.allCombinations {
            for kind in InterfaceKind.allCases {
                let expected: ReachabilityStatus
                if !Self.referenceNetworkReachable(flags.rawValue) {
                    expected = .notReachable
                } else if flags.rawValue & (1 << 18) != 0 {
                    expected = .reachable(.wwan)
                } else {
                    expected = .reachable(kind)
                }
                XCTAssertEqual(ReachabilityStatus(flags: flags, kind: kind), expected, "flags \(flags) kind \(kind)")
            }
        }
    }

    func testThreeStateViewOverAllCombinations() {
        for flags in Self.allCombinations {
            let expected: NetworkStatus = !Self.referenceNetworkReachable(flags.rawValue) ? .notReachable
                : (flags.rawValue & (1 << 18) != 0 ? .reachableViaWWAN : .reachableViaWiFi)
            XCTAssertEqual(NetworkStatus(flags: flags), expected, "flags \(flags)")
        }
    }

    func testPathViewOverAllCombinations() {
        for flags in Self.allCombinations {
            let raw = flags.rawValue
            let reachable = raw & 2 != 0, required = raw & 4 != 0, intervention = raw & 16 != 0
            let automatic = (raw & 8 != 0 || raw & 32 != 0) && !intervention
            // Intervention required is unsatisfied, whether a connection is required
            // (a dormant link) or not (a captive portal): no new connection activates it.
            let expected: PathStatus = reachable && !required && !intervention ? .satisfied
                : (reachable && required && automatic ? .requiresConnection : .unsatisfied)
            XCTAssertEqual(PathStatus(flags: flags), expected, "flags \(flags)")
        }
    }

    func testBitsOutsideTheNineDoNotChangeTheAnswer() {
        let noise = ReachabilityFlags(rawValue: 0xFFF8_FFC0)
        for flags in Self.allCombinations {
            XCTAssertEqual(ReachabilityStatus(flags: flags.union(noise), kind: .wired), ReachabilityStatus(flags: flags, kind: .wired))
            XCTAssertEqual(PathStatus(flags: flags.union(noise)), PathStatus(flags: flags))
        }
    }

    func testUnknownIsOnlyTheInitialState() {
        for flags in Self.allCombinations { XCTAssertNotEqual(ReachabilityStatus(flags: flags, kind: .other), .unknown) }
        XCTAssertEqual(ReachabilityStatus.unknown.description, "unknown")
        XCTAssertEqual(ReachabilityStatus.reachable(.wifi).description, "reachable.wifi")
    }
}
