// `ip route get`, parsed: the independent oracle the real-kernel tests check
// the library's answers against.

import Foundation

/// One answer of `ip route get`, as iproute2 prints it: the route's fields, or
/// the kernel's refusal ("Network is unreachable", "No route to host",
/// "Permission denied", "Invalid argument").
package struct IPRouteAnswer: Equatable, CustomStringConvertible {
    /// `unicast`, `local`, `broadcast`, `multicast`, `anycast`, ... (ip omits
    /// `unicast`; it is filled in here); nil when the lookup was refused.
    package var type: String?
    package var destination: String?
    package var dev: String?
    package var via: String?
    package var src: String?
    /// `table` as `ip -d` shows it (it omits only table 0: an oif lookup that
    /// matched no route answers with no table).
    package var table: String?
    /// The refusal text, without ip's "RTNETLINK answers: " prefix.
    package var error: String?
    /// The raw output, for failure messages.
    package var raw: String

    /// The table number: ip's names mapped (local 255, main 254, default 253), 0 when not shown.
    package var tableNumber: UInt32? {
        guard error == nil else { return nil }
        switch table {
        case nil: return 0
        case "main": return 254
        case "local": return 255
        case "default": return 253
        case let text?: return UInt32(text)
        }
    }

    package var description: String { raw.trimmingCharacters(in: .whitespacesAndNewlines) }

    static let routeTypes: Set<String> = [
        "unicast", "local", "broadcast", "multicast", "anycast", "unreachable", "blackhole", "prohibit", "throw", "nat",
    ]

    /// Parses ip's output (first line: `[TYPE] DEST [from SRC] [via [FAMILY] GW] dev DEV [table T] [src S] ...`;
    /// plain `ip` omits the type `unicast`, `ip -d` prints it)
    /// or, when it failed, its error text.
    package init(status: Int32, stdout: String, stderr: String) {
        raw = stdout + stderr
        guard status == 0 else {
            let line = stderr.split(separator: "\n").first.map(String.init) ?? ""
            let prefixes = ["RTNETLINK answers: ", "Error: "]
            var text = line
            for prefix in prefixes where text.hasPrefix(prefix) { text = String(text.dropFirst(prefix.count)) }
            error = text.trimmingCharacters(in: .whitespaces)
            return
        }
        let firstLine = stdout.split(separator: "\n").first.map(String.init) ?? ""
        var tokens = firstLine.split(separator: " ", omittingEmptySubsequences: true).map(String.init)[...]
        if let first = tokens.first, Self.routeTypes.contains(first) {
            type = first
            tokens = tokens.dropFirst()
        } else {
            type = "unicast"
        }
        destination = tokens.popFirst()
        while let key = tokens.popFirst() {
            switch key {
            case "via":
                var value = tokens.popFirst()
                if value == "inet" || value == "inet6" { value = tokens.popFirst() }
                via = value
            case "dev": dev = tokens.popFirst()
            case "src": src = tokens.popFirst()
            case "table": table = tokens.popFirst()
            case "from", "uid", "mark", "proto", "metric", "pref", "iif", "oif", "tos", "expires", "mtu", "scope",
                 "realms", "hoplimit", "error":
                _ = tokens.popFirst()
            default:
                break   // flags without a value: linkdown, onlink, rt_offload_failed, ...
            }
        }
    }
}
