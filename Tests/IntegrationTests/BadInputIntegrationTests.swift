// docs/bad-inputs.md, the half that needs a process or a kernel: the `reach`
// CLI given bad arguments (exit status 2, one line on stderr that names the
// problem), and netlink / sysfs input that only a real socket or a real
// namespace produces (forged datagrams, stale replies, truncated reads, an
// interface that vanishes). Namespaces come from NamespaceTestCase: unique
// names, removed however the test ends; without root those tests skip (or
// fail under REACH_REQUIRE_NETNS=1). Nothing here sends a packet outside
// loopback or a test namespace.

import CReachability
import Foundation
import LinuxReachability
@testable import ReachabilityCore
@testable import ReachabilityKernel
import ReachabilityTestSupport
import Synchronization
import XCTest

#if canImport(Glibc)
import Glibc
#endif

// MARK: - The CLI

final class BadInputCLITests: NamespaceTestCase {
    /// A namespace name that does not exist. Appended to commands that would
    /// otherwise run (watch, wait, track) or ask the host's kernel if their bad
    /// argument were ever accepted: such a regression then fails on the message
    /// instead of hanging or touching the host.
    private var missingNamespace: String { "\(TestNamespace.prefix)missing-\(getpid())" }

    /// `reach ARGS...` must exit 2, print nothing on stdout and one line
    /// `reach: ...` on stderr containing `fragment`.
    private func expectBadInput(_ arguments: [String], says fragment: String, backstop: Bool = true,
                                file: StaticString = #filePath, line: UInt = #line) throws {
        let arguments = backstop ? arguments + ["--netns", missingNamespace] : arguments
        let result = try reach(arguments, file: file, line: line)
        let command = "reach " + arguments.map { $0.isEmpty ? "''" : $0 }.joined(separator: " ")
        XCTAssertEqual(result.status, 2, "\(command): stderr \(result.stderr)", file: file, line: line)
        XCTAssertEqual(result.stdout, "", command, file: file, line: line)
        XCTAssertEqual(result.stderrLines.count, 1, "\(command): stderr \(result.stderr)", file: file, line: line)
        XCTAssertTrue(result.stderr.hasPrefix("reach: "), "\(command): stderr \(result.stderr)", file: file, line: line)
        XCTAssertTrue(result.stderr.contains(fragment), "\(command): expected '\(fragment)' in: \(result.stderr)",
                      file: file, line: line)
    }

    private func makeLAN() throws -> TestNamespace {
        let ns = try makeNamespace()
        ns.addVethPair("va", peer: "vb", address: "10.1.0.1/24")
        return ns
    }

    func testCLIUnparsableTarget() throws {
        try expectBadInput(["check", "not_an_address!"], says: "invalid target 'not_an_address!': not an address or host name")
        try expectBadInput(["check", "10.0.0.256"], says: "invalid target '10.0.0.256': not a valid IPv4 address")
    }

    func testCLIEmptyOrDottedNamespaceName() throws {
        try expectBadInput(["check", "10.1.0.7", "--netns", ""], says: "invalid network namespace '': empty name",
                           backstop: false)
        try expectBadInput(["check", "10.1.0.7", "--netns", ".."], says: "invalid network namespace '..': not a name",
                           backstop: false)
    }

    func testCLIMissingNamespace() throws {
        try expectBadInput(["check", "10.1.0.7"], says: "no network namespace '\(missingNamespace)'")
    }

    func testCLINamespacePathThatIsNotANamespace() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("reach-bad-cli-netns-\(getpid())")
        try "not a namespace\n".write(to: file, atomically: false, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        try expectBadInput(["check", "10.1.0.7", "--netns", file.path],
                           says: "invalid network namespace '\(file.path)': not a network namespace file", backstop: false)
    }

    func testCLIUnknownInterface() throws {
        let ns = try makeLAN()
        try expectBadInput(["check", "10.1.0.7", "--interface", "nosuch0", "--netns", ns.name],
                           says: "no interface named 'nosuch0'", backstop: false)
    }

    func testCLIInterfaceNameTooLong() throws {
        try expectBadInput(["check", "10.1.0.7", "--interface", "waytoolonginterfacename"],
                           says: "invalid interface name 'waytoolonginterfacename': longer than 15 bytes")
    }

    func testCLIMarkNotANumber() throws {
        try expectBadInput(["check", "10.1.0.7", "--mark", "seven"], says: "--mark takes a number, decimal or 0x hex, not 'seven'")
        try expectBadInput(["probe", "127.0.0.1", "--mark", "0xZZ"], says: "--mark takes a number, decimal or 0x hex, not '0xZZ'")
    }

    func testCLIMarkOutOfRange() throws {
        try expectBadInput(["check", "10.1.0.7", "--mark", "4294967296"], says: "invalid firewall mark 4294967296: must be 0...4294967295")
        try expectBadInput(["check", "10.1.0.7", "--mark=-1"], says: "invalid firewall mark -1: must be 0...4294967295")
    }

    func testCLIUIDOutOfRange() throws {
        try expectBadInput(["check", "10.1.0.7", "--uid", "4294967295"], says: "invalid uid 4294967295: must be 0...4294967294")
    }

    func testCLINegativeTimeout() throws {
        try expectBadInput(["check", "10.1.0.7", "--resolve-timeout=-1"], says: "--resolve-timeout must be more than 0 and at most 3600 seconds")
        try expectBadInput(["probe", "127.0.0.1", "--timeout=-0.5"], says: "--timeout must be more than 0 and at most 3600 seconds")
        try expectBadInput(["wait", "10.1.0.7", "--timeout=-1"], says: "--timeout must be 0...86400 seconds")
    }

    func testCLINaNTimeout() throws {
        try expectBadInput(["probe", "127.0.0.1", "--timeout", "nan"], says: "--timeout must be more than 0 and at most 3600 seconds")
        try expectBadInput(["wait", "10.1.0.7", "--timeout", "nan"], says: "--timeout must be 0...86400 seconds")
        try expectBadInput(["track", "--interface", "lo", "--host", "127.0.0.1", "--interval", "nan"],
                           says: "--interval must be more than 0 and at most 86400 seconds")
        try expectBadInput(["check", "10.1.0.7", "--resolve-timeout", "nan"], says: "--resolve-timeout must be more than 0 and at most 3600 seconds")
    }

    func testCLIHugeTimeout() throws {
        try expectBadInput(["probe", "127.0.0.1", "--timeout", "1e300"], says: "--timeout must be more than 0 and at most 3600 seconds")
        try expectBadInput(["probe", "127.0.0.1", "--timeout", "inf"], says: "--timeout must be more than 0 and at most 3600 seconds")
        try expectBadInput(["wait", "10.1.0.7", "--timeout", "86401"], says: "--timeout must be 0...86400 seconds")
        try expectBadInput(["track", "--interface", "lo", "--host", "127.0.0.1", "--timeout", "inf"],
                           says: "--timeout must be more than 0 and at most 86400 seconds")
        try expectBadInput(["check", "10.1.0.7", "--resolve-timeout", "99999999999999999999"],
                           says: "--resolve-timeout must be more than 0 and at most 3600 seconds")
        try expectBadInput(["watch", "10.1.0.7", "--resolve-timeout", "0"], says: "--resolve-timeout must be more than 0 and at most 3600 seconds")
        try expectBadInput(["wait", "10.1.0.7", "--resolve-timeout", "inf"], says: "--resolve-timeout must be more than 0 and at most 3600 seconds")
        try expectBadInput(["probe", "127.0.0.1", "--resolve-timeout=-1"], says: "--resolve-timeout must be more than 0 and at most 3600 seconds")
    }

    /// `--resolve-timeout` means one thing in check, watch, wait and probe and
    /// takes fractions (before: check's `--timeout 0.5` exited 2, watch's took
    /// whole seconds only). check's old `--timeout` still works, and says it is deprecated.
    func testCLIResolveTimeoutIsOneOptionWithFractionsAndTheOldSpellingWarns() throws {
        let ns = try makeLAN()
        for command in [["check"], ["wait", "--timeout", "2"]] {
            let result = try reach(command + ["10.1.0.7", "--resolve-timeout", "0.5", "--netns", ns.name])
            XCTAssertEqual(result.status, 0, "\(command[0]): \(result.stderr)")
            XCTAssertEqual(result.stderr, "", command[0])
        }
        let old = try reach(["check", "10.1.0.7", "--timeout", "0.5", "--netns", ns.name])
        XCTAssertEqual(old.status, 0, old.stderr)
        XCTAssertEqual(old.stderrLines, ["reach: check --timeout is deprecated: use --resolve-timeout (how long a host name may take to resolve)"])
        let oldBad = try reach(["check", "10.1.0.7", "--timeout", "0", "--netns", ns.name])
        XCTAssertEqual(oldBad.status, 2)
        XCTAssertEqual(oldBad.stderrLines.last, "reach: --timeout must be more than 0 and at most 3600 seconds")
    }

    func testCLIProbeTCPPortZero() throws {
        try expectBadInput(["probe", "127.0.0.1", "--method", "tcp:0"], says: "invalid probe 'tcp:0': port must be 1...65535")
    }

    func testCLIProbeTCPPortTooLarge() throws {
        try expectBadInput(["probe", "127.0.0.1", "--method", "tcp:70000"], says: "invalid probe 'tcp:70000': port must be 1...65535")
    }

    func testCLIProbeHTTPOfAnotherScheme() throws {
        try expectBadInput(["probe", "127.0.0.1", "--method", "http:ftp://x"],
                           says: "invalid probe 'http:ftp://x': expected http://HOST[:PORT]/PATH or /PATH")
        try expectBadInput(["probe", "127.0.0.1", "--method", "http:https://portal.test/"],
                           says: "https is not supported (a portal check needs plain HTTP)")
    }

    func testCLIProbeHTTPURLWithoutItsPrefix() throws {
        try expectBadInput(["probe", "127.0.0.1", "--method", "http://portal.test/"],
                           says: "invalid probe 'http://portal.test/': '//' starts a host, not a path")
    }

    func testCLIProbeUnknownMethod() throws {
        try expectBadInput(["probe", "127.0.0.1", "--method", "smoke"],
                           says: "invalid probe 'smoke': expected icmp, tcp:PORT, http[:URL] or dns[:NAME]")
        try expectBadInput(["probe", "127.0.0.1", "--method", "dns:bad..name"], says: "invalid probe 'dns:bad..name'")
    }

    func testCLIBadRadio() throws {
        try expectBadInput(["check", "10.1.0.7", "--radio", "wwan0=6G"],
                           says: "--radio takes IF=TECH with TECH one of GSM, GPRS, EDGE, UMTS, HSPA, HSPA+, LTE, NR ..., not 'wwan0=6G'")
        try expectBadInput(["check", "10.1.0.7", "--radio", "wwan0"], says: "--radio takes IF=TECH")
        try expectBadInput(["check", "10.1.0.7", "--radio", "a/b=LTE"], says: "invalid interface name 'a/b'")
    }

    func testCLIAllowWWANMaybe() throws {
        try expectBadInput(["check", "10.1.0.7", "--allow-wwan", "maybe"], says: "The value 'maybe' is invalid for '--allow-wwan")
    }

    func testCLINoWWANAndAllowWWANTrueContradict() throws {
        try expectBadInput(["check", "10.1.0.7", "--no-wwan", "--allow-wwan", "true"],
                           says: "--no-wwan and --allow-wwan true contradict each other")
        try expectBadInput(["watch", "internet", "--allow-wwan", "true", "--no-wwan"],
                           says: "--no-wwan and --allow-wwan true contradict each other")
    }

    func testCLIUnknownKind() throws {
        try expectBadInput(["check", "10.1.0.7", "--kind", "va=banana"], says: "unknown kind 'banana'")
        try expectBadInput(["check", "10.1.0.7", "--kind", "=wired"], says: "invalid interface kind override '=wired'")
    }

    func testCLIModemRelativePath() throws {
        try expectBadInput(["check", "10.1.0.7", "--modem", "ttyUSB2"],
                           says: "--modem takes an absolute device path or glob (/dev/ttyUSB2, /dev/ttyACM*), not 'ttyUSB2'")
        try expectBadInput(["check", "10.1.0.7", "--modem", "dev/ttyACM*"], says: "--modem takes an absolute device path")
        try expectBadInput(["check", "10.1.0.7", "--modem", ""], says: "--modem takes an absolute device path")
        // One bad path among good ones is named.
        try expectBadInput(["check", "10.1.0.7", "--modem", "/dev/ttyUSB2", "--modem", "../ttyS0"],
                           says: "--modem takes an absolute device path or glob (/dev/ttyUSB2, /dev/ttyACM*), not '../ttyS0'")
    }

    func testCLIWatchValidateMethodAndInterval() throws {
        try expectBadInput(["watch", "10.1.0.7", "--validate", "smtp:x"],
                           says: "expected http[:URL], dns[:NAME], icmp:HOST or tcp:HOST:PORT")
        try expectBadInput(["watch", "10.1.0.7", "--validate", "tcp:gw.test:0"], says: "expected tcp:HOST:PORT with PORT 1...65535")
        try expectBadInput(["watch", "10.1.0.7", "--validate", "icmp"], says: "expected http[:URL], dns[:NAME], icmp:HOST")
        try expectBadInput(["watch", "internet", "--validate", "dns"],
                           says: "needs a name (dns:NAME) to validate internet, which is not a host name")
        try expectBadInput(["watch", "10.1.0.7", "--validate", "http", "--validate-interval", "0.01"],
                           says: "--validate-interval must be 0.1...86400 seconds")
        try expectBadInput(["watch", "10.1.0.7", "--validate", "http", "--validate-interval", "nan"],
                           says: "--validate-interval must be 0.1...86400 seconds")
    }

    /// Before: "online (initial)", then every round failed and it went offline.
    func testCLITrackUnknownInterface() throws {
        let ns = try makeLAN()
        try expectBadInput(["track", "--interface", "nosuch0", "--host", "10.1.0.2", "--netns", ns.name],
                           says: "no interface named 'nosuch0'", backstop: false)
    }

    func testCLITrackWithoutHost() throws {
        try expectBadInput(["track", "--interface", "lo"], says: "give at least one --host")
    }

    func testCLITrackHostThatIsNotAnAddress() throws {
        try expectBadInput(["track", "--interface", "lo", "--host", "host.example"], says: "invalid IP address 'host.example'")
    }

    func testCLITrackBadInitialState() throws {
        try expectBadInput(["track", "--interface", "lo", "--host", "127.0.0.1", "--initial-state", "connecting"],
                           says: "--initial-state must be online or offline")
    }

    func testCLIProbeInternet() throws {
        // No backstop: the prober is opened before the target is read.
        try expectBadInput(["probe", "internet"], says: "probe needs an address or a host name", backstop: false)
    }

    func testCLIProbeSourceNotLocal() throws {
        let ns = try makeLAN()
        try expectBadInput(["probe", "10.1.0.7", "--method", "tcp:9", "--source", "10.9.9.9", "--timeout", "0.2",
                            "--netns", ns.name],
                           says: "invalid source: 10.9.9.9 is not an address of this host", backstop: false)
    }

    func testCLISourceOfAnotherFamily() throws {
        let ns = try makeLAN()
        try expectBadInput(["check", "10.1.0.7", "--source", "::1", "--netns", ns.name],
                           says: "invalid source: ::1 is IPv6 and the target 10.1.0.7 is IPv4", backstop: false)
        try expectBadInput(["check", "10.1.0.7", "--source", "nope"], says: "invalid IP address 'nope'")
    }

    /// Options a subcommand accepted and then ignored are refused (issue 17):
    /// interface kinds and the policy options mean nothing to a probe or a
    /// tracker; --server only to --method dns; --fallback-port only to icmp;
    /// --validate-interval only with --validate; a host given twice to track.
    func testCLIOptionsASubcommandCannotActOnAreRefused() throws {
        for subcommand in [["probe", "127.0.0.1"], ["track", "--interface", "lo", "--host", "127.0.0.1"]] {
            try expectBadInput(subcommand + ["--kind", "lo=wifi"], says: "Unknown option '--kind'")
            try expectBadInput(subcommand + ["--no-wwan"], says: "Unknown option '--no-wwan'")
            try expectBadInput(subcommand + ["--allow-wwan", "false"], says: "Unknown option '--allow-wwan'")
            try expectBadInput(subcommand + ["--metered", "lo"], says: "Unknown option '--metered'")
        }
        try expectBadInput(["probe", "127.0.0.1", "--server", "127.0.0.1"],
                           says: "--server is for --method dns (the name server to ask), not icmp")
        try expectBadInput(["probe", "127.0.0.1", "--method", "dns:example.org", "--server", "127.0.0.1"],
                           says: "--server is for --method dns: with dns:NAME the target is the server")
        try expectBadInput(["probe", "127.0.0.1", "--method", "tcp:9", "--fallback-port", "22"],
                           says: "--fallback-port is for --method icmp (its TCP fallback), not tcp:9")
        try expectBadInput(["watch", "127.0.0.1", "--validate-interval", "5"],
                           says: "--validate-interval needs --validate (the probe to repeat)")
        try expectBadInput(["track", "--interface", "lo", "--host", "127.0.0.1", "--host", "127.0.0.1"],
                           says: "--host 127.0.0.1 is given twice")
        // The dirty-uplink options: a profile of no name, check options without a check, values out of range.
        let track = ["track", "--interface", "lo", "--host", "127.0.0.1"]
        try expectBadInput(track + ["--profile", "turbo"], says: "--profile must be standard, fast or mwan3")
        try expectBadInput(track + ["--check-port", "443"], says: "--check-url, --check-port, --pmtu-size, --dns-server and --check-interval need --check-host, --check-other-family or --dns-name")
        try expectBadInput(track + ["--failure-loss", "140"], says: "failure loss: must be 0...100 (percent)")
        try expectBadInput(track + ["--failure-loss", "5"], says: "recovery thresholds: must be at or under the failure thresholds (the hysteresis)")
        try expectBadInput(track + ["--check-host", "127.0.0.1", "--pmtu-size", "1501"], says: "path-MTU probe size: must be 29...1500 bytes")
        try expectBadInput(track + ["--check-host", "127.0.0.1", "--check-other-family", "127.0.0.2"], says: "other-family host: 127.0.0.2 is of the same family as 127.0.0.1")
        try expectBadInput(track + ["--flap-limit", "101"], says: "flap limit: must be 0...100")
        // What stays accepted: the policy options where they act, --server with dns.
        for subcommand in ["check", "wait", "watch", "status"] {
            let help = try reach([subcommand, "--help"])
            XCTAssertTrue(help.stdout.contains("--kind") && help.stdout.contains("--no-wwan"), subcommand)
        }
    }

    func testCLIUnknownSubcommand() throws {
        try expectBadInput(["bogus"], says: "Unexpected argument 'bogus'", backstop: false)
        try expectBadInput(["check"], says: "Missing expected argument '<targets> ...'", backstop: false)
    }
}

// MARK: - Netlink and sysfs from a real kernel

final class BadInputKernelTests: NamespaceTestCase {
    private func makeLAN() throws -> TestNamespace {
        let ns = try makeNamespace()
        ns.addVethPair("va", peer: "vb", address: "10.1.0.1/24")
        return ns
    }

    /// The ifindex of `device` (`ip -o link` starts "N: name...").
    private func ifindex(_ device: String, in ns: TestNamespace) throws -> Int32 {
        let line = ns.linkLine(device)
        return try XCTUnwrap(line.split(separator: ":").first.flatMap { Int32($0) }, "no index in '\(line)'")
    }

    /// An fd of the namespace, closed when the test ends.
    private func namespaceFD(_ ns: TestNamespace) throws -> Int32 {
        let fd = creach_netns_open(ns.name)
        guard fd >= 0 else { throw TestNamespace.ThreadError("open netns \(ns.name)") }
        addTeardownBlock { close(fd) }
        return fd
    }

    private static func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xff), UInt8(v >> 8)] }
    private static func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8((v >> (8 * UInt32($0))) & 0xff) } }

    /// A route message for 10.1.0.7/32 (nlmsghdr + rtmsg + RTA_DST + RTA_OIF), as the kernel would send it.
    private static func routeMessage(type: UInt16, flags: UInt16, seq: UInt32, oif: UInt32) -> [UInt8] {
        // Appended piece by piece: one long `+` chain of arrays is more than
        // Swift 6.0's type checker solves in time.
        var rtmsg: [UInt8] = [UInt8(AF_INET), 32, 0, 0, 254, 4, 0, 1]   // family, dst_len, src_len, tos, table, proto, scope, type
        rtmsg += le32(0)                                                 // flags
        var attrs: [UInt8] = le16(8) + le16(1) + [10, 1, 0, 7]           // RTA_DST
        attrs += le16(8) + le16(4) + le32(oif)                           // RTA_OIF
        var message: [UInt8] = le32(UInt32(16 + rtmsg.count + attrs.count)) + le16(type) + le16(flags)
        message += le32(seq) + le32(0)
        return message + rtmsg + attrs
    }

    /// Port ids of the NETLINK_ROUTE sockets that processes hold in the
    /// namespace, as /proc/net/netlink of a thread inside it lists them.
    private func routeSocketPorts(in ns: TestNamespace) throws -> [UInt32] {
        try ns.onThreadInside { () throws(TestNamespace.ThreadError) -> [UInt32] in
            guard let text = try? String(contentsOfFile: "/proc/thread-self/net/netlink", encoding: .utf8) else {
                throw TestNamespace.ThreadError("read /proc/thread-self/net/netlink")
            }
            // sk Eth Pid Groups Rmem Wmem Dump Locks Drops Inode
            return text.split(separator: "\n").dropFirst().compactMap { line -> UInt32? in
                let fields = line.split(separator: " ")
                guard fields.count >= 3, fields[1] == "0", let pid = UInt32(fields[2]), pid != 0 else { return nil }
                return pid
            }
        }
    }

    func testEvaluatorDropsAForgedReplyFromAProcess() throws {
        let ns = try makeLAN()
        let va = try ifindex("va", in: ns)
        let evaluator = try makeEvaluator(ns)
        let ports = try routeSocketPorts(in: ns)
        XCTAssertEqual(ports.count, 1, "the evaluator's socket only: \(ports)")
        let port = try XCTUnwrap(ports.first)
        // A "reply" to the evaluator's first request (sequence 1) that sends
        // 10.1.0.7 out of lo: taken for the answer, it would be a wrong one.
        try ns.sendNetlink(Self.routeMessage(type: UInt16(RTM_NEWROUTE), flags: 0, seq: 1, oif: 1), toPort: port)
        XCTAssertEqual(evaluator.droppedMessages.foreignSender, 0)
        let answer = try evaluator.evaluate(IPAddress("10.1.0.7")!)
        XCTAssertEqual(answer.route.interfaceIndex, va, "the kernel's answer, not the forged one")
        XCTAssertEqual(answer.link?.name, "va")
        XCTAssertEqual(evaluator.droppedMessages.foreignSender, 1)
        XCTAssertEqual(evaluator.droppedMessages.foreignSequence, 0)
    }

    func testStaleReplyOfAnotherSequenceIsDropped() throws {
        let ns = try makeLAN()
        let va = try ifindex("va", in: ns)
        let fd = try namespaceFD(ns)
        var nl = creach_nl()
        XCTAssertEqual(creach_nl_open(&nl, 0, fd), 0, String(cString: strerror(errno)))
        defer { creach_nl_close(&nl) }
        // A request the library never made (sequence 4242), sent on its socket:
        // the kernel's reply to it arrives before the reply to the library's own.
        var request = Self.routeMessage(type: UInt16(RTM_GETROUTE), flags: UInt16(NLM_F_REQUEST), seq: 4242, oif: 0)
        request = Array(request.prefix(16 + 12 + 8))          // no RTA_OIF
        request.replaceSubrange(0..<4, with: Self.le32(UInt32(request.count)))
        request[16 + 4] = 0; request[16 + 5] = 0; request[16 + 7] = 0   // table, protocol, type 0 in a request
        var kernel = sockaddr_nl()
        kernel.nl_family = sa_family_t(AF_NETLINK)
        let sent = withUnsafePointer(to: &kernel) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                sendto(nl.fd, request, request.count, 0, $0, socklen_t(MemoryLayout<sockaddr_nl>.size))
            }
        }
        XCTAssertEqual(sent, request.count, String(cString: strerror(errno)))

        var query = creach_route_query()
        query.family = UInt8(AF_INET)
        withUnsafeMutableBytes(of: &query.dst) { $0.copyBytes(from: [10, 1, 0, 7]) }
        var route = creach_route()
        var buffer = [UInt8](repeating: 0, count: Int(CREACH_REPLY_BUFSIZ))
        XCTAssertEqual(creach_route_get(&nl, &query, &buffer, buffer.count, &route), 0, String(cString: strerror(errno)))
        XCTAssertEqual(route.error, 0)
        XCTAssertEqual(route.oif, va)
        XCTAssertEqual(nl.dropped_seq, 1, "the stale reply is counted, not parsed")
        XCTAssertEqual(nl.dropped_foreign, 0)
    }

    func testMonitorDropsAForgedRouteNotification() throws {
        let ns = try makeLAN()
        let target = Target.address(IPAddress("10.1.0.7")!)
        let monitor = try ReachabilityMonitor(targets: [target], namespace: .named(ns.name))
        addTeardownBlock { monitor.stop() }
        let seen = Mutex<[ReachabilityChange]>([])
        monitor.onChange { change in seen.withLock { $0.append(change) } }
        try monitor.start()
        func waitUntil(_ timeout: TimeInterval, _ condition: () -> Bool) -> Bool {
            let deadline = Date().addingTimeInterval(timeout)
            while !condition() {
                if Date() > deadline { return false }
                usleep(2000)
            }
            return true
        }
        XCTAssertTrue(waitUntil(5) { seen.withLock { $0.count } == 1 }, "no initial state")
        let port = try XCTUnwrap(monitor.eventPortID)
        let before = monitor.counters
        // "10.1.0.7/32 was deleted", multicast-looking, from a process.
        try ns.sendNetlink(Self.routeMessage(type: UInt16(RTM_DELROUTE), flags: 0, seq: 0, oif: 1), toPort: port)
        XCTAssertTrue(waitUntil(2) { monitor.counters.droppedForeign > before.droppedForeign },
                      "the forged notification was not counted: \(monitor.counters)")
        usleep(300_000)
        let after = monitor.counters
        XCTAssertEqual(after.droppedForeign, before.droppedForeign + 1)
        XCTAssertEqual(after.events, before.events, "taken for an event")
        XCTAssertEqual(after.reevaluations, before.reevaluations, "it triggered a re-evaluation")
        XCTAssertEqual(seen.withLock { $0.count }, 1, "a change came of it")
    }

    func testNotificationLargerThanTheBufferIsENOSPC() throws {
        let ns = try makeNamespace()
        let fd = try namespaceFD(ns)
        var nl = creach_nl()
        XCTAssertEqual(creach_nl_open(&nl, creach_monitor_groups, fd), 0, String(cString: strerror(errno)))
        defer { creach_nl_close(&nl) }
        ns.run("link add va type veth peer name vb")
        XCTAssertEqual(creach_wait(nl.fd, -1, 2_000_000_000) & CREACH_WAIT_NETLINK, CREACH_WAIT_NETLINK)
        // An RTM_NEWLINK does not fit 16 bytes: reported, never parsed cut.
        var small = [UInt8](repeating: 0, count: 16)
        errno = 0
        XCTAssertEqual(creach_nl_recv_event(&nl, &small, small.count), -1)
        XCTAssertEqual(errno, ENOSPC)
        // The socket stays usable: the next notification is read whole.
        ns.run("link set va up")
        var buffer = [UInt8](repeating: 0, count: Int(CREACH_DUMP_BUFSIZ))
        XCTAssertEqual(creach_wait(nl.fd, -1, 2_000_000_000) & CREACH_WAIT_NETLINK, CREACH_WAIT_NETLINK)
        let n = creach_nl_recv_event(&nl, &buffer, buffer.count)
        XCTAssertGreaterThan(n, 16)
        var events = creach_events()
        XCTAssertGreaterThan(creach_events_classify(buffer, Int(max(n, 0)), &events), 0)
        XCTAssertEqual(events.malformed, 0)
        XCTAssertEqual(nl.dropped_foreign, 0)
    }

    func testSysfsEntryVanishedBetweenListingAndReading() throws {
        let ns = try makeLAN()
        let va = try ifindex("va", in: ns)
        let fd = try namespaceFD(ns)
        let sysfs = creach_sysfs_open(nil, fd)
        guard sysfs >= 0 else {
            throw XCTSkip("cannot mount a sysfs for the namespace here: \(String(cString: strerror(errno)))")
        }
        defer { close(sysfs) }
        var facts = creach_sysfs()
        XCTAssertEqual(creach_sysfs_read(sysfs, "va", &facts), 0, "control")
        XCTAssertEqual(facts.ifindex, va, "control")
        // Listed (the netlink dump named it), then deleted before its sysfs is read.
        ns.run("link del va")
        let deadline = Date().addingTimeInterval(2)
        var rc: Int32 = 0
        var error: Int32 = 0
        repeat {
            errno = 0
            rc = creach_sysfs_read(sysfs, "va", &facts)
            error = errno
            if rc != 0 { break }
            usleep(5000)
        } while Date() < deadline
        XCTAssertEqual(rc, -1)
        XCTAssertEqual(error, ENOENT)
        XCTAssertEqual(facts.ifindex, -1)
    }

    func testUIDMinusOneIsRefusedNotLookedUpAsNoUID() throws {
        let ns = try makeLAN()
        ns.run("route add default via 10.1.0.254", "rule add uidrange 0-4294967294 prohibit pref 100")
        let evaluator = try makeEvaluator(ns)
        let internet = IPAddress("192.0.2.1")!
        for uid: UInt32 in [0, 4_294_967_294] {
            XCTAssertEqual(try evaluator.evaluate(internet, options: LookupOptions(uid: uid)).route.verdict, .prohibit, "uid \(uid)")
        }
        // The kernel takes uid 4294967295 for INVALID_UID, which no uidrange
        // rule matches: asked, it would answer "reachable" for a uid that no
        // process can have.
        let kernel = ns.routeGet("192.0.2.1", extra: ["uid", "4294967295"])
        XCTAssertNil(kernel.error, "\(kernel)")
        XCTAssertEqual(kernel.dev, "va")
        XCTAssertThrowsError(try evaluator.evaluate(internet, options: LookupOptions(uid: UInt32.max))) {
            XCTAssertEqual($0 as? ReachabilityError, .invalidUID(4_294_967_295))
        }
    }
}
