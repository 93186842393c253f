// The process-wide settings code written for iOS cannot pass as arguments:
// ReachabilityPolicy.processDefault, RadioSource.processDefault, and their
// environment variables.

import Synchronization
import XCTest
@testable import ReachabilityCore
@testable import ReachabilityKernel

#if canImport(Glibc)
import Glibc
#endif

final class ProcessDefaultsTests: XCTestCase {
    private func policy(withAllowWWAN value: String?) -> ReachabilityPolicy {
        let saved = getenv("REACH_ALLOW_WWAN").map { String(cString: $0) }
        defer { if let saved { setenv("REACH_ALLOW_WWAN", saved, 1) } else { unsetenv("REACH_ALLOW_WWAN") } }
        if let value { setenv("REACH_ALLOW_WWAN", value, 1) } else { unsetenv("REACH_ALLOW_WWAN") }
        return ReachabilityPolicy.fromEnvironment()
    }

    func testREACH_ALLOW_WWAN() {
        XCTAssertTrue(policy(withAllowWWAN: nil).allowsWWAN)
        for off in ["0", "false", "NO", "off"] { XCTAssertFalse(policy(withAllowWWAN: off).allowsWWAN, off) }
        for on in ["1", "true", "yes", "On", ""] { XCTAssertTrue(policy(withAllowWWAN: on).allowsWWAN, on) }
        XCTAssertTrue(policy(withAllowWWAN: "maybe").allowsWWAN, "an unreadable value is ignored (with a warning)")
        XCTAssertEqual(policy(withAllowWWAN: "0"), ReachabilityPolicy(allowsWWAN: false), "nothing else changes")
    }

    func testREACH_RADIO() {
        XCTAssertEqual(RadioSource(environment: nil).technologies, [:])
        XCTAssertEqual(RadioSource(environment: "wwan0=lte, wwan1 = NR5G-NSA").technologies,
                       ["wwan0": .lte, "wwan1": .nrNSA])
        XCTAssertEqual(RadioSource(environment: "wwan0=lte,bogus,wwan2=warp9,=nr").technologies, ["wwan0": .lte],
                       "unreadable entries are ignored (with a warning)")
    }

    func testProcessDefaultPolicyChangesTellObserversOnceOutsideTheLock() {
        let saved = ReachabilityPolicy.processDefault
        defer { ReachabilityPolicy.processDefault = saved }
        let calls = Locked(0)
        let id = ProcessDefaultPolicy.shared.addObserver {
            // Reading the policy from the observer would deadlock under the lock.
            _ = ReachabilityPolicy.processDefault
            calls.withLock { $0 += 1 }
        }
        defer { ProcessDefaultPolicy.shared.removeObserver(id) }
        ReachabilityPolicy.processDefault.allowsWWAN = !saved.allowsWWAN
        ReachabilityPolicy.processDefault.allowsWWAN = !saved.allowsWWAN   // unchanged: no call
        ReachabilityPolicy.updateProcessDefault { $0.meteredInterfaces.append("usb9") }
        XCTAssertEqual(calls.withLock { $0 }, 2)
        XCTAssertEqual(ReachabilityPolicy.processDefault.meteredInterfaces.last, "usb9")
    }

    /// An observer that tells the application (CoreTelephony's notifications)
    /// is called after the evaluators' and monitors' own, whatever order they
    /// were added in: an application reading at once finds no cached kind
    /// and no monitor unaware of the change (SLReachability once posted a
    /// mask of WWAN with no generation when a modem went).
    func testObserversAfterCachesAreCalledLast() {
        let source = RadioSource()
        let calls = Mutex<[String]>([])
        let told = source.addObserver(afterCaches: true) { calls.withLock { $0.append("application") } }
        let cache = source.addObserver { calls.withLock { $0.append("cache") } }
        let monitor = source.addObserver { calls.withLock { $0.append("monitor") } }
        source.set(.lte, for: "wwan0")
        source.setModemFacts(RadioSource.ModemFacts(provider: "test", technologies: [:], interfaces: ["usb0"]))
        XCTAssertEqual(calls.withLock { $0 }, ["cache", "monitor", "application", "cache", "monitor", "application"])
        XCTAssertEqual(source.changeCount, 2)
        for id in [told, cache, monitor] { source.removeObserver(id) }
    }
}
