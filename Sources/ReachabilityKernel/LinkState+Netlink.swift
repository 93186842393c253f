import ReachabilityModel
internal import CReachability
#if canImport(Glibc)
internal import Glibc
#endif

extension LinkState {
    /// The link the C core parsed from an `RTM_GETLINK` message.
    init(_ link: creach_link) {
        var link = link
        let name = withUnsafeBytes(of: &link.name) { String(decodingCString: $0) }
        let kind = withUnsafeBytes(of: &link.kind) { String(decodingCString: $0) }
        self.init(index: link.index, name: name, rawFlags: link.flags, operState: OperState(ifOperState: link.operstate),
                  hardwareType: link.type, linkKind: kind.isEmpty ? nil : kind, mtu: link.mtu,
                  carrier: link.carrier < 0 ? nil : link.carrier != 0)
    }
}
