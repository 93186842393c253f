// The public face of tier 1: a network described as kernel facts, changed
// with verbs in the user's words, observed through the library's own API.

import ReachabilityCore
#if canImport(Glibc)
import Glibc
#endif

/// A network held in memory, as a Linux kernel would hold it: links with
/// their kind, carrier and admin state, addresses, routes and policy rules,
/// the policy and radio technologies, and what probes beyond each uplink get.
///
/// Pass ``namespace`` wherever the library takes a namespace
/// (`ReachabilityMonitor`, `ReachabilityEvaluator`, `UplinkTracker`,
/// `Prober`, the compat modules' `CompatEnvironment.namespace`): the engine's
/// own evaluation code and decision tables answer from these facts, so a
/// test sees exactly the answers the library gives on a kernel in this state,
/// and never one it could not give.
///
/// ```swift
/// let net = SimulatedNetwork(.dualUplinkWanLte)
/// let monitor = try ReachabilityMonitor(targets: [.internet], namespace: net.namespace)
/// try monitor.start()
/// net["wan0"].setDown()
/// await net.settled()
/// #expect(monitor.currentEvaluations[0].primary?.link?.name == "wwan0")
/// try await net.finish()
/// ```
///
/// Nothing waits on the wall clock: ``settled()`` returns once every monitor
/// and tracker has handled what the last step caused and every observer has
/// been handed its changes; ``advance(by:)`` moves the test clock that
/// validation intervals, retries and tracker rounds run on.
public final class SimulatedNetwork: Sendable, CustomStringConvertible {
    /// A starting point.
    public enum Preset: Sendable {
        /// Only the loopback.
        case empty
        /// `eth0`, wired, with its cable out: no carrier (``Uplink/plugIn()`` brings it online).
        case offline
        /// `eth0`, wired, online.
        case wiredOnly
        /// `wan0` (wired, metric 100) and `wwan0` (cellular, metric 700, LTE), both online.
        case dualUplinkWanLte
        /// `wlan0`, Wi-Fi, online behind a captive portal that redirects to `http://portal.example/login`.
        case captiveWifi
    }

    /// A fault that ``with(_:on:_:)`` applies for the length of a block.
    public enum Fault: Sendable {
        /// The link is set administratively down (`ip link set DEV down`).
        case down
        /// The link loses carrier (a cable out, a radio without signal).
        case unplugged
        /// Nothing beyond the uplink's gateway answers.
        case upstreamLost
        /// The uplink's validation endpoint redirects to `location`.
        case captive(location: String)
    }

    let kernel: SimulatedKernelBackend

    /// An empty network, or one of the presets.
    ///
    /// - Parameters:
    ///   - preset: The starting point; ``Preset/empty`` (only the loopback) by default.
    ///   - name: The network's name in descriptions (`simulated:NAME`).
    public init(_ preset: Preset = .empty, name: String = "net") {
        kernel = SimulatedKernelBackend(name: name)
        kernel.change { $0.nameServers = [SimulatedNetwork.nameServer] }
        switch preset {
        case .empty:
            break
        case .offline:
            uplink("eth0", .wired).unplug()
        case .wiredOnly:
            uplink("eth0", .wired)
        case .dualUplinkWanLte:
            uplink("wan0", .wired)
            uplink("wwan0", .wwan)
            radio.set(.lte, for: "wwan0")
        case .captiveWifi:
            uplink("wlan0", .wifi).becomeCaptive(location: "http://portal.example/login")
        }
    }

    /// The namespace to hand to the library: it asks this network instead of a kernel.
    public var namespace: NetworkNamespace { .simulated(SimulatedKernel(kernel)) }

    /// `simulated:NAME`.
    public var description: String { "simulated:\(kernel.name)" }

    /// The name server every preset configures (resolv.conf's `nameserver`), reached over the default route.
    public static let nameServer = IPAddress("192.0.2.53")!

    /// A validation (`ReachabilityMonitor.Configuration.validation`) whose
    /// probe each uplink's script answers: 204, or the portal's redirect.
    public static let validation: Validation = {
        do { return try Validation(parsing: "http:http://192.0.2.204/generate_204") } catch { fatalError("\(error)") }
    }()

    // MARK: Uplinks

    /// Adds an uplink, up with carrier: its IPv4 address `10.N.0.2/24` and
    /// gateway `10.N.0.1`, its IPv6 address `fd00:N::2/64` and gateway
    /// `fd00:N::1` (N counts the uplinks from 1), and default routes through
    /// it in the main table.
    ///
    /// - Parameters:
    ///   - name: The link's name; no link may have it yet.
    ///   - kind: `.wired`, `.wifi`, `.wwan` or `.tunnel`.
    ///   - metric: The default routes' metric; nil takes NetworkManager's for
    ///     the kind (wired 100, Wi-Fi 600, WWAN 700, tunnel 50).
    ///   - ipv6: Whether the uplink has an IPv6 address and default route too.
    /// - Returns: The uplink, whose verbs change it.
    @discardableResult
    public func uplink(_ name: String, _ kind: InterfaceKind, metric: UInt32? = nil, ipv6: Bool = true) -> Uplink {
        precondition(kind == .wired || kind == .wifi || kind == .wwan || kind == .tunnel,
                     "an uplink is wired, Wi-Fi, WWAN or a tunnel")
        kernel.change { state in
            precondition(state.facts.linkIndex(name) == nil, "\(name) exists already")
            let number = state.scripts.count + 1
            let index = state.facts.addLink(name: name, facts: Self.facts(of: kind), adminUp: true, carrier: true)
            var script = UplinkScript(kind: kind)
            script.addresses = [(IPAddress("10.\(number).0.2")!, 24)]
            if ipv6 { script.addresses.append((IPAddress("fd00:\(number)::2")!, 64)) }
            let metric = metric ?? Self.defaultMetric(kind)
            script.defaultRoutes = [SimulatedRoute(destination: IPAddress("0.0.0.0")!, prefixLength: 0, device: index,
                                                   gateway: IPAddress("10.\(number).0.1")!, metric: metric)]
            if ipv6 {
                script.defaultRoutes.append(SimulatedRoute(destination: IPAddress("::")!, prefixLength: 0, device: index,
                                                           gateway: IPAddress("fd00:\(number)::1")!, metric: metric))
            }
            state.scripts[name] = script
            Self.configure(name, in: &state)
        }
        return Uplink(network: self, name: name)
    }

    /// The uplink or link named `name`.
    ///
    /// - Parameter name: The name of a link of the network (a precondition).
    public subscript(_ name: String) -> Uplink {
        precondition(interfaceIndex(name) != nil, "no link \(name) in \(self)")
        return Uplink(network: self, name: name)
    }

    /// The uplinks added with ``uplink(_:_:metric:ipv6:)``, by name.
    public var uplinks: [Uplink] {
        kernel.read { $0.scripts.keys.sorted() }.map { Uplink(network: self, name: $0) }
    }

    /// Puts an uplink's configuration (addresses, default routes) back, as a
    /// network manager does when the link comes up again.
    static func configure(_ name: String, in state: inout SimulatedKernelBackend.State) {
        guard let script = state.scripts[name], let index = state.facts.linkIndex(name) else { return }
        for (address, length) in script.addresses { state.facts.addAddress(address, prefixLength: length, on: index) }
        for var route in script.defaultRoutes {
            route.device = index
            state.facts.addRoute(route)
        }
    }

    static func facts(of kind: InterfaceKind) -> InterfaceFacts {
        let broadcast: UInt32 = 0x2 | 0x1000   // IFF_BROADCAST | IFF_MULTICAST
        switch kind {
        case .wifi:
            return InterfaceFacts(name: "", rawFlags: broadcast, hardwareType: InterfaceKind.hardwareTypeEther,
                                  deviceType: "wlan", isWireless: true, driver: "iwlwifi")
        case .wwan:
            return InterfaceFacts(name: "", rawFlags: broadcast, hardwareType: InterfaceKind.hardwareTypeEther,
                                  deviceType: "wwan", driver: "qmi_wwan")
        case .tunnel:
            return InterfaceFacts(name: "", rawFlags: 0x10 | 0x80, hardwareType: 65534, linkKind: "wireguard")
        default:
            return InterfaceFacts(name: "", rawFlags: broadcast, hardwareType: InterfaceKind.hardwareTypeEther,
                                  driver: "e1000e")
        }
    }

    static func defaultMetric(_ kind: InterfaceKind) -> UInt32 {
        switch kind {
        case .wifi: return 600
        case .wwan: return 700
        case .tunnel: return 50
        default: return 100
        }
    }

    func interfaceIndex(_ name: String) -> Int32? { kernel.read { $0.facts.linkIndex(name) } }

    // MARK: Policy, radio, names

    /// What the application allows (the WWAN switch) and how it treats its
    /// interfaces. Evaluators and monitors on ``namespace`` that were given
    /// no policy follow this one, as they follow
    /// `ReachabilityPolicy.processDefault` on a real kernel; setting it
    /// makes every monitor evaluate again.
    public var policy: ReachabilityPolicy {
        get { kernel.read { $0.policy } }
        set { kernel.change { $0.policy = newValue } }
    }

    /// The radio technologies of WWAN links (`radio.set(.lte, for: "wwan0")`):
    /// what evaluators on ``namespace`` given `RadioSource.processDefault` read.
    public var radio: RadioSource { kernel.radio }

    /// The namespace's resolv.conf `nameserver` addresses (``nameServer`` unless set).
    public var nameServers: [IPAddress] {
        get { kernel.read { $0.nameServers } }
        set { kernel.change { $0.nameServers = newValue } }
    }

    /// What a name resolves to (getaddrinfo's answer, when a name server is
    /// reachable); nil removes it. Unknown names fail to resolve.
    ///
    /// - Parameter name: A host name; case does not matter.
    public subscript(host name: String) -> [IPAddress]? {
        get { kernel.read { $0.hosts[name.lowercased()] } }
        set { kernel.change { $0.hosts[name.lowercased()] = newValue } }
    }

    /// Makes route lookups fail as a kernel that cannot answer
    /// (`ReachabilityError.system`, EIO): a monitor reports the error for its
    /// target and tries again after its `retryInterval` (on the test clock).
    ///
    /// - Parameter count: How many of the next route lookups fail.
    public func failNextLookups(_ count: Int) {
        kernel.state.withLock { $0.failingLookups += count }
    }

    // MARK: Routes and rules

    /// The routing tables (`ip route`).
    public var routes: Routes { Routes(network: self) }

    /// The routing policy (`ip rule`).
    public var rules: Rules { Rules(network: self) }

    // MARK: Time and settling

    /// The test clock: what monitors and trackers on ``namespace`` read as now.
    public var now: MonotonicInstant { MonotonicInstant(nanoseconds: kernel.nanoseconds) }

    /// Returns once every monitor and tracker on ``namespace`` has handled
    /// everything the last step caused (evaluations, validation probes, host
    /// name lookups, rounds) and every callback queued for an observer has run.
    /// Changes for a `changes()` stream are then in the stream.
    ///
    /// A guard of 30 s of wall time keeps a broken test from hanging: then it
    /// returns, and ``finish()`` fails, naming who was still working.
    public func settled() async {
        await kernel.settled(limit: .seconds(30))
    }

    /// Moves the test clock forward by `duration`, stopping at every timer
    /// due on the way (a validation round, a retry, a tracker's round) and
    /// settling after each, as if that time had passed. No wall time passes.
    ///
    /// - Parameter duration: How far to move the clock.
    public func advance(by duration: Duration) async {
        await settled()
        let (seconds, attoseconds) = duration.components
        let nanoseconds = UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
        let target = kernel.nanoseconds + nanoseconds
        while true {
            let step = kernel.nextDeadline(upTo: target) ?? target
            kernel.setClock(step)
            await settled()
            if step >= target { break }
        }
    }

    /// Ends a test: settles, then checks that nothing is left over. Periodic
    /// timers (validation rounds, tracker rounds) are the steady state and
    /// are not counted.
    ///
    /// - Throws: ``Unfinished``, listing what is left: changes an observer's
    ///   stream never took, callbacks queued and not run, monitors or trackers
    ///   still working, and one-shot timers armed (a retry, a held answer's
    ///   recheck, a host name's timeout) that ``advance(by:)`` has not reached.
    public func finish() async throws(Unfinished) {
        await settled()
        let lines = kernel.leftovers()
        if !lines.isEmpty { throw Unfinished(leftovers: lines) }
    }

    /// What ``finish()`` found left over.
    public struct Unfinished: Error, CustomStringConvertible {
        /// One line per thing left.
        public let leftovers: [String]
        /// The lines, under a heading.
        public var description: String {
            "the simulated network is not finished:\n" + leftovers.map { "  - \($0)" }.joined(separator: "\n")
        }
    }

    // MARK: Scoped faults

    /// Applies `fault` to the link `name`, runs `body`, then reverts the
    /// fault, whether `body` returns or throws.
    ///
    /// - Parameters:
    ///   - fault: What happens to the link while `body` runs.
    ///   - name: The name of a link of the network.
    ///   - body: The test steps to run under the fault.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    public func with<T>(_ fault: Fault, on name: String, _ body: () async throws -> T) async rethrows -> T {
        let uplink = self[name]
        uplink.apply(fault, on: true)
        defer { uplink.apply(fault, on: false) }
        return try await body()
    }
}
