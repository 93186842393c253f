// The `reach` binary, run as a user would, against a namespace of the test's
// own (every invocation names it with --netns: nothing asks the host's FIB).

import Foundation
import XCTest

#if canImport(Glibc)
import Glibc
#endif

final class CLITests: NamespaceTestCase {

    /// The built `reach`: REACH_BINARY if set, else next to the test bundle
    /// (SwiftPM's products directory holds both).
    private func reachBinary(file: StaticString = #filePath, line: UInt = #line) throws -> URL {
        if let explicit = ProcessInfo.processInfo.environment["REACH_BINARY"] {
            let url = URL(fileURLWithPath: explicit)
            guard FileManager.default.isExecutableFile(atPath: url.path) else {
                XCTFail("REACH_BINARY=\(explicit) is not an executable file", file: file, line: line)
                throw TestStopped(reason: "no reach binary")
            }
            return url
        }
        var candidates: [URL] = []
        // On Linux the test bundle is an executable: its directory is the products directory.
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        candidates.append(executable.deletingLastPathComponent())
        if let bundleExecutable = Bundle.main.executableURL?.resolvingSymlinksInPath() {
            candidates.append(bundleExecutable.deletingLastPathComponent())
        }
        // A bundle directory (`X.xctest/`), as on Darwin: its parent.
        for url in [executable, Bundle.main.bundleURL] where url.pathExtension == "xctest" {
            candidates.append(url.deletingLastPathComponent())
        }
        for directory in candidates {
            let reach = directory.appendingPathComponent("reach")
            if FileManager.default.isExecutableFile(atPath: reach.path) { return reach }
        }
        XCTFail("the `reach` binary is not next to the test bundle (looked in \(candidates.map(\.path))); "
                + "build it first (`swift build --build-tests`) or set REACH_BINARY", file: file, line: line)
        throw TestStopped(reason: "no reach binary")
    }

    private func reach(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> CommandResult {
        try runCommand(try reachBinary(file: file, line: line), arguments)
    }

    /// The one JSON object of a `--json` line.
    private func jsonObject(_ text: String, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: true)
        XCTAssertEqual(lines.count, 1, "expected one JSON line, got: \(text)", file: file, line: line)
        let data = Data((lines.first.map(String.init) ?? "").utf8)
        let object = try JSONSerialization.jsonObject(with: data)
        return try XCTUnwrap(object as? [String: Any], "not a JSON object: \(text)", file: file, line: line)
    }

    /// va 10.1.0.1/24 ⟷ vb, default route via 10.1.0.254, blackhole 10.2.0.0/16.
    private func makeLAN() throws -> TestNamespace {
        let ns = try makeNamespace()
        ns.run("link add va type veth peer name vb",
               "addr add 10.1.0.1/24 dev va",
               "link set va up",
               "link set vb up",
               "route add default via 10.1.0.254",
               "route add blackhole 10.2.0.0/16")
        ns.waitForState("va", "UP")
        return ns
    }

    func testCheckOnLinkAddressAsJSON() throws {
        let ns = try makeLAN()
        let result = try reach(["check", "10.1.0.7", "--netns", ns.name, "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stderr, "")
        let object = try jsonObject(result.stdout)

        XCTAssertEqual(object["target"] as? String, "10.1.0.7")
        XCTAssertEqual(object["address"] as? String, "10.1.0.7")
        XCTAssertEqual(object["family"] as? String, "ipv4")
        XCTAssertEqual(object["reachable"] as? Bool, true)
        XCTAssertEqual(object["status"] as? String, "reachable.wired")
        XCTAssertEqual(object["networkStatus"] as? String, "reachableViaWiFi")
        XCTAssertEqual(object["pathStatus"] as? String, "satisfied")
        XCTAssertEqual(object["flags"] as? Int, (1 << 1) | (1 << 17))
        XCTAssertEqual(object["flagNames"] as? [String], ["reachable", "isDirect"])
        XCTAssertEqual(object["flagString"] as? String, "-R ------d")
        XCTAssertEqual(object["interface"] as? String, "va")
        XCTAssertEqual(object["interfaceKind"] as? String, "wired")
        XCTAssertEqual(object["linkKind"] as? String, "veth")
        XCTAssertEqual(object["operState"] as? String, "up")
        XCTAssertTrue(object["gateway"] is NSNull, "gateway: \(String(describing: object["gateway"]))")
        XCTAssertEqual(object["source"] as? String, "10.1.0.1")
        XCTAssertEqual(object["route"] as? String, "unicast")
        XCTAssertEqual(object["table"] as? Int, 254)
        XCTAssertTrue(object["error"] is NSNull)
        XCTAssertNil(object["addresses"], "an address target has no addresses array")
        // The index is the one ip reports for va.
        let index = ns.linkLine("va").split(separator: ":").first.map { $0.trimmingCharacters(in: .whitespaces) }
        XCTAssertEqual((object["interfaceIndex"] as? Int).map(String.init), index)
    }

    func testUnresolvedHostHasTheSameJSONKeysAsAnAnswer() throws {
        let ns = try makeNamespaceWhereDNSCannotLeave()
        let result = try reach(["check", "no-such-host.invalid", "127.0.0.1", "--netns", ns.name, "--json", "--timeout", "5"])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertEqual(result.stdoutLines.count, 2, result.stdout)
        let unresolved = try jsonObject(String(result.stdoutLines[0]))
        let answered = try jsonObject(String(result.stdoutLines[1]))

        // One schema: the unresolved name has every key an answer has (plus `addresses`).
        XCTAssertEqual(Set(unresolved.keys).subtracting(["addresses"]), Set(answered.keys))
        XCTAssertEqual(unresolved["reachable"] as? Bool, false)
        XCTAssertEqual(unresolved["route"] as? String, "unresolved")
        XCTAssertEqual(unresolved["flags"] as? Int, 0)
        XCTAssertTrue(unresolved["address"] is NSNull)
        XCTAssertTrue(unresolved["table"] is NSNull)
        XCTAssertEqual((unresolved["addresses"] as? [Any])?.count, 0)
        let error = try XCTUnwrap(unresolved["error"] as? String, "an unresolved name says why")
        XCTAssertTrue(error.contains("no-such-host.invalid"), error)
        XCTAssertEqual(answered["route"] as? String, "local")
    }

    func testCheckViaGatewayAndHumanOutput() throws {
        let ns = try makeLAN()
        let json = try jsonObject(try reach(["check", "198.51.100.7", "--netns", ns.name, "--json"]).stdout)
        XCTAssertEqual(json["gateway"] as? String, "10.1.0.254")
        XCTAssertEqual(json["flagString"] as? String, "-R -------")

        let human = try reach(["check", "198.51.100.7", "--netns", ns.name])
        XCTAssertEqual(human.status, 0, human.stderr)
        XCTAssertEqual(human.stdoutLines.count, 1, human.stdout)
        XCTAssertTrue(human.stdout.contains("via 10.1.0.254 dev va"), human.stdout)
        XCTAssertTrue(human.stdout.contains("reachable.wired"), human.stdout)
    }

    func testUnreachableTargetExitsOne() throws {
        let ns = try makeLAN()
        let result = try reach(["check", "10.2.0.9", "--netns", ns.name, "--json"])
        XCTAssertEqual(result.status, 1, result.stderr)
        let object = try jsonObject(result.stdout)
        XCTAssertEqual(object["reachable"] as? Bool, false)
        XCTAssertEqual(object["status"] as? String, "notReachable")
        XCTAssertEqual(object["route"] as? String, "blackhole")
        XCTAssertEqual(object["flags"] as? Int, 0)
        XCTAssertEqual(object["flagNames"] as? [String], [])
        XCTAssertEqual(object["flagString"] as? String, "-- -------")
        XCTAssertTrue(object["interface"] is NSNull)
        XCTAssertTrue(object["table"] is NSNull)
        XCTAssertEqual(object["error"] as? String, "Invalid argument")

        // One reachable and one unreachable target: exit 1, one line each.
        let mixed = try reach(["check", "10.1.0.7", "10.2.0.9", "--netns", ns.name, "--json"])
        XCTAssertEqual(mixed.status, 1)
        XCTAssertEqual(mixed.stdoutLines.count, 2, mixed.stdout)
    }

    func testBadInputExitsTwoWithOneLine() throws {
        let ns = try makeLAN()
        let missingNamespace = "\(TestNamespace.prefix)does-not-exist-\(getpid())"
        let cases: [[String]] = [
            ["check", "not_an_address!", "--netns", ns.name],
            ["check", "10.1.0.7", "--uid", "-1", "--netns", ns.name],
            ["check", "10.1.0.7", "--uid=-1", "--netns", ns.name],
            ["check", "10.1.0.7", "--interface", "", "--netns", ns.name],
            ["check", "10.1.0.7", "--interface", "waytoolonginterfacename", "--netns", ns.name],
            ["check", "10.1.0.7", "--netns", missingNamespace],
            ["check", "10.1.0.7", "--kind", "va=banana", "--netns", ns.name],
            ["check", "10.1.0.7", "--mark", "seven", "--netns", ns.name],
            ["check", "10.1.0.7", "--interface", "nosuch0", "--netns", ns.name],
        ]
        for arguments in cases {
            let result = try reach(arguments)
            let command = "reach " + arguments.map { $0.isEmpty ? "''" : $0 }.joined(separator: " ")
            XCTAssertEqual(result.status, 2, "\(command): stdout \(result.stdout) stderr \(result.stderr)")
            XCTAssertEqual(result.stderrLines.count, 1, "\(command): stderr \(result.stderr)")
            XCTAssertEqual(result.stdout, "", command)
        }
        // The messages name the problem.
        let namespace = try reach(["check", "10.1.0.7", "--netns", missingNamespace])
        XCTAssertTrue(namespace.stderr.contains(missingNamespace), namespace.stderr)
        let kind = try reach(["check", "10.1.0.7", "--kind", "va=banana", "--netns", ns.name])
        XCTAssertTrue(kind.stderr.contains("banana"), kind.stderr)
    }

    func testOptionsReachTheKernel() throws {
        let ns = try makeLAN()
        ns.run("link add vc type veth peer name vd", "addr add 10.3.0.1/24 dev vc", "link set vc up", "link set vd up",
               "rule add uidrange 1234-1234 table 100", "route add default via 10.3.0.254 dev vc table 100",
               "rule add fwmark 7 table 200", "route add default via 10.3.0.254 dev vc table 200",
               "rule add uidrange 2000-2000 prohibit")
        ns.waitForState("vc", "UP")

        let uid = try jsonObject(try reach(["check", "198.51.100.7", "--uid", "1234", "--netns", ns.name, "--json"]).stdout)
        XCTAssertEqual(uid["interface"] as? String, "vc")
        XCTAssertEqual(uid["table"] as? Int, 100)
        let mark = try jsonObject(try reach(["check", "198.51.100.7", "--mark", "0x7", "--netns", ns.name, "--json"]).stdout)
        XCTAssertEqual(mark["interface"] as? String, "vc")
        XCTAssertEqual(mark["table"] as? Int, 200)
        let bound = try jsonObject(try reach(["check", "198.51.100.7", "--interface", "vc", "--netns", ns.name, "--json"]).stdout)
        XCTAssertEqual(bound["interface"] as? String, "vc")
        XCTAssertTrue(bound["gateway"] is NSNull)

        let prohibited = try reach(["check", "198.51.100.7", "--uid", "2000", "--netns", ns.name, "--json"])
        XCTAssertEqual(prohibited.status, 1)
        let object = try jsonObject(prohibited.stdout)
        XCTAssertEqual(object["route"] as? String, "prohibit")
        XCTAssertEqual(object["error"] as? String, "Permission denied")
    }

    func testKindOverrideMakesWWAN() throws {
        let ns = try makeLAN()
        let result = try reach(["check", "10.1.0.7", "--kind", "va=wwan", "--netns", ns.name, "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let object = try jsonObject(result.stdout)
        XCTAssertEqual(object["interfaceKind"] as? String, "wwan")
        XCTAssertEqual(object["status"] as? String, "reachable.wwan")
        XCTAssertEqual(object["flagString"] as? String, "WR ------d")
        XCTAssertEqual(object["flagNames"] as? [String], ["reachable", "isDirect", "isWWAN"])
    }

    func testOverviewListsInterfacesWithKinds() throws {
        let ns = try makeLAN()
        ns.run("tuntap add mode tun name tun0", "link add wwan0 type veth peer name wwanpeer")
        let result = try reach(["--netns", ns.name, "--json"])
        XCTAssertEqual(result.status, 0, "the IPv4 default route makes the internet reachable: \(result.stderr)")
        let object = try jsonObject(result.stdout)

        let internet = try XCTUnwrap(object["internet"] as? [String: Any])
        XCTAssertEqual(internet["target"] as? String, "internet")
        XCTAssertEqual(internet["reachable"] as? Bool, true)
        XCTAssertEqual((internet["addresses"] as? [Any])?.count, 2)

        let interfaces = try XCTUnwrap(object["interfaces"] as? [[String: Any]])
        var kinds: [String: String] = [:]
        for interface in interfaces {
            if let name = interface["interface"] as? String { kinds[name] = interface["interfaceKind"] as? String }
        }
        // The built-in pattern `wwan*` covers the peer's name too.
        XCTAssertEqual(kinds, ["lo": "loopback", "va": "wired", "vb": "wired", "tun0": "tunnel",
                               "wwan0": "wwan", "wwanpeer": "wwan"])
        let va = try XCTUnwrap(interfaces.first { $0["interface"] as? String == "va" })
        XCTAssertEqual(va["linkKind"] as? String, "veth")
        XCTAssertEqual(va["up"] as? Bool, true)
        XCTAssertEqual(va["operational"] as? Bool, true)
        XCTAssertEqual(va["addresses"] as? [String], ["10.1.0.1/24"])
        let tun = try XCTUnwrap(interfaces.first { $0["interface"] as? String == "tun0" })
        XCTAssertEqual(tun["pointToPoint"] as? Bool, true)
        XCTAssertEqual(tun["up"] as? Bool, false)
    }

    func testInternetTargetHasBothFamilies() throws {
        let ns = try makeLAN()
        let result = try reach(["check", "internet", "--netns", ns.name, "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let object = try jsonObject(result.stdout)
        XCTAssertEqual(object["target"] as? String, "internet")
        XCTAssertEqual(object["reachable"] as? Bool, true)
        let addresses = try XCTUnwrap(object["addresses"] as? [[String: Any]])
        XCTAssertEqual(addresses.count, 2)
        XCTAssertEqual(addresses.compactMap { $0["family"] as? String }, ["ipv4", "ipv6"])
        // IPv4 leaves by the default route; IPv6 has none in this namespace.
        XCTAssertEqual(addresses.first?["gateway"] as? String, "10.1.0.254")
        XCTAssertEqual(addresses.first?["reachable"] as? Bool, true)
        XCTAssertEqual(addresses.last?["route"] as? String, "noRoute")
        XCTAssertEqual(addresses.last?["reachable"] as? Bool, false)
        // The target's own fields are those of its primary (reachable) address.
        XCTAssertEqual(object["address"] as? String, addresses.first?["address"] as? String)
    }
}
