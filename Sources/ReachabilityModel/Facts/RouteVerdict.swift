// What the FIB said about a destination, as the decisions read it. The
// core's Kernel layer builds it from an RTM_GETROUTE answer or its errno.

/// What the FIB said about a destination: the route's type, or why there is none.
public enum RouteVerdict: String, Hashable, Sendable {
    /// A unicast route (`RTN_UNICAST`).
    case unicast
    /// The destination is an address of this host (`RTN_LOCAL`).
    case local
    /// A broadcast destination on an attached network (`RTN_BROADCAST`).
    case broadcast
    /// A multicast destination (`RTN_MULTICAST`).
    case multicast
    /// An anycast address of this host (`RTN_ANYCAST`, IPv6).
    case anycast
    /// An `unreachable` route matched (the lookup fails with `EHOSTUNREACH`).
    case unreachable
    /// A `blackhole` route matched (the lookup fails with `EINVAL`).
    case blackhole
    /// A `prohibit` route matched (the lookup fails with `EACCES`): the basis of *restricted*.
    case prohibit
    /// No route (`ENETUNREACH`): no rule's table had one, or an `unreachable`
    /// rule refused the lookup.
    case noRoute
    /// A `throw` route matched and no later rule's table had a route
    /// (`ENETUNREACH`, as for `noRoute`; told apart by walking `ip rule`).
    case `throw`
    /// The lookup failed for another reason (see `RouteLookup.errno`), e.g. `ENODEV`
    /// for an output interface that is down.
    case failed

    /// Whether packets can leave for the destination by this route.
    public var isUsable: Bool {
        switch self {
        case .unicast, .local, .broadcast, .multicast, .anycast: return true
        default: return false
        }
    }
}

/// The case's name (its raw value), as reflection printed it: also in a
/// build without reflection metadata (Tools/Footprint/firmware-minimal.flags).
extension RouteVerdict: CustomStringConvertible {
    public var description: String { rawValue }
}
