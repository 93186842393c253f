// What ModemManager says about one modem, as values: its access
// technologies, registration, signal, operator and the network interfaces it
// owns. The numbers are ModemManager's own enumerations (ModemManager-enums.h,
// `MMModemAccessTechnology`, `MMModemState`, `MMModem3gppRegistrationState`,
// `MMModemPortType`), read from org.freedesktop.ModemManager1.Modem and
// .Modem.Modem3gpp, and from the modem's bearers.

import ReachabilityCore

/// ModemManager's `AccessTechnologies` bits (`MMModemAccessTechnology`).
public struct ModemAccessTechnologies: OptionSet, Hashable, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Analog wireline telephone.
    public static let pots = Self(rawValue: 1 << 0)
    /// GSM.
    public static let gsm = Self(rawValue: 1 << 1)
    /// Compact GSM.
    public static let gsmCompact = Self(rawValue: 1 << 2)
    /// GPRS.
    public static let gprs = Self(rawValue: 1 << 3)
    /// EDGE ("GSM w/EGPRS").
    public static let edge = Self(rawValue: 1 << 4)
    /// UMTS ("UTRAN").
    public static let umts = Self(rawValue: 1 << 5)
    /// HSDPA.
    public static let hsdpa = Self(rawValue: 1 << 6)
    /// HSUPA.
    public static let hsupa = Self(rawValue: 1 << 7)
    /// HSPA (HSDPA and HSUPA).
    public static let hspa = Self(rawValue: 1 << 8)
    /// HSPA+.
    public static let hspaPlus = Self(rawValue: 1 << 9)
    /// CDMA2000 1xRTT.
    public static let cdma1xRTT = Self(rawValue: 1 << 10)
    /// CDMA2000 EV-DO revision 0.
    public static let evdo0 = Self(rawValue: 1 << 11)
    /// CDMA2000 EV-DO revision A.
    public static let evdoA = Self(rawValue: 1 << 12)
    /// CDMA2000 EV-DO revision B.
    public static let evdoB = Self(rawValue: 1 << 13)
    /// LTE ("E-UTRAN").
    public static let lte = Self(rawValue: 1 << 14)
    /// 5G NR ("NG-RAN").
    public static let nr5G = Self(rawValue: 1 << 15)
    /// LTE Cat-M.
    public static let lteCatM = Self(rawValue: 1 << 16)
    /// LTE NB-IoT.
    public static let lteNBIoT = Self(rawValue: 1 << 17)

    /// Every bit ModemManager defines (1.20): others are counted as unknown bits.
    public static let known = Self(rawValue: (1 << 18) - 1)

    /// The technology a WWAN answer reports (Architecture.md, "Radio facts
    /// from ModemManager"): LTE with 5G NR is a non-standalone 5G cell
    /// (EN-DC: `.nrNSA`, CoreTelephony's `NRNSA`); 5G NR alone is `.nr`; HSDPA
    /// with HSUPA is `.hspa`; otherwise the highest technology set wins, in
    /// the order NR, LTE (Cat-M and NB-IoT are LTE), HSPA+, HSPA, HSUPA,
    /// HSDPA, UMTS, EV-DO B, A, 0, EDGE, GPRS, 1xRTT, GSM. Nil when no radio
    /// technology is set (none, POTS, or only bits ModemManager does not define).
    public var radioTechnology: RadioTechnology? {
        if contains(.nr5G) { return contains(.lte) ? .nrNSA : .nr }
        if !intersection([.lte, .lteCatM, .lteNBIoT]).isEmpty { return .lte }
        if contains(.hspaPlus) { return .hspaPlus }
        if contains(.hspa) || contains([.hsdpa, .hsupa]) { return .hspa }
        if contains(.hsupa) { return .hsupa }
        if contains(.hsdpa) { return .hsdpa }
        if contains(.umts) { return .umts }
        if contains(.evdoB) { return .evdoRevB }
        if contains(.evdoA) { return .evdoRevA }
        if contains(.evdo0) { return .evdo }
        if contains(.edge) { return .edge }
        if contains(.gprs) { return .gprs }
        if contains(.cdma1xRTT) { return .cdma1x }
        if !intersection([.gsm, .gsmCompact]).isEmpty { return .gsm }
        return nil
    }

    /// ModemManager's names of the bits set (`mmcli`'s, lower-case), for `reach modems`.
    public var names: [String] {
        let all: [(Self, String)] = [
            (.pots, "pots"), (.gsm, "gsm"), (.gsmCompact, "gsm-compact"), (.gprs, "gprs"), (.edge, "edge"),
            (.umts, "umts"), (.hsdpa, "hsdpa"), (.hsupa, "hsupa"), (.hspa, "hspa"), (.hspaPlus, "hspa-plus"),
            (.cdma1xRTT, "1xrtt"), (.evdo0, "evdo0"), (.evdoA, "evdoa"), (.evdoB, "evdob"), (.lte, "lte"),
            (.nr5G, "5gnr"), (.lteCatM, "lte-cat-m"), (.lteNBIoT, "lte-nb-iot"),
        ]
        return all.filter { contains($0.0) }.map(\.1)
    }
}

/// A modem's state (`MMModemState`).
public enum ModemState: Int32, Hashable, Sendable, CaseIterable {
    /// Unusable (`MM_MODEM_STATE_FAILED`, -1), or not known yet (0).
    case failed = -1, unknown = 0
    /// Being set up, or waiting for a PIN.
    case initializing, locked
    /// Off, or being switched off or on.
    case disabled, disabling, enabling
    /// On; looking for a network; registered on one.
    case enabled, searching, registered
    /// A data connection going down, coming up, or up.
    case disconnecting, connecting, connected

    /// `mmcli`'s name of the state.
    public var name: String {
        switch self {
        case .failed: return "failed"
        case .unknown: return "unknown"
        case .initializing: return "initializing"
        case .locked: return "locked"
        case .disabled: return "disabled"
        case .disabling: return "disabling"
        case .enabling: return "enabling"
        case .enabled: return "enabled"
        case .searching: return "searching"
        case .registered: return "registered"
        case .disconnecting: return "disconnecting"
        case .connecting: return "connecting"
        case .connected: return "connected"
        }
    }
}

/// A modem's registration with a 3GPP network (`MMModem3gppRegistrationState`).
public enum RegistrationState: UInt32, Hashable, Sendable, CaseIterable {
    /// Not registered, not searching (0); on the home network; searching; refused; not known.
    case idle = 0, home, searching, denied, unknown
    /// On another operator's network.
    case roaming
    /// Registered for SMS only, at home or roaming.
    case homeSMSOnly, roamingSMSOnly
    /// Emergency services only.
    case emergencyOnly
    /// Registered, circuit-switched fallback not preferred, at home or roaming.
    case homeCSFBNotPreferred, roamingCSFBNotPreferred
    /// Attached for restricted local operator services.
    case attachedRLOS

    /// Registered on a network other than the subscriber's own.
    public var isRoaming: Bool { self == .roaming || self == .roamingSMSOnly || self == .roamingCSFBNotPreferred }

    /// `mmcli`'s name of the state.
    public var name: String {
        switch self {
        case .idle: return "idle"
        case .home: return "home"
        case .searching: return "searching"
        case .denied: return "denied"
        case .unknown: return "unknown"
        case .roaming: return "roaming"
        case .homeSMSOnly: return "home-sms-only"
        case .roamingSMSOnly: return "roaming-sms-only"
        case .emergencyOnly: return "emergency-services-only"
        case .homeCSFBNotPreferred: return "home-csfb-not-preferred"
        case .roamingCSFBNotPreferred: return "roaming-csfb-not-preferred"
        case .attachedRLOS: return "attached-rlos"
        }
    }
}

/// One port of a modem (`Ports`: `a(su)`), with ModemManager's port type
/// (`MMModemPortType`: 2 is a network port).
public struct ModemPort: Hashable, Sendable {
    /// The port's name: a network interface (`wwan0`) or a device (`ttyUSB2`, `cdc-wdm0`).
    public var name: String
    /// `MMModemPortType`: 1 unknown, 2 net, 3 AT, 4 QCDM, 5 GPS, 6 QMI, 7 MBIM, 8 audio, 9 ignored, 10 XMMRPC.
    public var type: UInt32

    /// A port as ModemManager lists it.
    ///
    /// - Parameters:
    ///   - name: The port's name: a network interface or a device.
    ///   - type: ModemManager's port type (`MMModemPortType`).
    public init(name: String, type: UInt32) {
        self.name = name
        self.type = type
    }

    /// Whether the port is a network interface.
    public var isNetwork: Bool { type == 2 }

    /// `mmcli`'s name of the type.
    public var typeName: String {
        let names = ["unknown", "net", "at", "qcdm", "gps", "qmi", "mbim", "audio", "ignored", "xmmrpc"]
        return type >= 1 && Int(type) <= names.count ? names[Int(type) - 1] : "type \(type)"
    }
}

/// One modem as ModemManager publishes it.
public struct Modem: Hashable, Sendable {
    /// Its object path (`/org/freedesktop/ModemManager1/Modem/0`).
    public var path: String
    /// `Manufacturer`; nil when empty.
    public var manufacturer: String?
    /// `Model`; nil when empty.
    public var model: String?
    /// `State`; nil until read, or when ModemManager sent a value it does not define.
    public var state: ModemState?
    /// `AccessTechnologies`.
    public var accessTechnologies: ModemAccessTechnologies = []
    /// `SignalQuality`: percent, and whether it was read recently.
    public var signalQuality: UInt32?
    /// `SignalQuality`'s second member: whether the percentage was read recently.
    public var signalIsRecent: Bool = false
    /// `Modem3gpp.RegistrationState`; nil for a modem without the 3GPP interface.
    public var registration: RegistrationState?
    /// `Modem3gpp.OperatorName`; nil when empty.
    public var operatorName: String?
    /// `Modem3gpp.OperatorCode` (MCC and MNC); nil when empty.
    public var operatorCode: String?
    /// `Ports`.
    public var ports: [ModemPort] = []
    /// `PrimaryPort`.
    public var primaryPort: String?
    /// `Bearers`: their object paths.
    public var bearers: [String] = []

    /// A modem of which nothing is read yet.
    ///
    /// - Parameter path: The modem's object path.
    public init(path: String) { self.path = path }

    /// The technology an answer over this modem reports
    /// (``ModemAccessTechnologies/radioTechnology``).
    public var radioTechnology: RadioTechnology? { accessTechnologies.radioTechnology }
}

/// One bearer (a data connection of a modem): the network interface it brought up.
public struct ModemBearer: Hashable, Sendable {
    /// Its object path.
    public var path: String
    /// `Interface`: the network interface carrying its data (`wwan0`, `ppp0`); nil when empty.
    public var interface: String?
    /// `Connected`.
    public var isConnected: Bool = false

    /// A bearer of which nothing is read yet.
    ///
    /// - Parameter path: The bearer's object path.
    public init(path: String) { self.path = path }
}
