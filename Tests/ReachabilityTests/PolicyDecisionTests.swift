import XCTest
import LinuxReachability
@testable import ReachabilityCore
@testable import ReachabilityKernel

/// Mask, accessibility, unsatisfied reason and policy flags over every
/// combination of their inputs, against references written here from the
/// rules as Architecture.md ("Decision tables") states them (not from the implementation).
final class PolicyDecisionTests: XCTestCase {
    private let flagSets = DecisionTableTests.allCombinations
    private let verdicts: [RouteVerdict?] = [nil, .unicast, .local, .broadcast, .multicast, .anycast, .unreachable,
                                              .blackhole, .prohibit, .noRoute, .failed]
    private let radios: [RadioGeneration?] = [nil] + RadioGeneration.allCases

    private func referenceReachable(_ flags: ReachabilityFlags) -> Bool {
        DecisionTableTests.referenceNetworkReachable(flags.rawValue)
    }

    // MARK: Mask

    func testMaskBitsArePinned() {
        XCTAssertEqual(ReachabilityMask.unavailable.rawValue, 0x001)
        XCTAssertEqual(ReachabilityMask.wifi.rawValue, 0x002)
        XCTAssertEqual(ReachabilityMask.wired.rawValue, 0x004)
        XCTAssertEqual(ReachabilityMask.wwanRefused.rawValue, 0x008)
        XCTAssertEqual([ReachabilityMask.wwan2G, .wwan3G, .wwan4G, .wwan5G].map(\.rawValue), [0x10, 0x20, 0x40, 0x80])
        XCTAssertEqual(ReachabilityMask.wwanUnknownGeneration.rawValue, 0x100)
        XCTAssertEqual(ReachabilityMask.other.rawValue, 0x200)
        XCTAssertEqual(ReachabilityMask.reachableWWAN.rawValue, 0x1F0)
        XCTAssertEqual(ReachabilityMask.notReachable.rawValue, 0x009)
        XCTAssertEqual(ReachabilityMask.reachable.rawValue, 0x3F6)
        XCTAssertEqual(ReachabilityMask([.wifi, .wwan4G]).description, "wifi|wwan4G")
    }

    func testMaskOverAllCombinations() {
        let generationBit: [RadioGeneration: ReachabilityMask] = [.g2: .wwan2G, .g3: .wwan3G, .g4: .wwan4G, .g5: .wwan5G]
        for flags in flagSets {
            for kind in InterfaceKind.allCases {
                for allowsWWAN in [true, false] {
                    for radio in radios {
                        let expected: ReachabilityMask
                        if !referenceReachable(flags) {
                            expected = .unavailable
                        } else if flags.contains(.isWWAN) || kind == .wwan {
                            expected = !allowsWWAN ? .wwanRefused : radio.map { generationBit[$0]! } ?? .wwanUnknownGeneration
                        } else if kind == .wifi {
                            expected = .wifi
                        } else if kind == .wired {
                            expected = .wired
                        } else {
                            expected = .other
                        }
                        let mask = ReachabilityMask(flags: flags, kind: kind, allowsWWAN: allowsWWAN, radio: radio)
                        let context = "flags \(flags) kind \(kind) allowsWWAN \(allowsWWAN) radio \(String(describing: radio))"
                        XCTAssertEqual(mask, expected, context)
                        XCTAssertEqual(mask.rawValue.nonzeroBitCount, 1, context)
                        // The composites partition the situations.
                        XCTAssertNotEqual(ReachabilityMask.reachable.isSuperset(of: mask),
                                          ReachabilityMask.notReachable.isSuperset(of: mask), context)
                    }
                }
            }
        }
    }

    func testRadioTechnologiesMapToTheirGeneration() {
        let cases: [(String, RadioGeneration)] = [
            ("GPRS", .g2), ("EDGE", .g2), ("gsm", .g2), ("CDMA1x", .g2),
            ("UMTS", .g3), ("WCDMA", .g3), ("HSPA", .g3), ("HSDPA", .g3), ("HSUPA", .g3), ("HSPA+", .g3), ("EVDO", .g3),
            ("LTE", .g4), ("lte", .g4),
            ("NR", .g5), ("NR5G", .g5), ("5G NR", .g5), ("nr-5g", .g5),
        ]
        for (text, generation) in cases {
            XCTAssertEqual(RadioTechnology(parsing: text)?.generation, generation, text)
        }
        for unknown in ["", "wimax", "LTE-M?", "6G", "wifi"] {
            XCTAssertNil(RadioTechnology(parsing: unknown), unknown)
        }
    }

    // MARK: Accessibility

    func testAccessibilityOverAllCombinations() {
        for flags in flagSets {
            for verdict in verdicts {
                for allowsWWAN in [true, false] {
                    for probe in ProbeVerdict.allCases {
                        // The rules, in the order the issue lists them.
                        let expected: Accessibility
                        switch (verdict == .prohibit, referenceReachable(flags), flags.contains(.isWWAN) && !allowsWWAN, probe) {
                        case (true, _, _, _): expected = .restricted(.prohibited)
                        case (false, false, _, _): expected = .noNetwork
                        case (false, true, true, _): expected = .restricted(.wwanRefused)
                        case (false, true, false, .captivePortal): expected = .captive
                        case (false, true, false, .failed): expected = .restricted(.probeFailed)
                        case (false, true, false, .answered), (false, true, false, .notProbed): expected = .accessible
                        }
                        XCTAssertEqual(Accessibility(verdict: verdict, flags: flags, allowsWWAN: allowsWWAN, probe: probe), expected,
                                       "flags \(flags) verdict \(String(describing: verdict)) allowsWWAN \(allowsWWAN) probe \(probe)")
                    }
                }
            }
        }
    }

    func testAccessibilityOfTypicalAnswers() {
        let wired: ReachabilityFlags = [.reachable]
        let wwan: ReachabilityFlags = [.reachable, .isWWAN]
        XCTAssertEqual(Accessibility(verdict: .unicast, flags: wired, allowsWWAN: false, probe: .notProbed), .accessible)
        XCTAssertEqual(Accessibility(verdict: .prohibit, flags: [], allowsWWAN: true, probe: .notProbed), .restricted(.prohibited))
        XCTAssertEqual(Accessibility(verdict: .unicast, flags: wwan, allowsWWAN: false, probe: .answered), .restricted(.wwanRefused))
        XCTAssertEqual(Accessibility(verdict: .unicast, flags: wired, allowsWWAN: true, probe: .failed), .restricted(.probeFailed))
        XCTAssertEqual(Accessibility(verdict: .unicast, flags: wired, allowsWWAN: true, probe: .captivePortal), .captive)
        XCTAssertEqual(Accessibility(verdict: .noRoute, flags: [], allowsWWAN: true, probe: .failed), .noNetwork)
        XCTAssertEqual(Accessibility.restricted(.wwanRefused).description, "restricted.wwanRefused")
    }

    // MARK: Unsatisfied reason

    func testUnsatisfiedReasonOverAllCombinations() {
        for flags in flagSets {
            for verdict in verdicts {
                for allowsWWAN in [true, false] {
                    let expected: UnsatisfiedReason?
                    if verdict == .prohibit {
                        expected = .prohibited
                    } else if referenceReachable(flags) && flags.contains(.isWWAN) && !allowsWWAN {
                        expected = .wwanRefused
                    } else if flags.contains(.reachable) && flags.contains(.interventionRequired) {
                        // A dormant link or a captive portal alike (README audit, issue 30).
                        expected = .interventionRequired
                    } else if referenceReachable(flags) {
                        expected = nil
                    } else {
                        expected = .notAvailable
                    }
                    let reason = UnsatisfiedReason(verdict: verdict, flags: flags, allowsWWAN: allowsWWAN)
                    XCTAssertEqual(reason, expected, "flags \(flags) verdict \(String(describing: verdict)) allowsWWAN \(allowsWWAN)")
                    // No reason exactly when NWPath would not call the path unsatisfied (policy aside).
                    if verdict != .prohibit && !(flags.contains(.isWWAN) && !allowsWWAN) {
                        XCTAssertEqual(reason == nil, PathStatus(flags: flags) != .unsatisfied, "flags \(flags)")
                    }
                }
            }
        }
    }

    // MARK: Policy flags

    func testPolicyAddsOnDemandAndOnTrafficOnlyWhenAConnectionIsRequired() {
        let policy = ReachabilityPolicy(onDemandInterfaces: ["ppp*"], onTrafficInterfaces: ["dial0"])
        for flags in flagSets {
            for interface in ["ppp0", "dial0", "eth0", nil] as [String?] {
                var expected = flags
                if flags.contains(.connectionRequired) {
                    if interface?.hasPrefix("ppp") == true { expected.insert(.connectionOnDemand) }
                    if interface == "dial0" { expected.insert(.connectionOnTraffic) }
                }
                XCTAssertEqual(policy.flags(flags, interface: interface), expected, "flags \(flags) interface \(String(describing: interface))")
            }
        }
        // The point of it: a down on-demand link is reachable by the Apple rule.
        let down: ReachabilityFlags = [.reachable, .connectionRequired, .transientConnection]
        XCTAssertEqual(ReachabilityStatus(flags: down, kind: .wwan), .notReachable)
        XCTAssertEqual(ReachabilityStatus(flags: policy.flags(down, interface: "ppp0"), kind: .wwan), .reachable(.wwan))
        XCTAssertEqual(PathStatus(flags: policy.flags(down, interface: "ppp0")), .requiresConnection)
    }

    func testExpensiveMeansWWANOrMetered() {
        let policy = ReachabilityPolicy(meteredInterfaces: ["usb*"])
        XCTAssertTrue(policy.isExpensive(flags: [.reachable, .isWWAN], kind: .wwan, interface: "wwan0"))
        XCTAssertTrue(policy.isExpensive(flags: [.reachable], kind: .wired, interface: "usb0"))
        XCTAssertFalse(policy.isExpensive(flags: [.reachable], kind: .wired, interface: "eth0"))
        XCTAssertFalse(policy.isExpensive(flags: [], kind: nil, interface: nil))
    }
}
