// One uplink of a sandbox: the device's end of a veth pair, its provider's
// namespace at the other end (gateway, validation endpoint, name server), and
// the verbs that flap it.

import Foundation
import LinuxReachability
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

extension NetworkSandbox {
    /// An uplink of the device: a veth whose far end is in its provider's
    /// namespace. Device side `10.200.N.2/24`, gateway `10.200.N.1` (N counts
    /// the uplinks from 0). Each verb returns once the kernel shows its effect
    /// on the device's side (operstate, carrier, the endpoint's answer).
    public final class Uplink: Sendable, CustomStringConvertible {
        /// The interface's name in the device namespace.
        public let name: String
        /// The kind the uplink plays (see ``NetworkSandbox/kindOverrides``).
        public let kind: InterfaceKind
        /// The device's address on this uplink.
        public let address: IPAddress
        /// The provider's end: the gateway of this uplink's default route.
        public let gateway: IPAddress
        /// The provider's namespace, where the gateway, the endpoint and the name server are.
        public let providerNamespace: NetworkNamespace
        /// The metric of this uplink's default route (100 for the first uplink, 200 for the second...).
        public let metric: UInt32
        let provider: String
        let index: Int
        let core: SandboxCore
        /// The provider's validation endpoint, replaced when it turns captive or back.
        private let endpointServer: Mutex<ServerDaemon>
        private let nameServer: ServerDaemon
        /// The provider's servers now (package access: our tests check teardown).
        package var servers: [ServerDaemon] { [endpointServer.withLock { $0 }, nameServer] }

        private struct State {
            var pluggedIn = true
            var up = true
            var captiveLocation: String?
            /// Endpoints started so far (each in a directory of its own).
            var endpoints = 1
        }
        private let state = Mutex(State())

        /// The provider's end of the veth.
        static let providerEnd = "customer"

        init(name: String, kind: InterfaceKind, index: Int, provider: String, core: SandboxCore,
             endpoint: ServerDaemon, nameServer: ServerDaemon) {
            self.name = name
            self.kind = kind
            self.address = IPAddress("10.200.\(index).2")!
            self.gateway = IPAddress("10.200.\(index).1")!
            self.provider = provider
            self.providerNamespace = .named(provider)
            self.metric = UInt32(100 * (index + 1))
            self.core = core
            self.index = index
            self.endpointServer = Mutex(endpoint)
            self.nameServer = nameServer
        }

        /// Where the provider's portal redirects while it is captive
        /// (``becomeCaptive(location:)``), nil while the endpoint answers 204.
        public var captiveLocation: String? { state.withLock { $0.captiveLocation } }

        /// `NAME (KIND)`.
        public var description: String { "\(name) (\(kind))" }

        // MARK: Carrier

        /// Pulls the cable: the provider's end goes down, so the device's end
        /// loses its carrier (`NO-CARRIER`, operstate `LOWERLAYERDOWN`). The
        /// kernel keeps the uplink's routes, marked `linkdown`, and still
        /// chooses them: the library answers "connection required", not a
        /// failover (``setDown()`` removes the routes).
        ///
        /// - Throws: ``SandboxError`` when a command fails, or the link does not
        ///   reach the state in time.
        public func unplug() throws {
            try core.ip(provider, ["link", "set", Self.providerEnd, "down"])
            let up = state.withLock { $0.pluggedIn = false; return $0.up }
            if up { try core.waitForLink(name, "without carrier") { $0.flags.contains("NO-CARRIER") } }
        }

        /// Plugs the cable back in: carrier and operstate `UP` again (when the link is up).
        ///
        /// - Throws: ``SandboxError`` when a command fails, or the link does not
        ///   reach the state in time.
        public func plugIn() throws {
            try core.ip(provider, ["link", "set", Self.providerEnd, "up"])
            let up = state.withLock { $0.pluggedIn = true; return $0.up }
            if up { try core.waitForLink(name, "operstate UP") { $0.state == "UP" } }
        }

        /// The modem lost its signal: for a WWAN uplink what ``unplug()`` is for a cable.
        ///
        /// - Throws: ``SandboxError`` when a command fails, or the link does not
        ///   reach the state in time.
        public func signalLost() throws { try unplug() }

        /// The modem found its signal again, as ``plugIn()``.
        ///
        /// - Throws: ``SandboxError`` when a command fails, or the link does not
        ///   reach the state in time.
        public func signalBack() throws { try plugIn() }

        // MARK: Administrative state

        /// Sets the device's end administratively down (`ip link set NAME down`):
        /// the kernel removes every route through it, so traffic fails over to
        /// the next default route.
        ///
        /// - Throws: ``SandboxError`` when a command fails, or the link does not
        ///   reach the state in time.
        public func setDown() throws {
            try core.ip(core.name, ["link", "set", name, "down"])
            state.withLock { $0.up = false }
            try core.waitForLink(name, "down") { !$0.flags.contains("UP") }
        }

        /// Sets the device's end up again, waits for its operstate, and puts
        /// back its default route (as a network manager does).
        ///
        /// - Throws: ``SandboxError`` when a command fails, or the link does not
        ///   reach the state in time.
        public func setUp() throws {
            try core.ip(core.name, ["link", "set", name, "up"])
            let pluggedIn = state.withLock { $0.up = true; return $0.pluggedIn }
            try core.waitForLink(name, pluggedIn ? "operstate UP" : "up without carrier") {
                pluggedIn ? $0.state == "UP" : $0.flags.contains("UP")
            }
            try restoreDefaultRoute()
        }

        /// Adds this uplink's default route when the routes want one and the link is up.
        func restoreDefaultRoute() throws {
            guard state.withLock({ $0.up }), let metric = core.state.withLock({ $0.defaultMetrics[name] }) else { return }
            try core.ip(core.name, ["route", "replace", "default", "via", gateway.description, "dev", name,
                                    "metric", "\(metric)"])
        }

        // MARK: Captive portal

        /// The provider turns into a captive portal: its endpoint answers
        /// `/generate_204` with `302 Found` and a `Location` header, so a
        /// validation through this uplink finds a portal. Returns once it does.
        ///
        /// - Parameter location: Where the portal redirects.
        /// - Throws: ``SandboxError`` for a location with white space, quotes,
        ///   `;`, braces, `$` or a backslash, or when nginx does not take it or
        ///   does not answer so in time.
        public func becomeCaptive(location: String = "http://portal.test/login") throws {
            guard !location.isEmpty, !location.contains(where: { $0.isWhitespace || "\"';{}\\$".contains($0) }) else {
                throw SandboxError("unusable portal location '\(location)'")
            }
            try serve(captive: location)
        }

        /// The portal lets the device through: the endpoint answers 204 again. Returns once it does.
        ///
        /// - Throws: ``SandboxError`` when nginx does not start or does not answer 204 in time.
        public func leaveCaptivity() throws { try serve(captive: nil) }

        /// Starts an endpoint that answers so next to the current one (both
        /// listen with SO_REUSEPORT; with `tcp_migrate_req` the connections
        /// waiting on the old one move to the new), stops the old one, and
        /// waits until the endpoint answers so.
        private func serve(captive location: String?) throws {
            let generation = state.withLock { $0.endpoints += 1; return $0.endpoints }
            // Listening once its launcher returned: nginx opens its sockets before it forks.
            let replacement = try core.startEndpoint(provider, index: index, generation: generation, captive: location) { true }
            let old = endpointServer.withLock { server in
                defer { server = replacement }
                return server
            }
            old.stop()
            let deadline = Date().addingTimeInterval(5)
            while !core.endpointAnswers(in: provider, captive: location) {
                guard Date() < deadline else {
                    throw SandboxError("the endpoint of \(name) does not answer "
                                       + (location.map { "302 → \($0)" } ?? "204") + " after 5 s: \(replacement.log("error.log"))")
                }
                usleep(10_000)
            }
            state.withLock { $0.captiveLocation = location }
        }

        func stopServers() {
            servers.forEach { $0.stop() }
        }

        static func locations(captive location: String?) -> [(path: String, directives: String)] {
            [("/generate_204", location.map { "return 302 \"\($0)\";" } ?? "return 204;")]
        }

        // MARK: Faults

        func apply(_ fault: Fault) throws {
            switch fault {
            case .down: try setDown()
            case .unplugged, .signalLost: try unplug()
            case let .captive(location): try becomeCaptive(location: location)
            }
        }

        func revert(_ fault: Fault) throws {
            switch fault {
            case .down: try setUp()
            case .unplugged, .signalLost: try plugIn()
            case .captive: try leaveCaptivity()
            }
        }
    }
}

// MARK: - The core: namespaces, commands, teardown

/// The state of one sandbox, shared by the sandbox and its uplinks.
final class SandboxCore: Sendable {
    static let prefix = "reach-sbx-"
    private static let counter = Atomic<Int>(0)

    /// The device namespace's name; the providers' are NAME-ispN.
    let name: String
    /// Where the servers keep their files: TMPDIR/NAME.
    let directory: URL
    let ipURL: URL
    let records: [String: String]
    let endpoint = "198.18.0.1"

    struct State {
        var closed = false
        var namespaces: [String] = []
        var uplinks: [NetworkSandbox.Uplink] = []
        /// The default route each uplink should have: its metric.
        var defaultMetrics: [String: UInt32] = [:]
    }
    let state = Mutex(State())

    init(records: [String: String]) throws {
        guard let ip = ipExecutable else { throw SandboxError("iproute2's ip is not installed") }
        ipURL = ip
        self.records = records
        name = "\(Self.prefix)\(getpid())-\(Self.counter.wrappingAdd(1, ordering: .relaxed).newValue)"
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        do {
            try addNamespace(name)
        } catch {
            close()
            throw error
        }
    }

    /// `ip netns add NAME`, then loopback up.
    func addNamespace(_ namespace: String) throws {
        try ip(nil, ["netns", "add", namespace])
        state.withLock { $0.namespaces.append(namespace) }
        try ip(namespace, ["link", "set", "lo", "up"])
    }

    /// Runs `ip [-n NAMESPACE] ARGUMENTS`; its output, or a ``SandboxError`` with ip's message.
    @discardableResult
    func ip(_ namespace: String?, _ arguments: [String]) throws -> String {
        let result = try ipResult(namespace, arguments)
        guard result.status == 0 else {
            throw SandboxError.command(["ip"] + (namespace.map { ["-n", $0] } ?? []) + arguments, result)
        }
        return result.stdout
    }

    func ipResult(_ namespace: String?, _ arguments: [String]) throws -> CommandResult {
        guard !state.withLock({ $0.closed }) else { throw SandboxError("the sandbox \(name) is closed") }
        return try runCommand(ipURL, (namespace.map { ["-n", $0] } ?? []) + arguments)
    }

    /// A device link's flags (`UP`, `NO-CARRIER`, `LOWER_UP` ...) and operstate, as `ip -o link` shows them.
    struct LinkLine {
        var flags: Set<String> = []
        var state = ""

        init(_ line: String) {
            if let open = line.firstIndex(of: "<"), let close = line[open...].firstIndex(of: ">") {
                flags = Set(line[line.index(after: open) ..< close].split(separator: ",").map(String.init))
            }
            let words = line.split(separator: " ")
            if let index = words.firstIndex(of: "state"), index + 1 < words.count { state = String(words[index + 1]) }
        }
    }

    /// Waits (up to 5 s) until the device link `device` satisfies `condition`.
    /// Operstate changes reach the kernel's tables through its linkwatch work,
    /// a little after the command that caused them, and nothing tells a
    /// process without a netlink socket when: `ip` is asked again every 10 ms.
    func waitForLink(_ device: String, _ what: String, until condition: (LinkLine) -> Bool) throws {
        let deadline = Date().addingTimeInterval(5)
        while true {
            let line = try ip(name, ["-o", "link", "show", "dev", device])
            if condition(LinkLine(line)) { return }
            guard Date() < deadline else { throw SandboxError("\(device) never became \(what) within 5 s: \(line)") }
            usleep(10_000)
        }
    }

    /// Whether the endpoint, asked from inside `provider`, answers 204
    /// (`captive` nil) or redirects to `captive`. The library's own probe.
    func endpointAnswers(in provider: String, captive: String?) -> Bool {
        guard let prober = try? Prober(namespace: .named(provider)),
              let result = try? prober.probe(IPAddress(endpoint)!, method: .http(HTTPProbeURL(host: endpoint)),
                                             options: ProbeOptions(timeout: .milliseconds(300))) else { return false }
        if let captive { return result.verdict == .captivePortal && result.location == captive }
        return result.verdict == .answered
    }

    /// Whether the name server, asked from inside `provider`, answers.
    func nameServerAnswers(in provider: String) -> Bool {
        guard let prober = try? Prober(namespace: .named(provider)),
              let result = try? prober.probe(IPAddress(endpoint)!, method: .dns(name: NetworkSandbox.internetHostName, type: .a),
                                             options: ProbeOptions(timeout: .milliseconds(300))) else { return false }
        return result.verdict == .answered
    }

    // MARK: Uplinks

    func addUplink(_ name: String, _ kind: InterfaceKind) throws -> NetworkSandbox.Uplink {
        guard (1 ... 15).contains(name.utf8.count), name != "lo", name != ".", name != "..",
              name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "_-.".contains($0)) }) else {
            throw SandboxError("bad uplink name '\(name)': 1 to 15 letters, digits, '_', '-' or '.'")
        }
        let index = try state.withLock { state throws -> Int in
            guard !state.closed else { throw SandboxError("the sandbox \(self.name) is closed") }
            guard !state.uplinks.contains(where: { $0.name == name }) else { throw SandboxError("uplink '\(name)' exists already") }
            guard state.uplinks.count < 250 else { throw SandboxError("250 uplinks at most") }
            return state.uplinks.count
        }
        let provider = "\(self.name)-isp\(index)"
        let device = "10.200.\(index).2", gateway = "10.200.\(index).1"
        try addNamespace(provider)
        try ip(provider, ["addr", "add", "\(endpoint)/32", "dev", "lo"])
        // When an endpoint is replaced, connections waiting on the old one's
        // socket move to the new one (Linux 5.14; best effort before).
        if let sh = findExecutable("sh") {
            _ = try? runCommand(ipURL, ["netns", "exec", provider, sh.path, "-c", "echo 1 > /proc/sys/net/ipv4/tcp_migrate_req"])
        }
        try ip(self.name, ["link", "add", name, "type", "veth", "peer", "name", NetworkSandbox.Uplink.providerEnd, "netns", provider])
        do {
            // No IPv6 link-local address: no duplicate-address probe and no
            // router solicitation to stir the monitor when a link comes up.
            try ip(self.name, ["link", "set", name, "addrgenmode", "none"])
            try ip(provider, ["link", "set", NetworkSandbox.Uplink.providerEnd, "addrgenmode", "none"])
            try ip(provider, ["addr", "add", "\(gateway)/24", "dev", NetworkSandbox.Uplink.providerEnd])
            try ip(provider, ["link", "set", NetworkSandbox.Uplink.providerEnd, "up"])
            try ip(self.name, ["addr", "add", "\(device)/24", "dev", name])
            try ip(self.name, ["link", "set", name, "up"])
            try waitForLink(name, "operstate UP") { $0.state == "UP" }

            let endpointServer = try startEndpoint(provider, index: index, generation: 1, captive: nil) {
                endpointAnswers(in: provider, captive: nil)
            }
            let nameServerDirectory = directory.appendingPathComponent("isp\(index)/dnsmasq")
            try FileManager.default.createDirectory(at: nameServerDirectory, withIntermediateDirectories: true)
            let nameServer = try Dnsmasq.start(in: provider, address: endpoint, records: records, directory: nameServerDirectory) {
                nameServerAnswers(in: provider)
            }
            let uplink = NetworkSandbox.Uplink(name: name, kind: kind, index: index, provider: provider, core: self,
                                               endpoint: endpointServer, nameServer: nameServer)
            state.withLock {
                $0.uplinks.append(uplink)
                $0.defaultMetrics[name] = uplink.metric
            }
            try uplink.restoreDefaultRoute()
            return uplink
        } catch {
            _ = try? ipResult(self.name, ["link", "del", name])
            throw error
        }
    }

    /// Starts nginx as provider `index`'s endpoint (its `generation`-th),
    /// answering 204, or redirecting to `captive`; returns once `ready()`.
    func startEndpoint(_ provider: String, index: Int, generation: Int, captive: String?,
                       ready: () -> Bool) throws -> ServerDaemon {
        let directory = directory.appendingPathComponent("isp\(index)/nginx\(generation)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return try Nginx.start(in: provider, directory: directory,
                               config: Nginx.config(directory: directory.path, addresses: [endpoint], port: 80,
                                                    locations: NetworkSandbox.Uplink.locations(captive: captive),
                                                    reusePort: true), ready: ready)
    }

    // MARK: Teardown

    /// Stops the servers, deletes the namespaces (providers first) and the
    /// directory. Idempotent.
    func close() {
        let (namespaces, uplinks) = state.withLock { state -> ([String], [NetworkSandbox.Uplink]) in
            defer { state.closed = true; state.uplinks = []; state.namespaces = [] }
            return state.closed ? ([], []) : (state.namespaces, state.uplinks)
        }
        uplinks.forEach { $0.stopServers() }
        for namespace in namespaces.reversed() {
            _ = try? runCommand(ipURL, ["netns", "delete", namespace])
        }
        try? FileManager.default.removeItem(at: directory)
    }
}
