// NetworkSandbox: a real-kernel test network (the second tier). A "device"
// namespace with named uplinks (veth pairs), each leading into a namespace of
// its own, the uplink's provider ("ISP"), which holds the gateway and the
// internet's servers: nginx (the validation endpoint) and dnsmasq. Every ISP
// serves the same address (`endpoint`), so the uplink that carries a probe
// decides its answer, as on a real multi-WAN gateway.
//
// Unprivileged, the whole test process runs inside a user, network and mount
// namespace (`unshare -Urnm swift test`): a multithreaded process cannot
// unshare(CLONE_NEWUSER) itself, and this way the library's live code (its
// netlink sockets, sysfs, setns for resolver threads) runs unchanged, with no
// socket-passing mode that production never uses. There the sandbox mounts a
// tmpfs of its own on /run/netns; as root it uses /run/netns as `ip netns` does.

import Foundation
import LinuxReachability
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A test network on the real kernel: named uplinks of given kinds, each with
/// a gateway and an "internet" behind it (an HTTP validation endpoint that
/// answers 204 or plays a captive portal, and a name server), in network
/// namespaces the sandbox makes and removes.
///
/// ```swift
/// let sandbox = try NetworkSandbox()
/// let wan = try sandbox.uplink("wan0", .wired)
/// let lte = try sandbox.uplink("wwan0", .wwan)
/// var configuration = ReachabilityMonitor.Configuration()
/// configuration.validation = sandbox.validation
/// let monitor = try ReachabilityMonitor(targets: [.internet], namespace: sandbox.namespace,
///                                       kindOverrides: sandbox.kindOverrides, configuration: configuration)
/// try wan.setDown()        // the monitor now answers reachable via WWAN
/// ```
///
/// The first uplink made carries the default route (metric 100); each later
/// one adds a backup default route (metric 200, 300, ...), as a multi-WAN
/// gateway is set up. ``routes`` changes that.
///
/// It needs root, or a user namespace: run the suite as
/// `unshare -Urnm swift test --skip-build` (after `swift build --build-tests`).
/// ``availability`` says whether this process can, and if not why; skip a
/// test with its text:
/// - XCTest: `try XCTSkipUnless(NetworkSandbox.availability.isAvailable, NetworkSandbox.availability.description)`
/// - Swift Testing: `@Test(.enabled(if: NetworkSandbox.availability.isAvailable, "\(NetworkSandbox.availability)"))`
///
/// ``close()`` (also run when the sandbox is deinitialised) stops the servers
/// and removes the namespaces, so a failing test leaves nothing behind; what a
/// crashed run left is removed by the next sandbox made on the machine.
public final class NetworkSandbox: Sendable {
    /// The "device" namespace: the one whose uplinks these are. Hand it to the
    /// code under test: `ReachabilityMonitor(targets:options:namespace:...)`,
    /// `UplinkTracker(configuration:namespace:)`, `ReachabilityEvaluator(namespace:)`.
    public let namespace: NetworkNamespace
    /// The internet's one host, served by every uplink's provider: the
    /// validation endpoint (HTTP on port 80) and the name server (DNS on port 53).
    public let endpoint: IPAddress
    /// The name server every provider runs, at ``endpoint``: it answers
    /// `internet.test` with ``endpoint`` and the records the sandbox was made with.
    public var nameServer: IPAddress { endpoint }
    /// The validation that checks the internet through whichever uplink carries
    /// it: `http://ENDPOINT/generate_204`, answered 204, or a redirect while that
    /// uplink is captive. Set it as the monitor's `configuration.validation`.
    public let validation: Validation
    /// The device's default routes.
    public let routes: Routes
    let core: SandboxCore

    /// The name every provider's name server answers with ``endpoint``.
    public static let internetHostName = "internet.test"

    /// Makes the device namespace (loopback up, nothing else yet); add uplinks
    /// with ``uplink(_:_:)``.
    ///
    /// - Parameter records: Host names and the IPv4 addresses the name servers
    ///   answer for them, besides ``internetHostName``.
    /// - Throws: ``SandboxError`` with ``availability``'s reason and remedy when
    ///   this process cannot make namespaces, or the failed command.
    public init(records: [String: String] = [:]) throws {
        if case let .unavailable(reason, remedy) = Self.availability {
            throw SandboxError("NetworkSandbox is unavailable: \(reason). \(remedy)")
        }
        if let error = SandboxCore.hostPreparation { throw error }
        endpoint = IPAddress("198.18.0.1")!
        validation = .http(HTTPProbeURL(host: endpoint.description, path: "/generate_204"))
        core = try SandboxCore(records: [Self.internetHostName: endpoint.description].merging(records) { _, given in given })
        namespace = .named(core.name)
        routes = Routes(core: core)
    }

    deinit { core.close() }

    /// Adds an uplink, up, with its gateway, provider and servers, and a
    /// default route through it (the first uplink's is the primary, metric
    /// 100; later ones are backups, metric 200, 300, ...). It is a veth, so the
    /// library sees `wired`; a name like `wwan*` makes it WWAN, and any other
    /// kind the name does not give is listed in ``kindOverrides``.
    ///
    /// - Parameters:
    ///   - name: The interface's name in the device namespace: at most 15
    ///     bytes of letters, digits, `_`, `-` and `.`.
    ///   - kind: The kind of link the uplink plays.
    /// - Returns: The new uplink.
    /// - Throws: ``SandboxError`` for a bad or taken name, or a failed command.
    @discardableResult
    public func uplink(_ name: String, _ kind: InterfaceKind) throws -> Uplink {
        try core.addUplink(name, kind)
    }

    /// Looks an uplink up by name.
    ///
    /// - Parameter name: The uplink's interface name.
    /// - Returns: The uplink called `name`, nil when there is none.
    public func uplink(named name: String) -> Uplink? {
        core.state.withLock { state in state.uplinks.first { $0.name == name } }
    }

    /// Every uplink, in the order they were made.
    public var uplinks: [Uplink] { core.state.withLock { $0.uplinks } }

    /// The kind overrides the library needs to see each uplink as the kind it
    /// was made with: pass them as `kindOverrides:` to `ReachabilityMonitor` or
    /// `ReachabilityEvaluator`. Empty when every name says its kind (`wan0`
    /// wired, `wwan0` WWAN); a Wi-Fi uplink is always here (a veth has no
    /// 802.11 facts).
    public var kindOverrides: [InterfaceKindOverride] {
        uplinks.compactMap { uplink in
            uplink.kind == Self.kindFromName(uplink.name) ? nil : try? InterfaceKindOverride(pattern: uplink.name, kind: uplink.kind)
        }
    }

    /// The kind the library gives a veth called `name` without overrides.
    static func kindFromName(_ name: String) -> InterfaceKind {
        InterfaceKind(facts: InterfaceFacts(name: name, hardwareType: InterfaceKind.hardwareTypeEther, linkKind: "veth"))
    }

    /// Adds a policy routing rule to the device namespace: `ip rule add RULE`.
    ///
    /// - Parameter rule: The rule as `ip rule add` takes it, e.g.
    ///   `"uidrange 1000-1000 prohibit"` or `"fwmark 7 table 100"`.
    /// - Throws: ``SandboxError`` with ip's message when the kernel refuses it.
    public func addRule(_ rule: String) throws {
        try core.ip(core.name, ["rule", "add"] + Self.words(rule))
    }

    /// Deletes a rule added with ``addRule(_:)``: `ip rule del RULE`.
    ///
    /// - Parameter rule: The rule as it was added.
    /// - Throws: ``SandboxError`` with ip's message when the kernel refuses it.
    public func deleteRule(_ rule: String) throws {
        try core.ip(core.name, ["rule", "del"] + Self.words(rule))
    }

    /// Runs `ip ARGUMENTS` in the device namespace, for what the verbs do not
    /// cover, e.g. `ip("route add prohibit 198.18.0.0/15 table 100")`.
    ///
    /// - Parameter arguments: ip's arguments, split on white space (no shell).
    /// - Returns: What ip printed.
    /// - Throws: ``SandboxError`` with ip's message when it fails.
    @discardableResult
    public func ip(_ arguments: String) throws -> String {
        try core.ip(core.name, Self.words(arguments))
    }

    static func words(_ text: String) -> [String] {
        text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).map(String.init)
    }

    /// A fault that `with(_:on:_:)` applies to one uplink and reverts afterwards.
    public enum Fault: Hashable, Sendable, CustomStringConvertible {
        /// The link is administratively down (``Uplink/setDown()``): the kernel removes its routes.
        case down
        /// The cable is out (``Uplink/unplug()``): no carrier, routes kept but `linkdown`.
        case unplugged
        /// The modem lost its signal (``Uplink/signalLost()``): no carrier, as ``unplugged``.
        case signalLost
        /// The provider plays a captive portal (``Uplink/becomeCaptive(location:)``).
        case captive(location: String)

        /// The fault as the verb that applies it: `down`, `unplugged`, `signal lost`, `captive → LOCATION`.
        public var description: String {
            switch self {
            case .down: return "down"
            case .unplugged: return "unplugged"
            case .signalLost: return "signal lost"
            case let .captive(location): return "captive → \(location)"
            }
        }
    }

    /// Applies a fault to an uplink, runs `body`, and reverts the fault however
    /// `body` ends (a thrown error is rethrown after the revert).
    ///
    /// - Parameters:
    ///   - fault: The fault to apply.
    ///   - name: The uplink's interface name.
    ///   - body: The code to run while the fault lasts.
    /// - Returns: What `body` returns.
    /// - Throws: ``SandboxError`` for an unknown uplink or a failed command, or what `body` throws.
    public func with<T>(_ fault: Fault, on name: String, _ body: () throws -> T) throws -> T {
        let uplink = try existingUplink(name)
        try uplink.apply(fault)
        let result = Result { try body() }
        try uplink.revert(fault)
        return try result.get()
    }

    /// The `async` twin of `with(_:on:_:)`: applies a fault to an uplink,
    /// awaits `body`, and reverts the fault however `body` ends.
    ///
    /// - Parameters:
    ///   - fault: The fault to apply.
    ///   - name: The uplink's interface name.
    ///   - body: The code to await while the fault lasts.
    /// - Returns: What `body` returns.
    /// - Throws: ``SandboxError`` for an unknown uplink or a failed command, or what `body` throws.
    public func with<T>(_ fault: Fault, on name: String, _ body: () async throws -> T) async throws -> T {
        let uplink = try existingUplink(name)
        try uplink.apply(fault)
        let result: Result<T, any Error>
        do { result = .success(try await body()) } catch { result = .failure(error) }
        try uplink.revert(fault)
        return try result.get()
    }

    private func existingUplink(_ name: String) throws -> Uplink {
        guard let uplink = uplink(named: name) else {
            throw SandboxError("no uplink '\(name)' in the sandbox (it has \(uplinks.map(\.name)))")
        }
        return uplink
    }

    /// Stops the servers and deletes the namespaces. Idempotent; deinit runs it
    /// too. Every verb throws afterwards.
    public func close() { core.close() }

    /// Whether this process runs inside a user namespace (as `unshare -U` makes
    /// one) rather than in the machine's initial one: the unprivileged way.
    public static let runsInUserNamespace: Bool = {
        guard let map = try? String(contentsOfFile: "/proc/self/uid_map", encoding: .utf8) else { return false }
        return map.split(whereSeparator: { $0 == " " || $0 == "\n" }) != ["0", "0", "4294967295"]
    }()
}

// MARK: - Routes

extension NetworkSandbox {
    /// The device's IPv4 default routes, one per uplink at most. An uplink that
    /// is set down loses its route (the kernel removes it) and gets it back when
    /// set up, as a network manager would re-add it.
    public struct Routes: Sendable {
        let core: SandboxCore

        /// Makes an uplink's the only default route (every other one is
        /// removed), with the uplink's own metric.
        ///
        /// - Parameter uplink: The uplink the default route goes through.
        /// - Throws: ``SandboxError`` when the kernel refuses a change.
        public func setDefault(via uplink: Uplink) throws {
            for other in core.state.withLock({ $0.uplinks }) where other !== uplink {
                try removeDefault(via: other)
            }
            try addDefault(via: uplink, metric: uplink.metric)
        }

        /// Adds (or replaces) the default route through an uplink.
        ///
        /// - Parameters:
        ///   - uplink: The uplink the route goes through.
        ///   - metric: The route's metric: the lowest wins, a higher one is a backup.
        /// - Throws: ``SandboxError`` when the kernel refuses the route.
        public func addDefault(via uplink: Uplink, metric: UInt32) throws {
            core.state.withLock { $0.defaultMetrics[uplink.name] = metric }
            try uplink.restoreDefaultRoute()
        }

        /// Removes the default route through an uplink, if it has one.
        ///
        /// - Parameter uplink: The uplink whose default route goes.
        /// - Throws: ``SandboxError`` when the kernel refuses the change.
        public func removeDefault(via uplink: Uplink) throws {
            guard let metric = core.state.withLock({ $0.defaultMetrics.removeValue(forKey: uplink.name) }) else { return }
            let result = try core.ipResult(core.name, ["route", "del", "default", "via", uplink.gateway.description,
                                                       "dev", uplink.name, "metric", "\(metric)"])
            // Already gone when the uplink is down: the kernel removed it.
            guard result.status == 0 || result.stderr.contains("No such process") else {
                throw SandboxError.command(["ip", "-n", core.name, "route", "del", "default", "via", "\(uplink.gateway)"], result)
            }
        }

        /// The device namespace's main routing table, for failure messages.
        ///
        /// - Returns: What `ip route show` prints.
        /// - Throws: ``SandboxError`` when ip fails.
        public func show() throws -> String { try core.ip(core.name, ["route", "show"]) }
    }
}
