import LinuxReachability
import ReachabilityModemManager

// How evaluations are shown: one JSON object per target (README, "JSON
// output"), or one human line per target and per address.

/// The fields of one address answer. A host name that did not resolve has no
/// answer, and gets the same keys with empty values, so every object printed
/// by `check` has one schema. `reachable` and `error` stand in for the
/// answer's own (a target's object says whether the target is reachable, and
/// why its name did not resolve).
func writeFields(of answer: AddressEvaluation?, to object: inout JSONObject,
                 reachable: Bool? = nil, error: String?? = nil) {
    let flags = answer?.flags ?? []
    let status = answer?.status ?? .notReachable
    let route = answer?.route
    let mask = answer?.mask ?? .unavailable
    let link = answer?.link
    object.field("address", answer?.address.description)
    object.field("family", answer?.address.family.rawValue)
    object.field("reachable", reachable ?? status.isReachable)
    object.field("status", status.description)
    object.field("networkStatus", NetworkStatus(flags: flags).rawValue)
    object.field("pathStatus", (answer?.pathStatus ?? .unsatisfied).rawValue)
    object.field("accessibility", (answer?.accessibility ?? .noNetwork).description)
    object.field("mask", mask.description)
    object.field("maskBits", mask.rawValue)
    object.field("isExpensive", answer?.isExpensive ?? false)
    object.field("isConstrained", answer?.isConstrained ?? false)
    object.field("unsatisfiedReason", answer == nil ? UnsatisfiedReason.notAvailable.rawValue : answer?.unsatisfiedReason?.rawValue)
    object.field("flags", flags.rawValue)
    object.field("flagNames", strings: flags.names)
    object.field("flagString", flags.description)
    object.field("interface", link?.name)
    object.field("interfaceIndex", route?.interfaceIndex)
    object.field("interfaceKind", answer?.interfaceKind?.rawValue)
    object.field("linkKind", link?.linkKind)
    object.field("operState", link?.operState.rawValue)
    object.field("gateway", route?.gateway?.description)
    object.field("source", route?.preferredSource?.description)
    object.field("route", route?.verdict.rawValue ?? "unresolved")
    object.field("table", route.flatMap { $0.errno == nil || $0.verdict == .throw ? $0.table : nil })
    object.field("error", error ?? route?.errno?.description)
    object.field("radio", object: PathRadio(of: answer).map { radio in { radio.writeJSON(to: &$0) } })
}

/// Where `reach` reads radio facts for its output: the radio source its
/// evaluator uses, and ModemManager when `--radio modemmanager` follows it.
/// Set once, before the first answer.
enum OutputRadio {
    nonisolated(unsafe) static var source = RadioSource.processDefault
    nonisolated(unsafe) static var modemManager: ModemManagerRadio?
}

/// The radio of a WWAN path: the technology behind its link and whose word
/// it is, and the registration, operator and signal of the modem that owns
/// the link (ModemManager's). Nil for a path that is not WWAN, or a WWAN
/// link of which nothing is known.
struct PathRadio {
    var technology: RadioTechnology?
    var origin: RadioSource.Origin?
    var modem: Modem?

    init?(of answer: AddressEvaluation?) {
        guard let answer, answer.interfaceKind == .wwan, let name = answer.link?.name else { return nil }
        technology = OutputRadio.source.technology(for: name)
        origin = OutputRadio.source.origin(for: name)
        modem = OutputRadio.modemManager.flatMap { radio in radio.modems.first { radio.interfaces(of: $0).contains(name) } }
        guard technology != nil || modem != nil else { return nil }
    }

    var originName: String? {
        switch origin {
        case .application?: return "application"
        case let .modem(provider)?: return provider
        case nil: return nil
        }
    }

    func writeJSON(to object: inout JSONObject) {
        object.field("technology", technology?.rawValue)
        object.field("generation", technology.map { "\($0.generation.rawValue)G" })
        object.field("origin", originName)
        object.field("modem", modem?.path)
        object.field("registration", modem?.registration?.name)
        object.field("roaming", modem?.registration?.isRoaming)
        object.field("operatorName", modem?.operatorName)
        object.field("operatorCode", modem?.operatorCode)
        object.field("signalQuality", modem?.signalQuality)
    }

    /// `radio lte (4G) roaming`
    var humanText: String {
        var parts = ["radio", technology.map { "\($0.rawValue) (\($0.generation.rawValue)G)" } ?? "no technology"]
        if let registration = modem?.registration { parts.append(registration.name) }
        return parts.joinedText(separator: " ")
    }
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
        if let radio = PathRadio(of: self) { parts.append(radio.humanText) }
        return parts.joinedText(separator: "  ")
    }
}

extension TargetEvaluation {
    /// One JSON object: the primary address's fields, plus `addresses` for a
    /// host name or the internet, and `error` when a name did not resolve.
    var json: JSON { .rendered(writeJSON(to: JSONObject()).bytes) }

    /// The object's fields written to `object` (`ReachabilityChange` adds its own), then closed.
    func writeJSON(to object: consuming JSONObject, adding more: (inout JSONObject) -> Void = { _ in }) -> JSONText {
        object.field("target", target.description)
        writeFields(of: primary, to: &object, reachable: isReachable,
                    error: primary == nil ? .some(error?.description) : nil)
        object.field("supportsIPv4", supportsIPv4)
        object.field("supportsIPv6", supportsIPv6)
        object.field("supportsDNS", supportsDNS)
        object.field("gateways", strings: gateways.lazy.map(\.description))
        object.field("availableInterfaces", strings: availableInterfaces.lazy.map(\.name))
        object.field("probe", validation.map(\.validationJSON) ?? .null)
        if case .address = target {} else {
            object.field("addresses", objects: addresses) { answer, fields in writeFields(of: answer, to: &fields) }
        }
        more(&object)
        return object.closed()
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
            + addresses.map(\.description).joinedText(separator: " ")
    }
}

extension [String] {
    /// `joined(separator:)`, which is generic over the collection: its first
    /// call looks a conformance up at run time, a scan of every conformance
    /// in the program (the argument parser's and Foundation's too), paid by
    /// `reach check`'s start-up.
    func joinedText(separator: String) -> String {
        var text = ""
        for (index, part) in enumerated() {
            if index > 0 { text += separator }
            text += part
        }
        return text
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
            ("uplink_verdict", .optional(uplinkVerdict?.rawValue)),
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
