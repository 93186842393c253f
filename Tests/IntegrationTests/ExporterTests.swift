// reach-exporter run as an operator would: its configuration checks, the
// systemd notify protocol against a datagram socket the test makes, and a
// real Prometheus (Debian's `prometheus`) scraping two exporters that watch
// two namespaces, queried through its HTTP API while one uplink flaps; and
// an exporter following a ModemManager stand-in on a private bus
// (PrivateBus) while its modem falls back from LTE to EDGE and roams.
// Traffic stays on loopback and inside the test's namespaces.
//
// The exporter is a package of its own (Exporter/): these tests run its built
// binary as a process, so this package never imports it. They live here
// because the namespace fixtures do; `make test-fleet` builds the exporter
// and runs them with REACH_EXPORTER_BINARY set (and REACH_REQUIRE_EXPORTER=1,
// so that a missing binary fails rather than skips).

import Foundation
import ReachabilityCore
import ReachabilityModemManager   // RegistrationState
import ReachabilityTesting   // runCommand, ipExecutable
import ReachabilityTestSupport
import XCTest

#if canImport(Glibc)
import Glibc
#endif

final class ExporterTests: NamespaceTestCase {
    // MARK: - Helpers

    func exporter(_ arguments: [String], environment: [String: String]? = nil) throws -> CommandResult {
        try runCommand(try exporterBinary(), arguments, environment: environment)
    }

    /// A loopback TCP port free at the moment of asking.
    func freePort() throws -> Int {
        let (fd, port) = loopbackSocket(listening: false)
        close(fd)
        return port
    }

    /// A TCP socket bound to a free loopback port (listening on it if asked),
    /// and the port; the caller closes it.
    func loopbackSocket(listening: Bool) -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        XCTAssertGreaterThanOrEqual(fd, 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw -> Bool in
                bind(fd, raw, length) == 0 && getsockname(fd, raw, &length) == 0 && (!listening || listen(fd, 1) == 0)
            }
        }
        XCTAssertTrue(bound, String(cString: strerror(errno)))
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// `curl` of a loopback URL: status and body ("000" when nothing answered).
    func get(_ url: String, data: [String] = []) throws -> (status: Int, body: String) {
        let curl = try XCTUnwrap(["/usr/bin/curl", "/bin/curl"].first { FileManager.default.isExecutableFile(atPath: $0) },
                                 "curl is not installed")
        var arguments = ["-s", "-m", "5", "-o", "-", "-w", "\n%{http_code}", url]
        for field in data { arguments += ["--data-urlencode", field] }
        let result = try runCommand(URL(fileURLWithPath: curl), arguments)
        let body = result.stdout
        guard let newline = body.lastIndex(of: "\n") else { return (0, body) }
        return (Int(body[body.index(after: newline)...]) ?? 0, String(body[..<newline]))
    }

    /// The exporter, stopped when the test ends; `environment` is added to
    /// the test's own (through env(1): DBUS_SYSTEM_BUS_ADDRESS for a private bus).
    func startExporter(_ arguments: [String], environment: [String: String] = [:]) throws -> RunningProcess {
        let binary = try exporterBinary()
        let assignments = environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        let running = environment.isEmpty ? try RunningProcess(binary, arguments)
            : try RunningProcess(URL(fileURLWithPath: "/usr/bin/env"), assignments + [binary.path] + arguments)
        addTeardownBlock { running.terminate() }
        return running
    }

    /// PrivateBus' programs (dbus-daemon, busctl, python3-dbusmock): a skip
    /// when one is missing, a failure under REACH_REQUIRE_PROMETHEUS=1 (make
    /// test-fleet) as under PrivateBus' own REACH_REQUIRE_DBUS and REACH_REQUIRE_NETNS.
    func requirePrivateBus() throws {
        do {
            try PrivateBus.requirePrograms()
        } catch let skip as XCTSkip {
            guard ProcessInfo.processInfo.environment[Self.requirePrometheus] == "1" else { throw skip }
            let reason = "\(skip.message ?? "the private bus cannot run"); \(Self.requirePrometheus)=1 requires it"
            XCTFail(reason)
            throw TestStopped(reason: reason)
        }
    }

    /// The exporter as systemd starts a `Type=notify` service: `NOTIFY_SOCKET`
    /// names the test's socket; stderr is kept for failure messages. Stopped
    /// (SIGTERM) when the test ends if it still runs.
    func startNotifiedExporter(_ arguments: [String], notify: NotifySocket,
                               environment: [String: String] = [:]) throws -> (process: Process, errors: Pipe) {
        let process = Process()
        process.executableURL = try exporterBinary()
        process.arguments = arguments
        // The sanitizers' settings pass through (make test-sanitize: LeakSanitizer's suppressions).
        let sanitizers = ProcessInfo.processInfo.environment.filter { $0.key.hasSuffix("SAN_OPTIONS") }
        process.environment = ["NOTIFY_SOCKET": notify.path, "PATH": "/usr/bin:/bin"].merging(sanitizers) { $1 }
            .merging(environment) { $1 }
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        addTeardownBlock {   // SIGTERM, and SIGKILL for an exporter that ignores it (a test failed then)
            guard process.isRunning else { return }
            process.terminate()
            if self.waitForExit(process, timeout: 10) == nil { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        return (process, errors)
    }

    /// Whether `pid` catches SIGTERM (/proc/PID/status, SigCgt): the exporter's
    /// service group traps it once it runs, and from then on SIGTERM is an
    /// orderly shutdown rather than death by signal.
    func catchesSIGTERM(_ pid: Int32) -> Bool {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigCgt:") }),
              let mask = UInt64(line.dropFirst("SigCgt:".count).trimmingCharacters(in: .whitespaces), radix: 16) else { return false }
        return mask & (1 << (UInt64(SIGTERM) - 1)) != 0
    }

    /// Waits up to `timeout` seconds for `process` to exit; the seconds it took, nil if it still runs.
    func waitForExit(_ process: Process, timeout: TimeInterval) -> TimeInterval? {
        let started = Date()
        while process.isRunning && Date().timeIntervalSince(started) < timeout { usleep(5000) }
        return process.isRunning ? nil : Date().timeIntervalSince(started)
    }

    /// A configuration file: `listen` on `port`, the namespace's 10.9.0.2 as
    /// target and its wan0 tracked with fast rounds (ProbeTests' makeUplink).
    func writeUplinkConfiguration(port: Int, namespace: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("reach-exporter-uplink-\(getpid())-\(port).yml").path
        try """
            listen: 127.0.0.1:\(port)
            netns: \(namespace)
            targets: [10.9.0.2]
            uplinks:
              - {interface: wan0, hosts: [10.9.0.2], method: icmp, interval: 200ms, timeout: 150ms, down: 2, up: 1}
            """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func makeUplinkNamespace() throws -> TestNamespace {
        let ns = try makeNamespace()
        ns.addVethPair("va", peer: "vb", address: "10.1.0.1/24")
        ns.run("route add default via 10.1.0.254")
        return ns
    }

    // MARK: - Configuration

    /// The operator's first commands: `--help` and `-h` print the usage and
    /// exit 0 (they parse as argument-parser's help command, which the
    /// exporter once force-cast to its own type, and aborted); `--version` is
    /// the package's one version.
    func testHelpAndVersionExitZero() throws {
        for flag in ["--help", "-h"] {
            let help = try exporter([flag])
            XCTAssertEqual(help.status, 0, "\(flag): \(help.stderr)")
            XCTAssertTrue(help.stdout.contains("USAGE: reach-exporter"), "\(flag): \(help.stdout)")
            XCTAssertTrue(help.stdout.contains("--check-config"), "\(flag): \(help.stdout)")
        }
        let version = try exporter(["--version"])
        XCTAssertEqual(version.status, 0, version.stderr)
        XCTAssertEqual(version.stdout, ReachabilityPackage.version + "\n")
    }

    func testBadConfigurationExitsTwoWithOneLineBeforeBinding() throws {
        try requireRoot()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("reach-exporter-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let port = try freePort()
        let cases: [(String, String)] = [
            ("listen: 127.0.0.1:\(port)\ntargets: [internet]\nuplinks:\n  - interface: wan0\n    hosts: [192.0.2.1]\n    intervall: 5s\n",
             ":6: uplinks[0]: unknown key 'intervall'"),
            ("listen: 127.0.0.1:\(port)\ntargets: [10.0.0.256]\n", ":2: target '10.0.0.256': invalid target"),
            ("listen: 127.0.0.1:\(port)\nnetns: ..\n", ":2: netns '..'"),
            ("listen: 0.0.0.0:99999\n", ":1: listen '0.0.0.0:99999': the port must be 1...65535"),
            ("listen: localhost:\(port)\n", "'localhost' is not an IPv4 or IPv6 address"),
            ("listen: 127.0.0.1:\(port)\ntargets: [internet, internet]\n", "target internet is given twice"),
            ("listen: 127.0.0.1:\(port)\nuplinks:\n  - interface: wan0\n    hosts: [192.0.2.1]\n    interval: soon\n",
             ":5: uplinks[0].interval: expected a duration such as 5s"),
            ("listen: 127.0.0.1:\(port)\nuplinks:\n  - hosts: [192.0.2.1]\n", ":3: uplinks[0]: needs 'interface'"),
            ("listen: [127.0.0.1\n", "not valid YAML"),
            ("listen: 127.0.0.1:\(port)\nvalidation_interval: 5s\n", "validation_interval needs validation"),
            ("listen: 127.0.0.1:\(port)\nresolve_timeout: 0s\n", ":2: resolve_timeout: expected a duration such as 5s"),
            ("listen: 127.0.0.1:\(port)\nmodemmanager: maybe\n", ":2: modemmanager: expected true or false, not 'maybe'"),
        ]
        for (index, (text, expected)) in cases.enumerated() {
            let path = directory.appendingPathComponent("bad-\(index).yml").path
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            let result = try exporter(["--config", path])
            XCTAssertEqual(result.status, 2, "\(text): \(result.stderr)")
            XCTAssertEqual(result.stderrLines.count, 1, result.stderr)
            XCTAssertTrue(result.stderr.hasPrefix("reach-exporter: "), result.stderr)
            XCTAssertTrue(result.stderr.contains(expected), "expected '\(expected)' in: \(result.stderr)")
            XCTAssertEqual(try get("http://127.0.0.1:\(port)/-/healthy").status, 0, "something listens after a bad configuration")
        }
        // Flags are checked the same way; a missing file too.
        for (arguments, expected) in [(["--listen", "127.0.0.1"], "takes HOST:PORT"),
                                      (["--target", "not_a_target!"], "--target 'not_a_target!'"),
                                      (["--config", directory.appendingPathComponent("missing.yml").path], "No such file")] {
            let result = try exporter(arguments)
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains(expected), "expected '\(expected)' in: \(result.stderr)")
        }
        // A good file: --check-config says what would run, and exits 0.
        let good = directory.appendingPathComponent("good.yml").path
        try """
            listen: 127.0.0.1:\(port)
            targets: [internet, 192.0.2.1]
            uplinks:
              - interface: wan0
                hosts: [192.0.2.1, 198.51.100.1]
                method: tcp:80
                interval: 2s
            """.write(toFile: good, atomically: true, encoding: .utf8)
        let checked = try exporter(["--config", good, "--check-config"])
        XCTAssertEqual(checked.status, 0, checked.stderr)
        XCTAssertEqual(checked.stdoutLines.first, "listen 127.0.0.1:\(port)")
        XCTAssertTrue(checked.stdout.contains("targets internet 192.0.2.1"), checked.stdout)
        XCTAssertTrue(checked.stdout.contains("uplink wan0 hosts 192.0.2.1 198.51.100.1"), checked.stdout)
    }

    // MARK: - Serving, readiness and systemd's notify protocol

    func testServesMetricsAndTellsSystemdReadyWatchdogAndStopping() throws {
        try requireRoot()
        let ns = try makeUplinkNamespace()
        ns.run("route add unreachable 10.2.0.0/16")
        let port = try freePort()
        let notify = try NotifySocket(name: "\(port)")
        func nextMessage() -> String? { notify.next(timeout: 10) }
        let (process, errors) = try startNotifiedExporter(
            ["--netns", ns.name, "--target", "10.1.0.7", "--target", "10.2.0.9", "--listen", "127.0.0.1:\(port)"],
            notify: notify, environment: ["WATCHDOG_USEC": "400000"])

        let ready = try XCTUnwrap(nextMessage(), "no READY=1 within 10 s")
        XCTAssertTrue(ready.hasPrefix("READY=1\n"), ready)
        XCTAssertTrue(ready.contains("STATUS=watching 2 targets"), ready)
        // Ready means the answers are there: the first scrape already has them.
        XCTAssertEqual(try get("http://127.0.0.1:\(port)/-/ready").status, 200)
        XCTAssertEqual(try get("http://127.0.0.1:\(port)/-/healthy").status, 200)
        let metrics = try get("http://127.0.0.1:\(port)/metrics")
        XCTAssertEqual(metrics.status, 200)
        XCTAssertTrue(metrics.body.contains("reach_target_reachable{target=\"10.1.0.7\"} 1.0\n"), metrics.body)
        XCTAssertTrue(metrics.body.contains("reach_target_reachable{target=\"10.2.0.9\"} 0.0\n"), metrics.body)
        XCTAssertTrue(metrics.body.contains("reach_target_status{target=\"10.1.0.7\",status=\"reachable.wired\"} 1.0\n"), metrics.body)
        XCTAssertTrue(metrics.body.contains("reach_target_status{target=\"10.1.0.7\",status=\"notReachable\"} 0.0\n"), metrics.body)
        // The flags are the ones `reach check` gives for the same target.
        let flags = try XCTUnwrap(jsonObject(try reach(["check", "10.1.0.7", "--netns", ns.name, "--json"]).stdout)["flags"] as? Int)
        XCTAssertTrue(metrics.body.contains("reach_target_flags{target=\"10.1.0.7\"} \(flags).0\n"), metrics.body)
        XCTAssertTrue(metrics.body.contains("reach_build_info{version=\""), metrics.body)
        XCTAssertTrue(metrics.body.contains("# TYPE reach_target_changes_total counter"), metrics.body)
        XCTAssertEqual(try get("http://127.0.0.1:\(port)/nothing").status, 404)
        XCTAssertEqual(try get("http://127.0.0.1:\(port)/metrics", data: ["x=1"]).status, 405)

        // A change reaches the next scrape.
        ns.run("link set va down")
        XCTAssertTrue(try eventually("10.1.0.7 not reachable in a scrape", timeout: 5) {
            try get("http://127.0.0.1:\(port)/metrics").body.contains("reach_target_reachable{target=\"10.1.0.7\"} 0.0\n")
        })
        XCTAssertTrue(try get("http://127.0.0.1:\(port)/metrics").body.contains("reach_target_changes_total{target=\"10.1.0.7\"} 1\n"))

        // WATCHDOG=1 every half WatchdogSec (0.2 s here).
        XCTAssertEqual(nextMessage(), "WATCHDOG=1")
        XCTAssertEqual(nextMessage(), "WATCHDOG=1")

        // SIGTERM: STOPPING=1 and exit 0.
        kill(process.processIdentifier, SIGTERM)
        var stopping = false
        for _ in 0 ..< 20 {
            guard let message = nextMessage() else { break }
            if message == "STOPPING=1" { stopping = true; break }
        }
        XCTAssertTrue(stopping, "no STOPPING=1 after SIGTERM")
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
        XCTAssertEqual(try get("http://127.0.0.1:\(port)/-/healthy").status, 0, "the port is still open after exit")
    }

    /// SIGTERM while a host-name target still waits for a name server that
    /// The exporter as its unit runs it: no capability at all
    /// (`CapabilityBoundingSet=` empty, `DynamicUser=yes`). A scrape is
    /// answered: the accepted socket gets only options an unprivileged process
    /// may set (TCP_NODELAY was once asked at SOL_SOCKET level, where its
    /// number is SO_DEBUG, which needs CAP_NET_ADMIN: every connection was
    /// closed unanswered, and only a root exporter served).
    func testAnExporterWithoutCapabilitiesServesScrapes() throws {
        try requireRoot()
        let setpriv = try XCTUnwrap(["/usr/bin/setpriv", "/bin/setpriv"].first { FileManager.default.isExecutableFile(atPath: $0) },
                                    "setpriv (util-linux) is not installed")
        let port = try freePort()
        let exporter = try RunningProcess(URL(fileURLWithPath: setpriv), [
            "--inh-caps=-all", "--ambient-caps=-all", "--bounding-set=-all", "--no-new-privs", "--",
            try exporterBinary().path, "--target", "127.0.0.1", "--listen", "127.0.0.1:\(port)"])
        addTeardownBlock { exporter.terminate() }
        // The service group traps SIGTERM once it runs, after the listener is bound.
        XCTAssertTrue(eventually("the exporter to run", timeout: 10, interval: 5000) {
            catchesSIGTERM(exporter.pid)
        })
        let capabilities = try String(contentsOfFile: "/proc/\(exporter.pid)/status", encoding: .utf8)
            .split(separator: "\n").first { $0.hasPrefix("CapEff:") }
        XCTAssertEqual(capabilities.map { $0.split(separator: "\t").last.map(String.init) }, "0000000000000000")
        XCTAssertEqual(try get("http://127.0.0.1:\(port)/-/healthy").status, 200)
        let metrics = try get("http://127.0.0.1:\(port)/metrics")
        XCTAssertEqual(metrics.status, 200)
        XCTAssertTrue(metrics.body.contains("reach_target_reachable{target=\"127.0.0.1\"} 1.0\n"), metrics.body)
    }

    /// SIGTERM while a host-name target still waits for a name server that
    /// never answers: the exporter is not ready (no READY=1), and it exits 0
    /// at once rather than when the lookup gives up (resolve_timeout, 30 s here).
    func testSIGTERMBeforeReadyExitsAtOnce() throws {
        let ns = try makeNamespaceWhereDNSCannotLeave()
        ns.addVethPair("va", peer: "vb", address: "10.1.0.1/24")
        // The name server is an address behind the test's own veth, whose
        // peer has no address and drops the query: no answer and no error
        // (a static neighbour, so not even a failed ARP), the lookup hangs.
        ns.run("neigh add 10.1.0.53 lladdr 02:00:00:00:00:53 dev va nud permanent")
        try configureNetns(ns, ["hosts": "127.0.0.1 localhost\n",
                                "resolv.conf": "nameserver 10.1.0.53\noptions timeout:30 attempts:1\n"])
        let port = try freePort()
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("reach-exporter-slow-\(getpid())-\(port).yml").path
        try """
            listen: 127.0.0.1:\(port)
            netns: \(ns.name)
            targets: [slow.reach-test]
            resolve_timeout: 30s
            """.write(toFile: path, atomically: true, encoding: .utf8)
        defer { unlink(path) }
        let notify = try NotifySocket(name: "\(port)")
        let (process, errors) = try startNotifiedExporter(["--config", path], notify: notify)
        XCTAssertTrue(eventually("the exporter to trap SIGTERM", timeout: 10, interval: 5000) {
            catchesSIGTERM(process.processIdentifier)
        })
        XCTAssertEqual(try get("http://127.0.0.1:\(port)/-/ready").status, 503, "ready before the name answered")

        kill(process.processIdentifier, SIGTERM)
        let waited = try XCTUnwrap(waitForExit(process, timeout: 15), "still running 15 s after SIGTERM")
        XCTAssertLessThan(waited, 1.5, "exited \(waited) s after SIGTERM: shutdown waited for the name server (resolve_timeout 30 s)")
        XCTAssertEqual(process.terminationStatus, 0, String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
        var messages: [String] = []
        while let message = notify.next(timeout: 0) { messages.append(message) }
        XCTAssertEqual(messages, ["STOPPING=1"], "never ready, so no READY=1")
        print("exporter: exit \(process.terminationStatus) \(String(format: "%.3f", waited)) s after SIGTERM before ready; notified \(messages)")
    }

    /// WATCHDOG=1 only while the monitor's event thread makes progress: a
    /// test-only hook (REACH_EXPORTER_TEST_BLOCK_EVENT_THREAD) blocks it in the
    /// first change's callback; the pings stop, and STATUS= says why.
    /// SIGTERM stops an exporter that pushes, at once and with status 0,
    /// while its receiver refuses (the writer in its backoff). The push's
    /// sampler once threw CancellationError at shutdown; the service group
    /// then cancelled the others, and the HTTP server, waiting on its
    /// channel's close future, never ended: the exporter hung until SIGKILL.
    func testSIGTERMStopsAnExporterThatPushes() throws {
        let port = try freePort(), receiver = try freePort()
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("reach-exporter-push-\(getpid())-\(port).yml").path
        try """
            listen: 127.0.0.1:\(port)
            targets: [internet]
            modemmanager: false
            push_interval: 1s
            remote_write:
              - url: http://127.0.0.1:\(receiver)/api/v1/write
                name: nobody
            """.write(toFile: path, atomically: true, encoding: .utf8)
        defer { unlink(path) }
        let notify = try NotifySocket(name: "\(port)")
        let (process, errors) = try startNotifiedExporter(["--config", path], notify: notify)
        XCTAssertTrue(try eventually("a push refused", timeout: 10) {
            let series = "reach_remote_write_requests_total{remote=\"nobody\",result=\"error\"} "
            return try get("http://127.0.0.1:\(port)/metrics").body.split(separator: "\n")
                .contains { $0.hasPrefix(series) && (Double($0.dropFirst(series.count)) ?? 0) > 0 }
        })
        XCTAssertTrue(eventually("the exporter to trap SIGTERM", timeout: 10, interval: 5000) { catchesSIGTERM(process.processIdentifier) })
        kill(process.processIdentifier, SIGTERM)
        let waited = try XCTUnwrap(waitForExit(process, timeout: 15), "still running 15 s after SIGTERM")
        XCTAssertLessThan(waited, 1.5, "exited \(waited) s after SIGTERM")
        XCTAssertEqual(process.terminationStatus, 0, String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
        print("exporter with remote_write: exit \(process.terminationStatus) \(String(format: "%.3f", waited)) s after SIGTERM")
    }

    func testWatchdogStopsWhenTheEventThreadIsStuck() throws {
        let ns = try makeUplinkNamespace()
        let port = try freePort()
        let notify = try NotifySocket(name: "\(port)")
        let (process, errors) = try startNotifiedExporter(
            ["--netns", ns.name, "--target", "10.1.0.7", "--listen", "127.0.0.1:\(port)"], notify: notify,
            environment: ["WATCHDOG_USEC": "200000", "REACH_EXPORTER_TEST_BLOCK_EVENT_THREAD": "1"])
        let ready = try XCTUnwrap(notify.next(timeout: 10), "no READY=1 within 10 s")
        XCTAssertTrue(ready.hasPrefix("READY=1\n"), ready)
        XCTAssertTrue(ready.contains("STATUS=watching 1 target, 0 uplinks; "), ready)
        // Every 0.1 s while the thread runs.
        for _ in 0 ..< 3 { XCTAssertEqual(notify.next(timeout: 2), "WATCHDOG=1") }

        ns.run("link set va down")   // the change's callback blocks the event thread
        let (afterBlock, quiet) = notify.messagesUntilQuiet()
        XCTAssertTrue(quiet, "WATCHDOG=1 still arrives 5 s after the event thread blocked: \(afterBlock.count) messages, last \(afterBlock.suffix(3))")
        XCTAssertTrue(afterBlock.contains { $0.hasPrefix("STATUS=") && $0.contains("stuck") }, "\(afterBlock.suffix(3))")
        // The pings that went out between the flip and the block.
        XCTAssertLessThanOrEqual(afterBlock.filter { $0 == "WATCHDOG=1" }.count, 3, "\(afterBlock)")

        // Shutdown releases the hook: an orderly exit still.
        kill(process.processIdentifier, SIGTERM)
        XCTAssertNotNil(waitForExit(process, timeout: 10), "still running 10 s after SIGTERM")
        XCTAssertEqual(process.terminationStatus, 0, String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
        print("exporter: after the event thread blocked: \(afterBlock)")
    }

    /// WATCHDOG=1 only while every uplink tracker finishes its rounds in the
    /// time a round can take (its interval, then `count` probes of its
    /// timeout, plus one watchdog interval): a test-only hook
    /// (REACH_EXPORTER_TEST_BLOCK_TRACKER) blocks the tracker's thread in its
    /// second round's observer, as a probe that never returns would; the
    /// pings stop, and STATUS= names the uplink.
    func testWatchdogStopsWhenATrackerIsStuck() throws {
        try requireRoot()
        let uplink = try makeUplink()
        let port = try freePort()
        let path = try writeUplinkConfiguration(port: port, namespace: uplink.client.name)
        defer { unlink(path) }
        let notify = try NotifySocket(name: "\(port)")
        let (process, errors) = try startNotifiedExporter(["--config", path], notify: notify,
                                                          environment: ["WATCHDOG_USEC": "200000", "REACH_EXPORTER_TEST_BLOCK_TRACKER": "1"])
        let ready = try XCTUnwrap(notify.next(timeout: 10), "no READY=1 within 10 s")
        XCTAssertTrue(ready.contains("STATUS=watching 1 target, 1 uplink; "), ready)
        let (messages, quiet) = notify.messagesUntilQuiet()
        XCTAssertTrue(quiet, "WATCHDOG=1 still arrives 5 s after the tracker blocked: \(messages.suffix(3))")
        XCTAssertTrue(messages.contains { $0.hasPrefix("STATUS=stuck: the tracker of wan0 finished no round within") },
                      "\(messages.suffix(3))")
        kill(process.processIdentifier, SIGTERM)
        XCTAssertNotNil(waitForExit(process, timeout: 10), "still running 10 s after SIGTERM")
        XCTAssertEqual(process.terminationStatus, 0, String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
        print("exporter: after the tracker blocked: \(messages.filter { $0 != "WATCHDOG=1" })")
    }

    /// An uplink tracker's state, score and every round's probes reach the
    /// scrape (`UplinkTracker.onRound`): probes answered by the responder
    /// namespace's kernel, then a blackhole there takes the uplink offline.
    func testUplinkStateScoreAndProbesFollowTheTracker() throws {
        try requireRoot()
        let uplink = try makeUplink()
        let port = try freePort()
        let path = try writeUplinkConfiguration(port: port, namespace: uplink.client.name)
        defer { unlink(path) }
        _ = try startExporter(["--config", path])
        XCTAssertTrue(try eventually("ready", timeout: 10) { try get("http://127.0.0.1:\(port)/-/ready").status == 200 })
        func value(_ series: String) throws -> Double? {
            try get("http://127.0.0.1:\(port)/metrics").body.split(separator: "\n")
                .first { $0.hasPrefix(series + " ") }.flatMap { Double($0.split(separator: " ").last!) }
        }
        XCTAssertTrue(try eventually("three answered probes", timeout: 5) {
            try value("reach_probe_total{interface=\"wan0\",outcome=\"success\"}") ?? 0 >= 3
        })
        XCTAssertEqual(try value("reach_uplink_state{interface=\"wan0\",state=\"online\"}"), 1)
        XCTAssertEqual(try value("reach_uplink_state{interface=\"wan0\",state=\"offline\"}"), 0)
        XCTAssertGreaterThanOrEqual(try value("reach_probe_rtt_seconds_count{interface=\"wan0\"}") ?? 0, 3)
        XCTAssertEqual(try value("reach_probe_total{interface=\"wan0\",outcome=\"failure\"}"), 0)

        uplink.responder.run("route add blackhole 10.9.0.1/32")
        XCTAssertTrue(try eventually("the uplink offline", timeout: 5) {
            try value("reach_uplink_state{interface=\"wan0\",state=\"offline\"}") == 1
        })
        XCTAssertEqual(try value("reach_uplink_state{interface=\"wan0\",state=\"online\"}"), 0)
        XCTAssertEqual(try value("reach_uplink_score{interface=\"wan0\"}"), 0)
        XCTAssertGreaterThanOrEqual(try value("reach_probe_total{interface=\"wan0\",outcome=\"failure\"}") ?? 0, 2)
        // The route to the target itself never changed: the monitor still says reachable.
        XCTAssertEqual(try value("reach_target_reachable{target=\"10.9.0.2\"}"), 1)
    }

    // MARK: - The status page in a real browser

    /// Debian's Chromium: a skip when it is missing, a failure under
    /// REACH_REQUIRE_PROMETHEUS=1 (make test-fleet, whose setup-fleet installs it).
    func chromiumBinary() throws -> String {
        if let found = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) {
            return found
        }
        try skipOrFail("Chromium is not installed (make setup-fleet installs Debian's chromium)", requiredBy: Self.requirePrometheus)
    }

    /// Headless Chromium on `url` with `arguments` (--dump-dom, --screenshot=…),
    /// as deterministic as it gets: its own home and profile (removed when the
    /// test ends), no GPU, scale 1, no background networking, and every host
    /// name but loopback unresolvable, so that its traffic stays on loopback.
    /// Returns when it exits (bounded by timeout(1): 60 s).
    func chromium(_ binary: String, _ arguments: [String], url: String, file: StaticString = #filePath,
                  line: UInt = #line) throws -> CommandResult {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("reach-chromium-\(getpid())-\(UInt32.random(in: 0 ... .max))")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: home) }
        let flags = [
            "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(home.appendingPathComponent("profile").path)",
            "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--disable-sync",
            "--disable-background-networking", "--disable-component-update", "--disable-default-apps",
            "--disable-domain-reliability", "--no-pings", "--mute-audio", "--hide-scrollbars",
            "--force-device-scale-factor=1", "--force-color-profile=srgb", "--lang=en-US",
            "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
        ]
        let result = try runCommand(URL(fileURLWithPath: "/usr/bin/timeout"), ["--kill-after=5", "60", binary] + flags + arguments + [url],
                                    environment: ["HOME": home.path, "XDG_CONFIG_HOME": home.appendingPathComponent("config").path,
                                                  "XDG_CACHE_HOME": home.appendingPathComponent("cache").path,
                                                  "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "TZ": "UTC"])
        XCTAssertEqual(result.status, 0, "chromium \(arguments) exited \(result.status): \(result.stderr.suffix(2000))", file: file, line: line)
        return result
    }

    /// The attributes of every start tag `<tag …>` in `html` (as a browser
    /// serialises them: name="value", values with &quot; &amp; &lt; &gt;).
    func startTags(_ tag: String, in html: String) -> [[String: String]] {
        let tagPattern = try! NSRegularExpression(pattern: "<\(tag)(\\s[^>]*)?>")
        let attributePattern = try! NSRegularExpression(pattern: "([a-zA-Z-]+)(?:=\"([^\"]*)\")?")
        let text = html as NSString
        return tagPattern.matches(in: html, range: NSRange(location: 0, length: text.length)).map { match in
            guard match.range(at: 1).location != NSNotFound else { return [:] }
            let inside = text.substring(with: match.range(at: 1))
            var attributes: [String: String] = [:]
            for attribute in attributePattern.matches(in: inside, range: NSRange(location: 0, length: (inside as NSString).length)) {
                let name = (inside as NSString).substring(with: attribute.range(at: 1))
                let value = attribute.range(at: 2).location == NSNotFound ? "" : (inside as NSString).substring(with: attribute.range(at: 2))
                attributes[name] = value.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&lt;", with: "<")
                    .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
            }
            return attributes
        }
    }

    /// The label `label` of the series of `family` at 1 whose labels include `selector` (`target="10.9.0.2"`).
    func stateAtOne(_ metrics: String, _ family: String, _ selector: String, label: String) -> [String] {
        metrics.split(separator: "\n").filter { line in
            line.hasPrefix(family + "{") && line.contains(selector) && (line.hasSuffix(" 1.0") || line.hasSuffix(" 1"))
        }.compactMap { line in
            line.firstRange(of: "\(label)=\"").map { start in String(line[start.upperBound...].prefix { $0 != "\"" }) }
        }
    }

    /// A series' value in an exposition.
    func value(_ metrics: String, _ series: String) -> Double? {
        metrics.split(separator: "\n").first { $0.hasPrefix(series + " ") }.flatMap { Double($0.split(separator: " ").last!) }
    }

    /// The status page (`GET /`) in Debian's Chromium, headless: an exporter
    /// watching a namespace's 10.9.0.2 through wan0 (tracked), whose link
    /// goes down and up once; the DOM Chromium built holds the target's
    /// status and accessibility and the uplink's state and score that
    /// /metrics says, the target's last change at the time /metrics gives,
    /// each change (as many as reach_target_changes_total counts), and the
    /// push queue of a remote_write receiver where nothing listens (samples
    /// pending, the error shown). A phone-sized screenshot (412×915) is saved
    /// (its path printed; REACH_STATUS_PAGE_SCREENSHOT copies it there too).
    func testStatusPageInAHeadlessBrowser() throws {
        try requireRoot()
        let browser = try chromiumBinary()
        let uplink = try makeUplink()
        let port = try freePort()
        let path = try writeUplinkConfiguration(port: port, namespace: uplink.client.name)
        defer { unlink(path) }
        // A receiver on a loopback port where nothing listens: its samples wait.
        let nowhere = try freePort()
        let file = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try file.seekToEnd()
        try file.write(contentsOf: Data("""

            push_interval: 1s
            remote_write:
              - {url: "http://127.0.0.1:\(nowhere)/api/v1/write", name: central}

            """.utf8))
        try file.close()
        _ = try startExporter(["--config", path])
        let base = "http://127.0.0.1:\(port)"
        XCTAssertTrue(try eventually("ready", timeout: 10) { try get("\(base)/-/ready").status == 200 })
        func metrics() throws -> String { try get("\(base)/metrics").body }
        func pushSeries(_ text: String, _ family: String, _ labels: String...) -> Double? {
            text.split(separator: "\n").first { line in
                line.hasPrefix(family + "{") && labels.allSatisfy { line.contains($0) }
            }.flatMap { Double($0.split(separator: " ").last!) }
        }
        XCTAssertTrue(try eventually("a failed push to central", timeout: 10) {
            try pushSeries(metrics(), "reach_remote_write_requests_total", "remote=\"central\"", "result=\"error\"") ?? 0 >= 1
        })
        func stable(_ status: String, _ state: String) throws -> Bool {
            let text = try metrics()
            return stateAtOne(text, "reach_target_status", "target=\"10.9.0.2\"", label: "status") == [status]
                && stateAtOne(text, "reach_uplink_state", "interface=\"wan0\"", label: "state") == [state]
        }
        XCTAssertTrue(try eventually("10.9.0.2 reachable and wan0 online", timeout: 10) { try stable("reachable.wired", "online") })

        // One flap: the target's route and the uplink's probes go with the link.
        uplink.client.run("link set wan0 down")
        XCTAssertTrue(try eventually("10.9.0.2 not reachable and wan0 offline", timeout: 10) { try stable("notReachable", "offline") })
        uplink.client.run("link set wan0 up")
        XCTAssertTrue(uplink.client.waitForState("wan0", "UP"))
        XCTAssertTrue(try eventually("10.9.0.2 reachable and wan0 online again", timeout: 10) { try stable("reachable.wired", "online") })

        // The page's HTTP answer, then the DOM Chromium built from it, between two identical scrapes.
        let page = try get(base + "/")
        XCTAssertEqual(page.status, 200)
        let before = try metrics()
        let dom = try chromium(browser, ["--dump-dom"], url: base + "/").stdout
        let after = try metrics()
        let status = stateAtOne(after, "reach_target_status", "target=\"10.9.0.2\"", label: "status")
        let accessibility = stateAtOne(after, "reach_target_accessibility", "target=\"10.9.0.2\"", label: "state")
        let state = stateAtOne(after, "reach_uplink_state", "interface=\"wan0\"", label: "state")
        XCTAssertEqual(stateAtOne(before, "reach_target_status", "target=\"10.9.0.2\"", label: "status"), status, "the state moved while Chromium read the page")
        XCTAssertEqual(stateAtOne(before, "reach_uplink_state", "interface=\"wan0\"", label: "state"), state)
        XCTAssertTrue(dom.contains("<meta name=\"viewport\" content=\"width=device-width"), dom.prefix(600).description)

        let targets = startTags("tr", in: dom).filter { $0["data-target"] != nil }
        XCTAssertEqual(targets.map { $0["data-target"] }, ["10.9.0.2"], "\(targets)")
        XCTAssertEqual(targets.first?["data-status"], status.first, "DOM \(targets) vs /metrics \(status)")
        XCTAssertEqual(targets.first?["data-accessibility"], accessibility.first, "DOM \(targets) vs /metrics \(accessibility)")
        XCTAssertEqual(targets.first?["data-interface"], "wan0")
        let uplinks = startTags("tr", in: dom).filter { $0["data-uplink"] != nil }
        XCTAssertEqual(uplinks.map { $0["data-uplink"] }, ["wan0"], "\(uplinks)")
        XCTAssertEqual(uplinks.first?["data-state"], state.first, "DOM \(uplinks) vs /metrics \(state)")
        XCTAssertEqual(uplinks.first?["data-score"], value(after, "reach_uplink_score{interface=\"wan0\"}").map { String(Int($0)) })

        // The target's last change, as /metrics' timestamp says (UTC, to the second).
        let lastChange = try XCTUnwrap(value(after, "reach_target_last_change_timestamp_seconds{target=\"10.9.0.2\"}"))
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        let expected = formatter.string(from: Date(timeIntervalSince1970: lastChange.rounded(.down)))
        let row = try XCTUnwrap(dom.range(of: "data-target=\"10.9.0.2\"").map { dom[$0.upperBound...].prefix { $0 != "\n" } })
        let times = startTags("time", in: String(row))
        XCTAssertTrue(times.contains { $0["datetime"] == expected }, "the row's times \(times), /metrics \(expected)")

        // The changes: each of the target's (as many as /metrics counts), the uplink's offline and online.
        let changes = startTags("li", in: dom).filter { $0["data-change"] != nil }
        let targetChanges = changes.filter { $0["data-change"] == "target" && $0["data-name"] == "10.9.0.2" }
        XCTAssertEqual(Double(targetChanges.count), value(after, "reach_target_changes_total{target=\"10.9.0.2\"}"), "\(changes)")
        XCTAssertTrue(targetChanges.contains { $0["data-from"] == "reachable.wired" && $0["data-to"] == "notReachable" }, "\(changes)")
        XCTAssertEqual(targetChanges.first?["data-to"], "reachable.wired", "newest first: \(changes)")
        let uplinkChanges = changes.filter { $0["data-change"] == "uplink" && $0["data-name"] == "wan0" }
        XCTAssertTrue(uplinkChanges.contains { $0["data-to"] == "offline" }, "\(changes)")
        XCTAssertEqual(uplinkChanges.first?["data-to"], "online", "newest first: \(changes)")
        // The push queue: central's samples wait (as /metrics says), its last error is shown.
        let remotes = startTags("tr", in: dom).filter { $0["data-remote"] != nil }
        XCTAssertEqual(remotes.map { $0["data-remote"] }, ["central"], "\(remotes)")
        XCTAssertEqual(remotes.first?["data-state"], "failing", "\(remotes)")
        let pending = try XCTUnwrap(remotes.first?["data-pending"].flatMap { Int($0) }, "\(remotes)")
        XCTAssertGreaterThan(pending, 0, "\(remotes)")
        XCTAssertGreaterThan(pushSeries(before, "reach_remote_write_samples_pending", "remote=\"central\"") ?? 0, 0)
        XCTAssertEqual(pushSeries(after, "reach_remote_write_samples_sent_total", "remote=\"central\""), 0)
        XCTAssertTrue(dom.contains("cannot connect to 127.0.0.1:\(nowhere)"), "the last error")
        XCTAssertTrue(dom.contains("http://127.0.0.1:\(nowhere)/api/v1/write"), "the receiver's URL")
        XCTAssertFalse(dom.contains("push: not configured"))
        XCTAssertFalse(dom.contains("<script"), "the page needs no script")

        // A phone: 412×915 CSS pixels.
        let screenshot = FileManager.default.temporaryDirectory.appendingPathComponent("reach-status-page.png")
        try? FileManager.default.removeItem(at: screenshot)
        _ = try chromium(browser, ["--screenshot=\(screenshot.path)", "--window-size=412,915"], url: base + "/")
        let png = try Data(contentsOf: screenshot)
        XCTAssertEqual(Array(png.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "not a PNG")
        XCTAssertGreaterThan(png.count, 10_000, "an empty page?")
        if let copy = ProcessInfo.processInfo.environment["REACH_STATUS_PAGE_SCREENSHOT"], !copy.isEmpty {
            try? FileManager.default.removeItem(atPath: copy)
            try png.write(to: URL(fileURLWithPath: copy))
        }
        print("status page: target 10.9.0.2 \(status) \(accessibility), uplink wan0 \(state); \(targetChanges.count) target changes, "
              + "\(uplinkChanges.count) uplink changes, remote central pending \(pending) in the DOM; screenshot (412x915): \(screenshot.path)")
    }

    // MARK: - A real Prometheus

    /// `query` through Prometheus' HTTP API: each series' labels and value
    /// (nil when Prometheus did not answer).
    func results(_ port: Int, _ query: String) throws -> [(labels: [String: String], value: String?)]? {
        let answer = try get("http://127.0.0.1:\(port)/api/v1/query", data: ["query=\(query)"])
        guard answer.status == 200,
              let object = try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any],
              let data = object["data"] as? [String: Any], let results = data["result"] as? [[String: Any]] else { return nil }
        return results.map { result in
            (result["metric"] as? [String: String] ?? [:], (result["value"] as? [Any])?.last as? String)
        }
    }

    /// `query` through Prometheus' HTTP API: each series' instance and value.
    func query(_ port: Int, _ query: String) throws -> [String: String] {
        var values: [String: String] = [:]
        for (labels, value) in try results(port, query) ?? [] { values[labels["instance"] ?? "?"] = value }
        return values
    }

    /// Prometheus scraping each exporter's port every second (evaluating every
    /// second), each as the `instance` given; its web port. Stopped, and its
    /// directory removed, when the test ends.
    func startPrometheus(_ prometheus: String, scraping exporters: [(port: Int, instance: String)]) throws -> Int {
        let webPort = try freePort()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("reach-prometheus-\(getpid())-\(webPort)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("prometheus.yml")
        try """
            global:
              scrape_interval: 1s
              evaluation_interval: 1s
            scrape_configs:
              - job_name: reach
                static_configs:

            """.appending(exporters.map { exporter in
                "      - targets: ['127.0.0.1:\(exporter.port)']\n        labels: {instance: \(exporter.instance)}\n"
            }.joined()).write(to: config, atomically: true, encoding: .utf8)
        let server = try RunningProcess(URL(fileURLWithPath: prometheus), [
            "--config.file=\(config.path)", "--storage.tsdb.path=\(directory.appendingPathComponent("data").path)",
            "--web.listen-address=127.0.0.1:\(webPort)", "--log.level=warn"])
        addTeardownBlock { server.terminate() }
        return webPort
    }

    /// `promtool check metrics` of a real scrape of the exporter on `port`.
    func lint(_ promtool: String, port: Int) throws {
        let scrape = FileManager.default.temporaryDirectory.appendingPathComponent("reach-scrape-\(getpid())-\(port).txt")
        try get("http://127.0.0.1:\(port)/metrics").body.write(to: scrape, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: scrape) }
        let lint = try runCommand(URL(fileURLWithPath: "/bin/sh"), ["-c", "\(promtool) check metrics < \(scrape.path)"])
        XCTAssertEqual(lint.status, 0, "promtool check metrics: \(lint.stdout) \(lint.stderr)")
        print("promtool check metrics: exit \(lint.status) \(lint.stdout)\(lint.stderr)")
    }

    func testPrometheusSeesOneGatewayFlapWhileTheOtherStaysUp() throws {
        try requireRoot()
        let (prometheus, promtool) = try prometheusBinary()
        let gw1 = try makeUplinkNamespace(), gw2 = try makeUplinkNamespace()
        let port1 = try freePort(), port2 = try freePort()
        _ = try startExporter(["--netns", gw1.name, "--target", "10.1.0.7", "--listen", "127.0.0.1:\(port1)"])
        _ = try startExporter(["--netns", gw2.name, "--target", "10.1.0.7", "--listen", "127.0.0.1:\(port2)"])
        for port in [port1, port2] {
            XCTAssertTrue(try eventually("exporter on \(port) ready", timeout: 10) { try get("http://127.0.0.1:\(port)/-/ready").status == 200 })
        }

        // promtool lints a real scrape.
        try lint(promtool, port: port1)

        // Prometheus scraping both every second.
        let webPort = try startPrometheus(prometheus, scraping: [(port1, "gw1"), (port2, "gw2")])
        let reachable = "reach_target_reachable{job=\"reach\",target=\"10.1.0.7\"}"
        XCTAssertTrue(try eventually("Prometheus to see both gateways reachable", timeout: 30, interval: 250_000) {
            try query(webPort, reachable) == ["gw1": "1", "gw2": "1"]
        })

        gw1.run("link set va down")
        XCTAssertTrue(try eventually("gw1 at 0 in Prometheus", timeout: 15, interval: 250_000) {
            try query(webPort, reachable)["gw1"] == "0"
        })
        XCTAssertEqual(try query(webPort, reachable)["gw2"], "1")
        gw1.run("link set va up")
        XCTAssertTrue(try eventually("gw1 back at 1 in Prometheus", timeout: 15, interval: 250_000) {
            try query(webPort, reachable)["gw1"] == "1"
        })

        // The history, as an operator would ask for it: gw1 went 1 → 0 → 1, gw2 never left 1.
        let history = try query(webPort, "changes(\(reachable)[2m])")
        XCTAssertEqual(history["gw1"], "2", "\(history)")
        XCTAssertEqual(history["gw2"], "0", "\(history)")
        let lowest = try query(webPort, "min_over_time(\(reachable)[2m])")
        XCTAssertEqual(lowest, ["gw1": "0", "gw2": "1"])
        let changes = try query(webPort, "reach_target_changes_total")
        XCTAssertEqual(changes, ["gw1": "2", "gw2": "0"])
        print("prometheus: changes(\(reachable)[2m]) = \(history); min_over_time = \(lowest); reach_target_changes_total = \(changes)")
    }

    // MARK: - ModemManager

    /// The states of a one-hot `family` at 1 in Prometheus (sorted), and how
    /// many series the family has: exactly one at 1 of `total` when it is one-hot.
    func oneHot(_ webPort: Int, _ family: String) throws -> (states: [String], series: Int) {
        let states = try results(webPort, "\(family) == 1")?.map { $0.labels["state"] ?? "?" }.sorted() ?? []
        let series = try results(webPort, "count(\(family))")?.first?.value.flatMap { Int($0) } ?? 0
        return (states, series)
    }

    /// An exporter following ModemManager (a stand-in on a private bus, as
    /// DBUS_SYSTEM_BUS_ADDRESS) scraped by a real Prometheus: the modem's
    /// technology, generation and registration follow it LTE → UMTS → EDGE →
    /// LTE and home → roaming, each one-hot with every state listed, and its
    /// signal is served; its
    /// interface (a veth called usb0, wired by its name) becomes WWAN for
    /// the target behind it while the modem owns it; a modem that goes
    /// leaves no series, and ModemManager that goes says unavailable.
    func testPrometheusFollowsAModemFromLTEToEDGEAndRoaming() throws {
        try requireRoot()
        let (prometheus, promtool) = try prometheusBinary()
        try requirePrivateBus()
        let bus = try PrivateBus()
        try bus.startServiceAndWait()
        let ns = try makeNamespace()
        ns.addVethPair("usb0", peer: "vb", address: "10.1.0.1/24")
        let port = try freePort()
        let exporter = try startExporter(["--netns", ns.name, "--target", "10.1.0.7", "--listen", "127.0.0.1:\(port)"],
                                         environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address])
        XCTAssertTrue(try eventually("exporter ready", timeout: 10) { try get("http://127.0.0.1:\(port)/-/ready").status == 200 })
        let webPort = try startPrometheus(prometheus, scraping: [(port, "gw1")])
        let status = "reach_target_status{target=\"10.1.0.7\"} == 1"
        func statuses() throws -> [String] { try results(webPort, status)?.compactMap { $0.labels["status"] } ?? [] }
        XCTAssertTrue(try eventually("Prometheus to see ModemManager available and no modem, usb0 wired", timeout: 30, interval: 250_000) {
            try oneHot(webPort, "reach_modemmanager_availability").states == ["available"]
                && statuses() == ["reachable.wired"]
        })
        XCTAssertEqual(try results(webPort, "reach_modem_generation")?.count, 0, "a modem series before any modem")

        // A modem owning usb0: LTE, at home, 72 %.
        try bus.addModem(0, ["AccessTechnologies", "u", "16384", "SignalQuality", "(ub)", "72 true", "Ports", "a(su)", "1 usb0 2"],
                         modem3gpp: ["RegistrationState", "u", "1"])
        // Every name, and none.
        let (technologies, generations, registrations) = (RadioTechnology.allCases.count + 1, RadioGeneration.allCases.count + 1,
                                                          RegistrationState.allCases.count + 1)
        func expect(_ technology: String, _ generation: String, _ registration: String, file: StaticString = #filePath, line: UInt = #line) throws {
            var seen: [String] = []
            let followed = try eventually("Prometheus to see \(technology) (\(generation)), \(registration)", timeout: 15, interval: 250_000,
                                          file: file, line: line) {
                let now = [try oneHot(webPort, "reach_modem_access_technology{modem=\"0\",interface=\"usb0\"}"),
                           try oneHot(webPort, "reach_modem_generation{modem=\"0\",interface=\"usb0\"}"),
                           try oneHot(webPort, "reach_modem_registration{modem=\"0\",interface=\"usb0\"}")]
                seen = now.map { "\($0.states) of \($0.series)" }
                return now.map(\.states) == [[technology], [generation], [registration]]
                    && now.map(\.series) == [technologies, generations, registrations]
            }
            XCTAssertTrue(followed, "last seen: \(seen)", file: file, line: line)
        }
        try expect("lte", "4G", "home")
        XCTAssertEqual(try query(webPort, "reach_modem_signal_quality_percent{modem=\"0\"}"), ["gw1": "72"])
        XCTAssertTrue(try eventually("usb0 WWAN for the target behind it", timeout: 15, interval: 250_000) {
            try statuses() == ["reachable.wwan"]
        })

        // The fall back, one technology after the other, and back to LTE.
        for (bits, technology, generation) in [("32", "umts", "3G"), ("16", "edge", "2G"), ("16384", "lte", "4G")] {
            try bus.setModem(0, ["AccessTechnologies", "u", bits])
            try expect(technology, generation, "home")
        }
        try bus.setModem(0, ["RegistrationState", "u", "5"],
                         interface: "org.freedesktop.ModemManager1.Modem.Modem3gpp")
        try expect("lte", "4G", "roaming")
        // The signal moves (the stand-in now sends SignalQuality's struct as it came).
        try bus.setModem(0, ["SignalQuality", "(ub)", "40 true"])
        XCTAssertTrue(try eventually("the signal at 40 %", timeout: 15, interval: 250_000) {
            try query(webPort, "reach_modem_signal_quality_percent{modem=\"0\"}") == ["gw1": "40"]
        })
        try lint(promtool, port: port)

        // The history, as an alert rule sees it: 4G left and came back, 2G and 3G were seen once.
        let history = try query(webPort, "changes(reach_modem_generation{state=\"4G\"}[5m])")
        XCTAssertEqual(history, ["gw1": "2"])
        let fellBack = try results(webPort, "max_over_time(reach_modem_generation{state=~\"2G|3G\"}[5m]) == 1")?
            .compactMap { $0.labels["state"] }.sorted()
        XCTAssertEqual(fellBack, ["2G", "3G"])

        // The modem goes: its series go too (stale in Prometheus), usb0 is wired again.
        try bus.mock("RemoveModem", "u", ["0"])
        XCTAssertTrue(try eventually("the modem's series gone and usb0 wired", timeout: 15, interval: 250_000) {
            try results(webPort, "{__name__=~\"reach_modem_.*\"}")?.count == 0 && statuses() == ["reachable.wired"]
        })
        XCTAssertEqual(try oneHot(webPort, "reach_modemmanager_availability").states, ["available"])

        // ModemManager goes.
        bus.stopService()
        XCTAssertTrue(try eventually("ModemManager unavailable", timeout: 15, interval: 250_000) {
            try oneHot(webPort, "reach_modemmanager_availability") == (["unavailable"], 4)
        })
        let logged = exporter.stderr.split(separator: "\n").filter { $0.contains("ModemManager") }
        XCTAssertEqual(logged.count, 2, "one line per change of availability: \(logged)")
        print("prometheus: changes(4G)[5m] = \(history); 2G/3G seen \(fellBack ?? []); exporter logged \(logged)")
    }

    /// A bus on which nobody owns ModemManager's name: the exporter is ready
    /// as ever, says unavailable in one log line and in
    /// reach_modemmanager_availability, and serves no modem series. With
    /// `modemmanager: false` it does not follow it at all (stopped, no line).
    func testWithoutModemManagerTheExporterSaysUnavailableOnceAndServesNoModem() throws {
        try requirePrivateBus()
        let bus = try PrivateBus()
        let port = try freePort()
        let following = try startExporter(["--target", "127.0.0.1", "--listen", "127.0.0.1:\(port)"],
                                         environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address])
        XCTAssertTrue(try eventually("exporter ready", timeout: 10) { try get("http://127.0.0.1:\(port)/-/ready").status == 200 })
        func availability(_ port: Int) throws -> [Substring] {
            try get("http://127.0.0.1:\(port)/metrics").body.split(separator: "\n")
                .filter { $0.hasPrefix("reach_modemmanager_availability{") && $0.hasSuffix(" 1.0") }
        }
        XCTAssertTrue(try eventually("unavailable in a scrape, and in the log", timeout: 10) {
            try availability(port) == ["reach_modemmanager_availability{state=\"unavailable\"} 1.0"]
                && following.stderr.contains("ModemManager unavailable (ModemManager is not running)")
        })
        let body = try get("http://127.0.0.1:\(port)/metrics").body
        XCTAssertFalse(body.contains("reach_modem_"), body)
        XCTAssertTrue(body.contains("reach_modemmanager_dropped_properties_total 0\n"), body)
        XCTAssertTrue(body.contains("reach_target_reachable{target=\"127.0.0.1\"} 1.0\n"), body)
        XCTAssertEqual(following.stderr.split(separator: "\n").filter { $0.contains("ModemManager") }.count, 1, following.stderr)

        // modemmanager: false.
        let off = try freePort()
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("reach-exporter-nomm-\(getpid())-\(off).yml").path
        try "listen: 127.0.0.1:\(off)\ntargets: [127.0.0.1]\nmodemmanager: false\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { unlink(path) }
        let checked = try exporter(["--config", path, "--check-config"])
        XCTAssertEqual(checked.status, 0, checked.stderr)
        XCTAssertTrue(checked.stdoutLines.contains("modemmanager false"), checked.stdout)
        let quiet = try startExporter(["--config", path], environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address])
        XCTAssertTrue(try eventually("exporter ready", timeout: 10) { try get("http://127.0.0.1:\(off)/-/ready").status == 200 })
        XCTAssertEqual(try availability(off), ["reach_modemmanager_availability{state=\"stopped\"} 1.0"])
        quiet.terminate()
        XCTAssertFalse(quiet.stderr.contains("ModemManager"), quiet.stderr)
    }
}

/// A datagram socket of the test's own, given to the exporter as systemd's
/// `NOTIFY_SOCKET`; closed and unlinked when released.
final class NotifySocket {
    let path: String
    private let fd: Int32

    init(name: String) throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("reach-notify-\(getpid())-\(name)").path
        unlink(path)
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestStopped(reason: "socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else {
            let reason = "bind \(path): \(String(cString: strerror(errno)))"
            close(fd)
            throw TestStopped(reason: reason)
        }
    }

    deinit {
        close(fd)
        unlink(path)
    }

    /// The next message, waiting up to `timeout` seconds (0: only one already there); nil when none came.
    func next(timeout: TimeInterval) -> String? {
        var pending = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&pending, 1, Int32(timeout * 1000)) == 1 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
        return count > 0 ? String(decoding: buffer[..<count], as: UTF8.self) : nil
    }

    /// The messages that come until a second passes without one (ten missed
    /// watchdog pings at the tests' 0.1 s), for at most 5 s; `quiet` is
    /// false when they never stopped.
    func messagesUntilQuiet() -> (messages: [String], quiet: Bool) {
        var messages: [String] = []
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline {
            guard let message = next(timeout: 1) else { return (messages, true) }
            messages.append(message)
        }
        return (messages, false)
    }
}
