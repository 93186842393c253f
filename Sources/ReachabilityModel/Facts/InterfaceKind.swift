// Where an interface's kind is decided: kernel facts (netlink and sysfs, read
// by the core's Kernel layer) → InterfaceKind. Pure; no I/O.

/// The kind of link a packet would leave by, in the user's words.
public enum InterfaceKind: String, Hashable, Sendable, CaseIterable {
    /// Ethernet (`ARPHRD_ETHER`: also veth, bridge, bond, macvlan), or a PPP
    /// link carried by PPPoE.
    case wired
    /// An 802.11 interface: `/sys/class/net/NAME/wireless` or `phy80211`
    /// exists, or sysfs says `DEVTYPE=wlan`.
    case wifi
    /// Cellular: `DEVTYPE=wwan`, `ARPHRD_RAWIP`, a modem's network driver, a
    /// name like `wwan*` or `rmnet*`, or PPP over a modem's serial port.
    case wwan
    /// A tunnel by its link kind (tun/tap, wireguard, gre, vxlan, ...) or
    /// hardware type, or a PPP link carried by L2TP.
    case tunnel
    /// The loopback device (`IFF_LOOPBACK` or `ARPHRD_LOOPBACK`).
    case loopback
    /// Anything else: a VRF master, a PPP link whose carrier the kernel does
    /// not reveal, a hardware type none of the rules knows.
    case other
}

/// The kernel facts an interface is classified from: netlink (name, flags,
/// hardware type, link kind) and sysfs (DEVTYPE, wireless, driver).
public struct InterfaceFacts: Hashable, Sendable {
    /// The interface's name (`IFLA_IFNAME`), which overrides and the built-in
    /// WWAN patterns match.
    public var name: String
    /// `ifi_flags` (`IFF_*`); the kind reads `IFF_LOOPBACK`.
    public var rawFlags: UInt32
    /// The hardware type, `ARPHRD_*` (`ifi_type`): Ethernet, PPP, raw IP, loopback, tunnels.
    public var hardwareType: UInt16
    /// The driver's link kind (`IFLA_INFO_KIND`: vrf, wireguard, gre, ...), nil for plain devices.
    public var linkKind: String?
    /// `DEVTYPE=` of /sys/class/net/NAME/uevent (`wlan`, `wwan`, ...).
    public var deviceType: String?
    /// /sys/class/net/NAME/wireless or phy80211 exists.
    public var isWireless: Bool
    /// Basename of /sys/class/net/NAME/device/driver (`qmi_wwan`, `e1000e`, ...).
    public var driver: String?
    /// For a PPP link (ARPHRD_PPP): what the kernel shows of its possible carriers.
    public var ppp: PPPFacts?

    /// Facts for one interface; a fact not given is absent (no flags,
    /// hardware type 0, nothing from sysfs, not PPP).
    ///
    /// - Parameters:
    ///   - name: The interface's name (`IFLA_IFNAME`).
    ///   - rawFlags: `ifi_flags` (`IFF_*`).
    ///   - hardwareType: The hardware type, `ARPHRD_*` (`ifi_type`).
    ///   - linkKind: The driver's link kind (`IFLA_INFO_KIND`), nil for a plain device.
    ///   - deviceType: `DEVTYPE=` of /sys/class/net/NAME/uevent, nil when it has none.
    ///   - isWireless: Whether /sys/class/net/NAME/wireless or phy80211 exists.
    ///   - driver: The basename of /sys/class/net/NAME/device/driver, nil when there is none.
    ///   - ppp: For a PPP link, what the kernel shows of its possible carriers; nil otherwise.
    public init(name: String, rawFlags: UInt32 = 0, hardwareType: UInt16 = 0, linkKind: String? = nil,
                deviceType: String? = nil, isWireless: Bool = false, driver: String? = nil, ppp: PPPFacts? = nil) {
        self.name = name; self.rawFlags = rawFlags; self.hardwareType = hardwareType; self.linkKind = linkKind
        self.deviceType = deviceType; self.isWireless = isWireless; self.driver = driver; self.ppp = ppp
    }
}

/// What carries PPP links, as far as the kernel shows it. The kernel keeps no
/// link from a ppp unit to its channel that userspace can read, so these are
/// facts of the whole namespace and machine, and the rule (``InterfaceKind``,
/// "PPP links") says when they decide.
public struct PPPFacts: Hashable, Sendable {
    /// Sessions in the namespace's /proc/net/pppoe (PPP over Ethernet: DSL, fibre).
    public var pppoeSessions: Int
    /// Sessions in the namespace's /proc/net/pppol2tp (PPP over L2TP, a tunnel).
    public var l2tpSessions: Int
    /// Modem devices present: ttys whose driver is a cellular modem's
    /// (`InterfaceKind.modemSerialDrivers`), ports under /sys/class/wwan, and
    /// existing devices the policy declares as modems
    /// (``ReachabilityPolicy/modemDevices``).
    public var modems: [String]

    /// The carriers' facts; the defaults are a namespace with no PPPoX session
    /// on a machine with no modem.
    ///
    /// - Parameters:
    ///   - pppoeSessions: Sessions in the namespace's /proc/net/pppoe.
    ///   - l2tpSessions: Sessions in the namespace's /proc/net/pppol2tp.
    ///   - modems: The modem devices present.
    public init(pppoeSessions: Int = 0, l2tpSessions: Int = 0, modems: [String] = []) {
        self.pppoeSessions = pppoeSessions; self.l2tpSessions = l2tpSessions; self.modems = modems
    }
}

/// One user rule: interfaces whose name matches its pattern (a shell glob, as
/// ``Glob`` reads it: fnmatch(3) without flags) are of its kind, whatever the kernel facts say.
public struct InterfaceKindOverride: Hashable, Sendable, CustomStringConvertible {
    /// The shell glob an interface's name must match (fnmatch(3) without flags).
    public let pattern: String
    /// The kind a matching interface gets, instead of what its kernel facts say.
    public let kind: InterfaceKind

    /// A rule whose pattern is known to be valid (`patternProblem` is nil);
    /// the core's throwing initialisers check it and call this.
    package init(validPattern pattern: String, kind: InterfaceKind) {
        self.pattern = pattern
        self.kind = kind
    }

    /// Why `pattern` cannot be a rule's pattern, or nil when it can.
    package static func patternProblem(_ pattern: String) -> String? {
        if pattern.isEmpty { return "empty pattern" }
        if pattern.utf8.contains(0) { return "NUL in pattern" }
        return nil
    }

    /// Whether an interface's name matches the rule's pattern.
    ///
    /// - Parameter name: An interface's name.
    /// - Returns: Whether `name` matches ``pattern``, as fnmatch(3) without
    ///   flags would answer.
    public func matches(_ name: String) -> Bool { Glob.matches(pattern, name) }

    public var description: String { "\(pattern)=\(kind.rawValue)" }
}

extension InterfaceKind {
    /// Name patterns that mean WWAN when nothing else says so (ModemManager's and
    /// Qualcomm's naming: `wwan0`, `rmnet_data0`).
    public static let builtInWWANPatterns = ["wwan*", "rmnet*"]

    /// Drivers of USB/PCIe cellular modems' net devices, which may report no
    /// DEVTYPE. Not cdc_ether or rndis_host: those drive Ethernet gadgets too,
    /// and a modem behind them says so with DEVTYPE=wwan.
    package static let modemDrivers: Set<String> = [
        "qmi_wwan", "qmi_wwan_q", "cdc_mbim", "huawei_cdc_ncm", "sierra_net", "rmnet", "mhi_net",
        "ipa", "GobiNet",
    ]

    /// Drivers of modems' serial (AT/PPP) ports, as /sys/class/tty/NAME/device/driver
    /// names them: USB serial drivers name their ports after themselves
    /// (`option1` is the option driver's). Not cdc_acm, which drives any USB
    /// serial gadget: declare such a modem with `ReachabilityPolicy.modemDevices`.
    package static let modemSerialDrivers: Set<String> = ["option1", "option", "qcserial", "sierra", "qcaux", "hso", "nozomi"]

    /// Link kinds of layer-3 masters: a VRF device is a routing domain, not a
    /// medium; the route's output interface is the enslaved link.
    package static let layer3MasterLinkKinds: Set<String> = ["vrf"]

    /// Link kinds (`IFLA_INFO_KIND`) of tunnels.
    package static let tunnelLinkKinds: Set<String> = [
        "tun", "wireguard", "gre", "gretap", "ip6gre", "ip6gretap", "ipip", "ip6tnl", "sit", "vti", "vti6",
        "xfrm", "erspan", "ip6erspan", "vxlan", "geneve", "bareudp", "gtp", "openvpn",
    ]

    /// Hardware types of tunnels: NONE (tun, wireguard), TUNNEL, TUNNEL6, SIT, IPGRE, IP6GRE.
    package static let tunnelHardwareTypes: Set<UInt16> = [65534, 768, 769, 776, 778, 823]

    package static let hardwareTypeEther: UInt16 = 1       // ARPHRD_ETHER
    package static let hardwareTypeLoopback: UInt16 = 772  // ARPHRD_LOOPBACK
    package static let hardwareTypeRawIP: UInt16 = 519     // ARPHRD_RAWIP
    package static let hardwareTypePPP: UInt16 = 512       // ARPHRD_PPP

    /// The kind of an interface: the first override that matches its name wins;
    /// else an interface a modem daemon says a modem owns is WWAN; else, in
    /// this order, loopback, PPP (by its own rule), WWAN, Wi-Fi, tunnel, wired,
    /// other (Architecture.md, "Interface kind").
    ///
    /// - Parameters:
    ///   - facts: What netlink and sysfs say about the interface.
    ///   - overrides: The user's rules by interface name; the first that matches decides.
    ///   - ownedByModem: Whether a modem daemon (ModemManager) says a modem owns the interface.
    public init(facts: InterfaceFacts, overrides: [InterfaceKindOverride] = [], ownedByModem: Bool = false) {
        #if REACH_NO_MODEM_FACTS
        let ownedByModem = false   // a firmware build follows no modem daemon
        #endif
        if let rule = overrides.first(where: { $0.matches(facts.name) }) {
            self = rule.kind
        } else if ownedByModem {
            self = .wwan
        } else if facts.rawFlags & LinkFlags.loopback.rawValue != 0 || facts.hardwareType == Self.hardwareTypeLoopback {
            self = .loopback
        } else if facts.hardwareType == Self.hardwareTypePPP {
            self = facts.ppp.map(Self.init(ppp:)) ?? .other
        } else if facts.linkKind.map(Self.layer3MasterLinkKinds.contains) == true {
            self = .other
        } else if facts.deviceType == "wwan" || facts.hardwareType == Self.hardwareTypeRawIP
                    || facts.driver.map(Self.modemDrivers.contains) == true
                    || Self.builtInWWANPatterns.contains(where: { Glob.matches($0, facts.name) }) {
            self = .wwan
        } else if facts.isWireless || facts.deviceType == "wlan" {
            self = .wifi
        } else if facts.linkKind.map(Self.tunnelLinkKinds.contains) == true
                    || Self.tunnelHardwareTypes.contains(facts.hardwareType) {
            self = .tunnel
        } else if facts.hardwareType == Self.hardwareTypeEther {
            self = .wired
        } else {
            self = .other
        }
    }

    /// PPP links: the one rule. A PPP link is carried by a serial line (a
    /// modem's AT port, pppd over a tty) or by a PPPoX socket (PPPoE, L2TP).
    /// With no PPPoX session in the namespace, every PPP link is serial: WWAN
    /// when a modem is present, else `other` (a null-modem cable). With PPPoX
    /// sessions and no modem, every PPP link is PPPoX: PPPoE is `wired` (DSL
    /// or fibre behind an Ethernet port), L2TP a `tunnel`. When both could
    /// carry it (PPPoE and a modem in one namespace), the kernel does not say
    /// which link is which: `other`, and an override by name decides.
    package init(ppp: PPPFacts) {
        switch (ppp.pppoeSessions > 0, ppp.l2tpSessions > 0, !ppp.modems.isEmpty) {
        case (false, false, true): self = .wwan
        case (true, false, false): self = .wired
        case (false, true, false): self = .tunnel
        default: self = .other
        }
    }
}

/// The case's name (its raw value), as reflection printed it: also in a
/// build without reflection metadata (Tools/Footprint/firmware-minimal.flags).
extension InterfaceKind: CustomStringConvertible {
    public var description: String { rawValue }
}
