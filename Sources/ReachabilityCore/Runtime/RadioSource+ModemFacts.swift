// A modem daemon's layer of `RadioSource`. A firmware build leaves it out
// (`REACH_NO_MODEM_FACTS`): a program without the ReachabilityModemManager
// product pays nothing for it.
#if !REACH_NO_MODEM_FACTS
internal import Synchronization

extension RadioSource {
    /// What a modem daemon says about the interfaces its modems own.
    public struct ModemFacts: Hashable, Sendable {
        /// Who says it, for messages and `reach` (`"ModemManager"`).
        public var provider: String
        /// The technology in use behind each interface a modem owns (a modem
        /// that reports none: absent).
        public var technologies: [String: RadioTechnology]
        /// Every network interface a modem owns, with or without a
        /// technology: WWAN whatever its driver or name (an Ethernet-mode
        /// modem's `usb0`), unless an interface kind rule of the application
        /// says otherwise.
        public var interfaces: Set<String>

        /// Facts of `provider`: technologies and interfaces by name.
        ///
        /// - Parameters:
        ///   - provider: Who says it, e.g. `"ModemManager"`.
        ///   - technologies: The technology in use behind each interface a modem owns.
        ///   - interfaces: Every network interface a modem owns.
        public init(provider: String, technologies: [String: RadioTechnology], interfaces: Set<String>) {
            self.provider = provider
            self.technologies = technologies
            self.interfaces = interfaces
        }
    }

    /// Where an interface's technology came from.
    public enum Origin: Hashable, Sendable {
        /// The application (``RadioSource/set(_:for:)``, `REACH_RADIO`, `reach --radio IF=TECH`).
        case application
        /// A modem daemon (``RadioSource/ModemFacts/provider``).
        case modem(provider: String)
    }

    /// The modem daemon's facts, as last given (nil: none follows the modems).
    public var modemFacts: ModemFacts? { state.withLock { $0.modem } }

    /// Replaces the modem daemon's facts. A running monitor that uses this
    /// source evaluates again when they changed, as for ``set(_:for:)``.
    ///
    /// - Parameter facts: What the daemon says now; nil for none, as when the
    ///   daemon went away.
    public func setModemFacts(_ facts: ModemFacts?) {
        let observers = state.withLock { state -> [@Sendable () -> Void] in
            guard state.modem != facts else { return [] }
            state.modem = facts
            state.changes &+= 1
            modemInterfacesKnown.store(!(facts?.interfaces.isEmpty ?? true), ordering: .releasing)
            return state.observers.inOrder
        }
        for observer in observers { observer() }
    }

    /// Who set `interface`'s technology.
    ///
    /// - Parameter interface: The interface's name.
    /// - Returns: The application, whose setting wins, or the modem daemon;
    ///   nil when neither did.
    public func origin(for interface: String) -> Origin? {
        state.withLock { state in
            if state.technologies[interface] != nil { return .application }
            guard let modem = state.modem, modem.technologies[interface] != nil else { return nil }
            return .modem(provider: modem.provider)
        }
    }
}
#endif
