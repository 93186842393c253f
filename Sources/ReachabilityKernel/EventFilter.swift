import ReachabilityModel
internal import CReachability
#if canImport(Glibc)
internal import Glibc
#endif

/// Tells the link and address notifications that change something the
/// answers depend on from those that change nothing the monitor reads: a
/// wireless scan or a statistics update (`RTM_NEWLINK` with the same state),
/// a bridge's per-port message (family `AF_BRIDGE`), an IPv6 address whose
/// lifetimes a router advertisement refreshed (`RTM_NEWADDR` with the same
/// address, prefix and flags).
///
/// It remembers the fields the flags depend on for each link (flags without
/// `IFF_PROMISC`/`IFF_ALLMULTI`, operstate, link mode, carrier, type, name,
/// kind, master, parent) and each address (interface, prefix, peer, scope,
/// `IFA_F_*` flags), from the notifications themselves: the first one about
/// a link or an address after the monitor started, or after events were lost
/// (`forgetAll()`), counts as a change. Routes, rules and nexthops are always
/// changes. Memory is bounded by the namespace's own links and addresses;
/// an `RTM_DELLINK` drops a link and its addresses.
///
/// Owned by the monitor's event thread.
struct EventFilter {
    struct LinkFacts: Equatable {
        var flags: UInt32
        var type: UInt16
        var operstate: UInt8
        var linkmode: UInt8
        var carrier: Int8
        var master: Int32
        var parent: Int32
        var name: SIMD16<UInt8>
        var kind: SIMD32<UInt8>

        init(_ link: creach_link) {
            // Promiscuous and all-multicast modes change when a port joins a bridge; no flag depends on them.
            flags = link.flags & ~UInt32(IFF_PROMISC.rawValue | IFF_ALLMULTI.rawValue)
            type = link.type
            operstate = link.operstate
            linkmode = link.linkmode
            carrier = link.carrier
            master = link.master
            parent = link.link
            name = bytes(of: link.name)
            kind = bytes(of: link.kind)
        }
    }

    struct AddressKey: Hashable {
        var index: Int32
        var family: UInt8
        var prefixLength: UInt8
        var address: SIMD16<UInt8>
        var peer: SIMD16<UInt8>

        init(_ address: creach_addr) {
            index = address.index
            family = address.family
            prefixLength = address.prefixlen
            self.address = bytes(of: address.address)
            peer = address.has_peer != 0 ? bytes(of: address.peer) : .zero
        }
    }

    struct AddressFacts: Equatable {
        var flags: UInt32
        var scope: UInt8
    }

    /// What one datagram changed, by kind.
    struct Verdict {
        var link = 0
        var addr4 = 0
        var addr6 = 0
        /// Link and address messages that changed nothing.
        var ignored = 0
    }

    private var links: [Int32: LinkFacts] = [:]
    private var addresses: [AddressKey: AddressFacts] = [:]

    /// Events were lost: every next notification counts as a change.
    mutating func forgetAll() {
        links.removeAll(keepingCapacity: true)
        addresses.removeAll(keepingCapacity: true)
    }

    var linkCount: Int { links.count }
    var addressCount: Int { addresses.count }

    /// Reads the link and address messages of one datagram and adds what they
    /// changed to `verdict`. A message that cannot be parsed counts as a
    /// change (the classifier counts it as malformed too).
    mutating func apply(datagram: UnsafeRawPointer, length: Int, to verdict: inout Verdict) {
        var iterator = creach_msg_iter()
        creach_msg_iter_init(&iterator, datagram, length)
        var message: UnsafeRawPointer?
        var messageLength = 0
        while creach_msg_next(&iterator, &message, &messageLength) > 0, let message {
            let type = Int(creach_msg_type(message))
            switch type {
            case Int(RTM_NEWLINK), Int(RTM_DELLINK):
                applyLink(message, messageLength, deleted: type == Int(RTM_DELLINK), to: &verdict)
            case Int(RTM_NEWADDR), Int(RTM_DELADDR):
                applyAddress(message, messageLength, deleted: type == Int(RTM_DELADDR), to: &verdict)
            default:
                break
            }
        }
    }

    private mutating func applyLink(_ message: UnsafeRawPointer, _ length: Int, deleted: Bool, to verdict: inout Verdict) {
        // ifinfomsg opens with its family: AF_BRIDGE messages are about a bridge
        // port's forwarding state (also RTM_DELLINK when a port leaves its bridge,
        // which deletes no link). The port's own link messages come with AF_UNSPEC.
        let familyOffset = MemoryLayout<nlmsghdr>.size   // NLMSG_HDRLEN: 16, already aligned
        if length > familyOffset, message.load(fromByteOffset: familyOffset, as: UInt8.self) == UInt8(AF_BRIDGE) {
            verdict.ignored += 1
            return
        }
        var link = creach_link()
        guard creach_parse_link(message, length, &link) == 0 else {
            verdict.link += 1
            return
        }
        if deleted {
            links[link.index] = nil
            addresses = addresses.filter { $0.key.index != link.index }
            verdict.link += 1
            return
        }
        let facts = LinkFacts(link)
        if links[link.index] == facts {
            verdict.ignored += 1
        } else {
            links[link.index] = facts
            verdict.link += 1
        }
    }

    private mutating func applyAddress(_ message: UnsafeRawPointer, _ length: Int, deleted: Bool, to verdict: inout Verdict) {
        var address = creach_addr()
        guard creach_parse_addr(message, length, &address) == 0 else {
            // Another family (the classifier counts it as other) or broken bytes.
            if SystemErrno.current.rawValue == EPROTO { verdict.ignored += 1 } else { verdict.link += 1 }
            return
        }
        let key = AddressKey(address)
        let facts = AddressFacts(flags: address.flags, scope: address.scope)
        let changed: Bool
        if deleted {
            changed = true
            addresses[key] = nil
        } else {
            changed = addresses.updateValue(facts, forKey: key) != facts
        }
        if !changed {
            verdict.ignored += 1
        } else if address.family == UInt8(AF_INET) {
            verdict.addr4 += 1
        } else {
            verdict.addr6 += 1
        }
    }
}

/// A C array (imported as a tuple) as a comparable vector of its bytes.
private func bytes<Tuple, Vector: SIMD>(of tuple: Tuple) -> Vector where Vector.Scalar == UInt8 {
    precondition(MemoryLayout<Tuple>.size == MemoryLayout<Vector>.size)
    return withUnsafeBytes(of: tuple) { $0.loadUnaligned(as: Vector.self) }
}
