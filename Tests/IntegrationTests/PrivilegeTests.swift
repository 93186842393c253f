// Least privilege: lookups and monitoring need no capability at all, only
// raw ICMP probes ask for CAP_NET_RAW, and entering another namespace (which
// needs CAP_SYS_ADMIN) fails with an error that says so. Each test runs the
// built `reach` as nobody with every capability set emptied (setpriv), inside
// the test's namespace (ip netns exec), and compares with root's answer.

import Foundation
import ReachabilityTesting   // runCommand, ipExecutable
import ReachabilityTestSupport
import XCTest

#if canImport(Glibc)
import Glibc
#endif

final class PrivilegeTests: NamespaceTestCase {

    /// va 10.1.0.1/24 with a default route through it, lo up, and a rule
    /// that prohibits whatever carries firewall mark 7.
    private func makeUplink() throws -> TestNamespace {
        let ns = try makeNamespace()
        ns.addVethPair("va", peer: "vb", address: "10.1.0.1/24")
        ns.run(["link", "set", "lo", "up"])
        ns.run(["route", "add", "default", "via", "10.1.0.254"])
        ns.run(["rule", "add", "fwmark", "7", "prohibit"])
        return ns
    }

    /// The fields of a `reach check --json` line that carry the answer.
    private func answers(_ result: CommandResult, file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
        try result.stdoutLines.map { text in
            let object = try jsonObject(text, file: file, line: line)
            return ["target", "status", "accessibility", "flags", "interface", "route", "source", "gateway"]
                .map { "\($0)=\(object[$0].map { "\($0)" } ?? "nil")" }.joined(separator: " ")
        }
    }

    func testLookupsNeedNoCapabilities() throws {
        let ns = try makeUplink()
        for extra in [[], ["--mark", "7"], ["--interface", "va"]] {
            let arguments = ["check", "10.1.0.7", "192.0.2.1", "127.0.0.1", "--json"] + extra
            let root = try reach(arguments + ["--netns", ns.name])
            let nobody = try reachWithoutCapabilities(arguments, in: ns)
            XCTAssertEqual(nobody.status, root.status, "\(extra): \(nobody.stderr)")
            XCTAssertEqual(nobody.stderr, "", "\(extra)")
            XCTAssertEqual(try answers(nobody), try answers(root), "\(extra): the same answers without capabilities")
        }
        // And the answers are the real ones, not two equal failures.
        let plain = try answers(try reachWithoutCapabilities(["check", "10.1.0.7", "192.0.2.1", "--json"], in: ns))
        XCTAssertTrue(plain.allSatisfy { $0.contains("status=reachable.wired") && $0.contains("interface=va") }, "\(plain)")
        let marked = try answers(try reachWithoutCapabilities(["check", "192.0.2.1", "--mark", "7", "--json"], in: ns))
        XCTAssertEqual(marked.count, 1)
        XCTAssertTrue(marked.first?.contains("accessibility=restricted.prohibited") ?? false, "\(marked)")
    }

    func testMonitoringNeedsNoCapabilities() throws {
        let ns = try makeUplink()
        let links = try ns.linkControl()
        let watch = try startReach(["watch", "10.1.0.7", "--json"], under: try unprivilegedWrapper(in: ns))
        XCTAssertEqual(watch.waitForLines(1).count, 1, "no initial line: \(watch.stderr)")

        // The process really is nobody with nothing: uid, and every set empty.
        let status = try String(contentsOfFile: "/proc/\(watch.pid)/status", encoding: .utf8)
        let fields = Dictionary(status.split(separator: "\n").compactMap { line -> (String, String)? in
            let parts = line.split(separator: ":", maxSplits: 1)
            return parts.count == 2 ? (String(parts[0]), parts[1].trimmingCharacters(in: .whitespaces)) : nil
        }, uniquingKeysWith: { first, _ in first })
        XCTAssertEqual(fields["Uid"]?.split(separator: "\t").first, "65534", status)
        for set in ["CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"] {
            XCTAssertEqual(fields[set], "0000000000000000", "\(set) of the watching process")
        }

        try links.set("va", up: false)
        XCTAssertEqual(watch.waitForLines(2).count, 2, "link down not seen without capabilities: \(watch.stderr)")
        try links.set("va", up: true)
        let lines = watch.waitForLines(3)
        XCTAssertEqual(lines.count, 3, "link up not seen without capabilities: \(watch.stderr)")
        let statuses = try lines.map { try jsonObject($0)["status"] as? String }
        XCTAssertEqual(statuses, ["reachable.wired", "notReachable", "reachable.wired"])
    }

    func testOnlyRawICMPAsksForNetRaw() throws {
        let ns = try makeUplink()
        let listener = try TCPResponder(in: ns, address: "127.0.0.1")
        defer { listener.stop() }
        let port = String(listener.port)

        // TCP needs nothing.
        let tcp = try reachWithoutCapabilities(["probe", "127.0.0.1", "--method", "tcp:\(port)", "--json"], in: ns)
        XCTAssertEqual(tcp.status, 0, tcp.stderr)
        let tcpAnswer = try jsonObject(tcp.stdout)
        XCTAssertEqual(tcpAnswer["transport"] as? String, "tcp-connect")
        XCTAssertTrue(tcpAnswer["fallback"] is NSNull, "a TCP probe is no fallback: \(tcpAnswer)")
        XCTAssertEqual(tcpAnswer["outcome"] as? String, "answered")

        // ICMP: root gets a raw socket; nobody without a ping group falls back
        // to a TCP connect and says why.
        let raw = try jsonObject(try reach(["probe", "127.0.0.1", "--method", "icmp", "--json", "--netns", ns.name]).stdout)
        XCTAssertEqual(raw["transport"] as? String, "icmp-raw")
        let fallback = try reachWithoutCapabilities(["probe", "127.0.0.1", "--method", "icmp", "--fallback-port", port, "--json"], in: ns)
        XCTAssertEqual(fallback.status, 0, fallback.stderr)
        let fallbackAnswer = try jsonObject(fallback.stdout)
        XCTAssertEqual(fallbackAnswer["transport"] as? String, "tcp-connect")
        XCTAssertTrue((fallbackAnswer["fallback"] as? String ?? "").hasPrefix("no CAP_NET_RAW"), "\(fallbackAnswer)")
        XCTAssertEqual(fallbackAnswer["outcome"] as? String, "answered")
        XCTAssertGreaterThanOrEqual(listener.waitForAccepted(2), 2, "both connects reached the listener")
    }

    /// ICMP without privileges falls back to a TCP connect; a reset (nothing
    /// listens) proves the host is there: exit 0, and the text says
    /// "answered (reset)" (before: "refused", with exit 0).
    func testAResetToTheTCPFallbackIsPrintedAsAnswered() throws {
        let ns = try makeUplink()
        let result = try reachWithoutCapabilities(["probe", "127.0.0.1", "--method", "icmp", "--fallback-port", "9"], in: ns)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.hasPrefix("127.0.0.1  answered (reset)  "), result.stdout)
        XCTAssertTrue(result.stdout.contains("tcp-connect port 9"), result.stdout)
        let json = try jsonObject(try reachWithoutCapabilities(["probe", "127.0.0.1", "--method", "icmp",
                                                                  "--fallback-port", "9", "--json"], in: ns).stdout)
        XCTAssertEqual(json["answered"] as? Bool, true)
        XCTAssertEqual(json["outcome"] as? String, "refused", "JSON keeps the outcome as it was: \(json)")
    }

    func testEnteringANamespaceNeedsCapSysAdminAndSaysSo() throws {
        let ns = try makeUplink()
        let binary = try reachBinary()
        let result = try runCommand(URL(fileURLWithPath: try setprivPath()),
                                    ["--reuid", "65534", "--regid", "65534", "--clear-groups", "--inh-caps=-all",
                                     "--ambient-caps=-all", "--bounding-set=-all", "--no-new-privs",
                                     binary.path, "check", "10.1.0.7", "--netns", ns.name])
        XCTAssertEqual(result.status, 2)
        XCTAssertEqual(result.stdout, "")
        XCTAssertEqual(result.stderrLines, [
            "reach: open NETLINK_ROUTE socket in network namespace '\(ns.name)': permission denied, needs "
            + "CAP_SYS_ADMIN to enter it (or run inside it: ip netns exec \(ns.name) ...)",
        ])
    }

    /// The path form gets a hint too (before: "open network namespace
    /// /proc/1/ns/net: Permission denied" and nothing else).
    func testANamespacePathThatCannotBeOpenedSaysWhatItNeeds() throws {
        try requireRoot()
        let binary = try reachBinary()
        let result = try runCommand(URL(fileURLWithPath: try setprivPath()),
                                    ["--reuid", "65534", "--regid", "65534", "--clear-groups", "--inh-caps=-all",
                                     "--ambient-caps=-all", "--bounding-set=-all", "--no-new-privs",
                                     binary.path, "check", "10.1.0.7", "--netns", "/proc/1/ns/net"])
        XCTAssertEqual(result.status, 2)
        XCTAssertEqual(result.stderrLines, [
            "reach: open network namespace '/proc/1/ns/net': permission denied, needs CAP_SYS_ADMIN to enter it, and to "
            + "open a /proc/PID/ns/net of another user's process the right to ptrace it (or run inside it: "
            + "nsenter --net=/proc/1/ns/net ...)",
        ])
    }
}
