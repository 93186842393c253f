// Shell globs for interface names and device paths (`wwan*`, `ppp[0-9]`,
// `/dev/ttyUSB?`): what fnmatch(3) matches with no flags, byte by byte as in
// the C locale, written in Swift so that the model needs no C library. The
// core's tests compare it with glibc's fnmatch over a table of patterns.

/// A shell glob matcher: `*` any run of bytes (`/` and a leading `.`
/// included), `?` any one byte, `[...]` a set (`a-z` ranges, `!` or `^` to
/// negate, `]` first is literal, POSIX classes such as `[:digit:]`), and `\`
/// makes the next byte literal (a trailing `\` matches nothing). A `[` without its `]` is a literal `[`.
public enum Glob {
    /// Matches a name against a shell glob.
    ///
    /// - Parameters:
    ///   - pattern: The glob.
    ///   - name: The interface name or device path to match.
    /// - Returns: Whether `name` matches `pattern`, as `fnmatch(pattern, name, 0) == 0` would answer.
    public static func matches(_ pattern: String, _ name: String) -> Bool {
        var pattern = pattern, name = name
        return pattern.withUTF8 { p in name.withUTF8 { n in matches(p, n) } }
    }

    static func matches(_ p: UnsafeBufferPointer<UInt8>, _ n: UnsafeBufferPointer<UInt8>) -> Bool {
        var pi = 0, ni = 0
        // Where to resume after the last `*`: the pattern after it, and the
        // name byte it will swallow next.
        var star: (pattern: Int, name: Int)? = nil
        while ni < n.count {
            if pi < p.count {
                switch p[pi] {
                case UInt8(ascii: "*"):
                    while pi < p.count && p[pi] == UInt8(ascii: "*") { pi += 1 }
                    star = (pi, ni)
                    continue
                case UInt8(ascii: "?"):
                    pi += 1; ni += 1
                    continue
                case UInt8(ascii: "["):
                    if let (matched, next) = bracket(p, from: pi, byte: n[ni]) {
                        if matched { pi = next; ni += 1; continue }
                    } else if n[ni] == UInt8(ascii: "[") {
                        pi += 1; ni += 1
                        continue
                    }
                case UInt8(ascii: "\\"):
                    // A trailing `\` matches nothing, as in glibc.
                    if pi + 1 < p.count && p[pi + 1] == n[ni] { pi += 2; ni += 1; continue }
                default:
                    if p[pi] == n[ni] { pi += 1; ni += 1; continue }
                }
            }
            // No match here: let the last `*` swallow one more byte, or fail.
            guard let resume = star else { return false }
            star = (resume.pattern, resume.name + 1)
            pi = resume.pattern
            ni = resume.name + 1
        }
        while pi < p.count && p[pi] == UInt8(ascii: "*") { pi += 1 }
        return pi == p.count
    }

    /// The set that starts at `p[start]` (a `[`): whether `byte` is in it and
    /// the index after its `]`; nil when the `[` has no `]` (a literal `[`).
    static func bracket(_ p: UnsafeBufferPointer<UInt8>, from start: Int, byte: UInt8) -> (Bool, Int)? {
        var i = start + 1
        var negated = false
        if i < p.count && (p[i] == UInt8(ascii: "!") || p[i] == UInt8(ascii: "^")) { negated = true; i += 1 }
        var found = false
        var first = true
        while i < p.count {
            var low = p[i]
            if low == UInt8(ascii: "]") && !first { return (found != negated, i + 1) }
            first = false
            if low == UInt8(ascii: "["), i + 1 < p.count, p[i + 1] == UInt8(ascii: ":") {
                // A POSIX class: `[:name:]`.
                var end = i + 2
                while end + 1 < p.count && !(p[end] == UInt8(ascii: ":") && p[end + 1] == UInt8(ascii: "]")) { end += 1 }
                if end + 1 < p.count {
                    let name = String(decoding: UnsafeBufferPointer(rebasing: p[(i + 2)..<end]), as: UTF8.self)
                    guard let inClass = posixClass(name, byte) else { return nil }
                    if inClass { found = true }
                    i = end + 2
                    continue
                }
            }
            if low == UInt8(ascii: "\\") && i + 1 < p.count { i += 1; low = p[i] }
            i += 1
            var high = low
            if i + 1 < p.count && p[i] == UInt8(ascii: "-") && p[i + 1] != UInt8(ascii: "]") {
                high = p[i + 1]
                if high == UInt8(ascii: "\\") && i + 2 < p.count { i += 1; high = p[i + 1] }
                i += 2
            }
            if low <= byte && byte <= high { found = true }
        }
        return nil
    }

    /// Whether `byte` is in the POSIX class `name` (C locale); nil for a name
    /// that is not a class.
    static func posixClass(_ name: String, _ byte: UInt8) -> Bool? {
        let c = byte
        let upper = c >= 0x41 && c <= 0x5A, lower = c >= 0x61 && c <= 0x7A, digit = c >= 0x30 && c <= 0x39
        let graph = c >= 0x21 && c <= 0x7E
        switch name {
        case "alpha": return upper || lower
        case "digit": return digit
        case "alnum": return upper || lower || digit
        case "upper": return upper
        case "lower": return lower
        case "xdigit": return digit || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66)
        case "space": return c == 0x20 || (c >= 0x09 && c <= 0x0D)
        case "blank": return c == 0x20 || c == 0x09
        case "punct": return graph && !(upper || lower || digit)
        case "graph": return graph
        case "print": return graph || c == 0x20
        case "cntrl": return c < 0x20 || c == 0x7F
        default: return nil
        }
    }
}
