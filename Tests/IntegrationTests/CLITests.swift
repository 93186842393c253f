// The `reach` binary, run as a user would, against a namespace of the test's
// own (every invocation names it with --netns: nothing asks the host's FIB).

import CReachability
import Foundation
import ReachabilityCore
import ReachabilityTesting   // runCommand, ipExecutable
import ReachabilityTestSupport
import XCTest

#if canImport(Glibc)
import Glibc
#endif

final class CLITests: NamespaceTestCase {
    /// README lists every option of every subcommand (`reach SUB --help` is
    /// the truth): an option added to the CLI without a word in README fails here.
    func testREADMEMentionsEveryOptionOfEverySubcommand() throws {
        let readme = try String(contentsOfFile: URL(fileURLWithPath: "\(#filePath)").deletingLastPathComponent()
            .appendingPathComponent("../../README.md").path, encoding: .utf8)
        let option = try NSRegularExpression(pattern: "--[a-z][a-z0-9-]+")
        var missing: [String] = []
        for subcommand in ["status", "check", "watch", "wait", "probe", "track", "modems"] {
            let help = try reach([subcommand, "--help"])
            XCTAssertEqual(help.status, 0, help.stderr)
            let text = help.stdout as NSString
            let options = Set(option.matches(in: help.stdout, range: NSRange(location: 0, length: text.length))
                .map { text.substring(with: $0.range) })
            XCTAssertFalse(options.isEmpty, subcommand)
            for name in options.sorted() where name != "--help" && !readme.contains(name) {
                missing.append("\(subcommand) \(name)")
            }
        }
        XCTAssertEqual(missing, [], "options README does not mention")
    }

    /// One version: `reach --version` is `ReachabilityPackage.version`, which
    /// CHANGELOG.md has an entry for (Packaging/version.sh, which `make deb`
    /// runs, reads the same two places).
    func testVersionIsThePackagesOneVersionWithAChangelogEntry() throws {
        let version = try reach(["--version"])
        XCTAssertEqual(version.status, 0, version.stderr)
        XCTAssertEqual(version.stdout, ReachabilityPackage.version + "\n")
        let changelog = try String(contentsOfFile: URL(fileURLWithPath: "\(#filePath)").deletingLastPathComponent()
            .appendingPathComponent("../../CHANGELOG.md").path, encoding: .utf8)
        XCTAssertTrue(changelog.contains("\n## [\(ReachabilityPackage.version)] - "),
                      "CHANGELOG.md has no entry for \(ReachabilityPackage.version)")
        let script = try runCommand(URL(fileURLWithPath: "/bin/sh"), [URL(fileURLWithPath: "\(#filePath)")
            .deletingLastPathComponent().appendingPathComponent("../../Packaging/version.sh").path])
        XCTAssertEqual(script.stdout, ReachabilityPackage.version + "\n", script.stderr)
    }

    /// README: with `--interface`, a target of a family with no route through
    /// it (IPv6 over an IPv4-only uplink) is not reachable there, so `wait`
    /// exits 1 at its timeout, naming it (and `--json` prints its last state).
    func testWaitWithAnInterfaceAndATargetOfAnotherFamilyExitsOneAtTheTimeout() throws {
        let ns = try makeNamespace()
        ns.addVethPair("va", peer: "vb", address: "10.1.0.1/24")
        ns.run("route add default via 10.1.0.254")
        let result = try reach(["wait", "2001:db8::1", "--interface", "va", "--timeout", "0.5", "--json", "--netns", ns.name])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertEqual(result.stderrLines, ["reach: timed out after 0.5 s; not reachable: 2001:db8::1"])
        XCTAssertEqual(try jsonObject(result.stdout)["status"] as? String, "notReachable")
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

    func testCheckWithASourceShowsThatSourceInJSON() throws {
        let ns = try makeLAN()
        ns.run("addr add 10.1.0.2/24 dev va")
        let plain = try jsonObject(try reach(["check", "10.1.0.7", "--netns", ns.name, "--json"]).stdout)
        XCTAssertEqual(plain["source"] as? String, "10.1.0.1", "the kernel's preferred source")
        let result = try reach(["check", "10.1.0.7", "--source", "10.1.0.2", "--netns", ns.name, "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try jsonObject(result.stdout)["source"] as? String, "10.1.0.2",
                       "the source the lookup named (the kernel sends no preferred source then)")
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

    func testJSONEscapesAQuoteAndABackslashInAnInterfaceName() throws {
        let ns = try makeNamespace()
        // The kernel refuses only '/', ':' and white space in a link's name.
        for (name, peer, prefix, escaped) in [(#"q"b"#, "qp", "10.8.0", #""interface":"q\"b""#),
                                              (#"q\b"#, "qs", "10.9.0", #""interface":"q\\b""#)] {
            ns.run("link add \(name) type veth peer name \(peer)", "addr add \(prefix).1/24 dev \(name)",
                   "link set \(name) up", "link set \(peer) up")
            let result = try reach(["check", "\(prefix).5", "--netns", ns.name, "--json"])
            XCTAssertTrue(result.stdout.contains(escaped), result.stdout)
            XCTAssertEqual(try jsonObject(result.stdout)["interface"] as? String, name)
        }
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

        // A throw route without fallback: the text and the JSON say `throw`.
        ns.run("route add throw 10.9.0.0/16")
        let thrown = try reach(["check", "10.9.0.9", "--netns", ns.name])
        XCTAssertEqual(thrown.status, 1, thrown.stderr)
        XCTAssertTrue(thrown.stdout.contains("route throw  (Network is unreachable)  table 254"), thrown.stdout)
        let thrownJSON = try jsonObject(try reach(["check", "10.9.0.9", "--netns", ns.name, "--json"]).stdout)
        XCTAssertEqual(thrownJSON["route"] as? String, "throw")
        XCTAssertEqual(thrownJSON["table"] as? Int, 254, "the table whose throw route sent the lookup on")

        // One reachable and one unreachable target: exit 1, one line each.
        let mixed = try reach(["check", "10.1.0.7", "10.2.0.9", "--netns", ns.name, "--json"])
        XCTAssertEqual(mixed.status, 1)
        XCTAssertEqual(mixed.stdoutLines.count, 2, mixed.stdout)
    }

    /// `reach check` of addresses and `internet` with no option but --json is
    /// answered without the argument parser (QuickCheck, for start-up); the
    /// same targets through the parser (any other option takes that path) must
    /// print the same bytes and exit with the same status.
    func testQuickCheckAnswersExactlyAsTheParserDoes() throws {
        let ns = try makeLAN()
        ns.run("route add throw 10.9.0.0/16")
        let binary = try reachBinary().path
        let ip = try XCTUnwrap(ipExecutable)
        let cases: [([String], Int32)] = [
            (["10.1.0.7"], 0),
            (["10.1.0.7", "198.51.100.7", "internet"], 0),
            (["10.1.0.7", "10.2.0.9", "10.9.0.9", "::1", "127.0.0.1"], 1),
        ]
        for (targets, status) in cases {
            for json in [false, true] {
                let quick = ["check"] + targets + (json ? ["--json"] : [])
                let inside = try runCommand(ip, ["netns", "exec", ns.name, binary] + quick)
                let parsed = try reach(quick + ["--netns", ns.name, "--resolve-timeout", "5"])
                XCTAssertEqual(inside.status, status, "\(quick): \(inside.stderr)")
                XCTAssertEqual(parsed.status, status, "\(quick) through the parser: \(parsed.stderr)")
                XCTAssertEqual(inside.stdout, parsed.stdout, "\(quick)")
                XCTAssertEqual(inside.stderr, parsed.stderr, "\(quick)")
                XCTAssertEqual(inside.stdoutLines.count, json ? targets.count : inside.stdoutLines.count)
            }
        }
        // What the quick path leaves to the parser is still answered by it.
        let help = try runCommand(ip, ["netns", "exec", ns.name, binary, "check", "--help"])
        XCTAssertEqual(help.status, 0, help.stderr)
        XCTAssertTrue(help.stdout.contains("USAGE: reach check"), help.stdout)
        let bad = try runCommand(ip, ["netns", "exec", ns.name, binary, "check", "10.1.0.7", "not_an_address!"])
        XCTAssertEqual(bad.status, 2)
        XCTAssertEqual(bad.stderr.split(separator: "\n").count, 1, bad.stderr)
        let twice = try runCommand(ip, ["netns", "exec", ns.name, binary, "check", "10.1.0.7", "--json", "--json"])
        XCTAssertEqual(twice.status, try reach(["check", "10.1.0.7", "--json", "--json", "--netns", ns.name]).status)
    }

    /// `reach watch` of addresses with no option but --json runs without the
    /// parser (QuickWatch, for its RSS); through the parser the same watch
    /// must print the same lines (the timestamps aside) for the same changes,
    /// and both exit 0 on SIGTERM.
    func testQuickWatchPrintsWhatTheParserPathPrints() throws {
        try expectQuickAndParsedWatchesAgree(["10.1.0.7", "10.2.0.9"])
    }

    /// A host name too (issue 41: its lines are written on the monitor's
    /// thread): `localhost`, resolved from /etc/hosts by the monitor in both
    /// paths, with the same default resolve timeout. JSON lines only: a human
    /// line per address of localhost, which /etc/hosts decides.
    func testQuickWatchOfAHostNamePrintsWhatTheParserPathPrints() throws {
        try expectQuickAndParsedWatchesAgree(["localhost", "10.1.0.7"], human: false)
    }

    /// Watches `targets` both ways (inside the namespace without options: the
    /// quick path; with --netns: the parser's), takes a link down and up, and
    /// compares the lines, human ones too unless `human` is false.
    private func expectQuickAndParsedWatchesAgree(_ targets: [String], human: Bool = true,
                                                  file: StaticString = #filePath, line: UInt = #line) throws {
        let ns = try makeLAN()
        /// Threads of a running process but a resolver's (/proc/PID/task/*/comm),
        /// which may still be ending after its answer.
        func threads(_ running: RunningProcess) -> Int {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(running.pid)/task")) ?? []
            return tasks.filter { task in
                (try? String(contentsOfFile: "/proc/\(running.pid)/task/\(task)/comm", encoding: .utf8))?
                    .trimmingCharacters(in: .whitespacesAndNewlines) != "reach.resolve"
            }.count
        }
        for json in human ? [false, true] : [true] {
            let initial = targets.count
            let arguments = ["watch"] + targets + (json ? ["--json"] : [])
            let quick = try startReach(arguments, under: ["netns", "exec", ns.name])
            let parsed = try startReach(arguments + ["--netns", ns.name, "--resolve-timeout", "5"])
            XCTAssertEqual(quick.waitForLines(initial).count, initial, "quick: \(quick.lines) \(quick.stderr)", file: file, line: line)
            XCTAssertEqual(parsed.waitForLines(initial).count, initial, "parser: \(parsed.lines) \(parsed.stderr)", file: file, line: line)
            // The quick path is the one taken: the main thread and the monitor's, no Dispatch worker.
            XCTAssertEqual(threads(quick), 2, file: file, line: line)
            XCTAssertGreaterThan(threads(parsed), 2, file: file, line: line)
            // Each step changes 10.1.0.7's answer, and for every target the
            // interfaces that can carry packets (va, vb): watch prints the
            // answer's change only.
            let perStep = 1
            ns.run("link set va down")
            XCTAssertEqual(quick.waitForLines(initial + perStep).count, initial + perStep, "quick: \(quick.lines)", file: file, line: line)
            XCTAssertEqual(parsed.waitForLines(initial + perStep).count, initial + perStep, "parser: \(parsed.lines)", file: file, line: line)
            ns.run("link set va up")
            XCTAssertEqual(quick.waitForLines(initial + 2 * perStep).count, initial + 2 * perStep, "quick: \(quick.lines)", file: file, line: line)
            XCTAssertEqual(parsed.waitForLines(initial + 2 * perStep).count, initial + 2 * perStep, "parser: \(parsed.lines)", file: file, line: line)
            for running in [quick, parsed] {
                kill(running.pid, SIGTERM)
                XCTAssertEqual(running.waitForExit(timeout: 5), 0, running.stderr, file: file, line: line)
            }
            // Without the time: the first column, or time_ns.
            func untimed(_ lines: [String]) throws -> [String] {
                try lines.map { line in
                    guard json else { return line.split(separator: " ", maxSplits: 1).last.map(String.init) ?? line }
                    var object = try jsonObject(line)
                    XCTAssertNotNil(object.removeValue(forKey: "time_ns"), line)
                    let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
                    return String(decoding: data, as: UTF8.self)
                }
            }
            XCTAssertEqual(try untimed(quick.lines), try untimed(parsed.lines), file: file, line: line)
            XCTAssertEqual(quick.lines.count, initial + 2 * perStep, "\(quick.lines)", file: file, line: line)
        }
    }

    // MARK: SIGTERM before the start (issue 27)

    /// `reach watch` through the parser (--netns): a SIGTERM that comes after
    /// the handler is in place but before the monitor started still ends it
    /// with exit 0; before, `stop()` on the idle monitor did nothing and the
    /// watch ran on.
    func testWatchStopsOnASIGTERMBeforeTheMonitorStarts() throws {
        let ns = try makeLAN()
        _ = try expectStopOnSIGTERMBeforeStart(["watch", "10.1.0.7", "--netns", ns.name], in: ns)
    }

    /// `reach track`: the same for the tracker.
    func testTrackStopsOnASIGTERMBeforeTheTrackerStarts() throws {
        let ns = try makeLAN()
        _ = try expectStopOnSIGTERMBeforeStart(["track", "--netns", ns.name, "--interface", "va", "--host", "10.1.0.7"],
                                           in: ns)
    }

    /// QuickWatch (addresses only, no --netns: run inside the namespace)
    /// blocks SIGTERM before the pause; the signal waits, pending, until its
    /// `sigwait` after the start takes it.
    func testQuickWatchStopsOnASIGTERMBeforeTheMonitorStarts() throws {
        let ns = try makeLAN()
        _ = try expectStopOnSIGTERMBeforeStart(["watch", "10.1.0.7"], in: ns, handledWhen: { running in
            // The process's shared pending set (/proc/PID/status ShdPnd, hex) holds SIGTERM.
            let status = (try? String(contentsOfFile: "/proc/\(running.pid)/status", encoding: .utf8)) ?? ""
            let pending = status.split(separator: "\n").first { $0.hasPrefix("ShdPnd:") }
                .flatMap { UInt64($0.dropFirst("ShdPnd:".count).trimmingCharacters(in: .whitespaces), radix: 16) }
            return (pending ?? 0) & (1 << UInt64(SIGTERM - 1)) != 0
        })
    }

    /// Runs `reach ARGS...` inside `ns` with REACH_TEST_PAUSE_BEFORE_START,
    /// which pauses it just before it starts watching; sends SIGTERM there,
    /// waits until `handledWhen` says the command has taken it (by default its
    /// "SIGTERM handled" line: the stop has run), lets it go on, and expects
    /// exit `status` within 2 s.
    private func expectStopOnSIGTERMBeforeStart(
        _ arguments: [String], in ns: TestNamespace,
        handledWhen handled: ((RunningProcess) -> Bool)? = nil, exitStatus expected: Int32 = 0,
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> RunningProcess? {
        let fifo = FileManager.default.temporaryDirectory.appendingPathComponent("reach-pause-\(getpid())-\(UUID().uuidString)").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0, String(cString: strerror(errno)), file: file, line: line)
        defer { unlink(fifo) }
        let running = try startReach(arguments, under: ["netns", "exec", ns.name, "/usr/bin/env",
                                                        "REACH_TEST_PAUSE_BEFORE_START=\(fifo)"], file: file, line: line)
        guard eventually(timeout: 10, { running.stderr.contains("reach: test: paused before start\n") }) else {
            XCTFail("\(arguments[0]) did not pause: \(running.stderr)", file: file, line: line)
            return nil
        }
        kill(running.pid, SIGTERM)
        let taken = handled ?? { $0.stderr.contains("reach: test: SIGTERM handled\n") }
        XCTAssertTrue(eventually(timeout: 5, { taken(running) }), "SIGTERM not taken: \(running.stderr)", file: file, line: line)
        // Go on: the byte ends the pause (no reader: ENXIO, the command is gone).
        let writer = open(fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        XCTAssertGreaterThanOrEqual(writer, 0, "open \(fifo): \(String(cString: strerror(errno)))", file: file, line: line)
        if writer >= 0 {
            var byte: UInt8 = 1
            XCTAssertEqual(write(writer, &byte, 1), 1, file: file, line: line)
            close(writer)
        }
        let status = running.waitForExit(timeout: 2)
        XCTAssertEqual(status, expected, "\(arguments[0]) after a SIGTERM before its start: \(running.stderr)", file: file, line: line)
        // Still running: it may ignore the teardown's SIGTERM as well.
        if status == nil { kill(running.pid, SIGKILL) }
        return running
    }

    /// `reach wait` stops on SIGTERM as on its timeout: the stream ends, it
    /// says so on one line and exits 1 (not every target reachable); before,
    /// the signal's default killed it, mid-output when it printed JSON.
    func testWaitStopsOnASIGTERMWithExitOneAndSaysSo() throws {
        let ns = try makeLAN()
        let running = try expectStopOnSIGTERMBeforeStart(["wait", "10.250.0.9", "--timeout", "0", "--json"], in: ns,
                                                         exitStatus: 1)
        let stderr = running?.stderr ?? ""
        XCTAssertTrue(stderr.contains("reach: stopped by SIGTERM; not reachable: 10.250.0.9\n"), stderr)
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
            ["check", "10.1.0.7", "--allow-wwan", "maybe", "--netns", ns.name],
            ["check", "10.1.0.7", "--radio", "wwan0=6G", "--netns", ns.name],
            ["probe", "10.1.0.7", "--method", "tcp:0", "--netns", ns.name],
            ["probe", "10.1.0.7", "--method", "http:https://x.test/", "--netns", ns.name],
            ["probe", "10.1.0.7", "--method", "smoke", "--netns", ns.name],
            ["probe", "10.1.0.7", "--timeout", "0", "--netns", ns.name],
            ["probe", "10.1.0.7", "--interface", "nosuch0", "--netns", ns.name],
            ["probe", "10.1.0.7", "--source", "10.9.9.9", "--netns", ns.name],
            ["probe", "internet", "--netns", ns.name],
            ["track", "--interface", "va", "--netns", ns.name],
            ["track", "--interface", "va", "--host", "10.1.0.7", "--reliability", "2", "--netns", ns.name],
            ["track", "--interface", "va", "--host", "10.1.0.7", "--down", "0", "--netns", ns.name],
            ["track", "--interface", "va", "--host", "10.1.0.7", "--interval", "-1", "--netns", ns.name],
            ["track", "--interface", "va", "--host", "10.1.0.7", "--initial-state", "connecting", "--netns", ns.name],
            ["track", "--interface", "va", "--host", "host.example", "--netns", ns.name],
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

    // MARK: watch and wait

    /// Files of /etc/netns/NAME: `ip netns exec` mounts them over /etc for the
    /// command it runs, so a `reach` started that way resolves names through
    /// the test's own hosts file and resolv.conf.
    private func writeNetnsEtc(_ ns: TestNamespace, _ files: [String: String]) throws -> String {
        let directory = "/etc/netns/\(ns.name)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: directory) }
        for (name, text) in files { try rewrite("\(directory)/\(name)", text) }
        return directory
    }

    /// Rewrites a file in place (same inode, so a bind mount of it sees the new text).
    private func rewrite(_ path: String, _ text: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw TestStopped(reason: "open \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        XCTAssertEqual(write(fd, bytes, bytes.count), bytes.count)
    }

    func testWatchPrintsTheInitialStateThenOneJSONLinePerChange() throws {
        let ns = try makeLAN()
        let check = try jsonObject(try reach(["check", "10.1.0.7", "--netns", ns.name, "--json"]).stdout)
        let watch = try startReach(["watch", "10.1.0.7", "--netns", ns.name, "--json"])
        let initial = try jsonObject(try XCTUnwrap(watch.waitForLines(1).first, "no initial line: \(watch.stderr)"))
        XCTAssertEqual(Set(initial.keys), Set(check.keys).union(["time_ns", "initial"]))
        XCTAssertEqual(initial["initial"] as? Bool, true)
        XCTAssertEqual(initial["status"] as? String, "reachable.wired")
        XCTAssertEqual(initial["interface"] as? String, "va")

        ns.run("link set va down")
        let lines = watch.waitForLines(2)
        XCTAssertEqual(lines.count, 2, "\(lines) \(watch.stderr)")
        guard lines.count == 2 else { return }
        let change = try jsonObject(lines[1])
        XCTAssertEqual(change["initial"] as? Bool, false)
        XCTAssertEqual(change["reachable"] as? Bool, false)
        XCTAssertEqual(change["route"] as? String, "noRoute")
        let t0 = try XCTUnwrap(initial["time_ns"] as? Int), t1 = try XCTUnwrap(change["time_ns"] as? Int)
        XCTAssertGreaterThan(t1, t0)
        // The same clock as CLOCK_MONOTONIC here.
        XCTAssertLessThanOrEqual(UInt64(t1), creach_monotonic_ns())
        Thread.sleep(forTimeInterval: 0.3)
        XCTAssertEqual(watch.lines.count, 2, "one change, one line: \(watch.lines)")
    }

    /// watch's print rule (README audit, issue 30): the route's type is part
    /// of the answer, so each change of it is a line, in JSON and in the
    /// human line alike, though status and flags stay `notReachable` and
    /// empty throughout (before, blackhole → unreachable printed nothing).
    /// The last step, to a usable route, is the barrier: every line before
    /// it has been printed by then.
    func testWatchPrintsALineForEveryChangeOfTheRouteType() throws {
        let ns = try makeLAN()
        ns.run("route add unreachable 10.9.0.0/16")
        let json = try startReach(["watch", "10.9.0.1", "--netns", ns.name, "--json"])
        let human = try startReach(["watch", "10.9.0.1", "--netns", ns.name])
        XCTAssertEqual(json.waitForLines(1).count, 1, "no initial line: \(json.stderr)")
        XCTAssertEqual(human.waitForLines(1).count, 1, "no initial line: \(human.stderr)")
        let steps = ["route replace prohibit 10.9.0.0/16", "route replace blackhole 10.9.0.0/16",
                     "route replace unreachable 10.9.0.0/16", "route replace 10.9.0.0/16 via 10.1.0.254"]
        for (n, step) in steps.enumerated() {
            ns.run(step)
            // A step that prints no line times out here; the comparison below says which.
            _ = json.waitForLines(2 + n)
            _ = human.waitForLines(2 + n)
        }
        let objects = try json.lines.map { try jsonObject($0) }
        XCTAssertEqual(objects.map { $0["route"] as? String }, ["unreachable", "prohibit", "blackhole", "unreachable", "unicast"],
                       "one JSON line per route type: \(json.lines)")
        XCTAssertEqual(objects.prefix(4).map { $0["status"] as? String }, Array(repeating: "notReachable", count: 4))
        XCTAssertEqual(objects.prefix(4).map { $0["flags"] as? Int }, [0, 0, 0, 0])
        let routes = human.lines.map { line in
            line.components(separatedBy: "  ").first { $0.hasPrefix("route ") }.map { String($0.dropFirst("route ".count)) }
        }
        XCTAssertEqual(routes, ["unreachable", "prohibit", "blackhole", "unreachable", "unicast"],
                       "one human line per route type: \(human.lines)")
    }

    func testWaitExitsZeroOnceEveryTargetIsReachable() throws {
        let ns = try makeNamespace()
        let wait = try startReach(["wait", "10.1.0.7", "internet", "--netns", ns.name, "--timeout", "20"])
        Thread.sleep(forTimeInterval: 0.3)
        XCTAssertTrue(wait.isRunning, "wait returned while nothing was reachable: \(wait.stderr)")
        ns.addVethPair("va", peer: "vb", address: "10.1.0.1/24")
        XCTAssertTrue(wait.isRunning, "wait returned while the internet was not reachable")
        ns.run("route add default via 10.1.0.254")
        XCTAssertEqual(wait.waitForExit(timeout: 5), 0, wait.stderr)
    }

    func testWaitTimesOutWithExitOne() throws {
        let ns = try makeLAN()
        let started = Date()
        let result = try reach(["wait", "10.2.0.9", "10.1.0.7", "--netns", ns.name, "--timeout", "0.5"])
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertGreaterThanOrEqual(elapsed, 0.5)
        XCTAssertLessThan(elapsed, 5)
        XCTAssertEqual(result.stderrLines, ["reach: timed out after 0.5 s; not reachable: 10.2.0.9"])
        XCTAssertEqual(try reach(["wait", "10.1.0.7", "--netns", ns.name, "--timeout", "-1"]).status, 2)
    }

    func testWatchResolvesThroughTheNamespaceHostsFileAndAgainOnChange() throws {
        let ns = try makeNamespaceWhereDNSCannotLeave()
        ns.addVethPair("va", peer: "vb", address: "10.1.0.1/24")
        ns.addVethPair("vc", peer: "vd", address: "10.3.0.1/24")
        ns.run("addr del 10.3.0.1/24 dev vc")
        // resolv.conf names a server on lo, where nothing listens: a name not
        // in the hosts file fails at once, inside the namespace.
        let etc = try writeNetnsEtc(ns, ["hosts": "10.1.0.7 gw.reach-test\n", "resolv.conf": "nameserver 127.0.0.1\n"])
        let watch = try startReach(["watch", "gw.reach-test", "not-in-hosts.reach-test", "--json"],
                                   under: ["netns", "exec", ns.name])
        let initial = watch.waitForLines(2)
        XCTAssertEqual(initial.count, 2, "\(initial) \(watch.stderr)")
        let objects = try initial.map { try jsonObject($0) }
        let byTarget = Dictionary(uniqueKeysWithValues: objects.map { ($0["target"] as? String ?? "", $0) })
        XCTAssertEqual(byTarget["gw.reach-test"]?["address"] as? String, "10.1.0.7")
        XCTAssertEqual(byTarget["gw.reach-test"]?["interface"] as? String, "va")
        XCTAssertEqual(byTarget["not-in-hosts.reach-test"]?["reachable"] as? Bool, false)
        XCTAssertNotNil(byTarget["not-in-hosts.reach-test"]?["error"] as? String)

        // The name moves; an address change makes the monitor resolve again.
        try rewrite("\(etc)/hosts", "10.3.0.7 gw.reach-test\n")
        ns.run("addr add 10.3.0.1/24 dev vc")
        let lines = watch.waitForLines(3)
        XCTAssertEqual(lines.count, 3, "\(lines) \(watch.stderr)")
        guard lines.count == 3 else { return }
        let moved = try jsonObject(lines[2])
        XCTAssertEqual(moved["target"] as? String, "gw.reach-test")
        XCTAssertEqual(moved["address"] as? String, "10.3.0.7")
        XCTAssertEqual(moved["interface"] as? String, "vc")
        XCTAssertEqual(moved["initial"] as? Bool, false)
    }

    func testWatchReportsAResolverThatDoesNotAnswerAfterItsTimeout() throws {
        let ns = try makeNamespaceWhereDNSCannotLeave()
        ns.addVethPair("va", peer: "vb", address: "10.1.0.1/24")
        // The server's address is on the test's own veth, where nobody answers:
        // the query never leaves the namespace and the lookup hangs.
        _ = try writeNetnsEtc(ns, ["hosts": "127.0.0.1 localhost\n",
                                    "resolv.conf": "nameserver 10.1.0.53\noptions timeout:5 attempts:1\n"])
        let started = Date()
        let watch = try startReach(["watch", "slow.reach-test", "10.1.0.7", "--json", "--resolve-timeout", "1"],
                                   under: ["netns", "exec", ns.name])
        let lines = watch.waitForLines(2, timeout: 4)
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(lines.count, 2, "\(lines) \(watch.stderr)")
        let objects = try lines.map { try jsonObject($0) }
        // The address target is not held back by the slow name.
        XCTAssertEqual(objects.first?["target"] as? String, "10.1.0.7")
        let slow = try XCTUnwrap(objects.first { $0["target"] as? String == "slow.reach-test" })
        XCTAssertEqual(slow["reachable"] as? Bool, false)
        XCTAssertTrue((slow["error"] as? String ?? "").contains("timed out"), "\(slow)")
        XCTAssertGreaterThanOrEqual(elapsed, 1)
        XCTAssertLessThan(elapsed, 4)
    }
}
