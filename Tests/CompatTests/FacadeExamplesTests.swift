// The libraries' example programs in one namespace, side by side, across a
// failover to WWAN, the cellular-data switch off and on, and the wired
// uplink's return: each prints its initial state and each change, as its
// original would.

import Foundation
import XCTest

final class FacadeExamplesTests: CompatTestCase {
    func testEachLibrarysExampleAcrossFailoverAndTheSwitch() throws {
        let ns = try makeDualUplinkNamespace()
        // What each program prints after each step: start, eth0 down (WWAN
        // takes over), `wwan off`, `wwan on`, eth0 back.
        let expected: [(String, [[String]])] = [
            ("apple-reach-watch", [["initial: ReachableViaWiFi"], ["changed: ReachableViaWWAN"], ["changed: NotReachable"],
                                   ["changed: ReachableViaWWAN"], ["changed: ReachableViaWiFi"]]),
            ("af-watch", [["before start: Unknown", "status: Reachable via WiFi"], ["status: Reachable via WWAN"],
                          ["status: Not Reachable"], ["status: Reachable via WWAN"], ["status: Reachable via WiFi"]]),
            ("alamofire-watch", [["status: reachable over Ethernet or WiFi"], ["status: reachable over cellular"],
                                 ["status: not reachable"], ["status: reachable over cellular"],
                                 ["status: reachable over Ethernet or WiFi"]]),
            ("rs-watch", [["reachable via WiFi"], ["reachable via Cellular"], ["not reachable"], ["reachable via Cellular"],
                          ["reachable via WiFi"]]),
            ("sl-watch", [["initial: WiFi (mask 2, status reachableViaWiFi, wwan netWorkStatusWWAN4G)"],
                          ["mask changed: 4G (mask 16, status reachableViaWWAN, wwan netWorkStatusWWAN4G)"],
                          ["mask changed: 不允许使用WWAN (mask 8, status notReachable, wwan netWorkStatusWWANRefused)"],
                          ["mask changed: 4G (mask 16, status reachableViaWWAN, wwan netWorkStatusWWAN4G)"],
                          ["mask changed: WiFi (mask 2, status reachableViaWiFi, wwan netWorkStatusWWAN4G)"]]),
            ("zy-watch", [["state: accessible"], [], ["state: restricted"], ["state: accessible"], []]),
        ]
        let programs = try expected.map { name, _ in
            try runExample(name, in: ns, environment: ["REACH_RADIO=wwan0=lte"], input: true)
        }
        let steps: [() -> Void] = [
            {},
            { ns.run("link set eth0 down") },
            { programs.forEach { $0.send("wwan off") } },
            { programs.forEach { $0.send("wwan on") } },
            { ns.run("link set eth0 up", "route add default via 10.10.0.2") },
        ]
        for (index, step) in steps.enumerated() {
            step()
            for (program, (name, outputs)) in zip(programs, expected) {
                let lines = outputs[...index].flatMap { $0 }
                XCTAssertEqual(program.waitForLines(lines.count), lines, "\(name) after step \(index): \(program.stderr)")
            }
        }
        for (program, (name, _)) in zip(programs, expected) {
            print("\(name) output:\n" + program.lines.map { "  " + $0 }.joined(separator: "\n"))
        }
    }
}
