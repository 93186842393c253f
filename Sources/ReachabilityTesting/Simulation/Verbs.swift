// The verbs: what happens to an uplink, a route, a rule, in the words of
// the people who test gateways, each one a change of kernel facts.

import ReachabilityCore

extension SimulatedNetwork {
    /// A link of a ``SimulatedNetwork``, with the verbs that change it. Every
    /// verb is one step: monitors and trackers are told at once (as the kernel
    /// notifies them); ``SimulatedNetwork/settled()`` waits for them.
    public struct Uplink: Sendable, CustomStringConvertible {
        let network: SimulatedNetwork
        /// The link's name.
        public let name: String

        /// The link's index (as `ip link` shows it).
        public var index: Int32 { network.interfaceIndex(name) ?? 0 }

        /// The kind its facts make the classifier decide.
        public var kind: InterfaceKind {
            network.kernel.read { state in state.facts.linkIndex(name).flatMap { state.facts.link($0) }?.facts }
                .map { InterfaceKind(facts: $0) } ?? .other
        }

        /// The link as `RTM_GETLINK` would report it now.
        public var link: LinkState? { network.kernel.read { state in state.facts.linkIndex(name).flatMap { state.facts.link($0)?.state } } }

        /// The name.
        public var description: String { name }

        private func update(_ change: @escaping (inout SimulatedLink) -> Void) {
            network.kernel.change { state in
                guard let index = state.facts.linkIndex(name) else { preconditionFailure("no link \(name)") }
                state.facts.update(index, change)
            }
        }

        private func script(_ change: (inout UplinkScript) -> Void) {
            network.kernel.change { state in
                var script = state.scripts[name] ?? UplinkScript(kind: .other)
                change(&script)
                state.scripts[name] = script
            }
        }

        // MARK: Carrier

        /// The cable is pulled: carrier off (`NO-CARRIER`, operstate
        /// `down`). Its routes stay, marked `linkdown`, and the kernel
        /// still chooses them (`ignore_routes_with_linkdown` is 0 by default).
        public func unplug() { update { $0.carrier = false } }
        /// The cable is back: carrier on.
        public func plugIn() { update { $0.carrier = true } }
        /// A radio loses its signal: carrier off, as ``unplug()``.
        public func signalLost() { unplug() }
        /// The signal is back: carrier on.
        public func signalBack() { plugIn() }
        /// Carrier but not yet usable (802.1X, a modem waiting for its bearer): operstate `dormant`.
        public func becomeDormant() { update { $0.dormant = true } }
        /// Out of `dormant`.
        public func leaveDormant() { update { $0.dormant = false } }

        // MARK: Admin state

        /// `ip link set DEV down`: the kernel flushes every route through it and
        /// its IPv6 addresses (IPv4 addresses stay).
        public func setDown() { update { $0.adminUp = false } }

        /// `ip link set DEV up`, and the uplink's addresses and default routes
        /// configured again (as a network manager does; the kernel alone would
        /// bring back only the IPv4 connected and local routes).
        public func setUp() {
            network.kernel.change { state in
                guard let index = state.facts.linkIndex(name) else { preconditionFailure("no link \(name)") }
                state.facts.update(index) { $0.adminUp = true }
                SimulatedNetwork.configure(name, in: &state)
            }
        }

        /// The link disappears (a USB modem unplugged): its routes and addresses go.
        public func remove() {
            network.kernel.change { state in
                guard let index = state.facts.linkIndex(name) else { return }
                state.facts.removeLink(index)
                state.scripts[name] = nil
            }
        }

        // MARK: Beyond the gateway

        /// The uplink's validation endpoint answers with a redirect (HTTP 302):
        /// a captive portal. ICMP and TCP probes through it get no answer, nor
        /// does its name server.
        ///
        /// - Parameter location: Where the redirect points (its `Location` header).
        public func becomeCaptive(location: String) { script { $0.captiveLocation = location } }
        /// The portal lets the device through: 204 again.
        public func leaveCaptivity() { script { $0.captiveLocation = nil } }
        /// Nothing beyond the gateway answers (the provider is down): probes
        /// through the uplink time out; the link itself stays up.
        public func upstreamLost() { script { $0.upstream = false } }
        /// Answers again.
        public func upstreamBack() { script { $0.upstream = true } }
        /// Sets the round trip that probes through the uplink report (20 ms unless set).
        ///
        /// - Parameter duration: The round trip.
        public func setRoundTrip(_ duration: Duration) { script { $0.roundTrip = duration } }

        /// Applies or reverts a scoped fault.
        func apply(_ fault: Fault, on: Bool) {
            switch fault {
            case .down: on ? setDown() : setUp()
            case .unplugged: on ? unplug() : plugIn()
            case .upstreamLost: on ? upstreamLost() : upstreamBack()
            case let .captive(location): on ? becomeCaptive(location: location) : leaveCaptivity()
            }
        }

        // MARK: Addresses

        /// `ip addr add ADDRESS/LENGTH dev DEV` (IPv6 as with `nodad`).
        ///
        /// - Parameters:
        ///   - address: The address to add.
        ///   - prefixLength: The prefix length in bits.
        public func addAddress(_ address: IPAddress, prefixLength: Int) {
            network.kernel.change { state in
                guard let index = state.facts.linkIndex(name) else { preconditionFailure("no link \(name)") }
                state.facts.addAddress(address, prefixLength: prefixLength, on: index)
            }
        }

        /// `ip addr del`.
        ///
        /// - Parameter address: The address to remove.
        public func removeAddress(_ address: IPAddress) {
            network.kernel.change { state in
                guard let index = state.facts.linkIndex(name) else { return }
                state.facts.removeAddress(address, on: index)
            }
        }
    }
}

extension SimulatedNetwork {
    /// Adds a link that is not an uplink (no script, no configuration): a LAN
    /// port, a bridge, a veth.
    ///
    /// - Parameters:
    ///   - name: The link's name; no link may have it yet.
    ///   - facts: What the classifier reads (their name is set from `name`).
    ///   - up: Whether the link is administratively up; down by default.
    ///   - carrier: Whether the link has carrier; none by default.
    /// - Returns: The link, whose verbs change it.
    @discardableResult
    public func addLink(_ name: String, facts: InterfaceFacts, up: Bool = false, carrier: Bool = false) -> Uplink {
        kernel.change { state in
            precondition(state.facts.linkIndex(name) == nil, "\(name) exists already")
            _ = state.facts.addLink(name: name, facts: facts, adminUp: up, carrier: carrier)
        }
        return Uplink(network: self, name: name)
    }
}

extension SimulatedNetwork {
    /// The routing tables of a ``SimulatedNetwork`` (`ip route`).
    public struct Routes: Sendable {
        let network: SimulatedNetwork

        /// The main table, 254.
        public static let main: UInt32 = 254

        /// Makes `uplink` the only default route of the main table (both
        /// families it has a gateway for), at its metric.
        ///
        /// - Parameter uplink: An uplink added with ``SimulatedNetwork/uplink(_:_:metric:ipv6:)``.
        public func setDefault(via uplink: Uplink) {
            network.kernel.change { state in
                guard let script = state.scripts[uplink.name], let index = state.facts.linkIndex(uplink.name) else {
                    preconditionFailure("\(uplink.name) is not an uplink")
                }
                state.facts.routes.removeAll { $0.table == SimulatedNetwork.Routes.main && $0.prefixLength == 0 && $0.type == .unicast }
                for name in state.scripts.keys { state.scripts[name]?.defaultRoutes.removeAll() }
                for var route in script.defaultRoutes.isEmpty ? [] : script.defaultRoutes {
                    route.device = index
                    state.facts.addRoute(route)
                }
                state.scripts[uplink.name]?.defaultRoutes = script.defaultRoutes
            }
        }

        /// Removes every default route of the main table (a device with no way out).
        public func removeDefault() {
            network.kernel.change { state in
                state.facts.routes.removeAll { $0.table == SimulatedNetwork.Routes.main && $0.prefixLength == 0 && $0.type == .unicast }
                for name in state.scripts.keys { state.scripts[name]?.defaultRoutes.removeAll() }
            }
        }

        /// `ip route add PREFIX [via GATEWAY] dev DEV [metric M] [table T]`.
        ///
        /// - Parameters:
        ///   - prefix: `A.B.C.D/N`, `X::/N`, `default` (IPv4) or `default6`; a
        ///     bare address is a host route.
        ///   - uplink: The link the route leaves by.
        ///   - gateway: The next hop; nil for a directly attached network.
        ///   - metric: The route's metric.
        ///   - table: The routing table; ``main`` by default.
        /// - Returns: False when the kernel would refuse the route (the device
        ///   is down, or the gateway is not on one of its networks).
        @discardableResult
        public func add(_ prefix: String, via uplink: Uplink, gateway: IPAddress? = nil, metric: UInt32 = 0,
                        table: UInt32 = Routes.main) -> Bool {
            let (destination, length) = Self.parse(prefix)
            return network.kernel.change { state in
                guard let index = state.facts.linkIndex(uplink.name) else { return false }
                return state.facts.addRoute(SimulatedRoute(table: table, destination: destination, prefixLength: length,
                                                           device: index, gateway: gateway, metric: metric))
            }
        }

        /// `ip route add TYPE PREFIX [table T]`.
        ///
        /// - Parameters:
        ///   - type: `.blackhole`, `.unreachable`, `.prohibit` or `.throw`.
        ///   - prefix: As for ``add(_:via:gateway:metric:table:)``.
        ///   - metric: The route's metric.
        ///   - table: The routing table; ``main`` by default.
        public func add(_ type: RouteVerdict, _ prefix: String, metric: UInt32 = 0, table: UInt32 = Routes.main) {
            precondition([.blackhole, .unreachable, .prohibit, .throw].contains(type), "a typed route is blackhole, unreachable, prohibit or throw")
            let (destination, length) = Self.parse(prefix)
            _ = network.kernel.change { state in
                state.facts.addRoute(SimulatedRoute(table: table, destination: destination, prefixLength: length, type: type,
                                                    metric: metric))
            }
        }

        /// `ip route del PREFIX [table T]`: every route of that prefix in the table.
        ///
        /// - Parameters:
        ///   - prefix: As for ``add(_:via:gateway:metric:table:)``.
        ///   - table: The routing table; ``main`` by default.
        public func remove(_ prefix: String, table: UInt32 = Routes.main) {
            let (destination, length) = Self.parse(prefix)
            network.kernel.change { state in
                state.facts.routes.removeAll { $0.table == table && $0.destination == destination && $0.prefixLength == length }
            }
        }

        /// `A.B.C.D/N`, `X::/N`, `default` (IPv4) or `default6`; a bare address is a host route.
        static func parse(_ text: String) -> (IPAddress, Int) {
            if text == "default" { return (IPAddress("0.0.0.0")!, 0) }
            if text == "default6" { return (IPAddress("::")!, 0) }
            let parts = text.split(separator: "/", maxSplits: 1).map(String.init)
            guard let address = IPAddress(parts[0]) else { preconditionFailure("not a prefix: \(text)") }
            let length = parts.count == 2 ? Int(parts[1]) ?? -1 : (address.family == .v4 ? 32 : 128)
            precondition(length >= 0 && length <= (address.family == .v4 ? 32 : 128), "not a prefix: \(text)")
            return (address.masked(to: length), length)
        }
    }

    /// The routing policy of a ``SimulatedNetwork`` (`ip rule`).
    public struct Rules: Sendable {
        let network: SimulatedNetwork

        /// What a rule does when it matches.
        public enum Action: Sendable, Equatable {
            /// `lookup TABLE`
            case table(UInt32)
            /// `blackhole`: the lookup fails with EINVAL.
            case blackhole
            /// `unreachable`: the lookup fails with ENETUNREACH.
            case unreachable
            /// `prohibit`: the lookup fails with EACCES.
            case prohibit
        }

        /// `ip [-6] rule add priority P [from PREFIX] [to PREFIX] [fwmark M/MASK]
        /// [oif DEV] [uidrange A-B] ACTION`.
        ///
        /// - Parameters:
        ///   - priority: The rule's priority; lower is consulted first.
        ///   - from: The source prefix it matches; nil for any.
        ///   - to: The destination prefix it matches; nil for any.
        ///   - mark: The firewall mark it matches; nil for any.
        ///   - markMask: The bits of `mark` that count; all by default.
        ///   - outputInterface: The output interface it matches (`oif`); nil for any.
        ///   - uids: The uids it matches (`uidrange`); nil for any.
        ///   - family: IPv4 or IPv6; nil takes `from`'s or `to`'s family, else IPv4.
        ///   - action: What the rule does when it matches.
        public func add(priority: UInt32, from: String? = nil, to: String? = nil, mark: UInt32? = nil,
                        markMask: UInt32 = 0xffff_ffff, outputInterface: String? = nil, uids: ClosedRange<UInt32>? = nil,
                        family: IPAddress.Family? = nil, _ action: Action) {
            let source = from.map(SimulatedNetwork.Routes.parse), destination = to.map(SimulatedNetwork.Routes.parse)
            let family = family ?? source?.0.family ?? destination?.0.family ?? .v4
            let simulated: SimulatedRule.Action
            switch action {
            case let .table(table): simulated = .table(table)
            case .blackhole: simulated = .blackhole
            case .unreachable: simulated = .unreachable
            case .prohibit: simulated = .prohibit
            }
            network.kernel.change { state in
                state.facts.addRule(SimulatedRule(family: family, priority: priority, from: source.map { ($0.0, $0.1) },
                                                  to: destination.map { ($0.0, $0.1) }, mark: mark ?? 0,
                                                  markMask: mark == nil ? 0 : markMask, outputInterface: outputInterface,
                                                  uids: uids, action: simulated))
            }
        }

        /// `ip rule del priority P`: every rule of that priority (both families).
        ///
        /// - Parameter priority: The priority of the rules to remove.
        public func remove(priority: UInt32) {
            network.kernel.change { state in state.facts.rules.removeAll { $0.priority == priority } }
        }
    }
}
