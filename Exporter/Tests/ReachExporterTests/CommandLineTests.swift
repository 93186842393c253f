// reach-exporter's own reading of its options (it links no argument parser:
// ReachExporter.swift says why): both spellings of a value, repeats, the
// flags, and every usage error as a ConfigurationError (exit 2).

@testable import ReachExporterKit
import XCTest

final class CommandLineTests: XCTestCase {
    func testOptionsInBothSpellings() throws {
        let (command, request) = try ReachExporter.parse(["--config", "/etc/x.yml", "--listen=127.0.0.1:1", "--target", "internet",
                                                          "--target=192.0.2.1", "--netns", "blue", "--validate=dns", "--check-config"])
        XCTAssertEqual(request, .run)
        XCTAssertEqual(command.config, "/etc/x.yml")
        XCTAssertEqual(command.listen, "127.0.0.1:1")
        XCTAssertEqual(command.targets, ["internet", "192.0.2.1"])
        XCTAssertEqual(command.namespace, "blue")
        XCTAssertEqual(command.validate, "dns")
        XCTAssertTrue(command.checkConfig)
        XCTAssertEqual(try ReachExporter.parse([]).1, .run)
        XCTAssertEqual(try ReachExporter.parse(["--target", "x", "-h"]).1, .help)
        XCTAssertEqual(try ReachExporter.parse(["--help"]).1, .help)
        XCTAssertEqual(try ReachExporter.parse(["--version"]).1, .version)
    }

    func testUsageErrors() {
        for (arguments, expected) in [(["--listen"], "--listen needs a value"), (["--bogus"], "unknown option '--bogus'"),
                                      (["stray"], "unexpected argument 'stray'"), (["--check-config=yes"], "takes no value"),
                                      (["--bogus=1"], "unknown option '--bogus'")] {
            XCTAssertThrowsError(try ReachExporter.parse(arguments), "\(arguments)") { error in
                XCTAssertTrue("\(error)".contains(expected), "\(arguments): \(error)")
            }
        }
    }
}

/// remote_write's keys: defaults, every key read, and the errors an operator meets.
final class RemoteWriteConfigurationTests: XCTestCase {
    func testKeysAndDefaults() throws {
        let configuration = try ExporterConfiguration.parse(yaml: """
            push_interval: 30s
            external_labels: {gateway: gw-0042, site: north}
            remote_write:
              - url: https://central.example:9090/api/v1/write
                name: central
                remote_timeout: 10s
                headers: {X-Scope-OrgID: fleet}
                basic_auth: {username: gw, password: s3cret}
                tls_config: {server_name: central.example, insecure_skip_verify: true}
                queue_config: {capacity: 1000, sample_age_limit: 30m, max_samples_per_send: 500, min_backoff: 100ms, max_backoff: 10s, retry_on_http_429: false}
              - url: http://[2001:db8::1]/push
            """, source: "test.yml")
        XCTAssertEqual(configuration.pushInterval, .seconds(30))
        XCTAssertEqual(configuration.externalLabels.map(\.name), ["gateway", "site"])
        let central = configuration.remoteWrites[0], other = configuration.remoteWrites[1]
        XCTAssertEqual(central.url.description, "https://central.example:9090/api/v1/write")
        XCTAssertEqual(central.remoteTimeout, .seconds(10))
        XCTAssertEqual(central.headers.map(\.name), ["X-Scope-OrgID"])
        XCTAssertEqual(central.tls.serverName, "central.example")
        XCTAssertTrue(central.tls.insecureSkipVerify)
        XCTAssertEqual(central.queue.capacity, 1000)
        XCTAssertEqual(central.queue.sampleAgeLimit, .seconds(1800))
        XCTAssertEqual(central.queue.maxSamplesPerSend, 500)
        XCTAssertFalse(central.queue.retryOnHTTP429)
        XCTAssertEqual(other.name, "[2001:db8::1]:80")
        XCTAssertEqual(other.url.host, "2001:db8::1")
        XCTAssertEqual(other.url.path, "/push")
        XCTAssertEqual(other.queue.capacity, 50_000)
        XCTAssertEqual(other.queue.maxBackoff, .seconds(5))
        XCTAssertEqual(other.remoteTimeout, .seconds(30))
    }

    func testErrorsNameTheKeyAndLine() {
        let cases: [(String, String)] = [
            ("remote_write:\n  - name: x\n", "test.yml:2: remote_write[0]: needs 'url'"),
            ("remote_write:\n  - url: ftp://x/\n", "test.yml:2: url 'ftp://x/': takes http:// or https://"),
            ("remote_write:\n  - url: http://u:p@x/\n", "credentials go in basic_auth"),
            ("remote_write:\n  - url: http://x/\n    tls_config: {ca_file: /ca.pem}\n", "the url is http://, not https://"),
            ("remote_write:\n  - url: http://x/\n    basic_auth: {username: u}\n", "needs 'password' or 'password_file'"),
            ("remote_write:\n  - url: http://x/\n    basic_auth: {username: u, password: p}\n    bearer_token: t\n", "one or the other"),
            ("remote_write:\n  - url: http://x/\n    headers: {Authorization: x}\n", "the protocol's own"),
            ("remote_write:\n  - url: http://x/\n    queue_config: {capacity: 0}\n", "capacity: takes 1...10000000, not 0"),
            ("remote_write:\n  - url: http://x/\n    queue_config: {min_backoff: 10s, max_backoff: 1s}\n", "min_backoff is longer than max_backoff"),
            ("remote_write:\n  - url: http://x:1/\n  - url: http://x:1/\n", "the name 'x:1' is given twice"),
            ("external_labels: {__x: y}\n", "is not a label name"),
            ("external_labels: {1a: y}\n", "is not a label name"),
            ("push_interval: 500ms\n", "push_interval: at least 1s"),
        ]
        for (text, expected) in cases {
            XCTAssertThrowsError(try ExporterConfiguration.parse(yaml: text, source: "test.yml"), text) { error in
                XCTAssertTrue("\(error)".contains(expected), "expected '\(expected)' in: \(error)")
            }
        }
    }

    func testMissingTLSAndPasswordFilesAreConfigurationErrors() throws {
        for (text, expected) in [
            ("remote_write:\n  - url: https://x/\n    tls_config: {ca_file: /nonexistent/ca.pem}\n", "/nonexistent/ca.pem"),
            ("remote_write:\n  - url: http://x/\n    basic_auth: {username: u, password_file: /nonexistent/pw}\n", "/nonexistent/pw"),
        ] {
            let configuration = try ExporterConfiguration.parse(yaml: text, source: "test.yml")
            XCTAssertThrowsError(try RemotePush.check(configuration)) { error in
                XCTAssertTrue("\(error)".contains(expected), "\(error)")
            }
        }
    }
}
