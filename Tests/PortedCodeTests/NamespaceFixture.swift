// Test infrastructure, not ported code: a network namespace for the ported
// code to read (CompatEnvironment.namespace), made and removed with `ip`.

import Foundation
import LinuxReachability
import ReachabilityCompatSupport
import ReachabilityTestSupport   // TestNamespace, skipOrFail
import ReachabilityTesting   // runCommand, ipExecutable
import XCTest

#if canImport(Glibc)
import Glibc
#endif

final class NamespaceFixture {
    private let namespace: TestNamespace
    var name: String { namespace.name }

    /// A namespace with lo up; the compat modules read it until `remove()`.
    init() throws {
        guard geteuid() == 0 else {
            try skipOrFail("needs root to make a network namespace", requiredBy: requireNetnsVariable)
        }
        namespace = try TestNamespace()
        CompatEnvironment.namespace = .named(namespace.name)
    }

    /// `ip -n NAME` with `arguments` (split at spaces); throws when it fails.
    func ip(_ arguments: String) throws {
        let command = ["-n", name] + arguments.split(separator: " ").map(String.init)
        let result = try runCommand(try XCTUnwrap(ipExecutable, "iproute2's `ip` is not installed"), command)
        guard result.status == 0 else {
            throw NSError(domain: "ip", code: Int(result.status),
                          userInfo: [NSLocalizedDescriptionKey: "ip \(command.joined(separator: " ")) failed: \(result.stderr)"])
        }
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
        namespace.destroy()
    }
}
