// Probes, the uplink tracker and the accessibility decision against real
// kernels: a client namespace whose uplink `wan0` is a veth into a responder
// namespace the test made. Every probe goes to 10.9.0.0/24 or fd09::/64, which
// exist only between those two namespaces; nothing leaves them.

import CReachability
import Foundation
import LinuxReachability
import ReachabilityTestSupport
import Synchronization
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// A client namespace whose uplink leads into a responder namespace.
struct Uplink {
    let client: TestNamespace
    let responder: TestNamespace
}

extension NamespaceTestCase {
    /// client `wan0` 10.9.0.1/24 fd09::1/64 ⟷ responder `peer0` 10.9.0.2/24 fd09::2/64.
    /// The two ends know each other's MAC address (permanent neighbour
    /// entries): right after a veth comes up, the first IPv6 neighbour
    /// solicitation is lost and a first exchange would take a second.
    func makeUplink(file: StaticString = #filePath, line: UInt = #line) throws -> Uplink {
        let client = try makeNamespace(file: file, line: line)
        let responder = try makeNamespace(file: file, line: line)
        let clientMAC = "02:00:0a:09:00:01", responderMAC = "02:00:0a:09:00:02"
        client.run(["link", "add", "wan0", "address", clientMAC, "type", "veth", "peer", "name", "peer0",
                    "address", responderMAC, "netns", responder.name], file: file, line: line)
        client.run("addr add 10.9.0.1/24 dev wan0", "addr add fd09::1/64 dev wan0 nodad", "link set wan0 up",
                   "neigh replace 10.9.0.2 lladdr \(responderMAC) dev wan0 nud permanent",
                   "neigh replace fd09::2 lladdr \(responderMAC) dev wan0 nud permanent", file: file, line: line)
        responder.run("addr add 10.9.0.2/24 dev peer0", "addr add fd09::2/64 dev peer0 nodad", "link set peer0 up",
                      "neigh replace 10.9.0.1 lladdr \(clientMAC) dev peer0 nud permanent",
                      "neigh replace fd09::1 lladdr \(clientMAC) dev peer0 nud permanent", file: file, line: line)
        client.waitForState("wan0", "UP", file: file, line: line)
        return Uplink(client: client, responder: responder)
    }

    /// Whether `condition` holds within `timeout` (another thread makes it true asynchronously).
    func eventually(timeout: TimeInterval = 2, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            if Date() > deadline { return false }
            usleep(2000)
        }
        return true
    }
}

final class ProbeTests: NamespaceTestCase {
    private func prober(_ ns: TestNamespace) throws -> Prober {
        try Prober(namespace: .named(ns.name))
    }

    private func options(_ interface: String? = "wan0", timeout: Duration = .milliseconds(500)) -> ProbeOptions {
        ProbeOptions(interface: interface, timeout: timeout)
    }

    // MARK: ICMP

    func testICMPEchoAnsweredByThePeerKernelOverIPv4AndIPv6() throws {
        let uplink = try makeUplink()
        let prober = try prober(uplink.client)
        XCTAssertTrue(prober.icmpPermissions().raw, "root holds CAP_NET_RAW")
        for target in ["10.9.0.2", "fd09::2"] {
            let result = try prober.probe(IPAddress(target)!, method: .icmp, options: options())
            XCTAssertEqual(result.outcome, .answered, target)
            XCTAssertEqual(result.transport, .icmpRaw, target)
            XCTAssertNil(result.fallbackReason)
            XCTAssertEqual(result.verdict, .answered)
            let rtt = try XCTUnwrap(result.roundTrip)
            XCTAssertGreaterThan(rtt, .zero)
            XCTAssertLessThan(rtt, .milliseconds(500))
        }
        // Nobody has 10.9.0.7: no echo reply (ARP fails) within the timeout.
        let silent = try prober.probe(IPAddress("10.9.0.7")!, options: options(timeout: .milliseconds(300)))
        XCTAssertEqual(silent.outcome, .timedOut)
        XCTAssertNil(silent.roundTrip)
        XCTAssertEqual(silent.verdict, .failed)
    }

    func testRouteRefusalsAreOutcomesNotErrors() throws {
        try skipUnderEmulation("qemu-user does not pass a raw ICMP socket's options on (ENOPROTOOPT)")
        let uplink = try makeUplink()
        uplink.client.run("route add prohibit 10.8.1.0/24", "route add unreachable 10.8.2.0/24")
        let prober = try prober(uplink.client)
        let prohibited = try prober.probe(IPAddress("10.8.1.1")!, options: options(nil))
        XCTAssertEqual(prohibited.outcome, .unreachable(.permissionDenied))
        let unreachable = try prober.probe(IPAddress("10.8.2.1")!, options: options(nil))
        XCTAssertEqual(unreachable.outcome, .unreachable(.hostUnreachable))
        let noRoute = try prober.probe(IPAddress("10.8.3.1")!, options: options(nil))
        XCTAssertEqual(noRoute.outcome, .unreachable(.networkUnreachable))
        // The firewall mark selects policy rules: mark 7 is prohibited, no mark is not.
        uplink.client.run("rule add fwmark 7 prohibit pref 100")
        let marked = try prober.probe(IPAddress("10.9.0.2")!, options: ProbeOptions(mark: 7, timeout: .milliseconds(500)))
        XCTAssertEqual(marked.outcome, .unreachable(.permissionDenied))
        XCTAssertEqual(try prober.probe(IPAddress("10.9.0.2")!, options: ProbeOptions(mark: 8)).outcome, .answered)
    }

    func testBindingToAnInterfaceDecidesTheWayOut() throws {
        let uplink = try makeUplink()
        let prober = try prober(uplink.client)
        // Through lo the peer's address is not on-link: nothing answers.
        let viaLoopback = try prober.probe(IPAddress("10.9.0.2")!, options: options("lo", timeout: .milliseconds(300)))
        XCTAssertNotEqual(viaLoopback.outcome, .answered)
        XCTAssertEqual(try prober.probe(IPAddress("10.9.0.2")!, options: options("wan0")).outcome, .answered)
        // The source must be local; an unknown interface is an error, not an outcome.
        XCTAssertEqual(try prober.probe(IPAddress("10.9.0.2")!,
                                        options: ProbeOptions(source: IPAddress("10.9.0.1")!)).outcome, .answered)
        XCTAssertThrowsError(try prober.probe(IPAddress("10.9.0.2")!, options: ProbeOptions(source: IPAddress("10.9.0.99")!))) {
            XCTAssertEqual($0 as? ReachabilityError,
                           .invalidConfiguration("source", reason: "10.9.0.99 is not an address of this host"))
        }
        XCTAssertThrowsError(try prober.probe(IPAddress("10.9.0.2")!, options: options("nowhere0"))) {
            XCTAssertEqual($0 as? ReachabilityError, .unknownInterface("nowhere0"))
        }
    }

    /// Root without CAP_NET_RAW: the ping socket when ping_group_range admits
    /// gid 0, else a TCP connect; the output says which and why.
    func testWithoutCapNetRawTheProbeFallsBackAndSaysSo() throws {
        let uplink = try makeUplink()
        let listener = try TCPResponder(in: uplink.responder, address: "10.9.0.2")
        defer { listener.stop() }
        try uplink.client.setSysctl("net.ipv4.ping_group_range", "1\t0")  // the kernel's default: nobody
        let arguments = ["probe", "--netns", uplink.client.name, "--interface", "wan0", "--json",
                         "--fallback-port", String(listener.port), "10.9.0.2"]

        let withRaw = try jsonObject(try reach(arguments).stdout)
        XCTAssertEqual(withRaw["transport"] as? String, "icmp-raw")
        XCTAssertTrue(withRaw["fallback"] is NSNull)

        let tcp = try reachWithoutNetRaw(arguments)
        XCTAssertEqual(tcp.status, 0, tcp.stderr)
        let tcpObject = try jsonObject(tcp.stdout)
        XCTAssertEqual(tcpObject["transport"] as? String, "tcp-connect")
        XCTAssertEqual(tcpObject["port"] as? Int, Int(listener.port))
        XCTAssertEqual(tcpObject["outcome"] as? String, "answered")
        let reason = try XCTUnwrap(tcpObject["fallback"] as? String)
        XCTAssertTrue(reason.contains("no CAP_NET_RAW") && reason.contains("ping_group_range 1 0"), reason)
        XCTAssertEqual(listener.waitForAccepted(1), 1, "the fallback connected to the listener")

        try uplink.client.setSysctl("net.ipv4.ping_group_range", "0\t0")
        for target in ["10.9.0.2", "fd09::2"] {
            let ping = try reachWithoutNetRaw(Array(arguments.dropLast()) + [target])
            XCTAssertEqual(ping.status, 0, ping.stderr)
            let pingObject = try jsonObject(ping.stdout)
            XCTAssertEqual(pingObject["transport"] as? String, "icmp-datagram", target)
            XCTAssertEqual(pingObject["fallback"] as? String, "no CAP_NET_RAW", target)
        }
        let human = try reachWithoutNetRaw(["probe", "--netns", uplink.client.name, "10.9.0.2"])
        XCTAssertTrue(human.stdout.contains("icmp-datagram") && human.stdout.contains("fallback: no CAP_NET_RAW"), human.stdout)
    }

    // MARK: TCP, HTTP, DNS

    func testTCPConnectAnsweredRefusedAndSilent() throws {
        let uplink = try makeUplink()
        let listener = try TCPResponder(in: uplink.responder, address: "fd09::2")
        defer { listener.stop() }
        let prober = try prober(uplink.client)
        let open = try prober.probe(IPAddress("fd09::2")!, method: .tcp(port: listener.port), options: options())
        XCTAssertEqual(open.outcome, .answered)
        XCTAssertEqual(open.port, listener.port)
        XCTAssertNotNil(open.roundTrip)
        XCTAssertEqual(listener.waitForAccepted(1), 1, "accepted")
        let closedPort: UInt16 = listener.port == 9 ? 10 : 9
        let closed = try prober.probe(IPAddress("fd09::2")!, method: .tcp(port: closedPort), options: options())
        XCTAssertEqual(closed.outcome, .refused)
        XCTAssertEqual(closed.verdict, .failed, "a closed port fails a tcp:PORT probe")
        let nobody = try prober.probe(IPAddress("10.9.0.7")!, method: .tcp(port: 80), options: options(timeout: .milliseconds(300)))
        XCTAssertEqual(nobody.outcome, .timedOut)
    }

    /// What each answer of a real nginx (Debian's nginx-light, port 80 of
    /// the responder) means, read as Android's NetworkMonitor and Chromium's
    /// captive-portal detector read it, through `Prober` and the decision.
    func testHTTPVerdictsFromARealNginx() throws {
        let uplink = try makeUplink()
        _ = try startNginx(in: uplink.responder, addresses: ["10.9.0.2", "fd09::2"])
        let prober = try prober(uplink.client)
        let address = IPAddress("10.9.0.2")!
        let routed = try makeEvaluator(uplink.client).evaluate(address)
        let login = "http://portal.invalid/login"
        let cases: [(path: String, status: Int, outcome: ProbeOutcome, accessibility: Accessibility)] = [
            ("/generate_204", 204, .answered, .accessible),
            ("/empty", 200, .answered, .accessible),                   // Content-Length: 0
            ("/chunked-empty", 200, .answered, .accessible),           // a first chunk of size 0
            ("/until-close-empty", 200, .answered, .accessible),       // no length, closed at once
            ("/redirect", 302, .captivePortal(status: 302, location: login), .captive),
            ("/moved", 301, .captivePortal(status: 301, location: nil), .captive),   // an empty Location
            ("/long-redirect", 302, .captivePortal(status: 302, location: nil), .captive),   // 1100 bytes: not kept
            ("/page", 200, .captivePortal(status: 200, location: nil), .captive),    // Content-Length: 18
            ("/chunked", 200, .captivePortal(status: 200, location: nil), .captive),
            ("/until-close", 200, .captivePortal(status: 200, location: nil), .captive),
            ("/continue", 100, .unexpectedStatus(100), .restricted(.probeFailed)),
            ("/missing", 404, .unexpectedStatus(404), .restricted(.probeFailed)),
            ("/error", 500, .unexpectedStatus(500), .restricted(.probeFailed)),
            ("/auth", 511, .unexpectedStatus(511), .restricted(.probeFailed)),
        ]
        for (path, status, outcome, accessibility) in cases {
            let result = try prober.probe(address, method: ProbeMethod(parsing: "http:\(path)"), options: options())
            XCTAssertEqual(result.outcome, outcome, path)
            XCTAssertEqual(result.httpStatus, status, path)
            XCTAssertEqual(result.transport, .http, path)
            XCTAssertEqual(result.port, 80, path)
            let rtt = try XCTUnwrap(result.roundTrip, path)
            XCTAssertLessThan(rtt, .milliseconds(400), "\(path): decided without waiting for the timeout")
            XCTAssertEqual(routed.accessibility(probe: result.verdict, allowsWWAN: true), accessibility, path)
            switch outcome {
            case .answered: XCTAssertEqual(result.verdict, .answered, path)
            case .captivePortal: XCTAssertEqual(result.verdict, .captivePortal, path)
            default: XCTAssertEqual(result.verdict, .failed, path)
            }
        }
        XCTAssertEqual(try prober.probe(address, method: ProbeMethod(parsing: "http:/redirect"), options: options()).location, login)
        // Over IPv6, and with a Host of its own (nginx's server_name _ takes any).
        let six = IPAddress("fd09::2")!
        XCTAssertEqual(try prober.probe(six, method: ProbeMethod(parsing: "http:/generate_204"), options: options()).outcome,
                       .answered)
        XCTAssertEqual(try prober.probe(six, method: ProbeMethod(parsing: "http:http://portal.test/redirect"),
                                        options: options()).outcome,
                       .captivePortal(status: 302, location: login))
    }

    /// `reach probe --method http:PATH` against nginx: exit 0 only when
    /// answered; the JSON's verdict, outcome, httpStatus and location.
    func testCLIProbeHTTPVerdictsFromARealNginx() throws {
        let uplink = try makeUplink()
        let json = ["probe", "--netns", uplink.client.name, "--interface", "wan0", "--json", "--timeout", "1"]
        // Nothing listens on port 80 yet: refused, a failure.
        let refused = try reach(json + ["--method", "http:/generate_204", "10.9.0.2"])
        XCTAssertEqual(refused.status, 1, refused.stderr)
        XCTAssertEqual(try jsonObject(refused.stdout)["outcome"] as? String, "refused")
        XCTAssertEqual(try jsonObject(refused.stdout)["verdict"] as? String, "failed")

        _ = try startNginx(in: uplink.responder, addresses: ["10.9.0.2"])
        let login = "http://portal.invalid/login"
        let cases: [(path: String, exit: Int32, verdict: String, outcome: String, status: Int, location: String?)] = [
            ("/generate_204", 0, "answered", "answered", 204, nil),
            ("/empty", 0, "answered", "answered", 200, nil),
            ("/chunked-empty", 0, "answered", "answered", 200, nil),
            ("/redirect", 1, "captivePortal", "captive-portal", 302, login),
            ("/moved", 1, "captivePortal", "captive-portal", 301, nil),
            ("/long-redirect", 1, "captivePortal", "captive-portal", 302, nil),
            ("/page", 1, "captivePortal", "captive-portal", 200, nil),
            ("/chunked", 1, "captivePortal", "captive-portal", 200, nil),
            ("/until-close", 1, "captivePortal", "captive-portal", 200, nil),
            ("/continue", 1, "failed", "unexpected-status", 100, nil),
            ("/missing", 1, "failed", "unexpected-status", 404, nil),
            ("/error", 1, "failed", "unexpected-status", 500, nil),
        ]
        for (path, exit, verdict, outcome, status, location) in cases {
            let run = try reach(json + ["--method", "http:\(path)", "10.9.0.2"])
            XCTAssertEqual(run.status, exit, "\(path): \(run.stderr)")
            let object = try jsonObject(run.stdout)
            XCTAssertEqual(object["verdict"] as? String, verdict, path)
            XCTAssertEqual(object["outcome"] as? String, outcome, path)
            XCTAssertEqual(object["httpStatus"] as? Int, status, path)
            XCTAssertEqual(object["answered"] as? Bool, exit == 0, path)
            XCTAssertEqual(object["transport"] as? String, "http", path)
            XCTAssertTrue(object.keys.contains("location"), "\(path): \(object.keys.sorted())")
            if let location {
                XCTAssertEqual(object["location"] as? String, location, path)
            } else {
                XCTAssertTrue(object["location"] is NSNull, "\(path): \(object["location"] ?? "absent")")
            }
        }
        let human = ["probe", "--netns", uplink.client.name, "--method"]
        let portal = try reach(human + ["http:/redirect", "10.9.0.2"])
        XCTAssertEqual(portal.status, 1, portal.stderr)
        XCTAssertTrue(portal.stdout.hasPrefix("10.9.0.2  captive-portal 302 → \(login)  "), portal.stdout)
        XCTAssertTrue(portal.stdout.contains("  http port 80"), portal.stdout)
        let missing = try reach(human + ["http:/missing", "10.9.0.2"])
        XCTAssertEqual(missing.status, 1, missing.stderr)
        XCTAssertTrue(missing.stdout.hasPrefix("10.9.0.2  unexpected-status 404  "), missing.stdout)
        let fine = try reach(human + ["http:http://10.9.0.2/generate_204", "10.9.0.2"])
        XCTAssertEqual(fine.status, 0, fine.stderr)
        XCTAssertTrue(fine.stdout.hasPrefix("10.9.0.2  answered  "), fine.stdout)
    }

    /// Answers nginx cannot give, from the hand-written `HTTPResponder`: a
    /// head with bare LFs, one cut short, ambiguous or broken framing, a head
    /// that arrives in odd pieces, a body that runs until close and comes
    /// late or never, silence. (The name is older than the Android/Chromium
    /// reading: docs/bad-inputs.md row 83 names this test.)
    func testHTTPAnswersNoRealServerSendsAreFailedOrTimedOut() throws {
        let uplink = try makeUplink()
        let server = try HTTPResponder(in: uplink.responder, address: "10.9.0.2")
        defer { server.stop() }
        let prober = try prober(uplink.client)
        let routed = try makeEvaluator(uplink.client).evaluate(IPAddress("10.9.0.2")!)
        let method = try ProbeMethod(parsing: "http:http://portal.test:\(server.port)/generate_204")
        func probe(timeout: Duration = .milliseconds(500)) throws -> ProbeResult {
            try prober.probe(IPAddress("10.9.0.2")!, method: method, options: options(timeout: timeout))
        }
        func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

        let ok = try probe()   // the responder's first answer: 204, Content-Length: 0
        XCTAssertEqual(ok.outcome, .answered)
        XCTAssertEqual(ok.httpStatus, 204)
        let request = try XCTUnwrap(server.requests.last)
        XCTAssertTrue(request.hasPrefix("GET /generate_204 HTTP/1.1\r\n"), request)
        XCTAssertTrue(request.contains("\r\nHost: portal.test:\(server.port)\r\n"), request)

        let malformed: [(what: String, response: HTTPResponder.Response)] = [
            ("bare LF", .raw(bytes("HTTP/1.1 204 No Content\nbare-lf: yes\n\n"))),
            ("a head cut short", .raw(bytes("HTTP/1.1 302 Found\r\nLocation: http://por"))),
            ("two Content-Lengths", .raw(bytes("HTTP/1.1 200 OK\r\nContent-Length: 0\r\nContent-Length: 18\r\n\r\n"))),
            ("a Content-Length list", .raw(bytes("HTTP/1.1 200 OK\r\nContent-Length: 0, 0\r\n\r\n"))),
            ("a broken chunk size", .raw(bytes("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"))),
            ("a chunk size cut short", .raw(bytes("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n000"))),
        ]
        for (what, response) in malformed {
            server.response = response
            let result = try probe()
            XCTAssertEqual(result.outcome, .malformedAnswer, what)
            XCTAssertEqual(result.verdict, .failed, what)
        }

        // A head in odd pieces (a name, the end of the head, split) is read whole.
        server.response = .pieces([bytes("HTTP/1.1 30"), bytes("2 Found\r\nLoca"), bytes("tion: http://portal.test/split\r"),
                                   bytes("\nContent-Le"), bytes("ngth: 0\r\n\r"), bytes("\n")], pause: 0.02, hold: false)
        XCTAssertEqual(try probe().outcome, .captivePortal(status: 302, location: "http://portal.test/split"))

        // No length: the body runs until close. A byte after the head, however late, is a page...
        let open = bytes("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n")
        server.response = .pieces([open, bytes("<")], pause: 0.1, hold: true)
        let start = Date()
        let late = try probe()
        XCTAssertEqual(late.outcome, .captivePortal(status: 200, location: nil))
        XCTAssertLessThan(Date().timeIntervalSince(start), 0.45, "decided by the byte, not by the timeout")
        // ...and none before the timeout is an empty body: answered, with the time to the head.
        server.response = .pieces([open], pause: 0, hold: true)
        let held = try probe(timeout: .milliseconds(300))
        XCTAssertEqual(held.outcome, .answered)
        XCTAssertLessThan(try XCTUnwrap(held.roundTrip), .milliseconds(250))

        server.response = .silent
        let silent = try probe(timeout: .milliseconds(300))
        XCTAssertEqual(silent.outcome, .timedOut)
        XCTAssertEqual(routed.accessibility(probe: silent.verdict, allowsWWAN: true), .restricted(.probeFailed),
                       "a probe that fails while the link is up restricts")
    }

    func testDNSResolutionThroughTheInterface() throws {
        let uplink = try makeUplink()
        let server = try DNSResponder(in: uplink.responder, address: "10.9.0.2", port: 53)
        defer { server.stop() }
        server.records = ["probe.test": ["10.9.0.80"], "six.test": ["fd09::80"]]
        let prober = try prober(uplink.client)
        let address = IPAddress("10.9.0.2")!

        let found = try prober.probe(address, method: .dns(name: "probe.test", type: .a), options: options())
        XCTAssertEqual(found.outcome, .answered)
        XCTAssertEqual(found.resolvedAddress, IPAddress("10.9.0.80"))
        XCTAssertEqual(found.port, 53)
        let six = try prober.probe(address, method: .dns(name: "six.test", type: .aaaa), options: options())
        XCTAssertEqual(six.resolvedAddress, IPAddress("fd09::80"))
        let missing = try prober.probe(address, method: .dns(name: "missing.test", type: .a), options: options())
        XCTAssertEqual(missing.outcome, .noAddress(rcode: 3))
        XCTAssertEqual(missing.verdict, .failed)
        XCTAssertEqual(server.queries.map(\.name), ["probe.test", "six.test", "missing.test"])

        server.silent = true
        let silent = try prober.probe(address, method: .dns(name: "probe.test", type: .a), options: options(timeout: .milliseconds(300)))
        XCTAssertEqual(silent.outcome, .timedOut)
        // No server on the IPv6 address: the port unreachable comes back as a refusal.
        let closed = try prober.probe(IPAddress("fd09::2")!, method: .dns(name: "probe.test", type: .a), options: options())
        XCTAssertEqual(closed.outcome, .refused)

        // The CLI: TARGET is the name, --server the server.
        server.silent = false
        let cli = try reach(["probe", "--netns", uplink.client.name, "--method", "dns", "--server", "10.9.0.2",
                             "--json", "probe.test"])
        XCTAssertEqual(cli.status, 0, cli.stderr)
        let answered = try jsonObject(cli.stdout)
        XCTAssertEqual(answered["resolved"] as? String, "10.9.0.80")
        XCTAssertEqual(answered["dnsRcode"] as? Int, 0, "an answered DNS probe's rcode is 0, not null")
        let nxdomain = try reach(["probe", "--netns", uplink.client.name, "--method", "dns", "--server", "10.9.0.2",
                                  "--json", "missing.test"])
        XCTAssertEqual(try jsonObject(nxdomain.stdout)["dnsRcode"] as? Int, 3, nxdomain.stderr)
        let icmp = try reach(["probe", "--netns", uplink.client.name, "--json", "10.9.0.2"])
        XCTAssertTrue(try jsonObject(icmp.stdout)["dnsRcode"] is NSNull, "not a DNS probe: null")
    }

    // MARK: Tracker

    /// Records a tracker's events as they come.
    final class EventRecorder: Sendable {
        let events = Mutex<[TrackerEvent]>([])
        var all: [TrackerEvent] { events.withLock { $0 } }
        var states: [UplinkState] { all.map(\.state) }

        func wait(for state: UplinkState, after count: Int, timeout: TimeInterval) -> TrackerEvent? {
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                if let event = all.dropFirst(count).first(where: { $0.state == state }) { return event }
                usleep(2000)
            }
            return nil
        }
    }

    /// `onRound` sees every round with its probe results, also the rounds that
    /// change nothing (which `onEvent` does not see); `previous` is the state
    /// before the round, never nil.
    func testOnRoundGivesEveryRoundAndOnEventOnlyChanges() throws {
        let uplink = try makeUplink()
        let configuration = UplinkTracker.Configuration(
            interface: "wan0", hosts: [IPAddress("10.9.0.2")!], timeout: .milliseconds(150),
            interval: .milliseconds(100), down: 2, up: 1)
        let tracker = try UplinkTracker(configuration: configuration, namespace: .named(uplink.client.name))
        let rounds = EventRecorder(), changes = EventRecorder()
        tracker.onRound { event in rounds.events.withLock { $0.append(event) } }
        tracker.onEvent { event in changes.events.withLock { $0.append(event) } }
        try tracker.start()
        defer { tracker.stop() }
        XCTAssertTrue(eventually(timeout: 5) { rounds.all.count >= 3 }, "rounds: \(rounds.all.count)")
        XCTAssertEqual(changes.states, [.online], "good rounds change nothing")
        let good = rounds.all.prefix(3)
        XCTAssertEqual(good.map(\.round), [1, 2, 3])
        XCTAssertTrue(good.allSatisfy { $0.previous == .online && $0.state == .online && $0.results.count == 1 })
        XCTAssertTrue(good.allSatisfy { $0.results[0].outcome == .answered && $0.results[0].roundTrip != nil })

        uplink.responder.run("route add blackhole 10.9.0.1/32")
        XCTAssertNotNil(changes.wait(for: .offline, after: 1, timeout: 5), "never offline: \(changes.states)")
        let failed = rounds.all.filter { $0.results.first?.outcome == .timedOut }
        XCTAssertGreaterThanOrEqual(failed.count, 2)
        XCTAssertEqual(changes.states, [.online, .disconnecting, .offline])
        // Every change was also a round, with the same round number.
        for change in changes.all.dropFirst() {
            XCTAssertTrue(rounds.all.contains { $0.round == change.round && $0.state == change.state }, "\(change)")
        }
    }

    /// Interval 0.5 s, down 3, up 2: a blackhole in the peer takes the uplink
    /// offline within 2 s, after exactly `down` failed rounds; removing it
    /// brings it back after `up` good ones.
    func testTrackerGoesOfflineAfterDownFailedRoundsAndBackAfterUpGoodOnes() throws {
        let uplink = try makeUplink()
        let configuration = UplinkTracker.Configuration(
            interface: "wan0", hosts: [IPAddress("10.9.0.2")!], timeout: .milliseconds(400),
            interval: .milliseconds(500), down: 3, up: 2)
        let tracker = try UplinkTracker(configuration: configuration, namespace: .named(uplink.client.name))
        let recorder = EventRecorder()
        tracker.onEvent { event in recorder.events.withLock { $0.append(event) } }
        try tracker.start()
        defer { tracker.stop() }
        XCTAssertEqual(recorder.states, [.online], "the initial state")
        // Let a few good rounds pass: no events while online.
        Thread.sleep(forTimeInterval: 1.2)
        XCTAssertEqual(recorder.states, [.online])

        let killed = creach_monotonic_ns()
        uplink.responder.run("route add blackhole 10.9.0.1/32")
        let offline = try XCTUnwrap(recorder.wait(for: .offline, after: 1, timeout: 5), "never offline: \(recorder.states)")
        let detection = Double(offline.time.nanoseconds - killed) / 1e9
        print("tracker: offline \(String(format: "%.3f", detection)) s after the blackhole")
        XCTAssertLessThan(detection, 2.0, "interval 0.5 s, down 3: offline within 2 s")
        XCTAssertEqual(recorder.states, [.online, .disconnecting, .offline])
        let disconnecting = recorder.all[1]
        XCTAssertEqual(offline.round - disconnecting.round, 2, "3 failed rounds: the first disconnects, the third is offline")
        XCTAssertEqual(offline.score, 0)
        XCTAssertEqual(offline.results.map(\.outcome), [.timedOut])
        XCTAssertEqual(tracker.state, .offline)

        let healed = creach_monotonic_ns()
        uplink.responder.run("route del blackhole 10.9.0.1/32")
        let online = try XCTUnwrap(recorder.wait(for: .online, after: 3, timeout: 5), "never back: \(recorder.states)")
        print("tracker: online \(String(format: "%.3f", Double(online.time.nanoseconds - healed) / 1e9)) s after the repair")
        XCTAssertEqual(recorder.states, [.online, .disconnecting, .offline, .connecting, .online])
        XCTAssertEqual(online.round - recorder.all[3].round, 1, "up 2: two good rounds")
        XCTAssertEqual(online.score, 5)
    }

    /// A round probes its hosts at once, so the bound README states
    /// (interval + (down − 1) × interval + count × timeout: 1.9 s here) holds
    /// for 1, 2 and 8 hosts that all go dead; probed one after another, 2
    /// hosts took 2.8 s and 8 hosts about 10 s.
    func testTrackerGoesOfflineWithinTheBoundWhateverTheNumberOfDeadHosts() throws {
        let bound = 0.5 + 2 * 0.5 + 0.4
        var timings: [String] = []
        for count in [1, 2, 8] {
            let uplink = try makeUplink()
            let hosts = (2 ..< 2 + count).map { IPAddress("10.9.0.\($0)")! }
            for host in hosts.dropFirst() {
                uplink.responder.run("addr add \(host)/24 dev peer0")
                uplink.client.run("neigh replace \(host) lladdr 02:00:0a:09:00:02 dev wan0 nud permanent")
            }
            let configuration = UplinkTracker.Configuration(
                interface: "wan0", hosts: hosts, timeout: .milliseconds(400), interval: .milliseconds(500), down: 3, up: 2)
            let tracker = try UplinkTracker(configuration: configuration, namespace: .named(uplink.client.name))
            let recorder = EventRecorder()
            tracker.onEvent { event in recorder.events.withLock { $0.append(event) } }
            try tracker.start()
            defer { tracker.stop() }
            let killed = creach_monotonic_ns()
            uplink.responder.run("route add blackhole 10.9.0.1/32")   // no host's answer comes back
            let offline = try XCTUnwrap(recorder.wait(for: .offline, after: 1, timeout: 12),
                                        "\(count) hosts: never offline: \(recorder.states)")
            let detection = Double(offline.time.nanoseconds - killed) / 1e9
            timings.append("\(count) dead host\(count == 1 ? "" : "s"): \(String(format: "%.3f", detection)) s")
            XCTAssertLessThan(detection, bound + 0.25, "\(count) hosts: offline later than the bound \(bound) s")
            XCTAssertEqual(offline.results.count, count, "every host probed in the round")
            XCTAssertTrue(offline.results.allSatisfy { $0.outcome == .timedOut })
        }
        print("tracker, interval 0.5 s, down 3, timeout 0.4 s (bound \(bound) s): " + timings.joined(separator: ", "))
    }

    func testTrackerReliabilityCountsAnsweringHosts() throws {
        let uplink = try makeUplink()
        let hosts = [IPAddress("10.9.0.7")!, IPAddress("10.9.0.2")!]  // the first never answers
        func run(reliability: Int) throws -> [UplinkState] {
            let configuration = UplinkTracker.Configuration(
                interface: "wan0", hosts: hosts, reliability: reliability, count: 2, timeout: .milliseconds(100),
                interval: .milliseconds(100), down: 2, up: 1)
            let tracker = try UplinkTracker(configuration: configuration, namespace: .named(uplink.client.name))
            let recorder = EventRecorder()
            tracker.onEvent { event in recorder.events.withLock { $0.append(event) } }
            try tracker.start()
            _ = recorder.wait(for: .offline, after: 1, timeout: 2)
            tracker.stop()
            return recorder.states
        }
        XCTAssertEqual(try run(reliability: 1), [.online], "one answering host is enough")
        XCTAssertEqual(try run(reliability: 2), [.online, .disconnecting, .offline], "both must answer")
    }

    func testTrackStopsPromptlyEvenInTheMiddleOfAProbe() throws {
        let uplink = try makeUplink()
        let configuration = UplinkTracker.Configuration(interface: "wan0", hosts: [IPAddress("10.9.0.7")!],
                                                        timeout: .seconds(30), interval: .seconds(30))
        let tracker = try UplinkTracker(configuration: configuration, namespace: .named(uplink.client.name))
        try tracker.start()
        Thread.sleep(forTimeInterval: 0.2)
        let before = creach_monotonic_ns()
        tracker.stop()
        XCTAssertLessThan(creach_monotonic_ns() - before, 1_000_000_000, "stop cancels the 30 s probe")
        tracker.stop()
    }

    /// The peer down takes wan0's carrier: offline from the kernel's link
    /// message ("carrier lost"), not after --down failed rounds (20 of them
    /// would take 4 s; the kernel's linkwatch sends the message within 1 s).
    /// A round that timed out before the message came may say disconnecting first.
    func testCLITrackPrintsStateChanges() throws {
        let uplink = try makeUplink()
        let track = try startReach(["track", "--netns", uplink.client.name, "--interface", "wan0", "--host", "10.9.0.2",
                                    "--interval", "0.2", "--timeout", "0.15", "--down", "20", "--up", "1", "--json"])
        let first = track.waitForLines(1)
        XCTAssertEqual(first.count, 1, track.stderr)
        uplink.responder.run("link set peer0 down")
        var lines = track.waitForLines(2, timeout: 5)
        if lines.count == 2, (try? jsonObject(lines[1])["state"] as? String) == "disconnecting" {
            lines = track.waitForLines(3, timeout: 5)
        }
        let objects = try lines.map { try jsonObject($0) }
        let states = objects.map { $0["state"] as? String }
        XCTAssertTrue(states == ["online", "offline"] || states == ["online", "disconnecting", "offline"],
                      "lines: \(lines) stderr: \(track.stderr)")
        let offline = try XCTUnwrap(objects.last)
        XCTAssertEqual(offline["verdict"] as? String, "down")
        XCTAssertEqual(offline["detail"] as? String, "carrier lost")
        XCTAssertEqual(offline["failovers"] as? Int, 1)
        XCTAssertEqual(objects.first?["verdict"] as? String, "healthy")
        XCTAssertEqual(objects.map { $0["initial"] as? Bool }.first, true)
        XCTAssertEqual(Set(objects[0].keys), ["interface", "state", "previous", "initial", "score", "round", "time_ns",
                                              "verdict", "previous_verdict", "usable", "detail", "failovers", "quality",
                                              "probes", "error"])
        uplink.responder.run("link set peer0 up")
        let back = track.waitForLines(lines.count + 1, timeout: 5)
        XCTAssertEqual(try back.last.map { try jsonObject($0)["state"] as? String }, "online", "\(back)")
        XCTAssertEqual(try back.last.map { try jsonObject($0)["verdict"] as? String }, "healthy", "\(back)")
    }

    /// SIGTERM (what systemd, `kill` and container runtimes send) stops
    /// `watch` and `track` cleanly with exit status 0; before, the signal's
    /// default killed them (status 143 in a shell).
    func testCLIWatchAndTrackExitZeroOnSIGTERM() throws {
        let uplink = try makeUplink()
        let commands = [
            ["watch", "--netns", uplink.client.name, "10.9.0.2"],
            ["track", "--netns", uplink.client.name, "--interface", "wan0", "--host", "10.9.0.2", "--interval", "0.2"],
        ]
        for arguments in commands {
            let running = try startReach(arguments)
            XCTAssertEqual(running.waitForLines(1).count, 1, "\(arguments[0]): \(running.stderr)")
            kill(running.pid, SIGTERM)
            XCTAssertEqual(running.waitForExit(timeout: 5), 0, "\(arguments[0]) after SIGTERM: \(running.stderr)")
        }
    }

    // MARK: Accessibility and policy

    func testUIDProhibitRuleRestrictsWithItsReason() throws {
        let uplink = try makeUplink()
        uplink.client.run("rule add uidrange 1000-1000 prohibit pref 100")
        let evaluator = try makeEvaluator(uplink.client)
        let address = IPAddress("10.9.0.2")!
        let restricted = try evaluator.evaluate(address, options: LookupOptions(uid: 1000))
        XCTAssertEqual(restricted.accessibility, .restricted(.prohibited))
        XCTAssertEqual(restricted.unsatisfiedReason, .prohibited)
        XCTAssertEqual(restricted.mask, .unavailable)
        let allowed = try evaluator.evaluate(address, options: LookupOptions(uid: 1001))
        XCTAssertEqual(allowed.accessibility, .accessible)
        XCTAssertEqual(allowed.mask, .wired)
        XCTAssertNil(allowed.unsatisfiedReason)

        let cli = try reach(["check", "--netns", uplink.client.name, "--uid", "1000", "--json", "10.9.0.2"])
        XCTAssertEqual(cli.status, 1)
        let object = try jsonObject(cli.stdout)
        XCTAssertEqual(object["accessibility"] as? String, "restricted.prohibited")
        XCTAssertEqual(object["mask"] as? String, "unavailable")
        XCTAssertEqual(object["unsatisfiedReason"] as? String, "prohibited")
    }

    func testWWANRefusedByPolicyIsRestricted() throws {
        let ns = try makeNamespace()
        ns.addVethPair("wwan0", peer: "wwanpeer", address: "10.5.0.1/24")
        ns.run("route add default via 10.5.0.254")
        let namespace = NetworkNamespace.named(ns.name)
        let allowed = try ReachabilityEvaluator(namespace: namespace, radio: RadioSource(["wwan0": .lte]))
            .evaluate(Target.internetProbeAddresses[0])
        XCTAssertEqual(allowed.interfaceKind, .wwan)
        XCTAssertEqual(allowed.accessibility, .accessible)
        XCTAssertEqual(allowed.mask, .wwan4G)
        XCTAssertTrue(allowed.isExpensive)
        let refused = try ReachabilityEvaluator(namespace: namespace, policy: ReachabilityPolicy(allowsWWAN: false))
            .evaluate(Target.internetProbeAddresses[0])
        XCTAssertEqual(refused.accessibility, .restricted(.wwanRefused))
        XCTAssertEqual(refused.mask, .wwanRefused)
        XCTAssertEqual(refused.unsatisfiedReason, .wwanRefused)
        XCTAssertTrue(ReachabilityMask.notReachable.contains(refused.mask))

        let cli = try reach(["check", "--netns", ns.name, "--allow-wwan", "false", "--json", "8.8.8.8"])
        let object = try jsonObject(cli.stdout)
        XCTAssertEqual(object["accessibility"] as? String, "restricted.wwanRefused")
        XCTAssertEqual(object["mask"] as? String, "wwanRefused")
        let radio = try jsonObject(try reach(["check", "--netns", ns.name, "--radio", "wwan0=NR5G", "--json", "8.8.8.8"]).stdout)
        XCTAssertEqual(radio["mask"] as? String, "wwan5G")
        XCTAssertEqual(radio["accessibility"] as? String, "accessible")
        XCTAssertEqual(radio["isExpensive"] as? Bool, true)
    }

    func testOnDemandPolicyAddsItsFlagWhenTheLinkIsDown() throws {
        let ns = try makeNamespace()
        ns.addVethPair("ppp0", peer: "ppppeer", address: "10.6.0.1/24")
        ns.run("link set ppppeer down")
        ns.waitForState("ppp0", "LOWERLAYERDOWN")
        let evaluator = try ReachabilityEvaluator(namespace: .named(ns.name),
                                                  policy: ReachabilityPolicy(onDemandInterfaces: ["ppp*"]))
        let answer = try evaluator.evaluate(IPAddress("10.6.0.9")!)
        XCTAssertTrue(answer.flags.contains(.connectionRequired))
        XCTAssertTrue(answer.flags.contains(.connectionOnDemand))
        XCTAssertTrue(answer.status.isReachable, "on demand connects by itself: reachable (Apple's rule), \(answer.status)")
    }
}
