import ReachabilityModel
internal import CReachability

/// The capabilities of interest in this thread's effective set (read with libcap).
public struct Capabilities: Hashable, Sendable {
    /// `CAP_NET_RAW`: raw ICMP sockets (probes).
    public let netRaw: Bool
    /// `CAP_NET_ADMIN`.
    public let netAdmin: Bool
    /// `CAP_SYS_ADMIN`: needed to enter another network namespace.
    public let sysAdmin: Bool

    /// The calling thread's effective capabilities.
    ///
    /// - Returns: Which of `CAP_NET_RAW`, `CAP_NET_ADMIN` and `CAP_SYS_ADMIN`
    ///   are in the calling thread's effective set.
    /// - Throws: ``ReachabilityError/system(operation:errno:)`` when libcap
    ///   cannot read the set.
    public static func current() throws(ReachabilityError) -> Capabilities {
        let bits = creach_caps_effective()
        guard bits >= 0 else { throw .system(operation: "cap_get_proc", errno: .current) }
        let mask = UInt32(bits)
        return Capabilities(netRaw: mask & CREACH_CAP_NET_RAW != 0,
                            netAdmin: mask & CREACH_CAP_NET_ADMIN != 0,
                            sysAdmin: mask & CREACH_CAP_SYS_ADMIN != 0)
    }
}
