#if canImport(Glibc)
import Glibc
#endif
import LinuxReachability

/// The values as the page shows them: URLs without credentials, ages,
/// times in UTC, the host's name, and the colour of each state.
extension StatusPage {
    /// A URL (or any text holding one) without user information and without
    /// its query's values (`?api_key=...` is a credential as often as not):
    /// `https://u:p@host/w?api_key=k` → `https://host/w?api_key=***`.
    static func redacted(_ text: String) -> String {
        var result = Substring(text), output = ""
        while let schemeEnd = endOfScheme(in: result) {
            output += result[..<schemeEnd]
            let rest = result[schemeEnd...]
            let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" || $0 == " " } ?? rest.endIndex
            if let at = rest[..<authorityEnd].lastIndex(of: "@") {
                result = rest[rest.index(after: at)...]
            } else {
                result = rest
            }
            // The path as it is, then each query value replaced, up to the fragment or the URL's end.
            let urlEnd = result.firstIndex(of: " ") ?? result.endIndex
            guard let question = result[..<urlEnd].firstIndex(of: "?") else { continue }
            output += result[...question]
            let queryEnd = result[question ..< urlEnd].firstIndex(of: "#") ?? urlEnd
            var inValue = false
            for character in result[result.index(after: question) ..< queryEnd] {
                switch character {
                case "=" where !inValue: inValue = true; output += "=***"
                case "&", ";": inValue = false; output.append(character)
                default: if !inValue { output.append(character) }
                }
            }
            result = result[queryEnd...]
        }
        return output + result
    }

    /// Where the first `://` of `text` ends. (By hand: the standard
    /// library's `firstRange(of:)` is _StringProcessing's, which would link
    /// the regex engine into the program, about 1 MB.)
    private static func endOfScheme(in text: Substring) -> Substring.Index? {
        var index = text.startIndex
        while index < text.endIndex {
            if text[index...].starts(with: "://") { return text.index(index, offsetBy: 3) }
            index = text.index(after: index)
        }
        return nil
    }

    /// A round trip in milliseconds to two places: `1.23 ms`.
    static func milliseconds(_ duration: Duration) -> String {
        let microseconds = duration.clampedNanoseconds / 1000
        return "\(microseconds / 1000).\(String(microseconds % 1000 / 10).leftPadded(to: 2)) ms"
    }

    /// An age or uptime: `42 s`, `5 min 3 s`, `3 h 12 min`, `2 d 4 h`.
    static func age(_ seconds: Double) -> String {
        let total = seconds.isFinite ? max(0, Int(seconds)) : 0
        let (days, hours, minutes, rest) = (total / 86_400, total % 86_400 / 3600, total % 3600 / 60, total % 60)
        if days > 0 { return "\(days) d \(hours) h" }
        if hours > 0 { return "\(hours) h \(minutes) min" }
        if minutes > 0 { return "\(minutes) min \(rest) s" }
        return "\(rest) s"
    }

    /// Unix seconds as UTC: (`2026-11-29 06:32:14`, `2026-11-29T06:32:14Z`).
    static func utc(_ unix: Double) -> (text: String, machine: String) {
        var seconds = time_t(unix.isFinite ? unix.rounded(.down) : 0)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { String(value).leftPadded(to: 2) }
        let date = "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))"
        let time = "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
        return ("\(date) \(time)", "\(date)T\(time)Z")
    }

    static func hostName() -> String {
        var bytes = [CChar](repeating: 0, count: 256)
        guard gethostname(&bytes, bytes.count - 1) == 0 else { return "" }
        return String(decoding: bytes.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    // Colours: ok (green), warn (amber), bad (red), unknown (grey).
    static func tone(status: String) -> String {
        status.hasPrefix("reachable") ? "ok" : status == "notReachable" ? "bad" : "unknown"
    }

    static func tone(accessibility: String) -> String {
        switch accessibility {
        case "accessible": return "ok"
        case "unknown": return "unknown"
        case "noNetwork": return "bad"
        default: return "warn"
        }
    }

    static func tone(uplink: String) -> String {
        switch uplink {
        case "online": return "ok"
        case "offline": return "bad"
        case "unknown": return "unknown"
        default: return "warn"
        }
    }

    /// A verdict's colour: healthy green; degraded and partial (still usable) amber; the rest red.
    static func tone(verdict: String) -> String {
        switch verdict {
        case "unknown": return "unknown"
        case UplinkVerdict.healthy.rawValue: return "ok"
        default: return UplinkVerdict(rawValue: verdict)?.isUsable == true ? "warn" : "bad"
        }
    }

    static func tone(_ kind: StatusSnapshot.Change.Kind, _ state: String) -> String {
        kind == .target ? tone(status: state) : tone(uplink: state)
    }
}
