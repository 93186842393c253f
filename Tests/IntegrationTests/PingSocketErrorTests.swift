// ICMP errors on the unprivileged ping socket (SOCK_DGRAM, IPPROTO_ICMP /
// IPPROTO_ICMPV6): a router in the path that answers an echo request with a
// destination unreachable must end the probe at once with the errno the
// kernel derives from it, as the raw socket does, not after the timeout.
//
// client `wan0` 10.9.0.1/24 fd09::1/64 ⟷ router `peer0` 10.9.0.2/24 fd09::2/64
// (ProbeTests' makeUplink). The client's default routes lead to the router,
// which forwards and holds `prohibit`, `unreachable` and `blackhole` routes
// for prefixes that exist nowhere: nothing leaves the two namespaces. The
// probes run through the built `reach`, as root without CAP_NET_RAW (setpriv)
// or as nobody, with ping_group_range admitting every group.

import Foundation
import ReachabilityTesting   // runCommand, ipExecutable
import ReachabilityTestSupport
import Synchronization
import XCTest

#if canImport(Glibc)
import Glibc
#endif

final class PingSocketErrorTests: NamespaceTestCase {
    /// The uplink with the responder made a router: IPv4 and IPv6 forwarding,
    /// 10.77.0.0/24 fd77::/64 prohibit, 10.78.0.0/24 fd78::/64 unreachable,
    /// 10.79.0.0/24 fd79::/64 blackhole (dropped without an ICMP error).
    ///
    /// The router's ICMP errors are rate limited per destination, which a test
    /// that needs each of them must stay clear of. The ICMP limiters (a token
    /// a second, per namespace) are switched off: no type is in icmp_ratemask
    /// or icmp.ratemask. IPv4 routing errors have a second limiter, in
    /// ip_error(), whose sysctls (net.ipv4.route.error_cost, error_burst) are
    /// the host's, not the namespace's: a burst of 5 per source, then one a
    /// second. It shares its tokens with the first, which alone made it 2.
    /// So an IPv4 test provokes at most 5 errors from its fresh router.
    private func makeRoutedUplink(file: StaticString = #filePath, line: UInt = #line) throws -> Uplink {
        let uplink = try makeUplink(file: file, line: line)
        try uplink.responder.setSysctl("net.ipv4.ip_forward", "1")
        try uplink.responder.setSysctl("net.ipv6.conf.all.forwarding", "1")
        try uplink.responder.setSysctl("net.ipv4.icmp_ratemask", "0")
        try uplink.responder.setSysctl("net.ipv6.icmp.ratemask", "")
        uplink.responder.run("route add prohibit 10.77.0.0/24", "route add unreachable 10.78.0.0/24",
                             "route add blackhole 10.79.0.0/24",
                             "-6 route add prohibit fd77::/64", "-6 route add unreachable fd78::/64",
                             "-6 route add blackhole fd79::/64", file: file, line: line)
        uplink.client.run("route add default via 10.9.0.2 dev wan0", "-6 route add default via fd09::2 dev wan0",
                          file: file, line: line)
        try uplink.client.setSysctl("net.ipv4.ping_group_range", "0\t2147483647")
        return uplink
    }

    /// `reach probe [--netns NS] --method icmp --timeout T TARGET --json` run
    /// by `runner`, its JSON object and the wall-clock time the whole command took.
    private func probe(_ target: String, netns: TestNamespace?, timeout: String = "3",
                       file: StaticString = #filePath, line: UInt = #line,
                       runner: ([String]) throws -> CommandResult) throws -> (object: [String: Any], elapsed: Duration) {
        let namespace = netns.map { ["--netns", $0.name] } ?? []
        // `elapsed` includes starting `reach` (slow under ASan): the bounds on it
        // (2 s) only tell an answer from the 3 s time-out; `rtt_ns` is the probe's own time.
        let clock = ContinuousClock()
        let start = clock.now
        let result = try runner(["probe"] + namespace + ["--method", "icmp", "--timeout", timeout, target, "--json"])
        let elapsed = clock.now - start
        XCTAssertEqual(result.status, 1, "\(target): exit 1 for a probe not answered; stderr: \(result.stderr)",
                       file: file, line: line)
        return (try jsonObject(result.stdout, file: file, line: line), elapsed)
    }

    /// An ICMP error from the router: `unreachable` with `error`, over the ping
    /// socket, decided well before the 3 s timeout.
    private func assertUnreachable(_ target: String, error: String, in uplink: Uplink,
                                   file: StaticString = #filePath, line: UInt = #line) throws {
        let (object, elapsed) = try probe(target, netns: uplink.client, file: file, line: line) { arguments in
            try reachWithoutNetRaw(arguments, file: file, line: line)
        }
        XCTAssertEqual(object["transport"] as? String, "icmp-datagram", "\(target): \(object)", file: file, line: line)
        XCTAssertEqual(object["fallback"] as? String, "no CAP_NET_RAW", "\(target)", file: file, line: line)
        XCTAssertEqual(object["outcome"] as? String, "unreachable", "\(target): \(object)", file: file, line: line)
        XCTAssertEqual(object["error"] as? String, error, "\(target): \(object)", file: file, line: line)
        XCTAssertEqual(object["verdict"] as? String, "failed", "\(target)", file: file, line: line)
        XCTAssertLessThan(elapsed, .seconds(2), "\(target): the ICMP error ends the wait, not the 3 s timeout",
                          file: file, line: line)
        let rtt = try XCTUnwrap(object["rtt_ns"] as? Int, "\(target): an error has a round trip", file: file, line: line)
        XCTAssertLessThan(rtt, 1_000_000_000, "\(target)", file: file, line: line)
    }

    /// The raw socket (root) already saw these errors: the fixture really
    /// answers with ICMP errors, and both sockets call the target unreachable.
    private func assertRawSocketAgrees(_ target: String, in uplink: Uplink,
                                       file: StaticString = #filePath, line: UInt = #line) throws {
        let (object, elapsed) = try probe(target, netns: uplink.client, file: file, line: line) { arguments in
            try reach(arguments, file: file, line: line)
        }
        XCTAssertEqual(object["transport"] as? String, "icmp-raw", "\(target)", file: file, line: line)
        XCTAssertEqual(object["outcome"] as? String, "unreachable", "\(target): \(object)", file: file, line: line)
        XCTAssertLessThan(elapsed, .seconds(2), "\(target)", file: file, line: line)
    }

    /// IPv4: the kernel maps ICMP destination unreachable to the errno of
    /// icmp_err_convert. A `prohibit` route on a forwarding router answers
    /// code 13 (communication administratively prohibited, ICMP_PKT_FILTERED),
    /// which the kernel reports as EHOSTUNREACH "No route to host" (not
    /// EACCES: that is only a local prohibit route's answer to sendto); an
    /// `unreachable` route answers code 1 (host unreachable): EHOSTUNREACH too.
    func testPingSocketReportsICMPErrorsOfARouterOverIPv4() throws {
        let uplink = try makeRoutedUplink()
        // Four ICMP errors in all, within the router's burst of 5 (see makeRoutedUplink).
        try assertUnreachable("10.77.0.5", error: "No route to host", in: uplink)   // prohibit: EHOSTUNREACH
        try assertUnreachable("10.78.0.5", error: "No route to host", in: uplink)   // unreachable: EHOSTUNREACH
        try assertRawSocketAgrees("10.77.0.6", in: uplink)

        // As nobody with no capability at all (ip netns exec + setpriv): the same.
        let (nobody, elapsed) = try probe("10.77.0.7", netns: nil) { arguments in
            try reachWithoutCapabilities(arguments, in: uplink.client)
        }
        XCTAssertEqual(nobody["transport"] as? String, "icmp-datagram", "\(nobody)")
        XCTAssertEqual(nobody["outcome"] as? String, "unreachable", "\(nobody)")
        XCTAssertEqual(nobody["error"] as? String, "No route to host", "\(nobody)")
        XCTAssertLessThan(elapsed, .seconds(2))

        // A router that drops silently (blackhole) sends no error: the probe
        // still waits for its timeout, and still answers when the host answers.
        let (silent, waited) = try probe("10.79.0.5", netns: uplink.client, timeout: "0.3") { arguments in
            try reachWithoutNetRaw(arguments)
        }
        XCTAssertEqual(silent["transport"] as? String, "icmp-datagram")
        XCTAssertEqual(silent["outcome"] as? String, "timed-out", "\(silent)")
        XCTAssertGreaterThanOrEqual(waited, .milliseconds(300))
        let answered = try reachWithoutNetRaw(["probe", "--netns", uplink.client.name, "--method", "icmp", "10.9.0.2", "--json"])
        XCTAssertEqual(answered.status, 0, answered.stderr)
        XCTAssertEqual(try jsonObject(answered.stdout)["outcome"] as? String, "answered")
    }

    /// IPv6: icmpv6_err_convert. A `prohibit` route answers code 1
    /// (communication with destination administratively prohibited), which the
    /// kernel reports as EACCES "Permission denied"; an `unreachable` route
    /// answers code 0 (no route to destination): ENETUNREACH "Network is
    /// unreachable".
    func testPingSocketReportsICMPErrorsOfARouterOverIPv6() throws {
        let uplink = try makeRoutedUplink()
        try assertUnreachable("fd77::5", error: "Permission denied", in: uplink)        // prohibit: EACCES
        try assertUnreachable("fd78::5", error: "Network is unreachable", in: uplink)   // unreachable: ENETUNREACH
        try assertRawSocketAgrees("fd77::6", in: uplink)

        let (silent, waited) = try probe("fd79::5", netns: uplink.client, timeout: "0.3") { arguments in
            try reachWithoutNetRaw(arguments)
        }
        XCTAssertEqual(silent["transport"] as? String, "icmp-datagram")
        XCTAssertEqual(silent["outcome"] as? String, "timed-out", "\(silent)")
        XCTAssertGreaterThanOrEqual(waited, .milliseconds(300))
        let answered = try reachWithoutNetRaw(["probe", "--netns", uplink.client.name, "--method", "icmp", "fd09::2", "--json"])
        XCTAssertEqual(answered.status, 0, answered.stderr)
        XCTAssertEqual(try jsonObject(answered.stdout)["outcome"] as? String, "answered")
    }

    /// Errors the kernel hands the ping socket (its identifier is in the
    /// quote) but that are not about this echo: a quote of another sequence
    /// number, a quote of another destination. Forged by a raw socket in the
    /// router, which does not answer echoes itself; each is read off the
    /// error queue and counted in `ignored`, and the one that quotes the echo
    /// exactly (port unreachable) decides: ECONNREFUSED, which for an ICMP
    /// echo is `unreachable` ("Connection refused"), not the `refused` of a
    /// TCP reset (that would answer the probe).
    func testPingSocketIgnoresICMPErrorsAboutOtherPackets() throws {
        let uplink = try makeRoutedUplink()
        try uplink.responder.setSysctl("net.ipv4.icmp_echo_ignore_all", "1")
        try uplink.responder.setSysctl("net.ipv6.icmp.echo_ignore_all", "1")
        for (target, family) in [("10.9.0.2", AF_INET), ("fd09::2", AF_INET6)] {
            let forger = try ForgedICMPErrors(in: uplink.responder, family: family)
            let (object, elapsed) = try probe(target, netns: uplink.client) { try reachWithoutNetRaw($0) }
            XCTAssertEqual(forger.wait(), "sent 3", target)
            XCTAssertEqual(object["transport"] as? String, "icmp-datagram", "\(target): \(object)")
            XCTAssertEqual(object["outcome"] as? String, "unreachable", "\(target): \(object)")
            XCTAssertEqual(object["error"] as? String, "Connection refused", "\(target): \(object)")
            XCTAssertEqual(object["ignored"] as? Int, 2, "\(target): the two errors about other packets")
            XCTAssertLessThan(elapsed, .seconds(2), target)
        }
    }
}

/// A raw ICMP socket in the router that answers the first echo request from
/// the client (10.9.0.1, fd09::1) with three forged destination unreachables:
/// one quoting the echo with its sequence number plus one, one quoting it
/// with another destination (10.9.0.99, fd09::99), then a port unreachable
/// quoting it as it came. The kernel builds the IP header; ICMPv6 checksums
/// are the kernel's too, ICMP ones are computed here.
private final class ForgedICMPErrors: @unchecked Sendable {
    private let fd: Int32
    private let family: Int32
    private let finished = DispatchSemaphore(value: 0)
    private let report = Mutex<String>("not finished")

    init(in router: TestNamespace, family: Int32) throws {
        let proto = family == AF_INET ? Int32(IPPROTO_ICMP) : Int32(IPPROTO_ICMPV6)
        self.family = family
        fd = try router.onThreadInside { () throws(TestNamespace.ThreadError) -> Int32 in
            let fd = socket(family, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), proto)
            guard fd >= 0 else { throw TestNamespace.ThreadError("raw ICMP socket") }
            return fd
        }
        Thread { [self] in
            let outcome = serve()
            report.withLock { $0 = outcome }
            finished.signal()
        }.start()
    }

    /// What the thread did ("sent 3", or why not); closes the socket.
    func wait() -> String {
        let ended = finished.wait(timeout: .now() + 10) == .success
        if ended { close(fd) }
        return ended ? report.withLock { $0 } : "still running"
    }

    private func serve() -> String {
        let client = family == AF_INET ? "10.9.0.1" : "fd09::1"
        guard case (var peer, let peerLength)? = ResponderSocket.socketAddress(client, port: 0) else { return "bad address" }
        var buffer = [UInt8](repeating: 0, count: 2048)
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline {
            guard ResponderSocket.wait(fd, milliseconds: 100) & Int16(POLLIN) != 0 else { continue }
            var from = sockaddr_storage()
            var fromLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let count = buffer.withUnsafeMutableBytes { bytes in
                withUnsafeMutablePointer(to: &from) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(fd, bytes.baseAddress, bytes.count, 0, $0, &fromLength) }
                }
            }
            guard count > 0 else { continue }
            guard let echo = family == AF_INET ? Self.quoteV4(Array(buffer[..<count]))
                                               : Self.quoteV6(Array(buffer[..<count]), from: from) else { continue }
            var otherSequence = echo.quote
            let sequence = UInt16(otherSequence[echo.sequence]) << 8 | UInt16(otherSequence[echo.sequence + 1])
            otherSequence[echo.sequence] = UInt8((sequence &+ 1) >> 8)
            otherSequence[echo.sequence + 1] = UInt8((sequence &+ 1) & 0xFF)
            var otherDestination = echo.quote
            otherDestination[echo.destinationLast] = 99
            if family == AF_INET { Self.fixIPv4HeaderChecksum(&otherDestination) }
            // Type and code: host unreachable twice, then port unreachable.
            let (unreachable, host, port): (UInt8, UInt8, UInt8) = family == AF_INET ? (3, 1, 3) : (1, 3, 4)
            var sent = 0
            for (code, quote) in [(host, otherSequence), (host, otherDestination), (port, echo.quote)] {
                var message: [UInt8] = [unreachable, code, 0, 0, 0, 0, 0, 0] + quote
                if family == AF_INET {
                    let sum = Self.checksum(message)
                    message[2] = UInt8(sum >> 8)
                    message[3] = UInt8(sum & 0xFF)
                }
                let written = withUnsafePointer(to: &peer) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(fd, message, message.count, 0, $0, peerLength) }
                }
                guard written == message.count else { return "sendto: \(String(cString: strerror(errno)))" }
                sent += 1
            }
            return "sent \(sent)"
        }
        return "no echo request within 5 s"
    }

    /// An IPv4 echo request from 10.9.0.1 as the raw socket got it (IP header
    /// first): its header and first 8 ICMP bytes, the quote RFC 792 asks for.
    private static func quoteV4(_ datagram: [UInt8]) -> (quote: [UInt8], sequence: Int, destinationLast: Int)? {
        guard datagram.count >= 20, datagram[0] >> 4 == 4 else { return nil }
        let headerLength = Int(datagram[0] & 0x0F) * 4
        guard headerLength >= 20, datagram.count >= headerLength + 8, datagram[headerLength] == 8,
              Array(datagram[12..<16]) == [10, 9, 0, 1] else { return nil }
        return (Array(datagram[..<(headerLength + 8)]), headerLength + 6, 19)
    }

    /// An ICMPv6 echo request from fd09::1 (the raw socket gets the message
    /// alone): the IPv6 header it came with, rebuilt, and the whole message.
    private static func quoteV6(_ message: [UInt8], from: sockaddr_storage) -> (quote: [UInt8], sequence: Int, destinationLast: Int)? {
        guard message.count >= 8, message[0] == 128, Int32(from.ss_family) == AF_INET6 else { return nil }
        let source = withUnsafeBytes(of: from) { raw in
            raw.baseAddress!.assumingMemoryBound(to: sockaddr_in6.self).pointee.sin6_addr
        }
        let sourceBytes = withUnsafeBytes(of: source) { Array($0) }
        let client: [UInt8] = [0xfd, 0x09] + [UInt8](repeating: 0, count: 13) + [1]
        let router: [UInt8] = [0xfd, 0x09] + [UInt8](repeating: 0, count: 13) + [2]
        guard sourceBytes == client else { return nil }
        let header: [UInt8] = [0x60, 0, 0, 0, UInt8(message.count >> 8), UInt8(message.count & 0xFF), 58, 64]
        return (header + client + router + message, 40 + 6, 39)
    }

    /// The Internet checksum (RFC 1071) of `bytes`.
    private static func checksum(_ bytes: [UInt8]) -> UInt16 {
        var sum: UInt32 = 0
        var index = 0
        while index + 1 < bytes.count {
            sum += UInt32(bytes[index]) << 8 | UInt32(bytes[index + 1])
            index += 2
        }
        if index < bytes.count { sum += UInt32(bytes[index]) << 8 }
        while sum >> 16 != 0 { sum = (sum & 0xFFFF) + (sum >> 16) }
        return ~UInt16(sum)
    }

    private static func fixIPv4HeaderChecksum(_ quote: inout [UInt8]) {
        let headerLength = Int(quote[0] & 0x0F) * 4
        quote[10] = 0
        quote[11] = 0
        let sum = checksum(Array(quote[..<headerLength]))
        quote[10] = UInt8(sum >> 8)
        quote[11] = UInt8(sum & 0xFF)
    }
}
