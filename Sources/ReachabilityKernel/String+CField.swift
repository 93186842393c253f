import ReachabilityModel
internal import CReachability
#if canImport(Glibc)
internal import Glibc
#endif

extension String {
    /// A string from a NUL-terminated C field (imported as a tuple); stops at the field's end.
    init(decodingCString bytes: UnsafeRawBufferPointer) {
        let end = bytes.firstIndex(of: 0) ?? bytes.count
        self = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[0..<end]), as: UTF8.self)
    }
}
