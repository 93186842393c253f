// User rules for interface kinds, checked as they are parsed (the rule and
// the classification are pure: ReachabilityModel, Facts/InterfaceKind.swift).
import ReachabilityModel

extension InterfaceKindOverride {
    /// A rule that gives `kind` to every interface whose name matches `pattern`.
    ///
    /// - Parameters:
    ///   - pattern: A shell glob, as fnmatch(3) reads it: `wwan*`, `usb0`.
    ///   - kind: The kind the matching interfaces get.
    /// - Throws: ``ReachabilityError/invalidKindOverride(_:reason:)`` when
    ///   `pattern` is empty or contains NUL.
    public init(pattern: String, kind: InterfaceKind) throws(ReachabilityError) {
        if let problem = Self.patternProblem(pattern) {
            throw .invalidKindOverride(pattern.isEmpty ? "=\(kind.rawValue)" : pattern, reason: problem)
        }
        self.init(validPattern: pattern, kind: kind)
    }

    /// Parses a rule written `PATTERN=KIND`, e.g. `wwan*=wwan`, `usb0=wwan`, `wg*=tunnel`.
    ///
    /// - Parameter text: A name pattern, `=`, and the raw value of an
    ///   `InterfaceKind` (the last `=` divides them).
    /// - Throws: ``ReachabilityError/invalidKindOverride(_:reason:)`` when
    ///   `text` has no `=`, names an unknown kind, or has an empty pattern or
    ///   one that contains NUL.
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
