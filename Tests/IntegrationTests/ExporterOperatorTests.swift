// An operator's first hour with reach-exporter (issue 52): what it says at
// start and in --check-config, a misspelled uplink interface, an error in
// one plain sentence, SIGHUP and the other signals, and the shipped alert
// rules against series pushed into a real Prometheus. The exporter runs as
// a process (ExporterTests' helpers); traffic stays on loopback.

import Foundation
import ReachabilityCore
import ReachabilityTesting
import ReachabilityTestSupport
import XCTest

#if canImport(Glibc)
import Glibc
#endif

extension ExporterTests {
    /// A configuration file of the test's, removed when the test ends.
    func writeConfiguration(_ name: String, _ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("reach-exporter-\(name)-\(getpid()).yml").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        addTeardownBlock { unlink(path) }
        return path
    }

    /// Whether `pid` catches `signal` (/proc/PID/status, SigCgt): the handler is installed.
    func catches(_ signal: Int32, _ pid: Int32) -> Bool {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigCgt:") }),
              let mask = UInt64(line.dropFirst("SigCgt:".count).trimmingCharacters(in: .whitespaces), radix: 16) else { return false }
        return mask & (1 << (UInt64(signal) - 1)) != 0
    }

    /// `--check-config` names every key with its value in effect, durations
    /// as the file writes them, and warns (exit 0) about an uplink whose
    /// interface does not exist.
    func testCheckConfigSaysEveryKeyAndWarnsOfAMissingInterface() throws {
        let path = try writeConfiguration("check", """
            listen: 127.0.0.1:9799
            targets: [127.0.0.1]
            resolve_timeout: 2s
            modemmanager: false
            uplinks:
              - {interface: eth9, hosts: [10.9.0.2], method: icmp, interval: 200ms, timeout: 150ms, down: 2, up: 1}
            """)
        let checked = try exporter(["--config", path, "--check-config"])
        XCTAssertEqual(checked.status, 0, checked.stderr)
        XCTAssertTrue(checked.stdoutLines.contains("resolve_timeout 2s"), checked.stdout)
        XCTAssertTrue(checked.stdoutLines.contains("validation off"), checked.stdout)
        XCTAssertTrue(checked.stdoutLines.contains("netns current"), checked.stdout)
        XCTAssertTrue(checked.stdoutLines.contains {
            $0.hasPrefix("uplink eth9 hosts 10.9.0.2 method icmp interval 200ms timeout 150ms down 2 up 1 reliability ")
        }, checked.stdout)
        XCTAssertTrue(checked.stderr.contains("reach-exporter: warning: uplink eth9: no interface eth9 in this host (misspelled?)"),
                      checked.stderr)
    }

    /// At start the exporter says where it listens, what it watches and
    /// warns of an uplink without its interface; the page shows that too.
    func testTheStartIsLoggedAndAMissingInterfaceIsShown() throws {
        let port = try freePort()
        let path = try writeConfiguration("start-\(port)", """
            listen: 127.0.0.1:\(port)
            targets: [127.0.0.1]
            modemmanager: false
            uplinks:
              - {interface: eth9, hosts: [127.0.0.1], method: icmp, interval: 200ms, timeout: 150ms, down: 1, up: 1}
            """)
        let running = try startExporter(["--config", path])
        XCTAssertTrue(eventually("the start logged", timeout: 10, interval: 5000) {
            running.stderr.contains("serving /metrics and the status page on http://127.0.0.1:\(port)/")
        }, running.stderr)
        XCTAssertTrue(running.stderr.contains("watching 1 target: 127.0.0.1; validation off"), running.stderr)
        XCTAssertTrue(running.stderr.contains("uplink eth9: no interface eth9 in this host (misspelled?)"), running.stderr)
        let page = try get("http://127.0.0.1:\(port)/").body
        XCTAssertTrue(page.contains("data-missing-interface=\"eth9\""), page)
    }

    /// A port in use is said in one plain sentence, not as swift-nio's
    /// `bind(descriptor:ptr:bytes:): ... (errno: 98)`.
    func testAPortInUseIsOnePlainSentence() throws {
        let (fd, port) = loopbackSocket(listening: true)
        defer { close(fd) }
        let result = try exporter(["--target", "127.0.0.1", "--listen", "127.0.0.1:\(port)"])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.hasSuffix("reach-exporter: cannot listen on 127.0.0.1:\(port): "
                                              + "the address is already in use (another program listens on it)\n"), result.stderr)
    }

    /// SIGHUP reads the configuration again: a bad one is logged and the one
    /// in use kept; a good one is taken (a target added). SIGUSR1 and
    /// SIGUSR2 are logged and ignored. Once ended all three silently (129,
    /// 138, 140), and under Restart=on-failure a SIGHUP death is not restarted.
    func testSIGHUPReloadsKeepingTheOldConfigurationWhenTheNewOneIsBad() throws {
        let port = try freePort()
        let base = "listen: 127.0.0.1:\(port)\nmodemmanager: false\n"
        let path = try writeConfiguration("reload-\(port)", base + "targets: [127.0.0.1]\n")
        let running = try startExporter(["--config", path])
        XCTAssertTrue(try eventually("the exporter ready", timeout: 10, interval: 5000) {
            try get("http://127.0.0.1:\(port)/-/ready").status == 200
        })
        XCTAssertTrue(eventually("SIGHUP caught", timeout: 10, interval: 5000) { catches(SIGHUP, running.pid) })

        try (base + "targets: [127.0.0.1]\nno_such_key: 1\n").write(toFile: path, atomically: true, encoding: .utf8)
        kill(running.pid, SIGHUP)
        XCTAssertTrue(eventually("the bad configuration refused", timeout: 10, interval: 5000) {
            running.stderr.contains("SIGHUP: not reloaded, the configuration in use is kept:")
        }, running.stderr)
        XCTAssertTrue(running.stderr.contains("unknown key 'no_such_key'"), running.stderr)
        XCTAssertTrue(running.isRunning, "SIGHUP ended the exporter: \(running.stderr)")
        XCTAssertTrue(try get("http://127.0.0.1:\(port)/metrics").body.contains("reach_target_reachable{target=\"127.0.0.1\"} 1.0\n"))

        try (base + "targets: [127.0.0.1, 127.0.0.2]\n").write(toFile: path, atomically: true, encoding: .utf8)
        kill(running.pid, SIGHUP)
        XCTAssertTrue(try eventually("the new target served", timeout: 10, interval: 5000) {
            try get("http://127.0.0.1:\(port)/metrics").body.contains("reach_target_reachable{target=\"127.0.0.2\"} 1.0\n")
        }, running.stderr)
        XCTAssertTrue(running.stderr.contains("SIGHUP: configuration read; restarting with it"), running.stderr)
        XCTAssertTrue(running.stderr.contains("watching 2 targets: 127.0.0.1, 127.0.0.2"), running.stderr)

        for (signal, name) in [(SIGUSR1, "SIGUSR1"), (SIGUSR2, "SIGUSR2")] {
            kill(running.pid, signal)
            XCTAssertTrue(eventually("\(name) logged", timeout: 10, interval: 5000) {
                running.stderr.contains("\(name) ignored (SIGHUP reloads the configuration, SIGTERM stops)")
            }, running.stderr)
            XCTAssertTrue(running.isRunning, "\(name) ended the exporter")
        }
        kill(running.pid, SIGTERM)
        XCTAssertEqual(running.waitForExit(timeout: 10), 0, running.stderr)
    }

    /// The shipped rules (Exporter/docs/prometheus/reach.rules.yml) in a real
    /// Prometheus that receives an exporter's push (remote write, as from a
    /// gateway behind NAT: no job, no instance, `external_labels: {gateway:
    /// gw-test}`): ReachUplinkDown names the gateway, and the gateway's last
    /// push stays known once it is silent, past Prometheus' lookback (5 s
    /// here, so that the test does not wait 5 minutes); promtool's unit
    /// tests (reach.rules.test.yml) check the times at which each alert fires.
    func testTheShippedRulesWorkOnPushedSeriesInPrometheus() throws {
        let (prometheus, _) = try prometheusBinary()
        let rules = URL(fileURLWithPath: "\(#filePath)").deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Exporter/docs/prometheus/reach.rules.yml").path
        let webPort = try freePort(), port = try freePort()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("reach-prometheus-push-\(getpid())-\(webPort)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("prometheus.yml")
        try "global: {evaluation_interval: 1s}\nrule_files: ['\(rules)']\n".write(to: config, atomically: true, encoding: .utf8)
        let server = try RunningProcess(URL(fileURLWithPath: prometheus), [
            "--config.file=\(config.path)", "--storage.tsdb.path=\(directory.appendingPathComponent("data").path)",
            "--web.listen-address=127.0.0.1:\(webPort)", "--web.enable-remote-write-receiver",
            "--query.lookback-delta=5s", "--log.level=warn"])
        addTeardownBlock { server.terminate() }
        XCTAssertTrue(try eventually("Prometheus ready", timeout: 30) { try get("http://127.0.0.1:\(webPort)/-/ready").status == 200 })

        let path = try writeConfiguration("push-\(port)", """
            listen: 127.0.0.1:\(port)
            targets: [127.0.0.1]
            modemmanager: false
            push_interval: 1s
            external_labels: {gateway: gw-test}
            remote_write: [{url: 'http://127.0.0.1:\(webPort)/api/v1/write', name: centre}]
            uplinks:
              - {interface: wan9, hosts: [127.0.0.1], method: icmp, interval: 200ms, timeout: 150ms, down: 1, up: 1, initial_state: offline}
            """)
        let gateway = try startExporter(["--config", path])

        // ReachUplinkDown, pending (for: 1m), names the gateway by its external label.
        func alerts() throws -> [[String: Any]] {
            let answer = try get("http://127.0.0.1:\(webPort)/api/v1/alerts")
            let object = try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any]
            return ((object?["data"] as? [String: Any])?["alerts"] as? [[String: Any]]) ?? []
        }
        var summary: String?
        XCTAssertTrue(try eventually("ReachUplinkDown for gw-test", timeout: 30) {
            let alert = try alerts().first { ($0["labels"] as? [String: String])?["alertname"] == "ReachUplinkDown" }
            summary = (alert?["annotations"] as? [String: String])?["summary"]
            return summary != nil
        }, gateway.stderr)
        XCTAssertEqual(summary, "gw-test: uplink wan9 offline")

        // The last push, per gateway, recorded; once the gateway is silent it stays, unchanged, past the lookback.
        let lastPush = "reach:gateway_last_push:timestamp_seconds"
        XCTAssertTrue(try eventually("\(lastPush) for gw-test", timeout: 30) {
            try results(webPort, lastPush)?.contains { $0.labels["gateway"] == "gw-test" } == true
        })
        kill(gateway.pid, SIGKILL)
        XCTAssertTrue(try eventually("gw-test's pushed series gone (lookback 5 s)", timeout: 30) {
            try results(webPort, "reach_build_info{gateway=\"gw-test\"}")?.isEmpty == true
        })
        // Recorded at an evaluation more than the lookback (and a second) after the last push:
        // without the rule carrying itself forward, nothing would be recorded by then.
        let carried = "timestamp(\(lastPush){gateway=\"gw-test\"}) - \(lastPush){gateway=\"gw-test\"} > 6"
        XCTAssertTrue(try eventually("the last push's time carried past the lookback", timeout: 30) {
            try results(webPort, carried)?.isEmpty == false
        })
    }
}
