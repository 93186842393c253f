// Test infrastructure, not ported code: a network namespace for the ported
// code to read (CompatEnvironment.namespace), made and removed with `ip`.

import Foundation
import LinuxReachability
import ReachabilityCompatSupport
import XCTest

final class NamespaceFixture {
    private static var count = 0
    let name: String

    /// A namespace with lo up; the compat modules read it until `remove()`.
    init() throws {
        guard getuid() == 0 else {
            let message = "needs root to make a network namespace"
            if ProcessInfo.processInfo.environment["REACH_REQUIRE_NETNS"] == "1" { XCTFail(message) }
            throw XCTSkip(message)
        }
        Self.count += 1
        name = "reach-ported-\(getpid())-\(Self.count)"
        try Self.ip(["netns", "add", name])
        try ip("link set lo up")
        CompatEnvironment.namespace = .named(name)
    }

    /// `ip -n NAME` with `arguments` (split at spaces); throws when it fails.
    func ip(_ arguments: String) throws {
        try Self.ip(["-n", name] + arguments.split(separator: " ").map(String.init))
    }

    /// A veth pair `link` ⟷ `peer`, both up, `address` on `link`.
    func addLink(_ link: String, peer: String, address: String) throws {
        try ip("link add \(link) type veth peer name \(peer)")
        try ip("addr add \(address) dev \(link)")
        try ip("link set \(link) up")
        try ip("link set \(peer) up")
    }

    func remove() {
        CompatEnvironment.namespace = .current
        CompatEnvironment.allowsWWAN = true
        try? Self.ip(["netns", "del", name])
    }

    private static func ip(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: FileManager.default.isExecutableFile(atPath: "/usr/sbin/ip") ? "/usr/sbin/ip" : "/sbin/ip")
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw NSError(domain: "ip", code: Int(process.terminationStatus),
                          userInfo: [NSLocalizedDescriptionKey: "ip \(arguments.joined(separator: " ")) failed"])
        }
    }
}
