// The SLReachability-style mask: one bit for the situation of an answer, and
// composite masks to test against. Pure and allocation-free: derived from the
// status table, the policy's WWAN switch and the radio generation.

/// The generation of a cellular link's radio access technology.
public enum RadioGeneration: Int, Hashable, Sendable, CaseIterable {
    /// 2G: GSM, GPRS, EDGE, CDMA2000 1x. Each case's raw value is its generation's number.
    case g2 = 2
    /// 3G: UMTS, the HSPA family, TD-SCDMA, CDMA2000 EV-DO and eHRPD.
    case g3
    /// 4G: LTE.
    case g4
    /// 5G: NR, standalone or with an LTE anchor.
    case g5
}

/// A radio access technology as modems and ModemManager name it. The
/// application (or its modem driver) sets it: the kernel does not know it.
public enum RadioTechnology: String, Hashable, Sendable, CaseIterable {
    /// The 2G technologies: GSM, its packet services GPRS and EDGE, and
    /// CDMA2000 1x (`cdma1x`, which modems also call 1xRTT).
    case gsm, gprs, edge, cdma1x
    /// The 3G technologies: UMTS (WCDMA), HSDPA, HSUPA, HSPA, HSPA+ (`hspaPlus`),
    /// CDMA2000 EV-DO revision 0 (`evdo`) and TD-SCDMA.
    case umts, hsdpa, hsupa, hspa, hspaPlus, evdo, tdscdma
    /// CDMA2000 EV-DO revisions A and B (`evdo` is revision 0), and eHRPD:
    /// CoreTelephony names each (`CTRadioAccessTechnologyCDMAEVDORevA` ...).
    case evdoRevA, evdoRevB, ehrpd
    /// LTE and LTE Advanced: 4G.
    case lte
    /// 5G non-standalone (NR with an LTE anchor): CoreTelephony's `NRNSA`.
    case nrNSA
    /// 5G NR standalone, or a modem that says only `NR` or `5G`.
    case nr

    /// The generation of this technology, which picks the mask's
    /// ``ReachabilityMask/wwan2G`` ... ``ReachabilityMask/wwan5G`` bit.
    public var generation: RadioGeneration {
        switch self {
        case .gsm, .gprs, .edge, .cdma1x: return .g2
        case .umts, .hsdpa, .hsupa, .hspa, .hspaPlus, .evdo, .tdscdma, .evdoRevA, .evdoRevB, .ehrpd: return .g3
        case .lte: return .g4
        case .nr, .nrNSA: return .g5
        }
    }

    /// The technology a modem names, case-insensitive and with spaces,
    /// hyphens and underscores ignored; nil for a name it does not know.
    ///
    /// - Parameter text: The name as modems print it: `GPRS`, `EDGE`, `UMTS`,
    ///   `HSPA+`, `LTE`, `NR5G`, `5GNR`, `NR` ...
    public init?(parsing text: String) {
        switch text.asciiFolded(dropping: [UInt8(ascii: " "), UInt8(ascii: "-"), UInt8(ascii: "_")]) {
        case "gsm": self = .gsm
        case "gprs": self = .gprs
        case "edge", "egprs": self = .edge
        case "cdma", "cdma1x", "1xrtt": self = .cdma1x
        case "umts", "wcdma": self = .umts
        case "hsdpa": self = .hsdpa
        case "hsupa": self = .hsupa
        case "hspa": self = .hspa
        case "hspa+", "hspaplus", "dchspa+", "dchspa": self = .hspaPlus
        case "evdo", "evdorev0", "cdmaevdorev0": self = .evdo
        case "evdoreva", "cdmaevdoreva": self = .evdoRevA
        case "evdorevb", "cdmaevdorevb": self = .evdoRevB
        case "ehrpd": self = .ehrpd
        case "tdscdma": self = .tdscdma
        case "lte", "lteadvanced", "4g": self = .lte
        case "nr", "nr5g", "5gnr", "5g", "sa", "nr5gsa": self = .nr
        case "nsa", "nrnsa", "nr5gnsa", "endc": self = .nrNSA
        default: return nil
        }
    }
}

/// One bit per situation; every answer has exactly one of the situation bits.
public struct ReachabilityMask: OptionSet, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// Not reachable: no usable route, or a connection that cannot be made
    /// without the user (the flags fail the AFNetworking rule).
    public static let unavailable = ReachabilityMask(rawValue: 1 << 0)
    /// Reachable over a Wi-Fi link that is not WWAN.
    public static let wifi = ReachabilityMask(rawValue: 1 << 1)
    /// Reachable over a wired link (Ethernet, veth, bridge, bond, PPPoE) that is not WWAN.
    public static let wired = ReachabilityMask(rawValue: 1 << 2)
    /// Reachable only over WWAN, which the policy refuses.
    public static let wwanRefused = ReachabilityMask(rawValue: 1 << 3)
    /// Reachable over WWAN whose radio technology was set as 2G (GSM, GPRS, EDGE, CDMA2000 1x).
    public static let wwan2G = ReachabilityMask(rawValue: 1 << 4)
    /// Reachable over WWAN whose radio technology was set as 3G (UMTS, HSPA, EV-DO, ...).
    public static let wwan3G = ReachabilityMask(rawValue: 1 << 5)
    /// Reachable over WWAN whose radio technology was set as 4G (LTE).
    public static let wwan4G = ReachabilityMask(rawValue: 1 << 6)
    /// Reachable over WWAN whose radio technology was set as 5G (NR).
    public static let wwan5G = ReachabilityMask(rawValue: 1 << 7)
    /// WWAN whose radio generation nobody has set.
    public static let wwanUnknownGeneration = ReachabilityMask(rawValue: 1 << 8)
    /// Reachable over another kind of link: tunnel, loopback, other.
    public static let other = ReachabilityMask(rawValue: 1 << 9)

    /// Every WWAN bit: reachable over WWAN, whatever the radio generation.
    public static let reachableWWAN: ReachabilityMask = [.wwan2G, .wwan3G, .wwan4G, .wwan5G, .wwanUnknownGeneration]
    /// Not usable: no network at all, or only WWAN, which the policy refuses.
    public static let notReachable: ReachabilityMask = [.unavailable, .wwanRefused]
    /// Usable: every bit of a reachable answer, whatever the kind of link.
    public static let reachable: ReachabilityMask = [.wifi, .wired, .reachableWWAN, .other]

    /// The situation of an answer with these flags over a link of this kind.
    ///
    /// - Parameters:
    ///   - flags: The answer's flags, with the policy's part applied.
    ///   - kind: The kind of the output link.
    ///   - allowsWWAN: Whether the policy allows WWAN; when it does not, a WWAN
    ///     answer is ``wwanRefused``.
    ///   - radio: The generation of a WWAN link's radio, nil when nobody has
    ///     set it (``wwanUnknownGeneration``).
    @inlinable @inline(__always)
    public init(flags: ReachabilityFlags, kind: InterfaceKind, allowsWWAN: Bool, radio: RadioGeneration?) {
        // Raw bits rather than the static masks: inlined into another module,
        // a static is reached through its lazy accessor, a literal is free.
        guard flags.isNetworkReachable else { self.init(rawValue: 1 << 0); return }   // unavailable
        let wwan: Bool
        switch kind {
        case .wifi: self.init(rawValue: 1 << 1); wwan = false
        case .wired: self.init(rawValue: 1 << 2); wwan = false
        case .wwan: self.init(rawValue: 0); wwan = true
        case .tunnel, .loopback, .other: self.init(rawValue: 1 << 9); wwan = false
        }
        if wwan || flags.rawValue & wwanFlagBit != 0 {
            // wwanRefused, or the generation's bit (2G ... 5G are bits 4 ... 7),
            // or wwanUnknownGeneration.
            let bit: UInt16 = !allowsWWAN ? 3 : (radio.map { UInt16(truncatingIfNeeded: $0.rawValue + 2) } ?? 8)
            self.init(rawValue: 1 << bit)
        }
    }

    public var description: String {
        let names: [(ReachabilityMask, String)] = [
            (.unavailable, "unavailable"), (.wifi, "wifi"), (.wired, "wired"), (.wwanRefused, "wwanRefused"),
            (.wwan2G, "wwan2G"), (.wwan3G, "wwan3G"), (.wwan4G, "wwan4G"), (.wwan5G, "wwan5G"),
            (.wwanUnknownGeneration, "wwanUnknownGeneration"), (.other, "other"),
        ]
        // Joined by hand: `joined(separator:)` is generic over the collection,
        // and its first call looks a conformance up at run time (a scan of
        // every conformance in the program, in `reach check`'s start-up).
        var text = ""
        for (mask, name) in names where contains(mask) {
            if !text.isEmpty { text += "|" }
            text += name
        }
        return text
    }
}


extension String {
    /// The text without the bytes `dropping`, ASCII letters lowered (unless
    /// `lowering` is false): for names modems and environment variables
    /// print, which are ASCII. Works on bytes, so that reading them links none
    /// of Unicode's case and grapheme tables.
    package func asciiFolded(dropping: [UInt8], lowering: Bool = true) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        for byte in utf8 where !dropping.contains(byte) {
            bytes.append(lowering && byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 0x20 : byte)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// The case's name, as reflection printed it: also in a build without
/// reflection metadata (Tools/Footprint/firmware-minimal.flags).
extension RadioGeneration: CustomStringConvertible {
    public var description: String {
        switch self {
        case .g2: return "g2"
        case .g3: return "g3"
        case .g4: return "g4"
        case .g5: return "g5"
        }
    }
}

/// The case's name (its raw value), as reflection printed it: also in a
/// build without reflection metadata (Tools/Footprint/firmware-minimal.flags).
extension RadioTechnology: CustomStringConvertible {
    public var description: String { rawValue }
}
