// Socket addresses as code written for Apple's C library fills them: BSD's
// sockaddr has a length byte (sa_len, sin_len, sin6_len) that Linux's has not.
// Alamofire, Reachability.swift and Apple's sample set it; here it compiles and
// does nothing (the family says the length on Linux). In this module only:
// code that does not import SystemConfiguration keeps Glibc's types as they are.

import Foundation
import LinuxReachability

extension sockaddr {
    /// BSD's length byte: reads the length of the family's address
    /// structure; setting it does nothing (Linux has no such field).
    public var sa_len: UInt8 {
        get { UInt8(truncatingIfNeeded: SocketAddress.length(of: sa_family)) }
        set {}
    }
}

extension sockaddr_in {
    /// BSD's length byte: reads `MemoryLayout<sockaddr_in>.size`; setting it does nothing.
    public var sin_len: UInt8 {
        get { UInt8(MemoryLayout<sockaddr_in>.size) }
        set {}
    }
}

extension sockaddr_in6 {
    /// BSD's length byte: reads `MemoryLayout<sockaddr_in6>.size`; setting it does nothing.
    public var sin6_len: UInt8 {
        get { UInt8(MemoryLayout<sockaddr_in6>.size) }
        set {}
    }
}

extension sockaddr_storage {
    /// BSD's length byte: reads the length of the family's address structure; setting it does nothing.
    public var ss_len: UInt8 {
        get { UInt8(truncatingIfNeeded: SocketAddress.length(of: ss_family)) }
        set {}
    }
}

enum SocketAddress {
    static func length(of family: sa_family_t) -> Int {
        switch Int32(family) {
        case AF_INET: return MemoryLayout<sockaddr_in>.size
        case AF_INET6: return MemoryLayout<sockaddr_in6>.size
        default: return MemoryLayout<sockaddr>.size
        }
    }

    /// The IP address of an `AF_INET` or `AF_INET6` socket address; nil for
    /// another family. The caller's pointer must hold the family's whole
    /// structure (as Apple's API requires: it reads `sa_len` bytes).
    static func address(_ pointer: UnsafePointer<sockaddr>) -> IPAddress? {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let raw = UnsafeRawPointer(pointer)
        switch Int32(pointer.pointee.sa_family) {
        case AF_INET:
            var bytes = raw.loadUnaligned(as: sockaddr_in.self).sin_addr
            guard inet_ntop(AF_INET, &bytes, &text, socklen_t(text.count)) != nil else { return nil }
        case AF_INET6:
            var bytes = raw.loadUnaligned(as: sockaddr_in6.self).sin6_addr
            guard inet_ntop(AF_INET6, &bytes, &text, socklen_t(text.count)) != nil else { return nil }
        default:
            return nil
        }
        return IPAddress(String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
}

extension IPAddress {
    /// `0.0.0.0` or `::`: Apple's "any address", which stands for the internet.
    var isUnspecified: Bool { self == IPAddress("0.0.0.0") || self == IPAddress("::") }
}

// Darwin's memberwise initialisers, which name BSD's length byte first: the
// most copied isConnectedToNetwork() builds its zero address with
// `sockaddr_in(sin_len: 0, sin_family: 0, sin_port: 0, sin_addr: in_addr(s_addr: 0), sin_zero: (0, 0, 0, 0, 0, 0, 0, 0))`.
// The length is ignored (Linux has no such field; see `sin_len`).

extension sockaddr_in {
    /// Darwin's memberwise initialiser.
    ///
    /// - Parameters:
    ///   - sin_len: Ignored: Linux has no such field.
    ///   - sin_family: The address family, `AF_INET`.
    ///   - sin_port: The port, in network byte order.
    ///   - sin_addr: The IPv4 address.
    ///   - sin_zero: Padding.
    public init(sin_len: UInt8, sin_family: sa_family_t, sin_port: in_port_t, sin_addr: in_addr,
                sin_zero: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8)) {
        self.init(sin_family: sin_family, sin_port: sin_port, sin_addr: sin_addr, sin_zero: sin_zero)
    }
}

extension sockaddr_in6 {
    /// Darwin's memberwise initialiser.
    ///
    /// - Parameters:
    ///   - sin6_len: Ignored: Linux has no such field.
    ///   - sin6_family: The address family, `AF_INET6`.
    ///   - sin6_port: The port, in network byte order.
    ///   - sin6_flowinfo: The flow information.
    ///   - sin6_addr: The IPv6 address.
    ///   - sin6_scope_id: The scope (the interface index of a link-local address).
    public init(sin6_len: UInt8, sin6_family: sa_family_t, sin6_port: in_port_t, sin6_flowinfo: UInt32,
                sin6_addr: in6_addr, sin6_scope_id: UInt32) {
        self.init(sin6_family: sin6_family, sin6_port: sin6_port, sin6_flowinfo: sin6_flowinfo, sin6_addr: sin6_addr,
                  sin6_scope_id: sin6_scope_id)
    }
}
