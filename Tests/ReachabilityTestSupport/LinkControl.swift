// Switching a test namespace's links up and down from any thread.

import CReachability

#if canImport(Glibc)
import Glibc
#endif

/// A socket opened inside a namespace: interface ioctls on it act on that
/// namespace's links (a socket keeps the namespace it was made in), from any
/// thread, without a thread per change.
package final class LinkControl: Sendable {
    package let fd: Int32
    package init(fd: Int32) { self.fd = fd }
    deinit { close(fd) }

    /// Sets or clears IFF_UP of `device`; returns CLOCK_MONOTONIC just before
    /// the change (the start of a latency measurement).
    @discardableResult
    package func set(_ device: String, up: Bool) throws(TestNamespace.ThreadError) -> UInt64 {
        // struct ifreq: ifr_name[16], then ifr_flags (a short) at offset 16.
        var request = [UInt8](repeating: 0, count: 40)
        for (i, byte) in device.utf8.prefix(15).enumerated() { request[i] = byte }
        let getFlags: UInt = 0x8913, setFlags: UInt = 0x8914   // SIOCGIFFLAGS, SIOCSIFFLAGS
        guard request.withUnsafeMutableBytes({ ioctl(fd, getFlags, $0.baseAddress!) }) == 0 else {
            throw TestNamespace.ThreadError("SIOCGIFFLAGS \(device)")
        }
        var flags = UInt16(request[16]) | UInt16(request[17]) << 8
        flags = up ? flags | 1 : flags & ~1                    // IFF_UP
        request[16] = UInt8(flags & 0xFF)
        request[17] = UInt8(flags >> 8)
        let start = creach_monotonic_ns()
        guard request.withUnsafeMutableBytes({ ioctl(fd, setFlags, $0.baseAddress!) }) == 0 else {
            throw TestNamespace.ThreadError("SIOCSIFFLAGS \(device)")
        }
        return start
    }
}
