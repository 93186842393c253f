// User rules for interface kinds, checked as they are parsed (the rule and
// the classification are pure: ReachabilityModel, Facts/InterfaceKind.swift).
import ReachabilityModel

extension InterfaceKindOverride {
    /// A rule giving `kind` to interfaces whose name matches `pattern`, a shell glob as fnmatch(3)
    /// reads it. Throws `.invalidKindOverride` for an empty pattern or one that contains NUL.
    public init(pattern: String, kind: InterfaceKind) throws(ReachabilityError) {
        if let problem = Self.patternProblem(pattern) {
            throw .invalidKindOverride(pattern.isEmpty ? "=\(kind.rawValue)" : pattern, reason: problem)
        }
        self.init(validPattern: pattern, kind: kind)
    }

    /// Parses `PATTERN=KIND`, e.g. `wwan*=wwan`, `usb0=wwan`, `wg*=tunnel`.
    public init(parsing text: String) throws(ReachabilityError) {
        guard let eq = text.lastIndex(of: "=") else {
            throw .invalidKindOverride(text, reason: "expected NAME=KIND")
        }
        let kindText = String(text[text.index(after: eq)...])
        guard let kind = InterfaceKind(rawValue: kindText) else {
            let known = InterfaceKind.allCases.map(\.rawValue).joined(separator: ", ")
            throw .invalidKindOverride(text, reason: "unknown kind '\(kindText)' (known: \(known))")
        }
        do {
            try self.init(pattern: String(text[..<eq]), kind: kind)
        } catch {
            throw .invalidKindOverride(text, reason: "empty or invalid name pattern")
        }
    }
}
