// Where each flag is decided: kernel facts → ReachabilityFlags, exactly as the
// table in Architecture.md ("Kernel state → flags") says. Pure; no I/O: the core's
// `init(route:link:kind:)` passes a route lookup's verdict and gateway here.

extension ReachabilityFlags {
    /// The flags for a destination, from its FIB lookup and the state and kind
    /// of the link it leaves by:
    ///
    /// - Not reachable (no flags): the lookup was refused (no route, unreachable,
    ///   blackhole, prohibit, throw), or the output link is administratively down.
    /// - ``reachable``: a usable route whose output link is up.
    /// - ``isLocalAddress`` + ``isDirect``: the destination is an address of this host.
    /// - ``isDirect``: the route has no gateway.
    /// - ``connectionRequired``: the link has no carrier (which is when the kernel
    ///   marks its routes linkdown), or operstate is down / lowerlayerdown /
    ///   dormant / testing / notpresent. The linkdown mark itself never appears
    ///   in an `RTM_GETROUTE` answer, so the link's own state is what is read.
    /// - ``interventionRequired``: operstate dormant (waiting for authentication).
    /// - ``transientConnection``: the link is point-to-point.
    /// - ``isWWAN``: the link is classified WWAN.
    ///
    /// - Parameters:
    ///   - verdict: What the FIB lookup said about the destination.
    ///   - hasGateway: Whether the route has a gateway.
    ///   - link: The output link, nil when the lookup named no output interface.
    ///   - kind: The output link's kind, nil when it is not known.
    public init(verdict: RouteVerdict, hasGateway: Bool, link: LinkState?, kind: InterfaceKind?) {
        self = []
        guard verdict.isUsable else { return }
        if let link, !link.isAdminUp { return }
        insert(.reachable)
        if verdict == .local || verdict == .anycast {
            formUnion([.isLocalAddress, .isDirect])
            return
        }
        if !hasGateway { insert(.isDirect) }
        if let link {
            if !link.isOperational { insert(.connectionRequired) }
            if link.operState == .dormant { insert(.interventionRequired) }
            if link.isPointToPoint { insert(.transientConnection) }
        }
        if kind == .wwan { insert(.isWWAN) }
    }
}
