import ArgumentParser
import LinuxReachability
import ReachabilityModemManager

/// `reach modems`: the modems ModemManager publishes on the system bus, with
/// the interfaces each owns and its radio facts.
struct Modems: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the modems ModemManager sees: their interfaces, technology, registration and signal.",
        discussion: """
            Reads org.freedesktop.ModemManager1 on the system bus (DBUS_SYSTEM_BUS_ADDRESS, \
            else the standard socket); it never starts the service. Exit status: 0 when \
            ModemManager answered (with or without modems), 1 when it is unavailable (no \
            bus, not running, refused by the bus policy), with the reason.
            """
    )

    @Flag(help: "One JSON object.")
    var json = false

    @Option(help: ArgumentHelp("Seconds to wait for ModemManager's answer (default 5).", valueName: "seconds"))
    var timeout: Double = 5

    func validate() throws {
        guard timeout.isFinite, timeout > 0, timeout <= 3600 else { throw ValidationError("--timeout must be more than 0 and at most 3600 seconds") }
    }

    func run() throws {
        let radio = ModemManagerRadio.shared
        try radio.follow(into: RadioSource())
        _ = radio.waitForFirstAnswer(timeout: .milliseconds(Int64((timeout * 1000).rounded(.up))))
        let availability = radio.availability
        let modems = radio.modems
        if json {
            var object = JSONObject()
            object.field("availability", availability.name)
            object.field("reason", availability.reason)
            object.field("modems", objects: modems) { modem, fields in modem.writeJSON(to: &fields, interfaces: radio.interfaces(of: modem)) }
            object.field("dropped", radio.counters.dropped)
            writeLine(object.closed())
        } else {
            printLine("ModemManager: \(availability)")
            for modem in modems { printLine(modem.humanLine(interfaces: radio.interfaces(of: modem))) }
        }
        radio.stop()
        if case .unavailable = availability { throw ExitCode(1) }
    }
}

extension ModemManagerAvailability {
    var reason: String? {
        if case let .unavailable(reason) = self { return reason.description }
        return nil
    }
}

extension Modem {
    func writeJSON(to object: inout JSONObject, interfaces: [String]) {
        object.field("path", path)
        object.field("manufacturer", manufacturer)
        object.field("model", model)
        object.field("state", state?.name)
        object.field("interfaces", strings: interfaces)
        object.field("accessTechnologies", strings: accessTechnologies.names)
        object.field("technology", radioTechnology?.rawValue)
        object.field("generation", radioTechnology.map { "\($0.generation.rawValue)G" })
        object.field("registration", registration?.name)
        object.field("roaming", registration?.isRoaming)
        object.field("signalQuality", signalQuality)
        object.field("operatorName", operatorName)
        object.field("operatorCode", operatorCode)
        object.field("ports", strings: ports.map { "\($0.name) (\($0.typeName))" })
    }

    /// `/org/freedesktop/ModemManager1/Modem/0  wwan0  lte (4G)  registered  home  Acme 26201  signal 72%`
    func humanLine(interfaces: [String]) -> String {
        var parts = [path, interfaces.isEmpty ? "-" : interfaces.joinedText(separator: ",")]
        parts.append(radioTechnology.map { "\($0.rawValue) (\($0.generation.rawValue)G)" } ?? "no technology")
        parts.append(state?.name ?? "state unknown")
        if let registration { parts.append(registration.name) }
        let network = [operatorName, operatorCode].compactMap { $0 }.joinedText(separator: " ")
        if !network.isEmpty { parts.append(network) }
        if let signalQuality { parts.append("signal \(signalQuality)%") }
        return "  " + parts.joinedText(separator: "  ")
    }
}
