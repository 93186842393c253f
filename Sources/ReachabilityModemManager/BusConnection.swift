// One sd-bus connection of the radio's thread: opened, watched for
// ModemManager's signals, asked for the modems, closed. Only the radio's
// thread touches it (sd-bus objects belong to one thread).

internal import CReachabilitySDBus
import ReachabilityCore
#if canImport(Glibc)
internal import Glibc
#endif

private let service = "org.freedesktop.ModemManager1"
private let managerPath = "/org/freedesktop/ModemManager1"
private let objectManager = "org.freedesktop.DBus.ObjectManager"
private let properties = "org.freedesktop.DBus.Properties"

final class BusConnection {
    private var bus: OpaquePointer?
    private unowned let radio: ModemManagerRadio
    private var slots: [OpaquePointer?] = []
    /// The unique name (`:1.42`) of the connection that owns ModemManager's
    /// name now, nil when none does. Only its signals are believed: a match
    /// rule's `sender='org.freedesktop.ModemManager1'` keeps other senders'
    /// broadcasts out, but sd-bus cannot tell who owns a well-known name, so
    /// a signal sent straight to this connection passes it from anyone (the
    /// system bus's policy lets any user send a signal to anyone).
    private var owner: String?

    private init(bus: OpaquePointer, radio: ModemManagerRadio) {
        self.bus = bus
        self.radio = radio
    }

    deinit { close() }

    /// Connects to the bus at `address` (nil: the system bus) and subscribes
    /// to ModemManager's signals; the errno on failure.
    static func open(address: String?, radio: ModemManagerRadio) -> Result<BusConnection, Errno> {
        var bus: OpaquePointer?
        var rc: Int32
        if let address {
            rc = sd_bus_new(&bus)
            if rc >= 0 { rc = address.withCString { sd_bus_set_address(bus, $0) } }
            if rc >= 0 { rc = sd_bus_set_bus_client(bus, 1) }
            if rc >= 0 { rc = sd_bus_start(bus) }
        } else {
            rc = sd_bus_open_system(&bus)
        }
        guard rc >= 0, let bus else {
            if let bus { sd_bus_close_unref(bus) }
            return .failure(Errno(-rc))
        }
        let connection = BusConnection(bus: bus, radio: radio)
        let rules = [
            // Every signal of ModemManager: ObjectManager's and PropertiesChanged.
            "type='signal',sender='\(service)'",
            // The service appearing and going (no polling, no auto-start).
            "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',interface='org.freedesktop.DBus',"
                + "member='NameOwnerChanged',arg0='\(service)'",
        ]
        for (rule, handler) in zip(rules, [busSignal, busOwnerSignal]) {
            var slot: OpaquePointer?
            let added = rule.withCString {
                sd_bus_add_match(bus, &slot, $0, handler, Unmanaged.passUnretained(connection).toOpaque())
            }
            guard added >= 0 else {
                connection.close()
                return .failure(Errno(-added))
            }
            connection.slots.append(slot)
        }
        return .success(connection)
    }

    var fd: Int32 { sd_bus_get_fd(bus) }
    var events: Int16 { Int16(truncatingIfNeeded: max(sd_bus_get_events(bus), 0)) }

    /// sd-bus's own deadline (a call's timeout), in poll(2) milliseconds.
    func timeoutMilliseconds(now: UInt64) -> Int32 {
        var usec: UInt64 = 0
        guard sd_bus_get_timeout(bus, &usec) >= 0, usec != UInt64.max else { return -1 }
        let nowMicroseconds = now / 1000
        return usec <= nowMicroseconds ? 0 : Int32(clamping: (usec - nowMicroseconds) / 1000 + 1)
    }

    /// Handles what arrived; false when the connection is lost.
    func process() -> Bool {
        while true {
            let rc = sd_bus_process(bus, nil)
            if rc < 0 { return false }
            if rc == 0 { return sd_bus_is_open(bus) > 0 }
        }
    }

    func close() {
        for slot in slots { sd_bus_slot_unref(slot) }
        slots = []
        if let bus { sd_bus_flush_close_unref(bus) }
        bus = nil
    }

    // MARK: Reading

    /// What a call sent and not answered yet asks (its reply goes to `handleReply`).
    private enum Question {
        /// GetNameOwner of ModemManager's name.
        case owner
        /// GetManagedObjects: every modem.
        case modems
        /// GetAll of the bearer at this path.
        case bearer(String)
    }

    /// The calls waiting for their replies, by cookie. Every call is sent
    /// without waiting (`sd_bus_call_async`): the thread goes on with the
    /// signals and `stop()`, whatever ModemManager takes to answer (a hung
    /// daemon, or many bearers), and a reply that no longer matters (the
    /// owner changed) finds no entry here and is dropped.
    private var pending: [UInt64: Question] = [:]

    /// Reads every modem (GetNameOwner, then GetManagedObjects) when
    /// ModemManager owns its name; else the radio waits for NameOwnerChanged.
    /// The replies come to `handleReply`.
    func readModems() {
        // An older reading's replies are not waited for: this one's answer is newer.
        pending = pending.filter { if case .bearer = $0.value { return true } else { return false } }
        send(.owner, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner", argument: service)
    }

    /// The bearers modems list that no message described and no call asks
    /// for yet: GetAll on each.
    private func readUnknownBearers() {
        let unknown = radio.withTable { $0.unknownBearers }
        for path in unknown where !pending.values.contains(where: { if case .bearer(path) = $0 { return true } else { return false } }) {
            send(.bearer(path), service, path, properties, "GetAll", argument: ModemInterface.bearerName.description)
        }
    }

    /// Sends a method call with at most one string argument, never starting
    /// a service, and notes what it asks; a reading that cannot be sent makes
    /// the facts unavailable (a bearer's is asked again after the next signal).
    private func send(_ question: Question, _ destination: String, _ path: String, _ interface: String, _ member: String,
                      argument: String? = nil) {
        var message: OpaquePointer?
        var rc = sd_bus_message_new_method_call(bus, &message, destination, path, interface, member)
        if rc >= 0, let message {
            sd_bus_message_set_auto_start(message, 0)
            if let argument { rc = argument.withCString { sd_bus_message_append_basic(message, CChar(UInt8(ascii: "s")), $0) } }
            // A floating slot: sd-bus frees it with the reply, the timeout or the bus.
            if rc >= 0 { rc = sd_bus_call_async(bus, nil, message, busReply, Unmanaged.passUnretained(self).toOpaque(), radio.callTimeout.clampedNanoseconds / 1000) }
            var cookie: UInt64 = 0
            if rc >= 0 { rc = sd_bus_message_get_cookie(message, &cookie) }
            sd_bus_message_unref(message)
            if rc >= 0 {
                pending[cookie] = question
                return
            }
        }
        if case .bearer = question { return }
        if case .owner = question { owner = nil }
        radio.becomeUnavailable(.failed(name: "\(member) not sent", message: String(cString: strerror(-rc))))
    }

    /// A reply, an error or a timeout of a call `send` made.
    fileprivate func handleReply(_ reply: OpaquePointer) {
        var cookie: UInt64 = 0
        guard sd_bus_message_get_reply_cookie(reply, &cookie) >= 0, let question = pending.removeValue(forKey: cookie) else { return }
        if let error = sd_bus_message_get_error(reply) {
            switch question {
            case .owner:
                owner = nil
                radio.becomeUnavailable(Self.reason(error.pointee))
            case .modems:
                radio.becomeUnavailable(Self.reason(error.pointee))
            case .bearer:
                break   // asked again after the next signal
            }
            return
        }
        let reader = BusReader(message: reply)
        switch question {
        case .owner:
            guard let name = try? reader.string(), !name.isEmpty else {
                owner = nil
                radio.becomeUnavailable(.failed(name: "org.freedesktop.DBus.GetNameOwner", message: "the reply holds no unique name"))
                return
            }
            owner = name
            send(.modems, service, managerPath, objectManager, "GetManagedObjects")
        case .modems:
            radio.update { state in
                state.table.removeAll()
                do throws(ModemPropertyError) {
                    try reader.forEachEntry("{oa{sa{sv}}}") { (path: UnsafePointer<CChar>) throws(ModemPropertyError) in
                        try state.table.addInterfaces(of: String(cString: path), from: reader)
                    }
                } catch {
                    state.table.noteDrop(error)
                }
                state.counters.reads += 1
                state.availability = .available
            }
            readUnknownBearers()
        case let .bearer(path):
            radio.update { state in
                do throws(ModemPropertyError) { try state.table.readProperties(of: path, interface: .bearer, from: reader) } catch {
                    state.table.noteDrop(error)
                }
            }
        }
    }

    private static func reason(_ error: sd_bus_error) -> ModemManagerUnavailable {
        let name = error.name.map { String(cString: $0) } ?? "unknown"
        let message = error.message.map { String(cString: $0) } ?? ""
        switch name {
        case "org.freedesktop.DBus.Error.NameHasNoOwner", "org.freedesktop.DBus.Error.ServiceUnknown":
            return .serviceAbsent
        case "org.freedesktop.DBus.Error.AccessDenied": return .accessDenied(message)
        default: return .failed(name: name, message: message)
        }
    }

    // MARK: Signals

    /// NameOwnerChanged of ModemManager's name (the second rule).
    fileprivate func handleOwnerChange(_ message: OpaquePointer) {
        // The sender as the bus daemon stamped it (a client cannot choose it):
        // only the daemon itself tells who owns a name.
        guard let sender = sd_bus_message_get_sender(message), strcmp(sender, "org.freedesktop.DBus") == 0 else {
            radio.noteSpoofed(sender: sd_bus_message_get_sender(message).map { String(cString: $0) } ?? "")
            return
        }
        // (name, old owner, new owner): a new owner reads the modems; none, they are gone.
        let reader = BusReader(message: message)
        guard let (name, newOwner) = try? { () throws(ModemPropertyError) -> (String, String) in
            let name = try reader.string()
            _ = try reader.string()
            return (name, try reader.string())
        }(), name == service else { return }
        // Replies to calls the previous owner was asked are not for this one.
        pending = [:]
        if newOwner.isEmpty {
            owner = nil
            radio.becomeUnavailable(.serviceAbsent)
        } else {
            owner = newOwner
            readModems()
        }
    }

    /// ModemManager's signals (the first rule).
    fileprivate func handle(_ message: OpaquePointer) {
        // A NameOwnerChanged sent straight here by a client passes this rule
        // too (see `owner`): it is the second rule's, counted there once.
        if sd_bus_message_is_signal(message, "org.freedesktop.DBus", "NameOwnerChanged") > 0 { return }
        let reader = BusReader(message: message)
        guard let sender = sd_bus_message_get_sender(message) else {
            radio.noteSpoofed(sender: "")
            return
        }
        // Before the owner is known nothing is read (the modems are read whole
        // once it is); after, only the owner's signals are.
        guard let owner else { return }
        guard owner.withCString({ strcmp($0, sender) == 0 }) else {
            radio.noteSpoofed(sender: String(cString: sender))
            return
        }
        var needsBearers = false
        radio.update { state in
            do throws(ModemPropertyError) {
                // Literals, not the constants: a String constant passed as a C
                // string is copied for the call (an allocation per message).
                if sd_bus_message_is_signal(message, "org.freedesktop.DBus.ObjectManager", "InterfacesAdded") > 0 {
                    let object = try reader.string("o")
                    try state.table.addInterfaces(of: object, from: reader)
                } else if sd_bus_message_is_signal(message, "org.freedesktop.DBus.ObjectManager", "InterfacesRemoved") > 0 {
                    let object = try reader.string("o")
                    var interfaces: [ModemInterface] = []
                    try reader.forEach(inArray: "s") { () throws(ModemPropertyError) in interfaces.append(ModemInterface(try reader.cString())) }
                    state.table.removeInterfaces(interfaces, of: object)
                } else if sd_bus_message_is_signal(message, "org.freedesktop.DBus.Properties", "PropertiesChanged") > 0,
                          let path = sd_bus_message_get_path(message) {
                    // The steady state: no copy of the path or the interface's name.
                    let interface = ModemInterface(try reader.cString())
                    try state.table.readProperties(of: state.table.key(path), interface: interface, from: reader)
                }
            } catch {
                state.table.noteDrop(error)
            }
            needsBearers = state.table.hasUnknownBearers
        }
        if needsBearers { readUnknownBearers() }
    }
}

/// sd-bus's callbacks for the matches: the connection is the userdata.
private let busSignal: sd_bus_message_handler_t = { message, userdata, _ in
    guard let message, let userdata else { return 0 }
    Unmanaged<BusConnection>.fromOpaque(userdata).takeUnretainedValue().handle(message)
    return 0
}

/// sd-bus's callback for the replies of `send`'s calls.
private let busReply: sd_bus_message_handler_t = { message, userdata, _ in
    guard let message, let userdata else { return 0 }
    Unmanaged<BusConnection>.fromOpaque(userdata).takeUnretainedValue().handleReply(message)
    return 0
}

private let busOwnerSignal: sd_bus_message_handler_t = { message, userdata, _ in
    guard let message, let userdata else { return 0 }
    Unmanaged<BusConnection>.fromOpaque(userdata).takeUnretainedValue().handleOwnerChange(message)
    return 0
}

/// An errno value from sd-bus's negative returns.
struct Errno: Error {
    let rawValue: Int32
    init(_ rawValue: Int32) { self.rawValue = rawValue }
}
