import NIOCore
import NIOPosix
import NIOSSL

#if canImport(Glibc)
import Glibc
#endif

/// Why something failed, as one plain clause for an operator's log and status
/// page: "the connection was refused", "the address is already in use", not
/// swift-nio's `SingleConnectionFailure(target: [IPv4]127.0.0.1/...)` or
/// `bind(descriptor:ptr:bytes:): ... (errno: 98)`. The caller says what
/// failed and where ("cannot connect to 127.0.0.1:8428: " + this).
///
/// Errors it does not know keep their own text, without build paths.
package func plainReason(_ error: any Error) -> String {
    switch error {
    case let error as NIOConnectionError:
        if let dns = error.dnsAError ?? error.dnsAAAAError {
            return "the name \(error.host) did not resolve (\(plainReason(dns)))"
        }
        // One reason per distinct cause: every address of a name refused alike is said once.
        var reasons: [String] = []
        for failure in error.connectionErrors {
            let reason = plainReason(failure.error)
            if !reasons.contains(reason) { reasons.append(reason) }
        }
        return reasons.isEmpty ? "no address to connect to" : reasons.joined(separator: "; ")
    case let error as IOError:
        return errnoReason(error.errnoCode)
    case let error as ChannelError:
        switch error {
        case let .connectTimeout(amount):
            return "no connection within \(Duration.nanoseconds(amount.nanoseconds).configurationText)"
        case .ioOnClosedChannel, .eof, .alreadyClosed, .outputClosed, .inputClosed:
            return "the connection was closed"
        default:
            return "\(error)"
        }
    case let error as NIOSSLExtraError where error == .failedToValidateHostname:
        return "its certificate is not for the name or address connected to (set tls_config.server_name to a name the certificate has)"
    case let error as NIOSSLExtraError where error == .cannotUseIPAddressInSNI:
        return "tls_config.server_name is an IP address, which TLS cannot send: give the certificate's host name"
    case let NIOSSLError.handshakeFailed(inner):
        return tlsReason("\(inner)")
    case NIOSSLError.uncleanShutdown:
        return "the receiver closed the connection in the middle of TLS"
    case let error as BoringSSLError:
        return tlsReason("\(error)")
    default:
        return withoutSourcePaths("\(error)")
    }
}

/// A peer's address as an operator writes it (`203.0.113.10:9090`,
/// `[2001:db8::1]:9090`), not swift-nio's `[IPv4]203.0.113.10/203.0.113.10:9090`.
func plainAddress(_ address: SocketAddress?) -> String {
    guard let address, let ip = address.ipAddress, let port = address.port else { return "the receiver" }
    return ip.contains(":") ? "[\(ip)]:\(port)" : "\(ip):\(port)"
}

/// errno's words, lower-cased, with what an operator does about the common ones.
func errnoReason(_ code: CInt) -> String {
    switch code {
    case ECONNREFUSED: return "the connection was refused (nothing listens there)"
    case EADDRINUSE: return "the address is already in use (another program listens on it)"
    case EADDRNOTAVAIL: return "no interface of this host has that address"
    case EACCES, EPERM: return "permission denied (a port below 1024 needs CAP_NET_BIND_SERVICE)"
    case ENETUNREACH: return "the network is unreachable (no route)"
    case EHOSTUNREACH: return "the host is unreachable"
    case ETIMEDOUT: return "the connection timed out"
    case ECONNRESET: return "the connection was reset"
    default:
        let text = String(cString: strerror(code))
        return text.prefix(1).lowercased() + text.dropFirst()
    }
}

/// A BoringSSL failure: the reason's name (CERTIFICATE_VERIFY_FAILED) said
/// in words, and kept, for a search.
private func tlsReason(_ text: String) -> String {
    let text = withoutSourcePaths(text)
    if holds(text, "CERTIFICATE_VERIFY_FAILED") {
        return "its certificate does not verify against tls_config.ca_file (CERTIFICATE_VERIFY_FAILED)"
    }
    if holds(text, "WRONG_VERSION_NUMBER") {
        return "it does not speak TLS there (WRONG_VERSION_NUMBER: an http receiver given as https?)"
    }
    return text
}

/// Whether `text` holds `part` (by hand: String's `contains(_:)` of a string
/// is _StringProcessing's, which would link the regex engine in).
private func holds(_ text: String, _ part: String) -> Bool {
    let text = Array(text.utf8), part = Array(part.utf8)
    guard !part.isEmpty, text.count >= part.count else { return part.isEmpty }
    return (0 ... text.count - part.count).contains { text[$0 ..< $0 + part.count].elementsEqual(part) }
}
