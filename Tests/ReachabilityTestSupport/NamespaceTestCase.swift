// The base class of the tests that run on the real kernel, in network
// namespaces they make and remove.

import Foundation
import LinuxReachability
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// A test that runs on the real kernel, in network namespaces it makes
/// (``makeNamespace(file:line:)``) and that are removed however it ends.
/// Namespaces need root: without it the test is skipped, or fails under
/// `REACH_REQUIRE_NETNS=1`.
open class NamespaceTestCase: XCTestCase {
    open override class func setUp() {
        super.setUp()
        if geteuid() == 0 { TestNamespace.removeStale() }
    }

    /// Skips the test when it cannot make namespaces (not root), or fails it
    /// when REACH_REQUIRE_NETNS=1 says that it must run.
    package func requireRoot(file: StaticString = #filePath, line: UInt = #line) throws {
        guard geteuid() != 0 else { return }
        try skipOrFail("needs root to create network namespaces (euid \(geteuid()))", requiredBy: requireNetnsVariable,
                       file: file, line: line)
    }

    /// /etc/netns/NAME/FILE for the test's namespace (as `ip netns exec` shows
    /// them), removed when the test ends.
    package func configureNetns(_ ns: TestNamespace, _ files: [String: String]) throws {
        let directory = "/etc/netns/\(ns.name)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: directory) }
        for (name, text) in files { try text.write(toFile: "\(directory)/\(name)", atomically: true, encoding: .utf8) }
    }

    /// A fresh namespace, deleted when the test ends, pass or fail.
    package func makeNamespace(file: StaticString = #filePath, line: UInt = #line) throws -> TestNamespace {
        try requireRoot(file: file, line: line)
        let namespace: TestNamespace
        do {
            namespace = try TestNamespace()
        } catch {
            try skipOrFail("cannot create a network namespace: \(error)", requiredBy: requireNetnsVariable, file: file, line: line)
        }
        addTeardownBlock { namespace.destroy() }
        return namespace
    }

    /// A namespace (lo only) in which resolving a name cannot send a packet:
    /// nsswitch uses only files/dns, no resolver daemon socket exists, and no
    /// name server of resolv.conf is routable there, so the resolver's connect
    /// fails before anything is built. Skips the test otherwise.
    package func makeNamespaceWhereDNSCannotLeave(file: StaticString = #filePath, line: UInt = #line) throws -> TestNamespace {
        let nsswitch = (try? String(contentsOfFile: "/etc/nsswitch.conf", encoding: .utf8)) ?? ""
        let hostsLine = nsswitch.split(separator: "\n").first { $0.hasPrefix("hosts:") }
        let sources = hostsLine.map { $0.dropFirst("hosts:".count).split(whereSeparator: { $0 == " " || $0 == "\t" }) } ?? []
        let foreign = sources.filter { !$0.hasPrefix("[") && $0 != "files" && $0 != "dns" }
        guard hostsLine != nil, foreign.isEmpty else {
            throw XCTSkip("nsswitch hosts uses \(foreign.map(String.init)): a lookup could leave the namespace")
        }
        for socket in ["/var/run/nscd/socket", "/run/nscd/socket", "/run/systemd/resolve/io.systemd.Resolve"]
        where FileManager.default.fileExists(atPath: socket) {
            throw XCTSkip("\(socket) exists: a resolver daemon could query DNS from the host namespace")
        }
        let resolvConf = (try? String(contentsOfFile: "/etc/resolv.conf", encoding: .utf8)) ?? ""
        var servers = resolvConf.split(separator: "\n").compactMap { line -> String? in
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            return fields.count >= 2 && fields[0] == "nameserver" ? String(fields[1]) : nil
        }
        if servers.isEmpty { servers = ["127.0.0.1", "::1"] }   // glibc's default

        let ns = try makeNamespace(file: file, line: line)
        for server in servers {
            let route = ns.routeGet(server, file: file, line: line)
            guard route.error != nil else {
                throw XCTSkip("name server \(server) is routable in the test namespace (\(route)): a query could be sent")
            }
        }
        return ns
    }

    /// An evaluator bound to `namespace`; a failure to open it fails the test.
    package func makeEvaluator(_ namespace: TestNamespace, overrides: [String] = [],
                               file: StaticString = #filePath, line: UInt = #line) throws -> ReachabilityEvaluator {
        do {
            let rules = try overrides.map { (text) throws(ReachabilityError) in try InterfaceKindOverride(parsing: text) }
            return try ReachabilityEvaluator(namespace: .named(namespace.name), kindOverrides: rules)
        } catch {
            XCTFail("cannot open an evaluator in \(namespace.name): \(error)", file: file, line: line)
            throw TestStopped(reason: "\(error)")
        }
    }

    /// Attaches to a tun device in `namespace`; the fd is closed (detaching) when the test ends.
    package func attachTun(_ device: String, in namespace: TestNamespace) throws -> Int32 {
        let fd = try namespace.attachTun(device)
        addTeardownBlock { close(fd) }
        return fd
    }
}
