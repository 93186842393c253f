// The one error type of the sandbox and of the commands it runs.

/// What went wrong building or changing a ``NetworkSandbox``: a command the
/// kernel refused (with its output), a bad uplink name, a closed sandbox.
public struct SandboxError: Error, CustomStringConvertible, Sendable {
    /// What failed and why, with the command and its output when a command failed.
    public let description: String

    package init(_ description: String) { self.description = description }
}

extension SandboxError {
    static func command(_ words: [String], _ result: CommandResult) -> SandboxError {
        SandboxError("`\(words.joined(separator: " "))` exited \(result.status): "
                     + (result.stderr + result.stdout).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
