#if canImport(Glibc)
import Glibc
#endif

/// BoringSSL's errors name the source file and line they were raised at
/// (`... CERTIFICATE_VERIFY_FAILED at /build/.../handshake.cc:320`): the
/// reason without the build's paths.
func withoutSourcePaths(_ text: String) -> String {
    var result: [Character] = []
    var characters = Array(text)[...]
    while let first = characters.first {
        if characters.starts(with: " at /") {
            characters = characters.drop { !"]),".contains($0) }
        } else {
            result.append(first)
            characters = characters.dropFirst()
        }
    }
    return String(result)
}

/// `text` with every control character (C0, DEL, C1) escaped: `\n`, `\r`,
/// `\t`, else `\u{1B}`; what a receiver or a configuration says reaches
/// the log as characters, never as a terminal's commands.
func escapingControlCharacters(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: isControl) else { return text }
    var result = ""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\n": result += "\\n"
        case "\r": result += "\\r"
        case "\t": result += "\\t"
        case _ where isControl(scalar):
            let digits = Array("0123456789ABCDEF")
            result += "\\u{\(digits[Int(scalar.value >> 4)])\(digits[Int(scalar.value & 15)])}"
        default: result.unicodeScalars.append(scalar)
        }
    }
    return result
}

private func isControl(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value < 0x20 || (0x7F ... 0x9F).contains(scalar.value)
}

/// Whether `host` is an IPv4 or IPv6 address literal (no SNI for those).
func isIPAddress(_ host: String) -> Bool {
    var v4 = in_addr(), v6 = in6_addr()
    return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
}

/// RFC 4648 base64, for basic authentication.
func base64(_ bytes: [UInt8]) -> String {
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    var output: [UInt8] = []
    var index = 0
    while index < bytes.count {
        let chunk = bytes[index ..< min(index + 3, bytes.count)]
        let value = chunk.enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (16 - 8 * UInt32($1.offset)) }
        for position in 0 ..< 4 {
            output.append(position <= chunk.count ? alphabet[Int(value >> (18 - 6 * UInt32(position)) & 63)] : UInt8(ascii: "="))
        }
        index += 3
    }
    return String(decoding: output, as: UTF8.self)
}
