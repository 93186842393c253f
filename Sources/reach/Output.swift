import Reachability

// How evaluations are shown: one JSON object per target (README, "JSON
// output"), or one human line per target and per address.

/// The fields of one address answer. A host name that did not resolve has no
/// answer, and gets the same keys with empty values, so every object printed
/// by `check` has one schema.
func jsonFields(of answer: AddressEvaluation?) -> [(String, JSON)] {
    let flags = answer?.flags ?? []
    let status = answer?.status ?? .notReachable
    let route = answer?.route
    return [
        ("address", .optional(answer?.address.description)),
        ("family", .optional(answer?.address.family.rawValue)),
        ("reachable", .bool(status.isReachable)),
        ("status", .string(status.description)),
        ("networkStatus", .string(NetworkStatus(flags: flags).rawValue)),
        ("pathStatus", .string((answer?.pathStatus ?? .unsatisfied).rawValue)),
        ("accessibility", .string((answer?.accessibility ?? .noNetwork).description)),
        ("mask", .string((answer?.mask ?? .unavailable).description)),
        ("maskBits", .int(Int64((answer?.mask ?? .unavailable).rawValue))),
        ("isExpensive", .bool(answer?.isExpensive ?? false)),
        ("isConstrained", .bool(answer?.isConstrained ?? false)),
        ("unsatisfiedReason", .optional(answer == nil ? UnsatisfiedReason.notAvailable.rawValue : answer?.unsatisfiedReason?.rawValue)),
        ("flags", .int(Int64(flags.rawValue))),
        ("flagNames", .array(flags.names.map(JSON.string))),
        ("flagString", .string(flags.description)),
        ("interface", .optional(answer?.link?.name)),
        ("interfaceIndex", route?.interfaceIndex.map { .int(Int64($0)) } ?? .null),
        ("interfaceKind", .optional(answer?.interfaceKind?.rawValue)),
        ("linkKind", .optional(answer?.link?.linkKind)),
        ("operState", .optional(answer?.link?.operState.rawValue)),
        ("gateway", .optional(route?.gateway?.description)),
        ("source", .optional(route?.preferredSource?.description)),
        ("route", .string(route?.verdict.rawValue ?? "unresolved")),
        ("table", route.flatMap { $0.errno == nil || $0.verdict == .throw ? JSON.int(Int64($0.table)) : nil } ?? .null),
        ("error", .optional(route?.errno?.description)),
    ]
}

extension AddressEvaluation {
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
        if let errno = route.errno { parts.append("(\(errno))") }
        if route.errno == nil || route.verdict == .throw { parts.append("table \(route.table)") }
        if accessibility != .accessible && accessibility != .noNetwork { parts.append(accessibility.description) }
        return parts.joined(separator: "  ")
    }
}

extension TargetEvaluation {
    /// One JSON object: the primary address's fields, plus `addresses` for a
    /// host name or the internet, and `error` when a name did not resolve.
    var json: JSON {
        var fields: [(String, JSON)] = [("target", .string(target.description))]
        fields += jsonFields(of: primary).map { key, value in
            switch key {
            case "reachable": return (key, .bool(isReachable))
            case "error" where primary == nil: return (key, .optional(error?.description))
            default: return (key, value)
            }
        }
        fields += [
            ("supportsIPv4", .bool(supportsIPv4)),
            ("supportsIPv6", .bool(supportsIPv6)),
            ("supportsDNS", supportsDNS.map(JSON.bool) ?? .null),
            ("gateways", .array(gateways.map { .string($0.description) })),
            ("availableInterfaces", .array(availableInterfaces.map { .string($0.name) })),
            ("probe", validation.map(\.validationJSON) ?? .null),
        ]
        if case .address = target {} else {
            fields.append(("addresses", .array(addresses.map { .object(jsonFields(of: $0)) })))
        }
        return .object(fields)
    }

    var humanLines: [String] {
        switch target {
        case .address:
            return ["\(target)  \(primary?.humanLine ?? "")" + (validation.map { "  probe \($0.validationSummary)" } ?? "")]
        case .host, .internet:
            var lines = ["\(target)  \(status)"]
            if let error { lines[0] += "  (\(error))" }
            if let validation { lines[0] += "  \(accessibility)  probe \(validation.validationSummary)" }
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

extension ProbeResult {
    /// The `probe` field of a validated target (README, "JSON output").
    var validationJSON: JSON {
        .object([
            ("method", .string(method.description)),
            ("address", .string(address.description)),
            ("verdict", .string(verdict.rawValue)),
            ("outcome", .string(outcome.description)),
            ("rtt_ns", roundTrip.map { .int(Int64(clamping: $0.nanosecondsValue)) } ?? .null),
            ("httpStatus", httpStatus.map { .int(Int64($0)) } ?? .null),
            ("location", .optional(location)),
        ])
    }

    /// `http:/generate_204 captivePortal (302)`
    var validationSummary: String {
        "\(method) \(verdict.rawValue)" + (httpStatus.map { " (\($0))" } ?? "")
    }
}
