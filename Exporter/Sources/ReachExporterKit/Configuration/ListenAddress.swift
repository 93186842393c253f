import LinuxReachability

/// `HOST:PORT` or `[IPV6]:PORT`; the host is an address literal.
package struct ListenAddress: Equatable, Sendable, CustomStringConvertible {
    var host: String
    var port: Int

    init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    init(parsing text: String) throws(ConfigurationError) {
        let host: Substring, port: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                throw ConfigurationError("listen '\(text)': takes [IPV6]:PORT")
            }
            host = text[text.index(after: text.startIndex) ..< close]
            port = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":"), text.firstIndex(of: ":") == colon else {
                throw ConfigurationError("listen '\(text)': takes HOST:PORT (an IPv6 host in brackets)")
            }
            host = text[..<colon]
            port = text[text.index(after: colon)...]
        }
        guard IPAddress(String(host)) != nil else {
            throw ConfigurationError("listen '\(text)': '\(host)' is not an IPv4 or IPv6 address")
        }
        // Digits only: Int's parser takes a sign, and `+80` was port 80.
        guard !port.isEmpty, port.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              let number = Int(port), (1 ... 65535).contains(number) else {
            throw ConfigurationError("listen '\(text)': the port must be 1...65535")
        }
        self.host = String(host)
        self.port = number
    }

    package var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
