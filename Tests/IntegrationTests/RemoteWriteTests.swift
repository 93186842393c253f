// reach-exporter's remote write push, for real. Three namespaces made here:
//
//   GW  the gateway: the exporter; wan0 100.64.7.2/24 (carrier-grade NAT
//       space), default route via the router
//   RT  the router: in0 100.64.7.1/24, out0 203.0.113.1/24, forwarding, and
//       an nftables table that masquerades what leaves through out0 (no DNAT)
//   CTR the centre: eth0 203.0.113.10/24 and no other route, so it cannot
//       reach 100.64.0.0/10 at all; Debian's Prometheus listens there with
//       its remote write receiver, TLS (a test CA's certificate for IP
//       203.0.113.10) and basic auth (a bcrypt hash), from --web.config.file.
//
// A scrape from the centre cannot connect; the push goes out through the NAT
// and arrives. The centre is cut off (a drop rule in RT's forward chain) for
// two minutes and every sample of the cut arrives afterwards, in order. A
// stand-in receiver (Python, on GW's loopback) answers 500 then 200, or 400;
// the real Prometheus refuses a wrong password and the exporter refuses a
// certificate its CA file does not vouch for. The Grafana dashboard's every
// query is run against the Prometheus that received the pushes.
//
// All traffic stays inside the test's namespaces. Tests wait on conditions
// (the exporter's own /metrics read inside GW, Prometheus' API, the stand-in's
// log), never for a fixed time. `make test-fleet` runs them with
// REACH_REQUIRE_PROMETHEUS=1: a missing program (Prometheus, nft, htpasswd,
// openssl, /usr/bin/python3) fails them rather than skips.

import Foundation
import ReachabilityTesting   // runCommand, findExecutable, ipExecutable
import ReachabilityTestSupport
import XCTest

#if canImport(Glibc)
import Glibc
#endif

final class RemoteWriteTests: NamespaceTestCase {
    /// The exporters' push_interval here (seconds).
    static let pushInterval = 2.0
    static let gatewayAddress = "100.64.7.2"
    static let routerInside = "100.64.7.1"
    static let centreAddress = "203.0.113.10"
    static let centrePort = 9090
    static let exporterPort = 9789
    static let standInPort = 9091
    static let user = "gw"
    static let password = "push-password-7"
    /// The nftables table the router's rules live in.
    static let table = "reach_test"

    // MARK: - Programs

    struct Programs {
        let prometheus: String
        let nft: URL
        let htpasswd: URL
        let openssl: URL
        let curl: URL
        let python: URL
        let exporter: URL
    }

    /// Everything the tests run: a skip when one is missing, a failure under
    /// REACH_REQUIRE_PROMETHEUS=1 (make test-fleet), as ExporterTests do;
    /// not root: a skip, or a failure under REACH_REQUIRE_NETNS=1.
    func programs() throws -> Programs {
        try requireRoot()
        let exporter = try exporterBinary()
        let (prometheus, _) = try prometheusBinary()
        func find(_ name: String, _ package: String, at fixed: String? = nil) throws -> URL {
            if let fixed, FileManager.default.isExecutableFile(atPath: fixed) { return URL(fileURLWithPath: fixed) }
            if fixed == nil, let found = findExecutable(name) { return found }
            try skipOrFail("\(fixed ?? name) is not installed (make setup-fleet installs \(package))", requiredBy: Self.requirePrometheus)
        }
        return Programs(prometheus: prometheus, nft: try find("nft", "nftables"), htpasswd: try find("htpasswd", "apache2-utils"),
                        openssl: try find("openssl", "openssl"), curl: try find("curl", "curl"),
                        python: try find("python3", "python3", at: "/usr/bin/python3"), exporter: exporter)
    }

    // MARK: - Running things inside a namespace

    /// `ip netns exec NS ARGUMENTS...`; a status other than `expect` fails the test (nil: any status).
    @discardableResult
    func inside(_ ns: TestNamespace, _ arguments: [String], expect: Int32? = 0,
                file: StaticString = #filePath, line: UInt = #line) throws -> CommandResult {
        let ip = try XCTUnwrap(ipExecutable, "iproute2's ip is not installed")
        let result = try runCommand(ip, ["netns", "exec", ns.name] + arguments)
        if let expect, result.status != expect {
            XCTFail("`ip netns exec \(ns.name) \(arguments.joined(separator: " "))` exited \(result.status): \(result.stdout) \(result.stderr)",
                    file: file, line: line)
        }
        return result
    }

    /// A process left running inside `ns` (`ip netns exec` execs it: the pid is its own), stopped when the test ends.
    func startInside(_ ns: TestNamespace, _ arguments: [String]) throws -> RunningProcess {
        let ip = try XCTUnwrap(ipExecutable, "iproute2's ip is not installed")
        let running = try RunningProcess(ip, ["netns", "exec", ns.name] + arguments)
        addTeardownBlock { running.terminate() }
        return running
    }

    /// A temporary directory of the test's, removed when it ends (after the
    /// processes that use it, which are started later and so stopped first).
    func makeDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("reach-remote-write-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        return directory
    }

    // MARK: - The topology

    struct NAT {
        let gateway: TestNamespace
        let router: TestNamespace
        let centre: TestNamespace
    }

    /// GW — RT — CTR, the router masquerading GW's traffic to the centre.
    func makeNAT(_ programs: Programs, in directory: URL) throws -> NAT {
        let gateway = try makeNamespace(), router = try makeNamespace(), centre = try makeNamespace()
        gateway.run("link add wan0 type veth peer name in0 netns \(router.name)")
        router.run("link add out0 type veth peer name eth0 netns \(centre.name)")
        router.run("addr add \(Self.routerInside)/24 dev in0", "link set in0 up",
                   "addr add 203.0.113.1/24 dev out0", "link set out0 up")
        gateway.run("addr add \(Self.gatewayAddress)/24 dev wan0", "link set wan0 up")
        centre.run("addr add \(Self.centreAddress)/24 dev eth0", "link set eth0 up")
        gateway.waitForState("wan0", "UP")
        centre.waitForState("eth0", "UP")
        gateway.run("route add default via \(Self.routerInside)")
        try router.setSysctl("net.ipv4.ip_forward", "1")
        // Source NAT only: nothing is forwarded from out0 to the gateway unless it answers the gateway's own connection.
        let rules = directory.appendingPathComponent("router.nft")
        try """
            table ip \(Self.table) {
                chain postrouting {
                    type nat hook postrouting priority srcnat; policy accept;
                    oifname "out0" counter masquerade
                }
                chain forward {
                    type filter hook forward priority filter; policy accept;
                }
                chain input {
                    type filter hook input priority filter; policy accept;
                }
            }

            """.write(to: rules, atomically: true, encoding: .utf8)
        try inside(router, [programs.nft.path, "-f", rules.path])
        return NAT(gateway: gateway, router: router, centre: centre)
    }

    /// `nft ARGUMENTS...` in the router.
    func nft(_ nat: NAT, _ programs: Programs, _ arguments: String, file: StaticString = #filePath, line: UInt = #line) throws {
        try inside(nat.router, [programs.nft.path] + arguments.split(separator: " ").map(String.init), file: file, line: line)
    }

    /// Packets the router masqueraded so far (the rule's counter).
    func masqueraded(_ nat: NAT, _ programs: Programs) throws -> Int {
        let listed = try inside(nat.router, [programs.nft.path, "list", "chain", "ip", Self.table, "postrouting"]).stdout
        guard let range = listed.range(of: "counter packets ") else { return 0 }
        return Int(listed[range.upperBound...].prefix { $0.isNumber }) ?? 0
    }

    // MARK: - Certificates

    struct PKI {
        let ca: String
        let serverCertificate: String
        let serverKey: String
        /// A CA that signed nothing here.
        let unrelatedCA: String
    }

    /// A test CA, a server certificate it signs for IP:203.0.113.10, and an unrelated CA (EC P-256, two days).
    func makePKI(_ programs: Programs, in directory: URL) throws -> PKI {
        func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
        func openssl(_ arguments: [String]) throws {
            let result = try runCommand(programs.openssl, arguments)
            guard result.status == 0 else {
                XCTFail("openssl \(arguments.joined(separator: " ")): exit \(result.status): \(result.stderr)")
                throw TestStopped(reason: "openssl failed")
            }
        }
        let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        for (name, subject) in [("ca", "/CN=reach-exporter test CA"), ("unrelated-ca", "/CN=an unrelated CA")] {
            try openssl(["req", "-x509"] + key + ["-keyout", path("\(name).key"), "-out", path("\(name).pem"), "-days", "2",
                         "-subj", subject, "-addext", "basicConstraints=critical,CA:TRUE",
                         "-addext", "keyUsage=critical,keyCertSign,cRLSign"])
        }
        try openssl(["req", "-new"] + key + ["-keyout", path("server.key"), "-out", path("server.csr"), "-subj", "/CN=\(Self.centreAddress)"])
        try """
            subjectAltName=IP:\(Self.centreAddress)
            basicConstraints=critical,CA:FALSE
            keyUsage=critical,digitalSignature
            extendedKeyUsage=serverAuth

            """.write(toFile: path("server.ext"), atomically: true, encoding: .utf8)
        try openssl(["x509", "-req", "-in", path("server.csr"), "-CA", path("ca.pem"), "-CAkey", path("ca.key"),
                     "-CAcreateserial", "-out", path("server.pem"), "-days", "2", "-extfile", path("server.ext")])
        return PKI(ca: path("ca.pem"), serverCertificate: path("server.pem"), serverKey: path("server.key"), unrelatedCA: path("unrelated-ca.pem"))
    }

    // MARK: - The centre: a real Prometheus receiving pushes

    struct Centre {
        let namespace: TestNamespace
        let pki: PKI
        let curl: URL
        let process: RunningProcess
        var base: String { "https://\(RemoteWriteTests.centreAddress):\(RemoteWriteTests.centrePort)" }
    }

    /// Prometheus in CTR on 203.0.113.10:9090: remote write receiver, TLS and
    /// basic auth (user gw, `password`'s bcrypt hash), its storage in `directory`; ready.
    func startCentre(_ nat: NAT, _ programs: Programs, _ pki: PKI, in directory: URL) throws -> Centre {
        let hashed = try runCommand(programs.htpasswd, ["-nbBC", "10", Self.user, Self.password])
        let hash = try XCTUnwrap(hashed.stdout.split(separator: "\n").first?.split(separator: ":", maxSplits: 1).last,
                                 "htpasswd: \(hashed.stderr)")
        let web = directory.appendingPathComponent("web.yml"), config = directory.appendingPathComponent("prometheus.yml")
        try """
            tls_server_config:
              cert_file: \(pki.serverCertificate)
              key_file: \(pki.serverKey)
            basic_auth_users:
              \(Self.user): '\(hash)'

            """.write(to: web, atomically: true, encoding: .utf8)
        try "global:\n  evaluation_interval: 1s\n".write(to: config, atomically: true, encoding: .utf8)
        let process = try startInside(nat.centre, [
            programs.prometheus, "--config.file=\(config.path)", "--storage.tsdb.path=\(directory.appendingPathComponent("data").path)",
            "--web.listen-address=\(Self.centreAddress):\(Self.centrePort)", "--web.enable-remote-write-receiver",
            "--web.config.file=\(web.path)", "--log.level=warn"])
        let centre = Centre(namespace: nat.centre, pki: pki, curl: programs.curl, process: process)
        XCTAssertTrue(try eventually("Prometheus in the centre ready (TLS, basic auth)", timeout: 30, interval: 250_000) {
            try request(centre, "/-/ready").status == 200
        }, process.stderr)
        return centre
    }

    /// A request to the centre's Prometheus from `ns` (default: the centre
    /// itself), with `password` (default: the right one) and `ca`, `fields`
    /// form-encoded (POST, or in the URL with `get`); status
    /// ("000" and 0 when nothing answered), body, and curl's exit status.
    func request(_ centre: Centre, _ path: String, from ns: TestNamespace? = nil, password: String = RemoteWriteTests.password,
                 ca: String? = nil, fields: [String] = [], get: Bool = false) throws -> (status: Int, body: String, exit: Int32) {
        var arguments = [centre.curl.path, "-s", "-m", "10", "--cacert", ca ?? centre.pki.ca, "-u", "\(Self.user):\(password)",
                         "-o", "-", "-w", "\n%{http_code}", centre.base + path] + (get ? ["-G"] : [])
        for field in fields { arguments += ["--data-urlencode", field] }
        let result = try inside(ns ?? centre.namespace, arguments, expect: nil)
        guard let newline = result.stdout.lastIndex(of: "\n") else { return (0, result.stdout, result.status) }
        return (Int(result.stdout[result.stdout.index(after: newline)...]) ?? 0, String(result.stdout[..<newline]), result.status)
    }

    /// `/api/v1/query`'s `data.result`, nil when Prometheus did not answer 200.
    func apiResult(_ centre: Centre, _ query: String, at time: Double? = nil) throws -> [[String: Any]]? {
        let answer = try request(centre, "/api/v1/query", fields: ["query=\(query)"] + (time.map { ["time=\($0)"] } ?? []))
        guard answer.status == 200, let object = try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any],
              let data = object["data"] as? [String: Any], let result = data["result"] as? [[String: Any]] else { return nil }
        return result
    }

    /// An instant query: each series' labels and value.
    func vector(_ centre: Centre, _ query: String) throws -> [(labels: [String: String], value: String)]? {
        try apiResult(centre, query)?.map { ($0["metric"] as? [String: String] ?? [:], (($0["value"] as? [Any])?.last as? String) ?? "") }
    }

    /// A range selector (`series[Ns]`) at `time`: each series' raw samples (unix time, value).
    func samples(_ centre: Centre, _ selector: String, at time: Double) throws -> [(labels: [String: String], samples: [(time: Double, value: String)])]? {
        try apiResult(centre, selector, at: time)?.map { series in
            let values = (series["values"] as? [[Any]] ?? []).map { pair in
                ((pair.first as? NSNumber)?.doubleValue ?? .nan, (pair.last as? String) ?? "")
            }
            return (series["metric"] as? [String: String] ?? [:], values)
        }
    }

    // MARK: - The exporter in the gateway

    /// The exporter's /metrics, read inside the gateway: (name, labels, value) per series.
    struct Scrape {
        var series: [(name: String, labels: [String: String], value: Double)] = []

        init(_ text: String) {
            for line in text.split(separator: "\n") where !line.hasPrefix("#") {
                guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
                let key = line[..<space]
                guard let brace = key.firstIndex(of: "{") else {
                    series.append((String(key), [:], value))
                    continue
                }
                var labels: [String: String] = [:]
                var rest = key[key.index(after: brace)...].dropLast()   // without the closing brace
                while let equals = rest.firstIndex(of: "=") {
                    let name = String(rest[..<equals])
                    rest = rest[rest.index(after: equals)...].dropFirst()   // the opening quote
                    var value = "", escaped = false
                    while let character = rest.popFirst() {
                        if escaped { value.append(character); escaped = false } else if character == "\\" { escaped = true }
                        else if character == "\"" { break } else { value.append(character) }
                    }
                    labels[name] = value
                    if rest.first == "," { rest = rest.dropFirst() }
                }
                series.append((String(key[..<brace]), labels, value))
            }
        }

        /// The first series `name` whose labels include `labels`.
        func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
            series.first { series in series.name == name && labels.allSatisfy { series.labels[$0.key] == $0.value } }?.value
        }
    }

    func scrape(_ gateway: TestNamespace) throws -> Scrape {
        let curl = try XCTUnwrap(findExecutable("curl"))
        let result = try inside(gateway, [curl.path, "-s", "-m", "5", "http://127.0.0.1:\(Self.exporterPort)/metrics"], expect: nil)
        return Scrape(result.status == 0 ? result.stdout : "")
    }

    /// Writes the exporter's configuration (`remoteWrite` is the YAML of
    /// remote_write's one receiver, `extra` more top-level keys), checks it
    /// with --check-config, starts the exporter inside `gateway` and waits until it is ready.
    func startExporter(_ programs: Programs, in gateway: TestNamespace, directory: URL, listen: String,
                       targets: String = "[internet]", extra: String = "", remoteWrite: String) throws -> RunningProcess {
        let path = directory.appendingPathComponent("exporter.yml").path
        try """
            listen: \(listen)
            targets: \(targets)
            modemmanager: false
            push_interval: \(Int(Self.pushInterval))s
            external_labels: {gateway: gw1}
            \(extra)
            remote_write:
            \(remoteWrite)

            """.write(toFile: path, atomically: true, encoding: .utf8)
        let checked = try runCommand(programs.exporter, ["--config", path, "--check-config"])
        XCTAssertEqual(checked.status, 0, "--check-config: \(checked.stderr)")
        guard checked.status == 0 else { throw TestStopped(reason: "the exporter refused its configuration: \(checked.stderr)") }
        let exporter = try startInside(gateway, [programs.exporter.path, "--config", path])
        XCTAssertTrue(try eventually("the exporter ready in the gateway", timeout: 15) {
            try inside(gateway, [programs.curl.path, "-s", "-o", "/dev/null", "-w", "%{http_code}",
                                 "http://127.0.0.1:\(Self.exporterPort)/-/ready"], expect: nil).stdout == "200"
        }, exporter.stderr)
        return exporter
    }

    /// remote_write's receiver in the centre: TLS with `ca`, basic auth with a
    /// password file holding `password`; quick retries.
    func centreReceiver(_ pki: PKI, ca: String? = nil, password: String = RemoteWriteTests.password, in directory: URL) throws -> String {
        let file = directory.appendingPathComponent("push-password")
        try password.write(to: file, atomically: true, encoding: .utf8)
        return """
              - url: https://\(Self.centreAddress):\(Self.centrePort)/api/v1/write
                name: centre
                remote_timeout: 3s
                basic_auth: {username: \(Self.user), password_file: \(file.path)}
                tls_config: {ca_file: \(ca ?? pki.ca)}
                queue_config: {min_backoff: 100ms, max_backoff: 2s}
            """
    }

    /// Everything a test against the real centre needs, set up and checked.
    struct Fleet {
        let programs: Programs
        let nat: NAT
        let pki: PKI
        let centre: Centre
        let exporter: RunningProcess
        let directory: URL
    }

    /// NAT, certificates, Prometheus in the centre, then the exporter in the
    /// gateway pushing to it (`ca`, `password`: what the exporter is given).
    /// The fixture is checked first: from the gateway, curl reaches the
    /// centre's Prometheus through the NAT with the test CA and the password
    /// (200), is refused with a wrong password (401) and cannot verify its
    /// certificate against the unrelated CA (exit 60).
    func makeFleet(ca: KeyPath<PKI, String> = \.ca, password: String = RemoteWriteTests.password,
                   targets: String = "[internet]", extra: String = "",
                   prepareGateway: (TestNamespace) -> Void = { _ in }) throws -> Fleet {
        let programs = try programs()
        let directory = try makeDirectory()
        let nat = try makeNAT(programs, in: directory)
        prepareGateway(nat.gateway)
        let pki = try makePKI(programs, in: directory)
        let centre = try startCentre(nat, programs, pki, in: directory)
        XCTAssertEqual(try request(centre, "/-/ready", from: nat.gateway).status, 200, "the gateway cannot reach the centre through the NAT")
        XCTAssertEqual(try request(centre, "/-/ready", from: nat.gateway, password: "not-the-password").status, 401)
        XCTAssertEqual(try request(centre, "/-/ready", from: nat.gateway, ca: pki.unrelatedCA).exit, 60, "curl verified the certificate against the unrelated CA")
        let receiver = try centreReceiver(pki, ca: pki[keyPath: ca], password: password, in: directory)
        let exporter = try startExporter(programs, in: nat.gateway, directory: directory, listen: "0.0.0.0:\(Self.exporterPort)",
                                         targets: targets, extra: extra, remoteWrite: receiver)
        return Fleet(programs: programs, nat: nat, pki: pki, centre: centre, exporter: exporter, directory: directory)
    }

    // MARK: - The stand-in receiver

    /// No real receiver answers 500 or 400 on demand, so these tests use a
    /// stand-in: Python's http.server (standard library only, Debian's
    /// /usr/bin/python3) on the gateway's loopback. It answers `code` to the
    /// first `times` POSTs (all of them when negative), then 200, and logs
    /// every request as a JSON line: status, the body's sha256, the headers
    /// that make it remote write, and its samples (`name{labels}@ms`),
    /// decoded (snappy block format and protobuf WriteRequest, written out
    /// here: the standard library has neither).
    static let standInScript = #"""
        import hashlib, json, sys
        from http.server import BaseHTTPRequestHandler, HTTPServer

        port, log_path, code, times = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
        REASONS = {200: "OK", 400: "Bad Request", 500: "Internal Server Error"}

        def varint(data, i):
            value = shift = 0
            while True:
                byte = data[i]; i += 1
                value |= (byte & 0x7F) << shift; shift += 7
                if byte < 0x80: return value, i

        def unsnappy(data):
            length, i = varint(data, 0)
            out = bytearray()
            while i < len(data):
                tag = data[i]; i += 1; kind = tag & 3
                if kind == 0:
                    n = tag >> 2
                    if n >= 60:
                        width = n - 59; n = int.from_bytes(data[i:i + width], "little"); i += width
                    out += data[i:i + n + 1]; i += n + 1
                    continue
                if kind == 1:
                    n = ((tag >> 2) & 7) + 4; offset = ((tag >> 5) << 8) | data[i]; i += 1
                elif kind == 2:
                    n = (tag >> 2) + 1; offset = int.from_bytes(data[i:i + 2], "little"); i += 2
                else:
                    n = (tag >> 2) + 1; offset = int.from_bytes(data[i:i + 4], "little"); i += 4
                if offset == 0 or offset > len(out): raise ValueError("snappy: bad offset")
                for _ in range(n): out.append(out[-offset])
            if len(out) != length: raise ValueError("snappy: %d bytes, the header says %d" % (len(out), length))
            return bytes(out)

        def fields(data):
            i = 0
            while i < len(data):
                key, i = varint(data, i); wire = key & 7
                if wire == 0: value, i = varint(data, i)
                elif wire == 1: value = data[i:i + 8]; i += 8
                elif wire == 2:
                    n, i = varint(data, i); value = data[i:i + n]; i += n
                elif wire == 5: value = data[i:i + 4]; i += 4
                else: raise ValueError("protobuf: wire type %d" % wire)
                yield key >> 3, value

        def samples(body):
            found = []
            for number, series in fields(unsnappy(body)):
                if number != 1: continue
                labels, stamps = {}, []
                for inner, value in fields(series):
                    if inner == 1:
                        pair = dict(fields(value)); labels[pair.get(1, b"").decode()] = pair.get(2, b"").decode()
                    elif inner == 2:
                        stamps.append(dict(fields(value)).get(2, 0))
                name = labels.pop("__name__", "")
                key = name + "{" + ",".join("%s=%s" % item for item in sorted(labels.items())) + "}"
                found += ["%s@%d" % (key, stamp) for stamp in stamps]
            return found

        class Handler(BaseHTTPRequestHandler):
            count = 0
            def do_GET(self):
                self.send_response(200); self.send_header("Content-Length", "0"); self.end_headers()
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                status = code if times < 0 or Handler.count < times else 200
                Handler.count += 1
                try:
                    keys, error = samples(body), None
                except Exception as problem:
                    keys, error = [], str(problem)
                stamps = [int(key.rsplit("@", 1)[1]) for key in keys]
                record = {"status": status, "sha256": hashlib.sha256(body).hexdigest(), "bytes": len(body),
                          "encoding": self.headers.get("Content-Encoding"), "type": self.headers.get("Content-Type"),
                          "version": self.headers.get("X-Prometheus-Remote-Write-Version"), "error": error,
                          "samples": keys, "oldest": min(stamps, default=0), "newest": max(stamps, default=0)}
                with open(log_path, "a") as log:
                    log.write(json.dumps(record) + "\n")
                text = b"" if status == 200 else REASONS.get(status, "").encode()
                self.send_response(status, REASONS.get(status)); self.send_header("Content-Length", str(len(text)))
                self.end_headers(); self.wfile.write(text)
            def log_message(self, *arguments):
                pass

        HTTPServer(("127.0.0.1", port), Handler).serve_forever()
        """#

    struct StandInRequest {
        let status: Int
        let sha256: String
        let encoding: String?
        let type: String?
        let version: String?
        let error: String?
        let samples: [String]
        let oldest: Int
        let newest: Int
    }

    /// The stand-in in `gateway` on 127.0.0.1:9091, answering `code` to the
    /// first `times` POSTs (negative: to all); the path of its log. Ready.
    func startStandIn(_ programs: Programs, in gateway: TestNamespace, directory: URL, code: Int, times: Int) throws -> String {
        let script = directory.appendingPathComponent("standin.py"), log = directory.appendingPathComponent("requests.jsonl")
        try Self.standInScript.write(to: script, atomically: true, encoding: .utf8)
        let process = try startInside(gateway, [programs.python.path, script.path, "\(Self.standInPort)", log.path, "\(code)", "\(times)"])
        XCTAssertTrue(try eventually("the stand-in receiver answering", timeout: 10) {
            try inside(gateway, [programs.curl.path, "-s", "-o", "/dev/null", "-w", "%{http_code}",
                                 "http://127.0.0.1:\(Self.standInPort)/"], expect: nil).stdout == "200"
        }, process.stderr)
        return log.path
    }

    func standInRequests(_ log: String) throws -> [StandInRequest] {
        guard let text = try? String(contentsOfFile: log, encoding: .utf8) else { return [] }
        return try text.split(separator: "\n").map { line in
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return StandInRequest(status: object["status"] as? Int ?? 0, sha256: object["sha256"] as? String ?? "",
                                  encoding: object["encoding"] as? String, type: object["type"] as? String,
                                  version: object["version"] as? String, error: object["error"] as? String,
                                  samples: object["samples"] as? [String] ?? [], oldest: object["oldest"] as? Int ?? 0,
                                  newest: object["newest"] as? Int ?? 0)
        }
    }

    /// A gateway namespace (lo only) with the stand-in and an exporter pushing to it.
    func makeStandInGateway(code: Int, times: Int) throws -> (gateway: TestNamespace, exporter: RunningProcess, log: String, programs: Programs) {
        let programs = try programs()
        let directory = try makeDirectory()
        let gateway = try makeNamespace()
        let log = try startStandIn(programs, in: gateway, directory: directory, code: code, times: times)
        let exporter = try startExporter(programs, in: gateway, directory: directory, listen: "127.0.0.1:\(Self.exporterPort)", remoteWrite: """
              - url: http://127.0.0.1:\(Self.standInPort)/api/v1/write
                name: standin
                remote_timeout: 3s
                queue_config: {min_backoff: 100ms, max_backoff: 1s}
            """)
        return (gateway, exporter, log, programs)
    }

    /// The exporter's log lines about receiver `name`.
    func logLines(_ exporter: RunningProcess, _ name: String) -> [String] {
        exporter.stderr.split(separator: "\n").map(String.init).filter { $0.contains("remote_write \(name):") }
    }

    /// Whether a log line names HTTP status `code` (not as a count of samples: "sending again (500 samples waiting)").
    func said(_ line: String, code: Int) -> Bool {
        line.range(of: "(^|[^0-9])\(code)([^0-9]|$)", options: .regularExpression) != nil && !line.contains("\(code) samples")
    }

    static func clock(_ time: Double) -> String {
        let seconds = Int(time.rounded(.down))
        let milliseconds = Int(((time - Double(seconds)) * 1000).rounded())
        func two(_ number: Int) -> String { number < 10 ? "0\(number)" : "\(number)" }
        let millis = milliseconds < 10 ? "00\(milliseconds)" : milliseconds < 100 ? "0\(milliseconds)" : "\(milliseconds)"
        return "\(two(seconds / 3600 % 24)):\(two(seconds / 60 % 60)):\(two(seconds % 60)).\(millis)"
    }

    // MARK: - Through the NAT

    /// The centre cannot connect to the gateway (no route back into
    /// 100.64.0.0/10; the router, on the gateway's own network, can), yet the
    /// pushed series arrive, through the router's masquerade.
    func testPushArrivesThroughNATWhereAScrapeCannot() throws {
        let fleet = try makeFleet()
        let curl = fleet.programs.curl.path, metricsURL = "http://\(Self.gatewayAddress):\(Self.exporterPort)/metrics"
        let fromRouter = try inside(fleet.nat.router, [curl, "-s", "-m", "5", "-o", "/dev/null", "-w", "%{http_code}", metricsURL], expect: nil)
        XCTAssertEqual(fromRouter.stdout, "200", "the exporter does not answer on the gateway's own network: \(fromRouter.stderr)")
        let fromCentre = try inside(fleet.nat.centre, [curl, "-sS", "-m", "5", "-o", "/dev/null", metricsURL], expect: nil)
        XCTAssertEqual(fromCentre.status, 7, "a scrape from the centre: curl exit \(fromCentre.status) \(fromCentre.stderr)")

        let reachable = "reach_target_reachable{gateway=\"gw1\"}"
        var arrived: [(labels: [String: String], value: String)] = []
        XCTAssertTrue(try eventually("\(reachable) pushed into the centre's Prometheus", timeout: 30, interval: 250_000) {
            arrived = try vector(fleet.centre, reachable) ?? []
            return !arrived.isEmpty
        }, fleet.exporter.stderr)
        XCTAssertEqual(arrived.first?.labels["target"], "internet")
        let metrics = try scrape(fleet.nat.gateway)
        XCTAssertGreaterThan(metrics.value("reach_remote_write_samples_sent_total", ["remote": "centre"]) ?? 0, 0)
        XCTAssertGreaterThan(metrics.value("reach_remote_write_requests_total", ["remote": "centre", "result": "success"]) ?? 0, 0)
        XCTAssertGreaterThan(metrics.value("reach_remote_write_last_success_timestamp_seconds", ["remote": "centre"]) ?? 0,
                             Date().timeIntervalSince1970 - 30)
        let packets = try masqueraded(fleet.nat, fleet.programs)
        XCTAssertGreaterThan(packets, 0, "nothing went through the router's masquerade")
        print("""
            remote write through NAT: the centre's scrape of \(metricsURL): curl exit \(fromCentre.status) \
            (\(fromCentre.stderr.trimmingCharacters(in: .whitespacesAndNewlines))); the router's: HTTP \(fromRouter.stdout); \
            in Prometheus: \(arrived.map { "\($0.labels) \($0.value)" }); masqueraded packets: \(packets)
            """)
    }

    // MARK: - A two-minute cut

    /// The centre cut off (every forwarded packet dropped) until the oldest
    /// sample waiting is two minutes old, then restored: every sample of the
    /// cut arrives, in order, one per push interval, no gap.
    func testTwoMinuteCutLosesNoSample() throws {
        let fleet = try makeFleet()
        let started = Date().timeIntervalSince1970
        let lag = "reach_remote_write_lag_seconds{gateway=\"gw1\",remote=\"centre\"}"
        let info = "reach_build_info{gateway=\"gw1\"}"
        // Pushing for a few intervals first.
        XCTAssertTrue(try eventually("five samples of \(lag) in Prometheus", timeout: 40, interval: 500_000) {
            try vector(fleet.centre, "count_over_time(\(lag)[1m]) >= 5")?.isEmpty == false
        }, fleet.exporter.stderr)

        let cutStart = Date().timeIntervalSince1970
        try nft(fleet.nat, fleet.programs, "add rule ip \(Self.table) forward counter drop")
        var lagged = 0.0, mostPending = 0.0
        XCTAssertTrue(try eventually("the exporter's lag at 120 s", timeout: 200, interval: 500_000) {
            let metrics = try scrape(fleet.nat.gateway)
            lagged = metrics.value("reach_remote_write_lag_seconds", ["remote": "centre"]) ?? 0
            mostPending = max(mostPending, metrics.value("reach_remote_write_samples_pending", ["remote": "centre"]) ?? 0)
            return lagged >= 120
        }, fleet.exporter.stderr)
        let dropped = try inside(fleet.nat.router, [fleet.programs.nft.path, "list", "chain", "ip", Self.table, "forward"]).stdout
            .split(separator: "\n").first { $0.contains("drop") }.map { $0.trimmingCharacters(in: .whitespaces) } ?? "?"
        try nft(fleet.nat, fleet.programs, "flush chain ip \(Self.table) forward")
        let cutEnd = Date().timeIntervalSince1970
        XCTAssertTrue(try eventually("nothing pending after the cut", timeout: 60) {
            try scrape(fleet.nat.gateway).value("reach_remote_write_samples_pending", ["remote": "centre"]) == 0
        }, fleet.exporter.stderr)
        let drained = Date().timeIntervalSince1970
        // Samples taken after the cut are in Prometheus too.
        XCTAssertTrue(try eventually("samples from after the cut", timeout: 30, interval: 250_000) {
            try vector(fleet.centre, "timestamp(\(info)) > \(cutEnd + 2 * Self.pushInterval)")?.isEmpty == false
        })

        let now = Date().timeIntervalSince1970
        let window = Int((now - started).rounded(.up)) + 5
        var report = ["remote write cut: \(Self.clock(cutStart)) to \(Self.clock(cutEnd)) (\(String(format: "%.1f", cutEnd - cutStart)) s, "
                      + "the exporter's lag \(String(format: "%.1f", lagged)) s, at most \(Int(mostPending)) samples pending; "
                      + "router: \(dropped)); nothing pending \(String(format: "%.1f", drained - cutEnd)) s after the restore"]
        for selector in [lag, info] {
            let series = try XCTUnwrap(try samples(fleet.centre, "\(selector)[\(window)s]", at: now), "no answer for \(selector)")
            XCTAssertEqual(series.count, 1, "\(selector): \(series.map(\.labels))")
            let points = try XCTUnwrap(series.first?.samples, "no samples of \(selector)")
            guard let first = points.first, let last = points.last else { XCTFail("no samples of \(selector)"); continue }
            let gaps = zip(points, points.dropFirst()).map { $1.time - $0.time }
            let strictlyIncreasing = gaps.allSatisfy { $0 > 0 }
            XCTAssertTrue(strictlyIncreasing, "\(selector): timestamps not strictly increasing")
            let limit = 1.5 * Self.pushInterval
            for (index, gap) in gaps.enumerated() where gap > limit {
                XCTFail("\(selector): a gap of \(gap) s (more than \(limit)) from \(Self.clock(points[index].time)) to \(Self.clock(points[index + 1].time))")
            }
            XCTAssertLessThan(first.time, cutStart - 2 * Self.pushInterval, "\(selector): the window does not start before the cut")
            XCTAssertGreaterThan(last.time, cutEnd + 2 * Self.pushInterval, "\(selector): the window does not end after the cut")
            let expected = (last.time - first.time) / Self.pushInterval + 1
            XCTAssertEqual(Double(points.count), expected, accuracy: max(2, expected * 0.05),
                           "\(selector): \(points.count) samples over \(last.time - first.time) s")
            let during = points.filter { $0.time >= cutStart && $0.time <= cutEnd }
            XCTAssertEqual(Double(during.count), (cutEnd - cutStart) / Self.pushInterval, accuracy: 3,
                           "\(selector): \(during.count) samples within the cut of \(cutEnd - cutStart) s")
            func show(_ some: ArraySlice<(time: Double, value: String)>) -> String {
                some.map { "\(Self.clock($0.time)) \($0.value)" }.joined(separator: ", ")
            }
            let before = points.filter { $0.time < cutStart }, after = points.filter { $0.time > cutEnd }
            report.append("""
                \(selector): \(points.count) samples \(Self.clock(first.time))–\(Self.clock(last.time)), \
                gaps \(String(format: "%.3f", gaps.min() ?? 0))–\(String(format: "%.3f", gaps.max() ?? 0)) s, strictly increasing: \(strictlyIncreasing)
                  before the cut (\(before.count)): … \(show(before.suffix(3)))
                  during the cut (\(during.count)): \(show(during.prefix(4))) … \(show(during.dropFirst(4).suffix(4)))
                  after the cut (\(after.count)): \(show(after.prefix(4))) …
                """)
        }
        print(report.joined(separator: "\n"))
    }

    // MARK: - Answers a receiver gives

    /// 500 to the first three requests, then 200: the exporter retries with
    /// backoff, sends the same samples again (oldest first), says so once,
    /// and catches up.
    func testAReceiverThatAnswers500Then200() throws {
        let (gateway, exporter, log, _) = try makeStandInGateway(code: 500, times: 3)
        XCTAssertTrue(try eventually("a 200 after three 500s", timeout: 30) {
            try standInRequests(log).contains { $0.status == 200 }
        }, exporter.stderr)
        var metrics = try scrape(gateway)
        let remote = ["remote": "standin"]
        XCTAssertGreaterThan(metrics.value("reach_remote_write_samples_retried_total", remote) ?? 0, 0)
        XCTAssertGreaterThanOrEqual(metrics.value("reach_remote_write_requests_total", remote.merging(["result": "retried"]) { $1 }) ?? 0, 3)
        let sent = try XCTUnwrap(metrics.value("reach_remote_write_samples_sent_total", remote))
        XCTAssertTrue(try eventually("samples_sent_total growing", timeout: 15) {
            try self.scrape(gateway).value("reach_remote_write_samples_sent_total", remote) ?? 0 > sent
        })
        XCTAssertTrue(try eventually("nothing pending", timeout: 15) {
            try self.scrape(gateway).value("reach_remote_write_samples_pending", remote) == 0
        })
        metrics = try self.scrape(gateway)
        XCTAssertEqual(metrics.value("reach_remote_write_samples_dropped_total", remote.merging(["reason": "rejected"]) { $1 }) ?? 0, 0)

        let requests = try standInRequests(log)
        let refused = requests.prefix { $0.status == 500 }
        XCTAssertEqual(refused.count, 3, "\(requests.map(\.status))")
        let firstRefused = try XCTUnwrap(refused.first), firstSent = try XCTUnwrap(requests.first { $0.status == 200 })
        XCTAssertFalse(firstRefused.samples.isEmpty)
        // The same samples again, the oldest first.
        let missing = Set(firstRefused.samples).subtracting(firstSent.samples)
        XCTAssertTrue(missing.isEmpty, "\(missing.count) samples of the refused request not in the first accepted one: \(missing.sorted().prefix(3))")
        XCTAssertEqual(firstSent.oldest, firstRefused.oldest, "the first accepted request does not start with the oldest refused sample")
        for request in requests {
            XCTAssertNil(request.error, "the stand-in could not decode a request: \(request.error ?? "")")
            XCTAssertEqual(request.encoding, "snappy")
            XCTAssertEqual(request.type, "application/x-protobuf")
            XCTAssertEqual(request.version, "0.1.0")
        }
        let lines = logLines(exporter, "standin")
        XCTAssertEqual(lines.filter { said($0, code: 500) }.count, 1, "one line for the 500s, not one per retry: \(lines)")
        XCTAssertTrue(lines.contains { $0.contains("sending again") }, "no line when it recovered: \(lines)")
        print("""
            remote write 500 then 200: requests \(requests.map(\.status)); first refused \(firstRefused.samples.count) samples \
            sha256 \(firstRefused.sha256.prefix(12)), first accepted \(firstSent.samples.count) samples sha256 \(firstSent.sha256.prefix(12)) \
            (same body: \(firstRefused.sha256 == firstSent.sha256)); retried_total \
            \(metrics.value("reach_remote_write_samples_retried_total", remote) ?? -1), requests retried \
            \(metrics.value("reach_remote_write_requests_total", remote.merging(["result": "retried"]) { $1 }) ?? -1), sent_total \
            \(metrics.value("reach_remote_write_samples_sent_total", remote) ?? -1); log: \(lines)
            """)
    }

    /// 400: the request's samples are dropped (reason rejected) and counted,
    /// not retried; the log names the code and says dropped, once.
    func testA400IsDroppedAndCounted() throws {
        let (gateway, exporter, log, _) = try makeStandInGateway(code: 400, times: -1)
        let remote = ["remote": "standin"]
        XCTAssertTrue(try eventually("three rejected requests, their samples dropped, nothing pending", timeout: 30) {
            let metrics = try scrape(gateway)
            return metrics.value("reach_remote_write_requests_total", remote.merging(["result": "rejected"]) { $1 }) ?? 0 >= 3
                && metrics.value("reach_remote_write_samples_dropped_total", remote.merging(["reason": "rejected"]) { $1 }) ?? 0 > 0
                && metrics.value("reach_remote_write_samples_pending", remote) == 0
        }, exporter.stderr)
        let metrics = try scrape(gateway)
        XCTAssertEqual(metrics.value("reach_remote_write_samples_retried_total", remote) ?? 0, 0, "a 400 was retried")
        XCTAssertEqual(metrics.value("reach_remote_write_samples_sent_total", remote) ?? 0, 0)
        let requests = try standInRequests(log)
        XCTAssertEqual(Set(requests.map(\.sha256)).count, requests.count, "a rejected request was sent again")
        XCTAssertGreaterThanOrEqual(metrics.value("reach_remote_write_samples_dropped_total", remote.merging(["reason": "rejected"]) { $1 }) ?? 0,
                                    Double(requests.first?.samples.count ?? 1))
        let lines = logLines(exporter, "standin")
        let named = lines.filter { said($0, code: 400) }
        XCTAssertEqual(named.count, 1, "one line for the 400s: \(lines)")
        XCTAssertTrue(named.first?.contains("dropped") ?? false, "\(lines)")
        print("""
            remote write 400: \(requests.count) requests; dropped_total{reason="rejected"} \
            \(metrics.value("reach_remote_write_samples_dropped_total", remote.merging(["reason": "rejected"]) { $1 }) ?? -1), \
            requests rejected \(metrics.value("reach_remote_write_requests_total", remote.merging(["result": "rejected"]) { $1 }) ?? -1); log: \(lines)
            """)
    }

    /// The real Prometheus with basic auth and the exporter with a wrong
    /// password: 401, its samples dropped (rejected), the log names 401.
    func testAWrongPasswordIsRefusedAndSaidClearly() throws {
        let fleet = try makeFleet(password: "not-the-password")
        let remote = ["remote": "centre"]
        XCTAssertTrue(try eventually("a request rejected and its samples dropped", timeout: 30) {
            let metrics = try scrape(fleet.nat.gateway)
            return metrics.value("reach_remote_write_requests_total", remote.merging(["result": "rejected"]) { $1 }) ?? 0 > 0
                && metrics.value("reach_remote_write_samples_dropped_total", remote.merging(["reason": "rejected"]) { $1 }) ?? 0 > 0
        }, fleet.exporter.stderr)
        XCTAssertTrue(eventually("the log naming the 401", timeout: 10) {
            logLines(fleet.exporter, "centre").contains { said($0, code: 401) && $0.contains("dropped") }
        }, fleet.exporter.stderr)
        let metrics = try scrape(fleet.nat.gateway)
        XCTAssertEqual(metrics.value("reach_remote_write_samples_sent_total", remote) ?? 0, 0)
        XCTAssertEqual(try vector(fleet.centre, "{gateway=\"gw1\"}")?.count, 0, "samples arrived with a wrong password")
        print("remote write, wrong password: \(logLines(fleet.exporter, "centre"))")
    }

    /// The exporter's CA file is an unrelated CA: the handshake fails, no
    /// request is made (result error), nothing arrives, and the log says TLS and certificate.
    func testACertificateThatDoesNotVerifyIsRefused() throws {
        let fleet = try makeFleet(ca: \.unrelatedCA)
        let remote = ["remote": "centre"]
        XCTAssertTrue(try eventually("a request failing with an error", timeout: 30) {
            try scrape(fleet.nat.gateway).value("reach_remote_write_requests_total", remote.merging(["result": "error"]) { $1 }) ?? 0 > 0
        }, fleet.exporter.stderr)
        XCTAssertTrue(eventually("the log saying TLS and certificate", timeout: 10) {
            logLines(fleet.exporter, "centre").contains { $0.contains("TLS") && $0.lowercased().contains("certificate") }
        }, fleet.exporter.stderr)
        // The first word of it is the certificate's (the handshake is awaited
        // before the request: a refused certificate once showed first as "no
        // answer within 3s", the request written to a connection TLS had
        // closed), and BoringSSL's build paths are not in it.
        let firstLine = logLines(fleet.exporter, "centre").first ?? ""
        XCTAssertTrue(firstLine.contains("TLS handshake") && firstLine.contains("CERTIFICATE_VERIFY_FAILED"), firstLine)
        XCTAssertFalse(firstLine.contains(" at /"), firstLine)
        let metrics = try scrape(fleet.nat.gateway)
        XCTAssertEqual(metrics.value("reach_remote_write_samples_sent_total", remote) ?? 0, 0)
        XCTAssertEqual(metrics.value("reach_remote_write_requests_total", remote.merging(["result": "success"]) { $1 }) ?? 0, 0)
        XCTAssertEqual(try vector(fleet.centre, "{gateway=\"gw1\"}")?.count, 0, "samples arrived over an unverified connection")
        print("remote write, unverified certificate: \(logLines(fleet.exporter, "centre"))")
    }

    // MARK: - Redirects, from a real nginx

    /// Debian's nginx in front of the stand-in, as an ingress that moved the
    /// receiver answers: 307 then 308 are followed with the body (the
    /// stand-in decodes every sample), nothing dropped; a 301 is retried,
    /// nothing dropped, and the log names its Location. (Before: both were
    /// dropped as 4xx, `rejected`.)
    func testRedirectsFromARealNginxAreFollowedOrSaid() throws {
        let programs = try programs()
        _ = try requireServer(NginxServer.executable, "nginx", package: "nginx-light", file: #filePath, line: #line)
        let directory = try makeDirectory()
        let gateway = try makeNamespace()
        let log = try startStandIn(programs, in: gateway, directory: directory, code: 200, times: -1)
        let nginxDirectory = directory.appendingPathComponent("nginx")
        try FileManager.default.createDirectory(at: nginxDirectory, withIntermediateDirectories: true)
        let standIn = "http://127.0.0.1:\(Self.standInPort)/api/v1/write"
        let config = Nginx.config(directory: nginxDirectory.path, addresses: ["127.0.0.1"], port: Self.nginxPort, locations: [
            ("/api/v1/write", "return 307 /hop;"),
            ("/hop", "return 308 \(standIn);"),
            ("/old", "return 301 \(standIn);"),
        ])
        let nginx = try Nginx.start(in: gateway.name, directory: nginxDirectory, config: config) {
            (try? inside(gateway, [programs.curl.path, "-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST",
                                   "http://127.0.0.1:\(Self.nginxPort)/api/v1/write"], expect: nil).stdout) == "307"
        }
        addTeardownBlock { nginx.stop() }
        let exporter = try startExporter(programs, in: gateway, directory: directory, listen: "127.0.0.1:\(Self.exporterPort)", remoteWrite: """
              - url: http://127.0.0.1:\(Self.nginxPort)/api/v1/write
                name: moved
                remote_timeout: 3s
                queue_config: {min_backoff: 100ms, max_backoff: 1s}
              - url: http://127.0.0.1:\(Self.nginxPort)/old
                name: old
                remote_timeout: 3s
                queue_config: {min_backoff: 100ms, max_backoff: 1s}
            """)
        let moved = ["remote": "moved"], old = ["remote": "old"]
        XCTAssertTrue(try eventually("samples through two redirects, accepted", timeout: 30) {
            try scrape(gateway).value("reach_remote_write_samples_sent_total", moved) ?? 0 > 0
        }, exporter.stderr + nginx.log("error.log"))
        XCTAssertTrue(eventually("a log line naming the 301's Location", timeout: 30) {
            logLines(exporter, "old").contains { said($0, code: 301) && $0.contains(standIn) }
        }, exporter.stderr)
        let metrics = try scrape(gateway)
        let requests = try standInRequests(log)
        XCTAssertFalse(requests.isEmpty)
        for request in requests { XCTAssertNil(request.error, "the stand-in could not decode a redirected request") }
        XCTAssertEqual(metrics.value("reach_remote_write_samples_dropped_total", moved.merging(["reason": "rejected"]) { $1 }) ?? -1, 0)
        XCTAssertEqual(metrics.value("reach_remote_write_samples_dropped_total", old.merging(["reason": "rejected"]) { $1 }) ?? -1, 0)
        XCTAssertEqual(metrics.value("reach_remote_write_samples_sent_total", old) ?? -1, 0)
        XCTAssertGreaterThan(metrics.value("reach_remote_write_samples_pending", old) ?? 0, 0, "the 301's samples are kept")
        print("""
            remote write through nginx's 307 and 308: \(requests.count) requests at the stand-in, sent_total \
            \(metrics.value("reach_remote_write_samples_sent_total", moved) ?? -1); the 301: pending \
            \(metrics.value("reach_remote_write_samples_pending", old) ?? -1); log: \(logLines(exporter, "old"))
            """)
    }

    static let nginxPort: UInt16 = 9092

    // MARK: - A second real receiver: VictoriaMetrics

    /// Debian's VictoriaMetrics in the centre beside Prometheus, the exporter
    /// pushing to both (two receivers, two queues) through a cut: what
    /// VictoriaMetrics stores is, sample for sample, what Prometheus stores,
    /// with no gap across the cut; and every series /metrics serves is
    /// there, each counter with the value /metrics served.
    func testVictoriaMetricsStoresWhatMetricsServedThroughACut() throws {
        let programs = try programs()
        let directory = try makeDirectory()
        let nat = try makeNAT(programs, in: directory)
        let pki = try makePKI(programs, in: directory)
        let centre = try startCentre(nat, programs, pki, in: directory)
        let vm = try victoriaMetrics(programs)
        let victoria = try startInside(nat.centre, [vm.path, "-storageDataPath=\(directory.appendingPathComponent("vm").path)",
                                                    "-httpListenAddr=\(Self.centreAddress):\(Self.victoriaPort)", "-loggerLevel=ERROR"])
        let base = "http://\(Self.centreAddress):\(Self.victoriaPort)"
        XCTAssertTrue(try eventually("VictoriaMetrics ready in the centre", timeout: 30, interval: 250_000) {
            try inside(nat.centre, [programs.curl.path, "-s", "-m", "5", "\(base)/health"], expect: nil).stdout == "OK"
        }, victoria.stderr)
        let receivers = try centreReceiver(pki, in: directory) + """

              - url: \(base)/api/v1/write
                name: vm
                remote_timeout: 3s
                queue_config: {min_backoff: 100ms, max_backoff: 2s}
            """
        let exporter = try startExporter(programs, in: nat.gateway, directory: directory, listen: "0.0.0.0:\(Self.exporterPort)",
                                         remoteWrite: receivers)
        let started = Date().timeIntervalSince1970
        /// VictoriaMetrics' raw samples of `selector` (its /api/v1/export: one JSON object a series).
        func exported(_ selector: String) throws -> [(labels: [String: String], samples: [(ms: Int64, value: Double)])] {
            let answer = try inside(nat.centre, [programs.curl.path, "-s", "-m", "10", "-G", "\(base)/api/v1/export",
                                                 "--data-urlencode", "match[]=\(selector)"], expect: nil)
            return try answer.stdout.split(separator: "\n").map { line in
                let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], String(line))
                let stamps = (object["timestamps"] as? [NSNumber] ?? []).map(\.int64Value)
                let values = (object["values"] as? [Any] ?? []).map { ($0 as? NSNumber)?.doubleValue ?? Double("\($0)") ?? .nan }
                // A request that timed out at the cut's edge may have been stored and
                // sent again ("Duplicates after a timeout", in Running a fleet):
                // VictoriaMetrics without deduplication keeps both copies, identical.
                var samples: [(ms: Int64, value: Double)] = []
                for (ms, value) in zip(stamps, values) {
                    if let last = samples.last, last.ms == ms {
                        XCTAssertEqual(last.value.bitPattern, value.bitPattern, "two values at \(ms) in \(line)")
                        continue
                    }
                    samples.append((ms, value))
                }
                return (object["metric"] as? [String: String] ?? [:], samples)
            }
        }
        let info = "reach_build_info{gateway=\"gw1\"}"
        XCTAssertTrue(try eventually("five samples of \(info) in VictoriaMetrics", timeout: 40, interval: 500_000) {
            try exported(info).first?.samples.count ?? 0 >= 5
        }, exporter.stderr)

        // A cut of 20 s: both queues hold the samples, both receivers get them after.
        let cutStart = Date().timeIntervalSince1970
        try nft(nat, programs, "add rule ip \(Self.table) forward counter drop")
        XCTAssertTrue(try eventually("both receivers' lag at 20 s", timeout: 90, interval: 500_000) {
            let metrics = try scrape(nat.gateway)
            return ["centre", "vm"].allSatisfy { metrics.value("reach_remote_write_lag_seconds", ["remote": $0]) ?? 0 >= 20 }
        }, exporter.stderr)
        try nft(nat, programs, "flush chain ip \(Self.table) forward")
        let cutEnd = Date().timeIntervalSince1970
        // Every sample taken a second before a scrape that finds both queues
        // empty (a batch in flight counts as pending) is in both receivers.
        var drained = 0.0
        XCTAssertTrue(try eventually("nothing pending for either receiver", timeout: 60) {
            drained = Date().timeIntervalSince1970 - 1
            let metrics = try scrape(nat.gateway)
            return ["centre", "vm"].allSatisfy { metrics.value("reach_remote_write_samples_pending", ["remote": $0]) == 0 }
        }, exporter.stderr)

        // /metrics, then a sampling round pushed, then /metrics again: a
        // counter equal in both scrapes held that value in the round between.
        let curl = programs.curl.path, metricsURL = "http://127.0.0.1:\(Self.exporterPort)/metrics"
        let firstText = try inside(nat.gateway, [curl, "-s", "-m", "5", metricsURL]).stdout
        let firstTime = Int64(Date().timeIntervalSince1970 * 1000)
        XCTAssertTrue(try eventually("a round after the first scrape in VictoriaMetrics", timeout: 30, interval: 250_000) {
            try exported(info).first?.samples.contains { $0.ms > firstTime } ?? false
        }, exporter.stderr)
        let secondTime = Int64(Date().timeIntervalSince1970 * 1000)
        let secondText = try inside(nat.gateway, [curl, "-s", "-m", "5", metricsURL]).stdout
        let first = Scrape(firstText), second = Scrape(secondText)
        XCTAssertTrue(try eventually("that round in Prometheus too", timeout: 30, interval: 250_000) {
            try vector(centre, "timestamp(\(info)) * 1000 > \(firstTime)")?.isEmpty == false
        })

        let stored = try exported("{gateway=\"gw1\"}")
        var compared = 0, counters = 0, missing: [String] = []
        func key(_ labels: [String: String]) -> String { labels.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",") }
        let byKey = Dictionary(stored.map { (key($0.labels), $0.samples) }, uniquingKeysWith: { $0 + $1 })
        for series in second.series {
            var labels = series.labels
            labels["__name__"] = series.name
            labels["gateway"] = "gw1"
            guard let samples = byKey[key(labels)] else { missing.append(key(labels)); continue }
            guard series.name.hasSuffix("_total") || series.name == "reach_build_info",
                  let before = first.series.first(where: { $0.name == series.name && $0.labels == series.labels })?.value,
                  before == series.value else { continue }
            let between = samples.filter { $0.ms > firstTime && $0.ms < secondTime }
            XCTAssertFalse(between.isEmpty, "\(key(labels)): no sample between the scrapes")
            for sample in between {
                XCTAssertEqual(sample.value, series.value, "\(key(labels)) at \(sample.ms): VictoriaMetrics has \(sample.value), /metrics served \(series.value)")
            }
            counters += 1
        }
        XCTAssertEqual(missing, [], "series /metrics serves that VictoriaMetrics does not have")

        // Sample for sample what Prometheus has, from the start to the drain.
        let now = Date().timeIntervalSince1970
        let window = Int((now - started).rounded(.up)) + 5
        for (labels, samples) in stored {
            let name = labels["__name__"] ?? ""
            let matchers = labels.filter { $0.key != "__name__" }.sorted { $0.key < $1.key }
                .map { "\($0.key)=\"\($0.value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\""))\"" }
            let selector = "\(name){\(matchers.joined(separator: ","))}[\(window)s]"
            let inPrometheus = try XCTUnwrap(try self.samples(centre, selector, at: now), selector)
            let points = inPrometheus.first { $0.labels.count == labels.count }?.samples ?? []
            let cutoff = Int64(drained * 1000)
            // (NaN samples aside: VictoriaMetrics 1.79, Debian's, does not store NaN.)
            let theirs = points.map { (ms: Int64(($0.time * 1000).rounded()), value: Double($0.value) ?? .nan) }
                .filter { $0.ms < cutoff && !$0.value.isNaN }
            let ours = samples.filter { $0.ms < cutoff && !$0.value.isNaN }
            XCTAssertEqual(ours.map(\.ms), theirs.map(\.ms), "\(selector): timestamps differ")
            // VictoriaMetrics keeps 12 significant decimal digits of a float64
            // (its documented precision): 1796573582.5578678 comes back as
            // 1796573582.5578682. Values are compared within that.
            let same = ours.count == theirs.count && zip(ours, theirs).allSatisfy { ours, theirs in
                abs(ours.value - theirs.value) <= max(abs(ours.value), abs(theirs.value)) * 1e-11
            }
            XCTAssertTrue(same, "\(selector): values differ: \(ours.map(\.value)) in VictoriaMetrics, \(theirs.map(\.value)) in Prometheus")
            compared += 1
        }
        // No gap across the cut.
        let infoSamples = try XCTUnwrap(try exported(info).first?.samples)
        let gaps = zip(infoSamples, infoSamples.dropFirst()).map { Double($1.ms - $0.ms) / 1000 }
        XCTAssertLessThanOrEqual(gaps.max() ?? 0, 1.5 * Self.pushInterval, "\(info): a gap in VictoriaMetrics")
        XCTAssertLessThan(Double(infoSamples.first?.ms ?? .max) / 1000, cutStart)
        XCTAssertGreaterThan(Double(infoSamples.last?.ms ?? 0) / 1000, cutEnd)
        print("""
            remote write to VictoriaMetrics and Prometheus: a cut of \(String(format: "%.1f", cutEnd - cutStart)) s; \
            \(stored.count) series in VictoriaMetrics, \(compared) compared sample for sample with Prometheus, \
            \(counters) counters equal to what /metrics served; \(info): \(infoSamples.count) samples, largest gap \
            \(gaps.max() ?? 0) s
            """)
    }

    static let victoriaPort = 8428

    /// Debian's victoria-metrics: a skip when missing, a failure under REACH_REQUIRE_PROMETHEUS=1.
    func victoriaMetrics(_ programs: Programs) throws -> URL {
        let path = "/usr/bin/victoria-metrics"
        if FileManager.default.isExecutableFile(atPath: path) { return URL(fileURLWithPath: path) }
        try skipOrFail("\(path) is not installed (make setup-fleet installs victoria-metrics)", requiredBy: Self.requirePrometheus)
    }

    // MARK: - The Grafana dashboard

    /// Exporter/dist/grafana/reach-fleet.json.
    func dashboardURL(file: StaticString = #filePath) -> URL {
        URL(fileURLWithPath: "\(file)").deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Exporter/dist/grafana/reach-fleet.json")
    }

    /// Every panel's queries, (panel title, expression), rows' panels included.
    func dashboardQueries(_ dashboard: [String: Any]) -> [(title: String, expr: String)] {
        func walk(_ panels: [[String: Any]]) -> [(String, String)] {
            panels.flatMap { panel -> [(String, String)] in
                let title = panel["title"] as? String ?? "?"
                let own = (panel["targets"] as? [[String: Any]] ?? []).compactMap { $0["expr"] as? String }.map { (title, $0) }
                return own + walk(panel["panels"] as? [[String: Any]] ?? [])
            }
        }
        return walk(dashboard["panels"] as? [[String: Any]] ?? [])
    }

    /// The dashboard's PromQL with Grafana's variables as a dashboard over the last 10 minutes would have them.
    static func substitute(_ expr: String) -> String {
        [("${gateway}", "gw1"), ("$gateway", "gw1"), ("$__rate_interval", "1m"), ("${__rate_interval}", "1m"),
         ("$__interval", "15s"), ("${__interval}", "15s"), ("$__range", "10m"), ("${__range}", "10m")]
            .reduce(expr) { $0.replacingOccurrences(of: $1.0, with: $1.1) }
    }

    /// The dashboard is well formed (a datasource and a gateway variable,
    /// every panel on the datasource variable), and every panel's every query,
    /// run against the Prometheus that received a gateway's pushes, returns
    /// data: a gateway with an uplink that fails over (offline and back), a
    /// target on its LAN that changes (down and up), and a validation that fails.
    func testEveryDashboardPanelReturnsData() throws {
        let data = try Data(contentsOf: dashboardURL())
        let dashboard = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        XCTAssertGreaterThanOrEqual(dashboard["schemaVersion"] as? Int ?? 0, 36)
        let variables = (dashboard["templating"] as? [String: Any])?["list"] as? [[String: Any]] ?? []
        XCTAssertEqual(variables.first { $0["name"] as? String == "datasource" }?["type"] as? String, "datasource")
        let gatewayVariable = try XCTUnwrap(variables.first { $0["name"] as? String == "gateway" }, "no gateway variable")
        let queries = dashboardQueries(dashboard)
        XCTAssertGreaterThanOrEqual(queries.count, 6)
        func checkDatasource(_ panels: [[String: Any]]) {
            for panel in panels {
                if panel["type"] as? String != "row" {
                    XCTAssertEqual((panel["datasource"] as? [String: Any])?["uid"] as? String, "${datasource}",
                                   "panel \(panel["title"] ?? "?") is not on the datasource variable")
                }
                checkDatasource(panel["panels"] as? [[String: Any]] ?? [])
            }
        }
        checkDatasource(dashboard["panels"] as? [[String: Any]] ?? [])

        let fleet = try makeFleet(targets: "[internet, 10.77.0.7]", extra: """
            validation: tcp:\(Self.routerInside):9
            validation_interval: 1s
            uplinks:
              - {interface: wan0, hosts: [\(Self.routerInside)], method: icmp, interval: 500ms, timeout: 300ms, down: 2, up: 1}
            """, prepareGateway: { gateway in
                // The gateway's LAN (a veth: no dummy module in every kernel); without it 10.77.0.7 is unreachable, not sent the default way.
                gateway.addVethPair("lan0", peer: "lan1", address: "10.77.0.1/24")
                gateway.run("route add unreachable 10.77.0.0/16")
            })
        let gateway = fleet.nat.gateway
        func value(_ name: String, _ labels: [String: String]) throws -> Double? { try scrape(gateway).value(name, labels) }
        XCTAssertTrue(try eventually("wan0 online, the validation failed (nothing listens on the router's port 9)", timeout: 20) {
            try value("reach_uplink_state", ["interface": "wan0", "state": "online"]) == 1
                && value("reach_target_accessibility", ["target": "internet", "state": "restricted.probeFailed"]) == 1
        }, fleet.exporter.stderr)
        // A failover: the router stops answering wan0's probes, then answers again.
        try nft(fleet.nat, fleet.programs, "add rule ip \(Self.table) input icmp type echo-request drop")
        XCTAssertTrue(try eventually("wan0 offline", timeout: 20) {
            try value("reach_uplink_state", ["interface": "wan0", "state": "offline"]) == 1
        })
        // Offline until a push carried it (it may last less than a push interval).
        XCTAssertTrue(try eventually("wan0 offline in Prometheus", timeout: 20, interval: 250_000) {
            try vector(fleet.centre, "reach_uplink_state{gateway=\"gw1\",interface=\"wan0\",state=\"offline\"} == 1")?.isEmpty == false
        })
        try nft(fleet.nat, fleet.programs, "flush chain ip \(Self.table) input")
        XCTAssertTrue(try eventually("wan0 online again", timeout: 20) {
            try value("reach_uplink_state", ["interface": "wan0", "state": "online"]) == 1
        })
        // A target change, there and back.
        gateway.run("link set lan0 down")
        XCTAssertTrue(try eventually("10.77.0.7 not reachable", timeout: 10) {
            try value("reach_target_reachable", ["target": "10.77.0.7"]) == 0
        })
        XCTAssertTrue(try eventually("10.77.0.7 not reachable in Prometheus", timeout: 20, interval: 250_000) {
            try vector(fleet.centre, "reach_target_reachable{gateway=\"gw1\",target=\"10.77.0.7\"} == 0")?.isEmpty == false
        })
        gateway.run("link set lan0 up")
        XCTAssertTrue(try eventually("10.77.0.7 reachable again", timeout: 10) {
            try value("reach_target_reachable", ["target": "10.77.0.7"]) == 1
        })
        XCTAssertTrue(try eventually("the failover and the change in Prometheus", timeout: 30, interval: 500_000) {
            try vector(fleet.centre, "changes(reach_uplink_state{gateway=\"gw1\",state=\"online\"}[10m]) >= 2")?.isEmpty == false
                && vector(fleet.centre, "reach_target_changes_total{gateway=\"gw1\",target=\"10.77.0.7\"} >= 2")?.isEmpty == false
        }, fleet.exporter.stderr)

        // The gateway variable's values.
        let variableQuery = (gatewayVariable["query"] as? [String: Any])?["query"] as? String ?? gatewayVariable["query"] as? String ?? ""
        XCTAssertTrue(variableQuery.hasPrefix("label_values("), variableQuery)
        let metric = variableQuery.dropFirst("label_values(".count).prefix { $0 != "," }
        let values = try request(fleet.centre, "/api/v1/label/gateway/values", fields: ["match[]=\(metric)"], get: true)
        XCTAssertTrue(values.body.contains("\"gw1\""), "\(variableQuery): \(values.body)")

        var report: [String] = ["dashboard \(dashboardURL().lastPathComponent): variable gateway = \(variableQuery) → \(values.body)"]
        for (title, expr) in queries {
            let query = Self.substitute(expr)
            XCTAssertFalse(query.contains("$"), "\(title): a variable left in \(query)")
            let result = try vector(fleet.centre, query)
            XCTAssertNotNil(result, "\(title): Prometheus refused \(query)")
            XCTAssertFalse(result?.isEmpty ?? true, "\(title): no data for \(query)")
            let shown = (result ?? []).prefix(4).map { series in
                let labels = series.labels.filter { $0.key != "__name__" }.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                return "{\(labels.joined(separator: ","))} \(series.value)"
            }
            report.append("  \(title) → \(result?.count ?? -1) series: \(query)\n      \(shown.joined(separator: "; "))")
        }
        print(report.joined(separator: "\n"))
    }
}
