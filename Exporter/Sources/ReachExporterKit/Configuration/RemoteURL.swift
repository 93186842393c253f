/// `http://HOST[:PORT]/PATH` or `https://...`; what a remote_write URL takes.
struct RemoteURL: Sendable, Equatable, CustomStringConvertible {
    var secure: Bool
    /// A name or an address (an IPv6 address without its brackets).
    var host: String
    var port: Int
    /// The path and query, `/` at least.
    var path: String

    init(parsing text: String) throws(ConfigurationError) {
        // Errors show the URL without its user information: a password in it is not repeated to the journal.
        let shown = escapingControlCharacters(Self.redacted(text))
        let rest: Substring
        if text.hasPrefix("https://") {
            (secure, rest) = (true, text.dropFirst(8))
        } else if text.hasPrefix("http://") {
            (secure, rest) = (false, text.dropFirst(7))
        } else {
            throw ConfigurationError("url '\(shown)': takes http:// or https://")
        }
        let authority = rest.prefix { $0 != "/" && $0 != "?" }
        let tail = rest[authority.endIndex...]
        path = tail.isEmpty ? "/" : (tail.hasPrefix("/") ? String(tail) : "/" + tail)
        guard !authority.contains("@") else {
            throw ConfigurationError("url '\(shown)': credentials go in basic_auth, not in the URL")
        }
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw ConfigurationError("url '\(shown)': an unclosed '['") }
            host = String(authority[authority.index(after: authority.startIndex) ..< close])
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") { portText = after.dropFirst() } else if !after.isEmpty {
                throw ConfigurationError("url '\(shown)': expected ':PORT' after the address")
            }
        } else if let colon = authority.firstIndex(of: ":") {
            host = String(authority[..<colon])
            portText = authority[authority.index(after: colon)...]
        } else {
            host = String(authority)
        }
        guard !host.isEmpty else { throw ConfigurationError("url '\(shown)': no host") }
        if let portText {
            guard let number = Int(portText), (1 ... 65535).contains(number) else {
                throw ConfigurationError("url '\(shown)': the port must be 1...65535")
            }
            port = number
        } else {
            port = secure ? 443 : 80
        }
    }

    /// `text` with the user information of its authority (`user:password@`)
    /// replaced by `<redacted>@`: what a message may show of a URL.
    static func redacted(_ text: String) -> String {
        let start = afterScheme(text) ?? text.startIndex
        let end = text[start...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? text.endIndex
        guard let at = text[start ..< end].lastIndex(of: "@") else { return text }
        return String(text[..<start]) + "<redacted>" + String(text[at...])
    }

    /// Where what follows `scheme://` starts; nil without one. (Not
    /// firstRange(of:): _StringProcessing's, 1 MB of regex engine.)
    private static func afterScheme(_ text: String) -> String.Index? {
        var index = text.startIndex
        while index < text.endIndex {
            if text[index...].hasPrefix("://") { return text.index(index, offsetBy: 3) }
            if !(text[index].isLetter || text[index].isNumber || "+-.".contains(text[index])) { return nil }
            index = text.index(after: index)
        }
        return nil
    }

    /// Scheme, host and port: what one connection reaches.
    var origin: String { "\(secure ? "https" : "http")://\(authority)" }

    /// Where a redirect's `Location` leads from this URL: an absolute
    /// http(s) URL, `//host/path` (this scheme), `/path` or a path relative
    /// to this one's directory; nil for anything else (a URL with user
    /// information, another scheme).
    func resolving(_ location: String) -> RemoteURL? {
        if location.hasPrefix("http://") || location.hasPrefix("https://") { return try? RemoteURL(parsing: location) }
        if location.hasPrefix("//") { return try? RemoteURL(parsing: (secure ? "https:" : "http:") + location) }
        guard !location.isEmpty, Self.afterScheme(location) == nil else { return nil }
        var next = self
        if location.hasPrefix("/") {
            next.path = location
        } else {
            let directory = path.prefix { $0 != "?" }
            next.path = String(directory[...(directory.lastIndex(of: "/") ?? directory.startIndex)]) + location
        }
        return next
    }

    /// host:port, an IPv6 host in brackets.
    var authority: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
    var description: String { "\(secure ? "https" : "http")://\(authority)\(path)" }
}
