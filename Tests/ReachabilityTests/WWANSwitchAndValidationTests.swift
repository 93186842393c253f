import XCTest
import CReachability
import LinuxReachability
@testable import ReachabilityCore
@testable import ReachabilityKernel

/// The WWAN switch, one rule per view, and a validation verdict's effect on
/// an answer: every flag combination (512) × kind × switch × verdict through
/// the one decision (`AddressEvaluation.init(address:kernelFlags:...)`), each
/// view against a reference written here from the table.
final class WWANSwitchAndValidationTests: XCTestCase {
    private let address = IPAddress("10.9.0.1")!

    /// A unicast route and an up link (index 3), as the C core reports them.
    private enum facts {
        static func route() -> RouteLookup {
            var raw = creach_route()
            raw.family = UInt8(AF_INET); raw.type = UInt8(RTN_UNICAST); raw.table = 254; raw.oif = 3
            return RouteLookup(raw)
        }
        static func link() -> LinkState {
            var raw = creach_link()
            raw.index = 3; raw.type = 1; raw.flags = KernelFlagsTests.up | KernelFlagsTests.lowerUp; raw.operstate = 6
            raw.carrier = -1
            return LinkState(raw)
        }
    }

    private func answer(_ flags: ReachabilityFlags, kind: InterfaceKind, allowsWWAN: Bool,
                        probe: ProbeVerdict = .notProbed, policy: ReachabilityPolicy? = nil) -> AddressEvaluation {
        var policy = policy ?? ReachabilityPolicy()
        policy.allowsWWAN = allowsWWAN
        return AddressEvaluation(address: address, kernelFlags: flags, route: facts.route(), link: facts.link(),
                                 kind: kind, policy: policy, radio: .g4, probe: probe)
    }

    func testEveryViewFollowsItsAnchorUnderTheWWANSwitch() {
        var refused = 0
        for flags in DecisionTableTests.allCombinations {
            let routed = DecisionTableTests.referenceNetworkReachable(flags.rawValue)
            for kind in InterfaceKind.allCases {
                for allowsWWAN in [true, false] {
                    let e = answer(flags, kind: kind, allowsWWAN: allowsWWAN)
                    let context = "flags \(flags) kind \(kind) allowsWWAN \(allowsWWAN)"
                    // A reachable route over a WWAN link carries isWWAN, as the kernel facts give it.
                    let truth = kind == .wwan && flags.contains(.reachable) ? flags.union(.isWWAN) : flags
                    let isRefused = routed && truth.contains(.isWWAN) && !allowsWWAN
                    // Raw flags and the Apple sample's three states: the kernel's truth.
                    XCTAssertEqual(e.flags, truth, context)
                    XCTAssertEqual(e.networkStatus,
                                   !routed ? .notReachable : (truth.contains(.isWWAN) ? .reachableViaWWAN : .reachableViaWiFi), context)
                    if isRefused {
                        refused += 1
                        XCTAssertEqual(e.mask, .wwanRefused, context)
                        XCTAssertEqual(e.unsatisfiedReason, .wwanRefused, context)
                        XCTAssertEqual(e.pathStatus, .unsatisfied, context)
                        XCTAssertEqual(e.status, .notReachable, context)
                        XCTAssertEqual(e.accessibility, .restricted(.wwanRefused), context)
                    } else {
                        XCTAssertNotEqual(e.unsatisfiedReason, .wwanRefused, context)
                        XCTAssertEqual(e.status, ReachabilityStatus(flags: truth, kind: kind), context)
                        XCTAssertEqual(e.pathStatus, PathStatus(flags: truth), context)
                    }
                    // One answer never contradicts another: an app-facing
                    // "reachable" is exactly a path without an unsatisfied
                    // reason, but for intervention required without a
                    // connection required (a captive portal): routed, so
                    // reachable by the flag rule, and unsatisfied for NWPath.
                    XCTAssertEqual(e.pathStatus != .unsatisfied, e.unsatisfiedReason == nil, context)
                    if e.unsatisfiedReason == .interventionRequired {
                        XCTAssertEqual(e.status.isReachable, !truth.contains(.connectionRequired), context)
                    } else {
                        XCTAssertEqual(e.status.isReachable, e.unsatisfiedReason == nil, context)
                    }
                }
            }
        }
        XCTAssertGreaterThan(refused, 0, "the refused rows were exercised")
    }

    func testATargetPrefersAnAddressThePolicyAllows() {
        let wwan = answer([.reachable, .isWWAN], kind: .wwan, allowsWWAN: false)
        let wired = AddressEvaluation(address: IPAddress("fd00::1")!, kernelFlags: [.reachable], route: facts.route(),
                                      link: facts.link(), kind: .wired, policy: ReachabilityPolicy(allowsWWAN: false),
                                      radio: nil)
        let both = TargetEvaluation(target: .internet, addresses: [wwan, wired])
        XCTAssertEqual(both.primary?.address, wired.address)
        XCTAssertEqual(both.status, ReachabilityStatus.reachable(.wired))
        XCTAssertTrue(both.supportsIPv6)
        XCTAssertFalse(both.supportsIPv4, "the IPv4 path is refused by the WWAN switch")
        let onlyWWAN = TargetEvaluation(target: .internet, addresses: [wwan])
        XCTAssertEqual(onlyWWAN.primary?.address, wwan.address, "refused, but the kernel routes it: it stands for the target")
        XCTAssertEqual(onlyWWAN.status, .notReachable)
        XCTAssertEqual(onlyWWAN.unsatisfiedReason, .wwanRefused)
        XCTAssertEqual(onlyWWAN.networkStatus, .reachableViaWWAN)
        XCTAssertEqual(onlyWWAN.flags, [.reachable, .isWWAN])
    }

    func testValidationVerdictsOverEveryCombination() {
        for flags in DecisionTableTests.allCombinations {
            for kind in InterfaceKind.allCases {
                for probe in ProbeVerdict.allCases {
                    let plain = answer(flags, kind: kind, allowsWWAN: true)
                    let e = answer(flags, kind: kind, allowsWWAN: true, probe: probe)
                    let context = "flags \(flags) kind \(kind) probe \(probe)"
                    // A captive portal asks for the user: interventionRequired, when routed at all.
                    let expectedFlags = probe == .captivePortal && flags.contains(.reachable)
                        ? plain.flags.union(.interventionRequired) : plain.flags
                    XCTAssertEqual(e.flags, expectedFlags, context)
                    let routed = DecisionTableTests.referenceNetworkReachable(flags.rawValue)
                    let expected: Accessibility
                    if !routed {
                        expected = .noNetwork
                    } else {
                        switch probe {
                        case .captivePortal: expected = .captive
                        case .failed: expected = .restricted(.probeFailed)
                        case .answered, .notProbed: expected = .accessible
                        }
                    }
                    XCTAssertEqual(e.accessibility, expected, context)
                }
            }
        }
    }

    /// One NWPath answer for "intervention required" (README audit, issue
    /// 30), whatever its source: a dormant link (the kernel's
    /// `connectionRequired` + `interventionRequired`) and a captive portal
    /// found by validation (`interventionRequired` on a routed path) are both
    /// `unsatisfied` with the reason `interventionRequired` — Apple's
    /// `requiresConnection` is for a path a new connection may activate,
    /// and none does here: the user must act. A WWAN path the switch refuses
    /// keeps `wwanRefused`, a prohibit route `prohibited`.
    func testInterventionRequiredIsOneNWPathAnswerWhateverItsSource() {
        let dormant = answer([.reachable, .connectionRequired, .interventionRequired, .isDirect], kind: .wifi, allowsWWAN: true)
        let captive = answer([.reachable, .isDirect], kind: .wifi, allowsWWAN: true, probe: .captivePortal)
        for (source, e) in [("dormant", dormant), ("captive", captive)] {
            XCTAssertTrue(e.flags.contains(.interventionRequired), source)
            XCTAssertEqual(e.pathStatus, .unsatisfied, source)
            XCTAssertEqual(e.unsatisfiedReason, .interventionRequired, source)
        }
        for flags in DecisionTableTests.allCombinations where flags.isSuperset(of: [.reachable, .interventionRequired]) {
            for allowsWWAN in [true, false] {
                for probe in ProbeVerdict.allCases {
                    let e = answer(flags, kind: .wired, allowsWWAN: allowsWWAN, probe: probe)
                    let context = "flags \(flags) allowsWWAN \(allowsWWAN) probe \(probe)"
                    XCTAssertEqual(e.pathStatus, .unsatisfied, context)
                    let refused = flags.contains(.isWWAN) && !allowsWWAN && flags.isNetworkReachable
                    XCTAssertEqual(e.unsatisfiedReason, refused ? .wwanRefused : .interventionRequired, context)
                }
            }
        }
    }

    func testConstrainedInterfacesFollowThePolicy() {
        let policy = ReachabilityPolicy(constrainedInterfaces: ["et*"])
        var link = creach_link()
        link.index = 3; link.type = 1; link.flags = KernelFlagsTests.up | KernelFlagsTests.lowerUp; link.operstate = 6
        withUnsafeMutableBytes(of: &link.name) { $0.copyBytes(from: "eth0".utf8) }
        let e = AddressEvaluation(address: address, kernelFlags: [.reachable], route: facts.route(), link: LinkState(link),
                                  kind: .wired, policy: policy, radio: nil)
        XCTAssertTrue(e.isConstrained)
        XCTAssertFalse(answer([.reachable], kind: .wired, allowsWWAN: true, policy: policy).isConstrained,
                       "a link named otherwise (\"\") is not constrained")
    }

    func testAnUnevaluatedTargetIsUnknown() {
        let unknown = TargetEvaluation.unknown(.internet)
        XCTAssertEqual(unknown.status, .unknown)
        XCTAssertFalse(unknown.isEvaluated)
        XCTAssertNil(unknown.unsatisfiedReason)
        XCTAssertEqual(TargetEvaluation(target: .internet, addresses: []).status, .notReachable)
    }

    func testValidationParsing() throws {
        XCTAssertEqual(try Validation(parsing: "http"), .http(HTTPProbeURL(host: nil, port: 80, path: "/generate_204")))
        XCTAssertEqual(try Validation(parsing: "http:http://10.1.0.2:8080/check"),
                       .http(HTTPProbeURL(host: "10.1.0.2", port: 8080, path: "/check")))
        XCTAssertEqual(try Validation(parsing: "dns"), .dns(name: nil, server: nil))
        XCTAssertEqual(try Validation(parsing: "dns:example.test"), .dns(name: "example.test", server: nil))
        XCTAssertEqual(try Validation(parsing: "icmp:10.1.0.2"), .icmp(host: "10.1.0.2"))
        XCTAssertEqual(try Validation(parsing: "tcp:gw.test:443"), .tcp(host: "gw.test", port: 443))
        XCTAssertEqual(try Validation(parsing: "tcp:[fd00::1]:80"), .tcp(host: "fd00::1", port: 80))
        XCTAssertEqual(try Validation(parsing: "tcp:[fd00::1]:80").description, "tcp:[fd00::1]:80")
        for bad in ["", "icmp", "tcp:host", "tcp:host:0", "tcp:host:70000", "smtp:x", "icmp:bad host", "http:https://x/",
                    "dns:..", "tcp::80"] {
            XCTAssertThrowsError(try Validation(parsing: bad), bad) { error in
                guard case .invalidProbe = error as? ReachabilityError else { return XCTFail("\(bad): \(error)") }
            }
        }
    }

    func testADNSValidationWithoutANameNeedsHostTargets() throws {
        var configuration = ReachabilityMonitor.Configuration()
        configuration.validation = .dns(name: nil, server: nil)
        XCTAssertNoThrow(try configuration.validate(for: [.host("gw.test")]))
        XCTAssertThrowsError(try configuration.validate(for: [.host("gw.test"), .internet])) { error in
            guard case .invalidConfiguration = error as? ReachabilityError else { return XCTFail("\(error)") }
        }
        configuration.validation = .http(HTTPProbeURL(host: nil))
        configuration.validationInterval = .milliseconds(10)
        XCTAssertThrowsError(try configuration.validate(for: [.internet]), "an interval under 0.1 s")
    }
}
