// The modems and bearers ModemManager publishes, kept up to date from its
// ObjectManager (GetManagedObjects, InterfacesAdded, InterfacesRemoved) and
// PropertiesChanged; only the properties an answer or `reach modems` uses are
// read, each with the type ModemManager's introspection data gives it.

internal import CSDBus
import ReachabilityCore

enum ModemInterface {
    static let modem = "org.freedesktop.ModemManager1.Modem"
    static let modem3gpp = "org.freedesktop.ModemManager1.Modem.Modem3gpp"
    static let bearer = "org.freedesktop.ModemManager1.Bearer"
}

struct ModemTable {
    private(set) var modems: [String: Modem] = [:]
    private(set) var bearers: [String: ModemBearer] = [:]
    /// Properties dropped (wrong type, unknown values), and the last reason.
    private(set) var dropped: UInt64 = 0
    private(set) var lastDrop: ModemPropertyError?

    mutating func removeAll() {
        modems = [:]
        bearers = [:]
    }

    /// Bearers a modem lists that no message has described yet (their
    /// properties are asked for: ModemManager's ObjectManager holds modems only).
    var unknownBearers: [String] {
        modems.values.flatMap(\.bearers).filter { bearers[$0] == nil }
    }

    /// An `a{sa{sv}}` of `path` (GetManagedObjects' value, InterfacesAdded).
    mutating func addInterfaces(of path: String, from reader: BusReader) throws(ModemPropertyError) {
        try reader.forEachEntry("{sa{sv}}") { (interface) throws(ModemPropertyError) in
            try readProperties(of: path, interface: interface, from: reader)
        }
    }

    /// An `a{sv}` of `interface` on `path` (PropertiesChanged, GetAll).
    mutating func readProperties(of path: String, interface: String, from reader: BusReader) throws(ModemPropertyError) {
        switch interface {
        case ModemInterface.modem, ModemInterface.modem3gpp:
            var modem = modems[path] ?? Modem(path: path)
            try reader.forEachEntry("{sv}") { (name) throws(ModemPropertyError) in
                record { () throws(ModemPropertyError) in try Self.read(name, into: &modem, from: reader) }
            }
            modems[path] = modem
        case ModemInterface.bearer:
            var bearer = bearers[path] ?? ModemBearer(path: path)
            try reader.forEachEntry("{sv}") { (name) throws(ModemPropertyError) in
                record { () throws(ModemPropertyError) in try Self.read(name, into: &bearer, from: reader) }
            }
            bearers[path] = bearer
        default:
            try reader.skip()
        }
    }

    /// `interfaces` of `path` went away (InterfacesRemoved): the modem (or
    /// bearer) with its Modem (Bearer) interface.
    mutating func removeInterfaces(_ interfaces: [String], of path: String) {
        if interfaces.contains(ModemInterface.modem) { modems[path] = nil }
        if interfaces.contains(ModemInterface.modem3gpp), var modem = modems[path] {
            modem.registration = nil
            modem.operatorName = nil
            modem.operatorCode = nil
            modems[path] = modem
        }
        if interfaces.contains(ModemInterface.bearer) { bearers[path] = nil }
    }

    private mutating func record(_ read: () throws(ModemPropertyError) -> Void) {
        do { try read() } catch { noteDrop(error) }
    }

    /// A value (or the rest of a message) dropped: counted, and kept as the last reason.
    mutating func noteDrop(_ error: ModemPropertyError) {
        dropped &+= 1
        lastDrop = error
    }

    private static func read(_ name: String, into modem: inout Modem, from reader: BusReader) throws(ModemPropertyError) {
        switch name {
        case "AccessTechnologies":
            let bits = try reader.variant(name, "u") { () throws(ModemPropertyError) in try reader.uint32() }
            let technologies = ModemAccessTechnologies(rawValue: bits)
            guard ModemAccessTechnologies.known.isSuperset(of: technologies) else { throw .unknownAccessTechnologies(bits) }
            modem.accessTechnologies = technologies
        case "State":
            let value = try reader.variant(name, "i") { () throws(ModemPropertyError) in try reader.int32() }
            guard let state = ModemState(rawValue: value) else { throw .unknownState(value) }
            modem.state = state
        case "SignalQuality":
            let (percent, recent) = try reader.variant(name, "(ub)") { () throws(ModemPropertyError) in
                try reader.enter("r", "ub")
                let value = (try reader.uint32(), try reader.bool())
                try reader.exit()
                return value
            }
            guard percent <= 100 else { throw .signalQualityOutOfRange(percent) }
            modem.signalQuality = percent
            modem.signalIsRecent = recent
        case "Ports":
            modem.ports = try reader.variant(name, "a(su)") { () throws(ModemPropertyError) in
                var ports: [ModemPort] = []
                try reader.forEach(inArray: "(su)") { () throws(ModemPropertyError) in
                    try reader.enter("r", "su")
                    ports.append(ModemPort(name: try reader.string(), type: try reader.uint32()))
                    try reader.exit()
                }
                return ports
            }
        case "Bearers":
            modem.bearers = try reader.variant(name, "ao") { () throws(ModemPropertyError) in
                var paths: [String] = []
                try reader.forEach(inArray: "o") { () throws(ModemPropertyError) in paths.append(try reader.string("o")) }
                return paths
            }
        case "PrimaryPort": modem.primaryPort = nonEmpty(try reader.variant(name, "s") { () throws(ModemPropertyError) in try reader.string() })
        case "Manufacturer": modem.manufacturer = nonEmpty(try reader.variant(name, "s") { () throws(ModemPropertyError) in try reader.string() })
        case "Model": modem.model = nonEmpty(try reader.variant(name, "s") { () throws(ModemPropertyError) in try reader.string() })
        case "RegistrationState":
            let value = try reader.variant(name, "u") { () throws(ModemPropertyError) in try reader.uint32() }
            guard let registration = RegistrationState(rawValue: value) else { throw .unknownRegistration(value) }
            modem.registration = registration
        case "OperatorName": modem.operatorName = nonEmpty(try reader.variant(name, "s") { () throws(ModemPropertyError) in try reader.string() })
        case "OperatorCode": modem.operatorCode = nonEmpty(try reader.variant(name, "s") { () throws(ModemPropertyError) in try reader.string() })
        default: try reader.skip()
        }
    }

    private static func read(_ name: String, into bearer: inout ModemBearer, from reader: BusReader) throws(ModemPropertyError) {
        switch name {
        case "Interface": bearer.interface = nonEmpty(try reader.variant(name, "s") { () throws(ModemPropertyError) in try reader.string() })
        case "Connected": bearer.isConnected = try reader.variant(name, "b") { () throws(ModemPropertyError) in try reader.bool() }
        default: try reader.skip()
        }
    }

    private static func nonEmpty(_ text: String) -> String? { text.isEmpty ? nil : text }

    /// What the radio source is told: each modem's network ports and its
    /// bearers' interfaces, with the modem's technology.
    func radioFacts() -> RadioSource.ModemFacts {
        var technologies: [String: RadioTechnology] = [:]
        var interfaces: Set<String> = []
        for modem in modems.values {
            for name in self.interfaces(of: modem) {
                interfaces.insert(name)
                if let technology = modem.radioTechnology { technologies[name] = technology }
            }
        }
        return RadioSource.ModemFacts(provider: "ModemManager", technologies: technologies, interfaces: interfaces)
    }

    /// The interfaces `modem` owns (network ports, bearers' interfaces), sorted.
    func interfaces(of modem: Modem) -> [String] {
        Array(Set(modem.ports.filter(\.isNetwork).map(\.name) + modem.bearers.compactMap { bearers[$0]?.interface })).sorted()
    }
}
