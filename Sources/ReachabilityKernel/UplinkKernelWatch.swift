import ReachabilityModel
internal import CReachability
#if canImport(Glibc)
internal import Glibc
#endif

/// What the kernel tells an uplink tracker for free, without a probe byte:
/// whether the interface has carrier (`RTM_NEWLINK`, `IFF_LOWER_UP`;
/// `RTM_DELLINK`), and whether the next hop's neighbour entry has failed
/// (`RTM_NEWNEIGH` with `NUD_FAILED`: ARP or neighbour discovery went
/// unanswered while the carrier stayed up). A NETLINK_ROUTE socket joined to
/// the link and neighbour groups (`creach_tracker_groups`), read on the
/// tracker's thread. Owned by that thread, hence `@unchecked Sendable`.
package final class UplinkKernelWatch: @unchecked Sendable {
    private var events: creach_nl
    private var questions: RouteSocket
    private let buffer: UnsafeMutableRawPointer
    private let bufferSize = Int(CREACH_DUMP_BUFSIZ)
    private let interface: String
    private let host: IPAddress
    private let options: LookupOptions
    private var index: Int32 = 0
    /// The neighbour the probes go through: the route's gateway, or the host on a link.
    private var nextHop: IPAddress?
    /// Whether the interface has carrier (up and `IFF_LOWER_UP`).
    package private(set) var carrier = true
    /// Whether the next hop's neighbour entry is `NUD_FAILED`.
    package private(set) var neighbourFailed = false
    /// Messages that did not parse, and datagrams lost to a full buffer.
    package private(set) var unreadable = 0

    /// Opens the socket in `handle`'s namespace, then reads the interface's
    /// state and the route to `host` through it (the socket first, so that
    /// nothing between the two is missed).
    package init(in handle: NamespaceHandle, interface: String, host: IPAddress,
                 options: LookupOptions) throws(ReachabilityError) {
        var events = creach_nl()
        guard creach_nl_open(&events, creach_tracker_groups, handle.fd) == 0 else {
            throw .openingSocket("open NETLINK_ROUTE link and neighbour socket", in: handle.namespace, errno: .current)
        }
        guard let questions = RouteSocket(namespaceFD: handle.fd) else {
            let error = SystemErrno.current
            creach_nl_close(&events)
            throw .openingSocket("open NETLINK_ROUTE socket", in: handle.namespace, errno: error)
        }
        self.events = events
        self.questions = questions
        self.interface = interface
        self.host = host
        self.options = options
        buffer = UnsafeMutableRawPointer.allocate(byteCount: Int(CREACH_DUMP_BUFSIZ), alignment: 8)
        refresh()
    }

    deinit {
        creach_nl_close(&events)
        questions.close()
        buffer.deallocate()
    }

    /// The socket's descriptor, to wait on.
    package var fd: Int32 { events.fd }

    /// Asks the kernel again: the interface's index and carrier, the next hop.
    package func refresh() {
        guard let index = try? questions.interfaceIndex(named: interface), let link = try? questions.link(index: index) else {
            self.index = 0
            carrier = false
            return
        }
        self.index = index
        carrier = link.isAdminUp && link.hasLowerUp
        if let route = try? questions.lookupRoute(host, options: options), route.interfaceIndex == index {
            nextHop = route.gateway ?? host
        }
    }

    /// Reads what is queued (a bounded number of datagrams).
    ///
    /// - Returns: Whether carrier or the neighbour's state changed.
    package func read() -> Bool {
        let before = (carrier, neighbourFailed)
        for _ in 0..<256 {
            let n = creach_nl_recv_event(&events, buffer, bufferSize)
            if n == 0 { break }
            if n < 0 {
                switch SystemErrno.current.rawValue {
                case ENOBUFS: unreadable += 1; refresh()     // lost events: ask again
                case ENOMSG, EAGAIN, EINTR: break
                default: unreadable += 1
                }
                continue
            }
            var iterator = creach_msg_iter()
            creach_msg_iter_init(&iterator, buffer, n)
            var message: UnsafeRawPointer?
            var length = 0
            while true {
                let next = creach_msg_next(&iterator, &message, &length)
                if next == 0 { break }
                guard next > 0, let message else { unreadable += 1; break }
                apply(message, length: length)
            }
        }
        return before != (carrier, neighbourFailed)
    }

    private func apply(_ message: UnsafeRawPointer, length: Int) {
        switch Int32(creach_msg_type(message)) {
        case Int32(RTM_NEWLINK), Int32(RTM_DELLINK):
            var link = creach_link()
            guard creach_parse_link(message, length, &link) == 0 else {
                if SystemErrno.current.rawValue == EBADMSG { unreadable += 1 }
                return
            }
            let state = LinkState(link)
            guard state.name == interface else { return }
            if Int32(creach_msg_type(message)) == Int32(RTM_DELLINK) {
                index = 0
                carrier = false
            } else {
                let moved = state.index != index
                index = state.index
                carrier = state.isAdminUp && state.hasLowerUp
                if moved { refresh() }
            }
        case Int32(RTM_NEWNEIGH), Int32(RTM_DELNEIGH):
            var neighbour = creach_neigh()
            guard creach_parse_neigh(message, length, &neighbour) == 0 else {
                if SystemErrno.current.rawValue == EBADMSG { unreadable += 1 }
                return
            }
            guard neighbour.index == index, neighbour.has_address != 0, let nextHop,
                  nextHop.family.rawFamily == neighbour.family else { return }
            let address = withUnsafeBytes(of: &neighbour.address) { bytes in
                IPAddress(family: nextHop.family, bytes: UnsafeRawBufferPointer(rebasing: bytes[..<nextHop.family.byteCount]))
            }
            guard address == nextHop else { return }
            if neighbour.deleted != 0 {
                neighbourFailed = false
            } else if neighbour.state & creach_nud_failed != 0 {
                neighbourFailed = true
            } else if neighbour.state & creach_nud_reachable != 0 {
                neighbourFailed = false
            }
        default:
            return
        }
    }
}

