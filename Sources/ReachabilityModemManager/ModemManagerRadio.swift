// The radio facts of ModemManager, followed on the system bus: one
// connection and one thread (`reach.modems`) per process, started by the
// first `follow(into:)` and none before. The thread reads the modems through
// ModemManager's ObjectManager and follows its signals (no polling); a bus
// that is absent is tried again every `retryInterval`, a service that is
// absent is waited for (NameOwnerChanged). Every change reaches the radio
// sources it feeds (`RadioSource.setModemFacts`) and the observers.

internal import CReachabilitySDBus
import ReachabilityCore
#if canImport(Glibc)
internal import Glibc
#endif

/// Why ModemManager's facts are not available.
public enum ModemManagerUnavailable: Hashable, Sendable, CustomStringConvertible {
    /// No system bus could be reached (`errno` of the connection).
    case noBus(errno: Int32)
    /// Nobody owns `org.freedesktop.ModemManager1` on the bus (the service is
    /// not running; it is never started by this client).
    case serviceAbsent
    /// The bus policy refused this process (`org.freedesktop.DBus.Error.AccessDenied`).
    case accessDenied(String)
    /// Another D-Bus error answered the question: its name and message.
    case failed(name: String, message: String)

    public var description: String {
        switch self {
        case let .noBus(errno): return "no system bus (\(String(cString: strerror(errno))))"
        case .serviceAbsent: return "ModemManager is not running"
        case let .accessDenied(message): return "access denied by the bus policy: \(message)"
        case let .failed(name, message): return "\(name): \(message)"
        }
    }
}

/// Whether ModemManager's facts are being followed.
public enum ModemManagerAvailability: Hashable, Sendable, CustomStringConvertible {
    /// Nothing follows them (before ``ModemManagerRadio/follow(into:)``, after
    /// ``ModemManagerRadio/stop()``).
    case stopped
    /// The thread is connecting or reading the modems for the first time.
    case starting
    /// The modems are those ModemManager publishes now.
    case available
    /// No facts: why (the radio sources hold none meanwhile).
    case unavailable(ModemManagerUnavailable)

    /// The state's name without its reason: `stopped`, `starting`,
    /// `available`, `unavailable` (`reach modems --json`, the exporter's `state` label).
    public var name: String {
        switch self {
        case .stopped: return "stopped"
        case .starting: return "starting"
        case .available: return "available"
        case .unavailable: return "unavailable"
        }
    }

    public var description: String {
        if case let .unavailable(reason) = self { return "unavailable: \(reason)" }
        return name
    }
}

/// ModemManager's modems, followed on the system bus, as radio facts for
/// `RadioSource`s: the technology behind each interface a modem owns, and the
/// interfaces themselves (WWAN whatever their driver). The application's own
/// settings in a radio source still win (`RadioSource.origin(for:)`).
///
///     try ModemManagerRadio.shared.follow(into: .processDefault)
///
/// Safe from any thread; the bus work happens on the radio's own thread.
public final class ModemManagerRadio: Sendable {
    /// What was dropped or retried, since the radio was made.
    public struct Counters: Hashable, Sendable {
        /// Property values dropped: a wrong D-Bus type, an unknown technology bit or state.
        public var dropped: UInt64 = 0
        /// The last of them.
        public var lastDrop: ModemPropertyError?
        /// Connections to the bus made (the first, and each after a loss).
        public var connections: UInt64 = 0
        /// Times the modems were read whole (GetManagedObjects).
        public var reads: UInt64 = 0
        /// Signals dropped because ModemManager did not send them: one of
        /// its signals from another connection than the one that owns its
        /// name, or `NameOwnerChanged` from another than the bus daemon
        /// (another process on the bus spoofing them).
        public var spoofed: UInt64 = 0
        /// The unique name of the last connection whose signal was dropped so.
        public var lastSpoofSender: String?
    }

    struct State {
        var availability: ModemManagerAvailability = .stopped
        var table = ModemTable()
        var counters = Counters()
        var sources: [RadioSource] = []
        var observers: [(id: UInt64, observer: @Sendable () -> Void)] = []
        var nextObserverID: UInt64 = 0
        /// Bumped by every change of what the radio sources should hold (the
        /// facts, or which sources are fed): see `tell(_:)`.
        var changes: UInt64 = 0
        var testHooks = TestHooks()

        /// What a fed source holds now.
        var facts: RadioSource.ModemFacts? { availability == .available ? table.radioFacts() : nil }
    }

    /// Where a test runs another call at the one moment a race needs (all
    /// nil outside tests).
    package struct TestHooks: Sendable {
        /// On the radio's thread, after a change decided what the radio
        /// sources are told and before they are told.
        package var beforeSourcesAreTold: (@Sendable () -> Void)?

        package init() {}
    }

    package var testHooks: TestHooks {
        get { state.withLock { $0.testHooks } }
        set { state.withLock { $0.testHooks = newValue } }
    }

    /// How many times the radio sources were to be told (for tests' messages).
    package var changeCount: UInt64 { state.withLock { $0.changes } }

    /// Whether `source` is fed now (for tests).
    package func feeds(_ source: RadioSource) -> Bool { state.withLock { $0.sources.contains { $0 === source } } }

    /// The system bus's (`DBUS_SYSTEM_BUS_ADDRESS`, else the standard socket).
    public static let shared = ModemManagerRadio()

    /// The bus address (nil: the system bus).
    public let busAddress: String?
    /// How long after a failed connection the next is tried.
    public let retryInterval: Duration
    private let state = Locked(State(), waitable: true)
    private let worker = WorkerThread(owner: "ModemManager radio", runsQueuedWorkAtEnd: false)

    /// A radio that follows ModemManager on a bus of its own choosing. Most
    /// programs use ``shared``: one connection per process.
    ///
    /// - Parameters:
    ///   - busAddress: A D-Bus address such as
    ///     `unix:path=/run/dbus/system_bus_socket`; nil for the system bus.
    ///   - retryInterval: How long after a failed connection the next is tried.
    public convenience init(busAddress: String? = nil, retryInterval: Duration = .seconds(5)) {
        self.init(busAddress: busAddress, retryInterval: retryInterval, callTimeout: .seconds(5))
    }

    /// A radio whose calls' answers are given up on after `callTimeout` (a
    /// test that holds a call must not race the default 5 s).
    package init(busAddress: String?, retryInterval: Duration, callTimeout: Duration) {
        self.busAddress = busAddress
        self.retryInterval = retryInterval
        self.callTimeout = callTimeout
    }

    /// How long a call's answer is waited for (the thread never blocks on it).
    let callTimeout: Duration

    deinit { stop() }

    /// Feeds a radio source with the modems' facts from now on, starting the
    /// radio's thread when it is not running.
    ///
    /// - Parameter radio: The radio source to feed; the process's default by default.
    /// - Throws: `ReachabilityError.system(operation:errno:)` when the thread
    ///   cannot be started.
    public func follow(into radio: RadioSource = .processDefault) throws(ReachabilityError) {
        let added = state.withLock { state -> Bool in
            if case .stopped = state.availability { state.availability = .starting }
            guard !state.sources.contains(where: { $0 === radio }) else { return false }
            state.sources.append(radio)
            state.changes &+= 1
            return state.availability == .available
        }
        if added { tell(radio) }
        _ = try worker.start(.modems) { [self] wakeFD in run(wakeFD: wakeFD) }
    }

    /// Stops feeding a radio source, which loses the modems' facts; the thread
    /// goes on for the others (``stop()`` ends it).
    ///
    /// - Parameter radio: A radio source ``follow(into:)`` feeds.
    public func unfollow(_ radio: RadioSource) {
        let fed = state.withLock { state -> Bool in
            guard let index = state.sources.firstIndex(where: { $0 === radio }) else { return false }
            state.sources.remove(at: index)
            state.changes &+= 1
            return true
        }
        if fed { tell(radio) }
    }

    /// Stops following: the thread ends, and every radio source fed loses the modems' facts.
    public func stop() {
        worker.stop()
        let sources = state.withLock { state -> [RadioSource] in
            state.availability = .stopped
            state.table.removeAll()
            state.changes &+= 1
            defer { state.sources = [] }
            return state.sources
        }
        state.broadcast()
        for source in sources { tell(source) }
    }

    /// Whether the facts are followed now, or why not.
    public var availability: ModemManagerAvailability { state.withLock { $0.availability } }

    /// The modems, by object path.
    public var modems: [Modem] { state.withLock { $0.table.modems.values.sorted { $0.path < $1.path } } }

    /// The bearers read, by object path.
    public var bearers: [ModemBearer] { state.withLock { $0.table.bearers.values.sorted { $0.path < $1.path } } }

    /// The network interfaces a modem owns: its network ports and its bearers' interfaces.
    ///
    /// - Parameter modem: One of ``modems``.
    /// - Returns: The names of the interfaces.
    public func interfaces(of modem: Modem) -> [String] { state.withLock { $0.table.interfaces(of: modem) } }

    /// What was dropped or retried so far.
    public var counters: Counters {
        state.withLock { state in
            var counters = state.counters
            counters.dropped = state.table.dropped
            counters.lastDrop = state.table.lastDrop
            return counters
        }
    }

    /// Waits until the first answer is in (available or unavailable), or until
    /// the radio is stopped.
    ///
    /// - Parameter timeout: The longest wait.
    /// - Returns: Whether the answer is in (or the radio stopped) before `timeout` passed.
    public func waitForFirstAnswer(timeout: Duration) -> Bool {
        return state.wait(timeoutNanoseconds: timeout.clampedNanoseconds, until: { state in
            switch state.availability {
            case .available, .unavailable, .stopped: return true
            case .starting: return false
            }
        })
    }

    /// Calls an observer after every change of the modems or the availability,
    /// and after every drop.
    ///
    /// - Parameter observer: The closure to call, on the radio's thread.
    /// - Returns: The observer's id, for ``removeObserver(_:)``.
    @discardableResult
    public func addObserver(_ observer: @escaping @Sendable () -> Void) -> UInt64 {
        state.withLock { state in
            let id = state.nextObserverID
            state.nextObserverID += 1
            state.observers.append((id, observer))
            return id
        }
    }

    /// Stops calling an observer.
    ///
    /// - Parameter id: The id ``addObserver(_:)`` returned for it.
    public func removeObserver(_ id: UInt64) {
        let removed = state.withLock { state in state.observers.firstIndex { $0.id == id }.map { state.observers.remove(at: $0) } }
        _ = removed   // released outside the lock
    }

    // MARK: The thread

    private func run(wakeFD: Int32) {
        var connection: BusConnection?
        var nextAttempt: UInt64 = 0
        // Made once: an array made per wake-up would be an allocation per message.
        var fds = [pollfd](repeating: pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0), count: 2)
        while !worker.stopRequested {
            let now = monotonicNanoseconds()
            if connection == nil && now >= nextAttempt {
                switch Self.socketAbsent(busAddress) ? .failure(Errno(ENOENT)) : BusConnection.open(address: busAddress, radio: self) {
                case let .success(opened):
                    connection = opened
                    update { $0.counters.connections += 1 }
                    opened.readModems()
                case let .failure(error):
                    becomeUnavailable(.noBus(errno: error.rawValue))
                    nextAttempt = now &+ retryInterval.clampedNanoseconds
                }
            }
            fds[0].revents = 0
            var timeout: Int32 = -1
            if let connection {
                fds[1] = pollfd(fd: connection.fd, events: connection.events, revents: 0)
                timeout = connection.timeoutMilliseconds(now: now)
            } else {
                timeout = Int32(clamping: (nextAttempt &- min(now, nextAttempt)) / 1_000_000 + 1)
            }
            _ = poll(&fds, connection == nil ? 1 : 2, timeout)
            if fds[0].revents != 0 { Wakeup.clear(wakeFD) }
            if let open = connection, !open.process() {
                open.close()   // the bus went away: its sd-bus objects go too
                connection = nil
                becomeUnavailable(.noBus(errno: ECONNRESET))
                nextAttempt = monotonicNanoseconds() &+ retryInterval.clampedNanoseconds
            }
        }
        connection?.close()
    }

    /// Whether the bus's socket file is missing (a gateway without D-Bus):
    /// then no socket is made just to fail, every `retryInterval`. Only a
    /// plain `unix:path=` address is looked at; sd-bus reads any other.
    static func socketAbsent(_ address: String?) -> Bool {
        let text = address ?? getenv("DBUS_SYSTEM_BUS_ADDRESS").map { String(cString: $0) }
            ?? "unix:path=/run/dbus/system_bus_socket"
        guard text.hasPrefix("unix:path="), !text.contains(",") && !text.contains(";") else { return false }
        return access(String(text.dropFirst("unix:path=".count)), F_OK) != 0
    }

    /// Changes the state on the radio's thread, then tells the radio sources
    /// and the observers (outside the lock) when the facts or the availability moved.
    func update(_ change: (inout State) -> Void) {
        let (sources, hook) = state.withLock { state -> ([RadioSource], (@Sendable () -> Void)?) in
            // The table's revision, not a copy of it: a copy would make the
            // change copy the table (a message that changes nothing allocates nothing).
            let before = (state.availability, state.table.revision, state.table.dropped, state.counters.spoofed)
            change(&state)
            // A drop is told too (the observers see the counters move); the sources only see facts.
            guard before.0 != state.availability || before.1 != state.table.revision || before.2 != state.table.dropped
                    || before.3 != state.counters.spoofed else {
                return ([], nil)
            }
            state.changes &+= 1
            return (state.sources, state.testHooks.beforeSourcesAreTold)
        }
        hook?()
        // The sources first: who waits for an answer (`waitForFirstAnswer`) then reads it there.
        for source in sources { tell(source) }
        state.broadcast()
        // The observers as they are now, once the sources are told: one added
        // after the change but before the telling (that found the sources not
        // yet told) is called too. Taken with the change, it was not, and
        // its owner waited for a call that never came.
        for observer in state.withLock({ $0.observers.map(\.observer) }) { observer() }
    }

    /// Gives `source` what it should hold now: the facts while it is fed,
    /// none when it is not. A source is told outside the lock (its observers
    /// run then), so an `unfollow`, `follow` or change can come between what
    /// was read and what was set; whoever makes such a change tells after
    /// it, and a teller that sees `changes` moved meanwhile tells again: the
    /// last set is of the latest state, never a stale one.
    private func tell(_ source: RadioSource) {
        while true {
            let (facts, changes) = state.withLock { state in
                (state.sources.contains { $0 === source } ? state.facts : nil, state.changes)
            }
            source.setModemFacts(facts)
            if state.withLock({ $0.changes == changes }) { return }
        }
    }

    /// No facts, and why: the modems read so far are forgotten (none stale).
    func becomeUnavailable(_ reason: ModemManagerUnavailable) {
        update { state in
            state.table.removeAll()
            state.availability = .unavailable(reason)
        }
    }

    /// Counts a signal ModemManager did not send (`Counters.spoofed`).
    func noteSpoofed(sender: String) {
        update { state in
            state.counters.spoofed &+= 1
            state.counters.lastSpoofSender = sender
        }
    }

    /// Reads the table under the lock (for the connection: which bearers to ask for).
    func withTable<T>(_ body: (ModemTable) -> T) -> T { state.withLock { body($0.table) } }

}
