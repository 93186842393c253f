import Reachability

// How evaluations are shown: one JSON object per target (README, "JSON
// output"), or one human line per target and per address.

extension AddressEvaluation {
    /// The fields every address answer carries, in JSON.
    var jsonFields: [(String, JSON)] {
        [
            ("address", .string(address.description)),
            ("family", .string(address.family.rawValue)),
            ("reachable", .bool(status.isReachable)),
            ("status", .string(status.description)),
            ("networkStatus", .string(networkStatus.rawValue)),
            ("pathStatus", .string(pathStatus.rawValue)),
            ("flags", .int(Int64(flags.rawValue))),
            ("flagNames", .array(flags.names.map(JSON.string))),
            ("flagString", .string(flags.description)),
            ("interface", .optional(link?.name)),
            ("interfaceIndex", route.interfaceIndex.map { .int(Int64($0)) } ?? .null),
            ("interfaceKind", .optional(interfaceKind?.rawValue)),
            ("linkKind", .optional(link?.linkKind)),
            ("operState", .optional(link?.operState.rawValue)),
            ("gateway", .optional(route.gateway?.description)),
            ("source", .optional(route.preferredSource?.description)),
            ("route", .string(route.verdict.rawValue)),
            ("table", route.errno == nil ? .int(Int64(route.table)) : .null),
            ("error", .optional(route.errno?.description)),
        ]
    }

    /// `reachable.wired  -R -------  via 10.0.0.1 dev eth0 (veth) route unicast table 254`
    var humanLine: String {
        var parts = [status.description.padded(to: 20), flags.description]
        if let link {
            var device = "dev \(link.name)"
            if let linkKind = link.linkKind { device += " (\(linkKind))" }
            parts.append(route.gateway.map { "via \($0) \(device)" } ?? device)
            if link.operState != .up && link.operState != .unknown { parts.append("oper \(link.operState.rawValue)") }
        }
        parts.append("route \(route.verdict.rawValue)")
        if let errno = route.errno { parts.append("(\(errno))") } else { parts.append("table \(route.table)") }
        return parts.joined(separator: "  ")
    }
}

extension TargetEvaluation {
    /// One JSON object: the primary address's fields, plus `addresses` for a
    /// host name or the internet, and `error` when a name did not resolve.
    var json: JSON {
        var fields: [(String, JSON)] = [("target", .string(target.description))]
        if let primary {
            fields += primary.jsonFields.map { key, value in
                key == "reachable" ? (key, .bool(isReachable)) : (key, value)
            }
        } else {
            fields += [
                ("reachable", .bool(false)), ("status", .string(ReachabilityStatus.notReachable.description)),
                ("networkStatus", .string(networkStatus.rawValue)), ("pathStatus", .string(pathStatus.rawValue)),
                ("flags", .int(0)), ("flagNames", .array([])), ("flagString", .string(ReachabilityFlags().description)),
                ("interface", .null), ("interfaceKind", .null), ("gateway", .null), ("route", .string("unresolved")),
                ("error", .optional(resolutionError?.description)),
            ]
        }
        if case .address = target {} else {
            fields.append(("addresses", .array(addresses.map { .object($0.jsonFields) })))
        }
        return .object(fields)
    }

    var humanLines: [String] {
        switch target {
        case .address:
            return ["\(target)  \(primary?.humanLine ?? "")"]
        case .host, .internet:
            var lines = ["\(target)  \(status)"]
            if let resolutionError { lines[0] += "  (\(resolutionError))" }
            lines += addresses.map { "  \($0.address.description.padded(to: 24)) \($0.humanLine)" }
            return lines
        }
    }
}

extension InterfaceSummary {
    var json: JSON {
        .object([
            ("interface", .string(link.name)),
            ("index", .int(Int64(link.index))),
            ("interfaceKind", .string(kind.rawValue)),
            ("linkKind", .optional(link.linkKind)),
            ("up", .bool(link.isAdminUp)),
            ("operational", .bool(link.isOperational)),
            ("operState", .string(link.operState.rawValue)),
            ("carrier", link.carrier.map(JSON.bool) ?? .null),
            ("pointToPoint", .bool(link.isPointToPoint)),
            ("mtu", .int(Int64(link.mtu))),
            ("addresses", .array(addresses.map { .string($0.description) })),
        ])
    }

    var humanLine: String {
        let state = link.isOperational ? "up" : (link.isAdminUp ? "no-carrier/\(link.operState.rawValue)" : "down")
        let name = link.linkKind.map { "\(link.name) (\($0))" } ?? link.name
        return "  \(String(link.index).padded(to: 4))\(name.padded(to: 22))\(kind.rawValue.padded(to: 10))\(state.padded(to: 22))"
            + addresses.map(\.description).joined(separator: " ")
    }
}

extension String {
    func padded(to width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
