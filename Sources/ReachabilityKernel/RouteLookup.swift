import ReachabilityModel
internal import CReachability
#if canImport(Glibc)
internal import Glibc
#endif

extension RouteVerdict {
    /// The verdict for a lookup the kernel refused with this errno.
    init(refusal errno: Int32) {
        switch errno {
        case ENETUNREACH: self = .noRoute
        case EHOSTUNREACH: self = .unreachable
        case EACCES: self = .prohibit
        case EINVAL: self = .blackhole
        default: self = .failed
        }
    }

    /// The verdict for an answered lookup of route type `type` (`RTN_*`).
    init(routeType type: UInt8) {
        switch Int(type) {
        case Int(RTN_UNICAST): self = .unicast
        case Int(RTN_LOCAL): self = .local
        case Int(RTN_BROADCAST): self = .broadcast
        case Int(RTN_MULTICAST): self = .multicast
        case Int(RTN_ANYCAST): self = .anycast
        case Int(RTN_UNREACHABLE): self = .unreachable
        case Int(RTN_BLACKHOLE): self = .blackhole
        case Int(RTN_PROHIBIT): self = .prohibit
        case Int(RTN_THROW): self = .throw
        default: self = .failed
        }
    }
}

/// One answer of the kernel's FIB (`RTM_GETROUTE`), as `ip route get` shows it.
public struct RouteLookup: Hashable, Sendable {
    /// The route type the FIB chose (`RTN_*`), or why the kernel refused the lookup, from its errno
    /// (`ENETUNREACH` no route, or `throw` when a throw route sent it on; `EHOSTUNREACH` unreachable,
    /// `EACCES` prohibit, `EINVAL` blackhole).
    public let verdict: RouteVerdict
    /// The family of the address that was looked up (`rtm_family`).
    public let family: IPAddress.Family
    /// The routing table that answered (`RTA_TABLE`); for a `throw`, the
    /// table whose throw route sent the lookup on; 0 when it was refused otherwise.
    public let table: UInt32
    /// The output interface index (`RTA_OIF`), nil when none.
    public let interfaceIndex: Int32?
    /// The next hop (`RTA_GATEWAY` / `RTA_VIA`), nil on a directly attached network.
    public let gateway: IPAddress?
    /// The source address packets would carry: the kernel's `RTA_PREFSRC`,
    /// or the lookup's own source when it named one (the kernel then sends
    /// no `RTA_PREFSRC`); nil when the lookup was refused.
    public let preferredSource: IPAddress?
    /// The kernel's errno when it refused the lookup.
    public let errno: SystemErrno?

    /// A lookup's answer from its parts, as the kernel would give it: for
    /// code that decides from facts it has (tests, simulations).
    ///
    /// - Parameters:
    ///   - verdict: The route type the FIB chose, or why it refused the lookup.
    ///   - family: The family of the address that was looked up.
    ///   - table: The routing table that answered; the main table (254) by default.
    ///   - interfaceIndex: The output interface's index; nil when there is none.
    ///   - gateway: The next hop; nil on a directly attached network.
    ///   - preferredSource: The source address packets would carry; nil when refused.
    ///   - errno: The kernel's errno when it refused the lookup.
    public init(verdict: RouteVerdict, family: IPAddress.Family, table: UInt32 = 254, interfaceIndex: Int32? = nil,
                gateway: IPAddress? = nil, preferredSource: IPAddress? = nil, errno: SystemErrno? = nil) {
        self.verdict = verdict; self.family = family; self.table = table; self.interfaceIndex = interfaceIndex
        self.gateway = gateway; self.preferredSource = preferredSource; self.errno = errno
    }

    /// `throwTable`: the lookup was refused with `ENETUNREACH` because of a
    /// `throw` route in this table (`RuleChain.throwTable`). `source`: the
    /// source the lookup named, if any.
    init(_ route: creach_route, throwTable: UInt32? = nil, source: IPAddress? = nil) {
        let family: IPAddress.Family = route.family == UInt8(AF_INET6) ? .v6 : .v4
        self.family = family
        if route.error != 0 {
            let thrown = route.error == ENETUNREACH ? throwTable : nil
            verdict = thrown != nil ? .throw : RouteVerdict(refusal: route.error)
            errno = SystemErrno(rawValue: route.error)
            table = thrown ?? 0; interfaceIndex = nil; gateway = nil; preferredSource = nil
            return
        }
        var route = route
        verdict = RouteVerdict(routeType: route.type)
        errno = nil
        table = route.table
        interfaceIndex = route.oif > 0 ? route.oif : nil
        let gatewayFamily: IPAddress.Family = route.gateway_family == UInt8(AF_INET6) ? .v6 : .v4
        gateway = route.has_gateway != 0
            ? withUnsafeBytes(of: &route.gateway) { IPAddress(family: gatewayFamily, bytes: $0) } : nil
        preferredSource = route.has_prefsrc != 0
            ? withUnsafeBytes(of: &route.prefsrc) { IPAddress(family: family, bytes: $0) } : source
    }
}

extension ReachabilityFlags {
    /// The flags for a destination whose FIB lookup gave `route`, leaving by
    /// `link` of `kind`: the pure decision (ReachabilityModel,
    /// `init(verdict:hasGateway:link:kind:)`) on the lookup's facts.
    ///
    /// - Parameters:
    ///   - route: The FIB's answer for the destination.
    ///   - link: The output link's state; nil when the lookup was refused or
    ///     the link is gone.
    ///   - kind: The output link's kind; nil when there is no link.
    @inlinable
    public init(route: RouteLookup, link: LinkState?, kind: InterfaceKind?) {
        self.init(verdict: route.verdict, hasGateway: route.gateway != nil, link: link, kind: kind)
    }
}
