import ReachabilityModel
internal import CReachability
#if canImport(Glibc)
internal import Glibc
#endif

/// One routing policy rule (`ip rule`), reduced to what a route lookup made
/// from this host is matched against and what the rule then does.
///
/// The kernel answers `ENETUNREACH` both when no route matched and when a
/// `throw` route did and no later rule found one. To tell the two apart,
/// `RuleChain` walks the rules as `fib_rules_lookup` does for such a lookup:
/// no input interface but the loopback, no TOS, no protocol or ports.
struct PolicyRule {
    enum Action: Equatable {
        /// `lookup TABLE`: consult a routing table (0 means main, as the kernel reads it).
        case lookup(table: UInt32)
        /// `goto PRIORITY`: go on at the first rule of that priority.
        case goto(priority: UInt32)
        /// `nop`
        case nop
        /// `blackhole`, `unreachable`, `prohibit`: the lookup ends refused here.
        case refuse
        /// An action this code does not know.
        case other(UInt8)
    }

    var priority: UInt32 = 0
    var action: Action = .lookup(table: UInt32(RT_TABLE_MAIN.rawValue))
    /// `to PREFIX`, nil for all.
    var destination: (prefix: IPAddress, length: Int)?
    /// `from PREFIX`, nil for all.
    var source: (prefix: IPAddress, length: Int)?
    var tos: UInt8 = 0
    /// `iif NAME` / `oif NAME`; a detached name (no such link) never matches.
    var inputInterface: String?
    var outputInterface: String?
    var inputDetached = false
    var outputDetached = false
    var mark: UInt32 = 0
    var markMask: UInt32 = 0
    var uids: ClosedRange<UInt32>?
    var inverted = false
    /// `suppress_prefixlength` / `suppress_ifgroup`: a route found may be refused.
    var suppresses = false
    /// Tunnel id, l3mdev, IP protocol, ports, DSCP, flow label or newer.
    var hasOtherSelectors = false

    init() {}

    init(_ raw: creach_rule) {
        var raw = raw
        let family: IPAddress.Family = raw.family == UInt8(AF_INET6) ? .v6 : .v4
        priority = raw.priority
        switch Int32(raw.action) {
        case Int32(FR_ACT_TO_TBL): action = .lookup(table: raw.table)
        case Int32(FR_ACT_GOTO): action = .goto(priority: raw.goto_target)
        case Int32(FR_ACT_NOP): action = .nop
        case Int32(FR_ACT_BLACKHOLE), Int32(FR_ACT_UNREACHABLE), Int32(FR_ACT_PROHIBIT): action = .refuse
        default: action = .other(raw.action)
        }
        if raw.dst_len > 0 {
            destination = (withUnsafeBytes(of: &raw.dst) { IPAddress(family: family, bytes: $0) }, Int(raw.dst_len))
        }
        if raw.src_len > 0 {
            source = (withUnsafeBytes(of: &raw.src) { IPAddress(family: family, bytes: $0) }, Int(raw.src_len))
        }
        tos = raw.tos
        let iif = withUnsafeBytes(of: &raw.iifname) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let oif = withUnsafeBytes(of: &raw.oifname) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        inputInterface = iif.isEmpty ? nil : iif
        outputInterface = oif.isEmpty ? nil : oif
        inputDetached = raw.flags & UInt32(FIB_RULE_IIF_DETACHED) != 0
        outputDetached = raw.flags & UInt32(FIB_RULE_OIF_DETACHED) != 0
        mark = raw.fwmark
        markMask = raw.fwmask
        uids = raw.has_uid_range != 0 && raw.uid_start <= raw.uid_end ? raw.uid_start...raw.uid_end : nil
        inverted = raw.flags & UInt32(FIB_RULE_INVERT) != 0
        suppresses = raw.has_suppress != 0
        hasOtherSelectors = raw.other_selectors != 0
    }

    /// Whether the rule applies to `lookup` (`fib_rule_match`); nil when it
    /// turns on a selector this code cannot judge.
    func matches(_ lookup: RuleChain.Lookup, indexOf: (String) -> Int32?) -> Bool? {
        var matched = true
        var undecided = hasOtherSelectors
        if let name = inputInterface {
            // A lookup for a locally sent packet comes in on the loopback (index 1).
            matched = matched && !inputDetached && indexOf(name) == 1
        }
        if let name = outputInterface {
            matched = matched && !outputDetached && lookup.outputIndex > 0 && indexOf(name) == lookup.outputIndex
        }
        matched = matched && (mark ^ lookup.mark) & markMask == 0
        if let uids { matched = matched && uids.contains(lookup.uid) }
        if let destination { matched = matched && lookup.destination.isIn(destination.prefix, length: destination.length) }
        if let source {
            if let from = lookup.source {
                matched = matched && from.isIn(source.prefix, length: source.length)
            } else if lookup.destination.family == .v4 {
                // IPv4 matches the rules with source 0.0.0.0 before it picks one.
                matched = matched && IPAddress("0.0.0.0")!.isIn(source.prefix, length: source.length)
            } else {
                undecided = true   // IPv6 may pick a source for such a rule (FIB_RULE_FIND_SADDR)
            }
        }
        matched = matched && tos == 0
        if matched && undecided { return nil }
        return inverted ? !matched : matched
    }
}

/// The routing policy walked for one refused lookup.
enum RuleChain {
    /// What was looked up, as the kernel sees it for `RTM_GETROUTE` without an input interface.
    struct Lookup {
        var destination: IPAddress
        var source: IPAddress?
        /// `RTA_OIF`, 0 when none.
        var outputIndex: Int32 = 0
        var mark: UInt32 = 0
        /// `RTA_UID`, else the caller's real uid (what the kernel takes).
        var uid: UInt32 = getuid()
    }

    /// For a lookup the kernel refused with `ENETUNREACH`: whether a `throw`
    /// route is why. True when the walk (in the kernel's order) consults a
    /// table in `throwTables` (tables holding a `throw` route that covers the
    /// destination) and then runs off the end of the chain; false when it
    /// consults none, or ends at a refusing rule (`unreachable` answers
    /// `ENETUNREACH` too); nil when a rule it meets cannot be judged.
    ///
    /// Why this is enough: a table that holds a covering `throw` route
    /// cannot answer "nothing found" (the throw matches whatever the
    /// nexthops), and a route it found would have ended the lookup unless a
    /// `suppress_*` rule refused it, which is the one case left undecided.
    static func refusalIsThrow(rules: [PolicyRule], throwTables: Set<UInt32>, lookup: Lookup,
                               indexOf: (String) -> Int32?) -> Bool? {
        throwTable(rules: rules, throwTables: throwTables, lookup: lookup, indexOf: indexOf).map { $0 != nil }
    }

    /// The same walk, telling which table threw: the first table in
    /// `throwTables` it consulted when the refusal is a throw; `.some(nil)`
    /// when it is not; nil when a rule cannot be judged.
    static func throwTable(rules: [PolicyRule], throwTables: Set<UInt32>, lookup: Lookup,
                           indexOf: (String) -> Int32?) -> UInt32?? {
        var firstThrow: UInt32?
        var index = 0
        var steps = 0
        while index < rules.count {
            steps += 1
            guard steps <= rules.count else { return nil }   // gotos only jump forward: a loop is a bug
            let rule = rules[index]
            guard let matched = rule.matches(lookup, indexOf: indexOf) else { return nil }
            guard matched else { index += 1; continue }
            switch rule.action {
            case let .lookup(table):
                let table = table == 0 ? UInt32(RT_TABLE_MAIN.rawValue) : table
                if throwTables.contains(table) {
                    if rule.suppresses { return nil }
                    firstThrow = firstThrow ?? table
                }
                index += 1
            case let .goto(priority):
                index = rules.indices.first { $0 > index && rules[$0].priority == priority } ?? index + 1
            case .nop:
                index += 1
            case .refuse:
                return .some(nil)
            case .other:
                return nil
            }
        }
        return .some(firstThrow)
    }

    /// The tables of `routes` (throw routes of one family) that hold one covering `destination`.
    static func tables(of routes: some Sequence<creach_route>, covering destination: IPAddress) -> Set<UInt32> {
        var tables = Set<UInt32>()
        for var route in routes where route.tos == 0 && route.family == destination.family.rawFamily {
            let prefix = withUnsafeBytes(of: &route.dst) { IPAddress(family: destination.family, bytes: $0) }
            if destination.isIn(prefix, length: Int(route.dst_len)) { tables.insert(route.table) }
        }
        return tables
    }
}
