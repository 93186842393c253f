/// Which ICMP sockets this process may open, and the order to try them.
public struct ICMPPermissions: Hashable, Sendable {
    /// `CAP_NET_RAW` is effective.
    public let raw: Bool
    /// `net.ipv4.ping_group_range` of the namespace, nil when unreadable.
    public let pingGroupRange: GroupRange?
    /// Our effective gid and supplementary groups.
    public let groups: [UInt32]

    /// Permissions from their parts (tests, or facts read elsewhere);
    /// ``Prober/icmpPermissions()`` reads them from the process and the namespace.
    ///
    /// - Parameters:
    ///   - raw: Whether `CAP_NET_RAW` is effective.
    ///   - pingGroupRange: `net.ipv4.ping_group_range` of the namespace; nil when unreadable.
    ///   - groups: The effective gid and the supplementary groups.
    public init(raw: Bool, pingGroupRange: GroupRange?, groups: [UInt32]) {
        self.raw = raw
        self.pingGroupRange = pingGroupRange
        self.groups = groups
    }

    /// Whether the kernel lets us open a ping socket (one of our groups in the range).
    public var datagram: Bool {
        guard let range = pingGroupRange else { return false }
        return groups.contains { range.contains($0) }
    }

    /// The transports for `.icmp`, best first: raw, ping socket, TCP connect.
    public var transports: [ProbeTransport] {
        (raw ? [.icmpRaw] : []) + (datagram ? [.icmpDatagram] : []) + [.tcpConnect]
    }

    /// Why `transport` was used instead of the ones before it.
    func fallbackReason(for transport: ProbeTransport, failures: [String]) -> String? {
        var reasons: [String] = []
        if transport != .icmpRaw && !raw { reasons.append("no CAP_NET_RAW") }
        if transport == .tcpConnect && !datagram {
            let groupList = groups.map(String.init).joined(separator: ",")
            if let range = pingGroupRange {
                reasons.append("groups \(groupList) not in ping_group_range \(range.low) \(range.high)")
            } else {
                reasons.append("ping_group_range unreadable")
            }
        }
        reasons += failures
        return reasons.isEmpty ? nil : reasons.joined(separator: "; ")
    }
}

/// A `LOW HIGH` pair of gids as `net.ipv4.ping_group_range` holds it. The
/// kernel's default, `1 0`, admits nobody (low above high).
public struct GroupRange: Hashable, Sendable {
    /// The lowest gid admitted: the file's first number.
    public let low: UInt32
    /// The highest gid admitted: the file's second number. Below `low`, nobody is admitted.
    public let high: UInt32

    /// A range from the file's two numbers, in its order.
    ///
    /// - Parameters:
    ///   - low: The lowest gid admitted.
    ///   - high: The highest gid admitted; below `low`, nobody is.
    public init(low: UInt32, high: UInt32) {
        self.low = low
        self.high = high
    }

    /// Whether the kernel lets a process of group `gid` open a ping socket.
    ///
    /// - Parameter gid: A group id of the process.
    /// - Returns: Whether ``low`` ≤ `gid` ≤ ``high``.
    public func contains(_ gid: UInt32) -> Bool { low <= gid && gid <= high }
}
