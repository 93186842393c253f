// The modems and bearers ModemManager publishes, kept up to date from its
// ObjectManager (GetManagedObjects, InterfacesAdded, InterfacesRemoved) and
// PropertiesChanged; only the properties an answer or `reach modems` uses are
// read, each with the type ModemManager's introspection data gives it.

internal import CReachabilitySDBus
import ReachabilityCore
#if canImport(Glibc)
internal import Glibc
#endif

/// The interfaces of ModemManager's objects the table reads.
enum ModemInterface {
    case modem, modem3gpp, bearer, other

    static let modemName: StaticString = "org.freedesktop.ModemManager1.Modem"
    static let modem3gppName: StaticString = "org.freedesktop.ModemManager1.Modem.Modem3gpp"
    static let bearerName: StaticString = "org.freedesktop.ModemManager1.Bearer"

    /// The interface a message names (compared where it lies, with literals: no copy).
    init(_ name: UnsafePointer<CChar>) {
        if equal(name, Self.modemName) { self = .modem }
        else if equal(name, Self.modem3gppName) { self = .modem3gpp }
        else if equal(name, Self.bearerName) { self = .bearer }
        else { self = .other }
    }
}

/// Whether a C string of a message is `literal`: compared in place (passing a
/// `String` where C wants a pointer may copy it into an array).
func equal(_ text: UnsafePointer<CChar>, _ literal: StaticString) -> Bool {
    strcmp(text, UnsafeRawPointer(literal.utf8Start).assumingMemoryBound(to: CChar.self)) == 0
}

/// The properties the table reads, by their D-Bus names.
enum ModemProperty {
    case accessTechnologies, state, signalQuality, ports, bearers, primaryPort, manufacturer, model
    case registrationState, operatorName, operatorCode
    case interface, connected

    /// The property a message names (compared where it lies: no copy); nil for one not read.
    init?(_ name: UnsafePointer<CChar>) {
        for property in Self.all where equal(name, property.literal) {
            self = property
            return
        }
        return nil
    }

    static let all: [ModemProperty] = [.accessTechnologies, .state, .signalQuality, .ports, .bearers, .primaryPort, .manufacturer,
                                       .model, .registrationState, .operatorName, .operatorCode, .interface, .connected]

    /// ModemManager's name (a literal: comparing with it copies nothing).
    var literal: StaticString {
        switch self {
        case .accessTechnologies: return "AccessTechnologies"
        case .state: return "State"
        case .signalQuality: return "SignalQuality"
        case .ports: return "Ports"
        case .bearers: return "Bearers"
        case .primaryPort: return "PrimaryPort"
        case .manufacturer: return "Manufacturer"
        case .model: return "Model"
        case .registrationState: return "RegistrationState"
        case .operatorName: return "OperatorName"
        case .operatorCode: return "OperatorCode"
        case .interface: return "Interface"
        case .connected: return "Connected"
        }
    }
}

/// The modems and bearers, and a revision that moves with every change of
/// them. A message that changes nothing (a property sent again with its
/// value) allocates nothing: names are compared where sd-bus holds them,
/// values read into the entry they would replace, which is written back
/// only when it differs.
struct ModemTable {
    private(set) var modems: [String: Modem] = [:]
    private(set) var bearers: [String: ModemBearer] = [:]
    /// Bumped by every change of `modems` or `bearers`.
    private(set) var revision: UInt64 = 0
    /// Properties dropped (wrong type, unknown values), and the last reason.
    private(set) var dropped: UInt64 = 0
    private(set) var lastDrop: ModemPropertyError?

    mutating func removeAll() {
        guard !modems.isEmpty || !bearers.isEmpty else { return }
        modems = [:]
        bearers = [:]
        revision &+= 1
    }

    /// Bearers a modem lists that no message has described yet (their
    /// properties are asked for: ModemManager's ObjectManager holds modems only).
    var unknownBearers: [String] {
        modems.values.flatMap(\.bearers).filter { bearers[$0] == nil }
    }

    /// Whether there is one (without building the list).
    var hasUnknownBearers: Bool {
        for modem in modems.values {
            for path in modem.bearers where bearers[path] == nil { return true }
        }
        return false
    }

    /// An `a{sa{sv}}` of `path` (GetManagedObjects' value, InterfacesAdded).
    mutating func addInterfaces(of path: String, from reader: BusReader) throws(ModemPropertyError) {
        try reader.forEachEntry("{sa{sv}}") { (interface: UnsafePointer<CChar>) throws(ModemPropertyError) in
            try readProperties(of: path, interface: ModemInterface(interface), from: reader)
        }
    }

    /// The key of the object at `path` (a C string of the message): the
    /// table's own when it knows the object, so that a known one costs no copy.
    func key(_ path: UnsafePointer<CChar>) -> String {
        for key in modems.keys where key.withCString({ strcmp($0, path) == 0 }) { return key }
        for key in bearers.keys where key.withCString({ strcmp($0, path) == 0 }) { return key }
        return String(cString: path)
    }

    /// An `a{sv}` of `interface` on `path` (PropertiesChanged, GetAll).
    mutating func readProperties(of path: String, interface: ModemInterface, from reader: BusReader) throws(ModemPropertyError) {
        switch interface {
        case .modem, .modem3gpp:
            let modem = try readEntries(into: modems[path] ?? Modem(path: path), from: reader, Self.read)
            if modem != modems[path] {
                modems[path] = modem
                revision &+= 1
            }
        case .bearer:
            let bearer = try readEntries(into: bearers[path] ?? ModemBearer(path: path), from: reader, Self.read)
            if bearer != bearers[path] {
                bearers[path] = bearer
                revision &+= 1
            }
        case .other:
            try reader.skip()
        }
    }

    /// `interfaces` of `path` went away (InterfacesRemoved): the modem (or
    /// bearer) with its Modem (Bearer) interface.
    mutating func removeInterfaces(_ interfaces: [ModemInterface], of path: String) {
        if interfaces.contains(.modem), modems.removeValue(forKey: path) != nil { revision &+= 1 }
        if interfaces.contains(.modem3gpp), var modem = modems[path] {
            modem.registration = nil
            modem.operatorName = nil
            modem.operatorCode = nil
            if modem != modems[path] {
                modems[path] = modem
                revision &+= 1
            }
        }
        if interfaces.contains(.bearer), bearers.removeValue(forKey: path) != nil { revision &+= 1 }
    }

    /// Each property of an `a{sv}` that `read` knows, read into `value`; the others skipped.
    private mutating func readEntries<Value>(into value: Value, from reader: BusReader,
                                             _ read: (ModemProperty, inout Value, BusReader) throws(ModemPropertyError) -> Void)
        throws(ModemPropertyError) -> Value {
        var value = value
        try reader.forEachEntry("{sv}") { (name: UnsafePointer<CChar>) throws(ModemPropertyError) in
            guard let property = ModemProperty(name) else { return try reader.skip() }
            record { () throws(ModemPropertyError) in try read(property, &value, reader) }
        }
        return value
    }

    private mutating func record(_ read: () throws(ModemPropertyError) -> Void) {
        do { try read() } catch { noteDrop(error) }
    }

    /// A value (or the rest of a message) dropped: counted, and kept as the last reason.
    mutating func noteDrop(_ error: ModemPropertyError) {
        dropped &+= 1
        lastDrop = error
    }

    private static func read(_ property: ModemProperty, into modem: inout Modem, from reader: BusReader) throws(ModemPropertyError) {
        let name = property.literal
        switch property {
        case .accessTechnologies:
            let bits = try reader.variant(name, "u") { () throws(ModemPropertyError) in try reader.uint32() }
            let technologies = ModemAccessTechnologies(rawValue: bits)
            guard ModemAccessTechnologies.known.isSuperset(of: technologies) else { throw .unknownAccessTechnologies(bits) }
            modem.accessTechnologies = technologies
        case .state:
            let value = try reader.variant(name, "i") { () throws(ModemPropertyError) in try reader.int32() }
            guard let state = ModemState(rawValue: value) else { throw .unknownState(value) }
            modem.state = state
        case .signalQuality:
            let (percent, recent) = try reader.variant(name, "(ub)") { () throws(ModemPropertyError) in
                try reader.enter("r", "ub")
                let value = (try reader.uint32(), try reader.bool())
                try reader.exit()
                return value
            }
            guard percent <= 100 else { throw .signalQualityOutOfRange(percent) }
            modem.signalQuality = percent
            modem.signalIsRecent = recent
        case .ports:
            try reader.variant(name, "a(su)") { () throws(ModemPropertyError) in
                try reader.readArray(into: &modem.ports, "(su)") { () throws(ModemPropertyError) in
                    try reader.enter("r", "su")
                    let port = (try reader.cString(), try reader.uint32())
                    try reader.exit()
                    return port
                } same: { port, read in port.type == read.1 && port.name.withCString { strcmp($0, read.0) == 0 } }
                  make: { read in ModemPort(name: String(cString: read.0), type: read.1) }
            }
        case .bearers:
            try reader.variant(name, "ao") { () throws(ModemPropertyError) in
                try reader.readArray(into: &modem.bearers, "o") { () throws(ModemPropertyError) in try reader.cString("o") }
                    same: { path, read in path.withCString { strcmp($0, read) == 0 } }
                    make: { read in String(cString: read) }
            }
        case .primaryPort: try reader.readText(name, into: &modem.primaryPort)
        case .manufacturer: try reader.readText(name, into: &modem.manufacturer)
        case .model: try reader.readText(name, into: &modem.model)
        case .registrationState:
            let value = try reader.variant(name, "u") { () throws(ModemPropertyError) in try reader.uint32() }
            guard let registration = RegistrationState(rawValue: value) else { throw .unknownRegistration(value) }
            modem.registration = registration
        case .operatorName: try reader.readText(name, into: &modem.operatorName)
        case .operatorCode: try reader.readText(name, into: &modem.operatorCode)
        case .interface, .connected: try reader.skip()   // a bearer's
        }
    }

    private static func read(_ property: ModemProperty, into bearer: inout ModemBearer, from reader: BusReader) throws(ModemPropertyError) {
        switch property {
        case .interface: try reader.readText(property.literal, into: &bearer.interface)
        case .connected: bearer.isConnected = try reader.variant(property.literal, "b") { () throws(ModemPropertyError) in try reader.bool() }
        default: try reader.skip()
        }
    }

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
