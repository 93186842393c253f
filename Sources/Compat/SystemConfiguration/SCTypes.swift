// SystemConfiguration's C types as Swift imports Apple's, where Linux differs:
// CoreFoundation's string type, the context a callback gets, SCError().

@_exported import CoreFoundation
import Foundation

/// `CFString` as iOS code uses it in `copyDescription` closures
/// (`"text" as CFString`, `Unmanaged<CFString>`): Linux's Foundation bridges
/// `String` to `NSString` but not to CoreFoundation's `CFString`, so on Linux
/// the name means `NSString`. This module imports CoreFoundation, so in a
/// file that imports both, this declaration shadows CoreFoundation's and the
/// same code still compiles (PortedCodeTests has such a file).
public typealias CFString = NSString

/// What ``SCNetworkReachabilitySetCallback(_:_:_:)`` keeps with the callback, as
/// CoreFoundation does: `retain` is called on `info` when the context is set
/// (the callback then gets what it returned), `release` when the context is
/// replaced and when the reachability object is destroyed, and
/// `copyDescription` when the object is described (its result is consumed, by
/// the Create rule).
///
/// `copyDescription` is a Swift function type: on Linux a `@convention(c)`
/// type cannot mention a Swift class (`Unmanaged<NSString>`). The closures iOS
/// code writes capture nothing, so they compile as they are.
public struct SCNetworkReachabilityContext {
    /// The structure's version; 0 is the only one. This module does not read
    /// it.
    public var version: CFIndex
    /// Your own pointer, handed to the callback (as `retain` returned it, when
    /// there is one). This module never reads what it points to.
    public var info: UnsafeMutableRawPointer?
    /// Called on `info` when ``SCNetworkReachabilitySetCallback(_:_:_:)`` stores the
    /// context; its result is what the callback and `release` get. nil keeps
    /// `info` as it is. Also called before each callout (the callback,
    /// `copyDescription`), with `release` after it, as on Apple's platforms:
    /// a `SetCallback` on another thread cannot free `info` during a callout.
    public var retain: (@convention(c) (UnsafeRawPointer) -> UnsafeRawPointer)?
    /// Called on the stored `info` when the context is replaced or removed, and
    /// when the reachability object is destroyed (and after each callout, see
    /// ``retain``). nil releases nothing.
    public var release: (@convention(c) (UnsafeRawPointer) -> Void)?
    /// Makes a text for `info` when the reachability object is described; the
    /// string is consumed. A Swift function type on Linux, where a C function
    /// type cannot name `NSString`.
    public var copyDescription: ((UnsafeRawPointer) -> Unmanaged<CFString>)?

    /// An empty context: version 0, no `info`, no functions.
    public init() {
        self.init(version: 0, info: nil, retain: nil, release: nil, copyDescription: nil)
    }

    /// A context with every field given, as iOS code builds it before
    /// ``SCNetworkReachabilitySetCallback(_:_:_:)``.
    ///
    /// - Parameters:
    ///   - version: The structure's version: 0.
    ///   - info: Your own pointer, handed to the callback.
    ///   - retain: Called on `info` when the context is stored and before each
    ///     callout; nil keeps `info` as it is.
    ///   - release: Called when the context is replaced or removed, when the
    ///     reachability object is destroyed, and after each callout; nil releases nothing.
    ///   - copyDescription: Makes a text for `info` when the reachability object is described.
    public init(version: CFIndex, info: UnsafeMutableRawPointer?,
                retain: (@convention(c) (UnsafeRawPointer) -> UnsafeRawPointer)?,
                release: (@convention(c) (UnsafeRawPointer) -> Void)?,
                copyDescription: ((UnsafeRawPointer) -> Unmanaged<CFString>)?) {
        self.version = version
        self.info = info
        self.retain = retain
        self.release = release
        self.copyDescription = copyDescription
    }
}

/// The callback of a scheduled reachability object: the object, its new
/// flags, and the context's `info` (as `retain` returned it).
///
/// A Swift function type (Apple's is `@convention(c)`): on Linux a C function
/// type cannot take a Swift class or OptionSet. Closures that capture nothing,
/// as iOS code writes them, compile either way.
public typealias SCNetworkReachabilityCallBack = (SCNetworkReachability, SCNetworkReachabilityFlags, UnsafeMutableRawPointer?) -> Void

// MARK: Errors

/// The call succeeded.
public let kSCStatusOK: Int = 0
/// The call failed for a reason this module cannot name more precisely.
public let kSCStatusFailed: Int = 1001
/// An argument was not valid (a `sockaddr` of another family, an empty host
/// name, a reachability object scheduled elsewhere).
public let kSCStatusInvalidArgument: Int = 1002
/// The flags could not be determined: the kernel could not be asked (the
/// namespace is gone, netlink failed).
public let kSCStatusReachabilityUnknown: Int = 4001

// The other status codes of SCError(), as Apple's headers number them: no
// call of this module sets them (they belong to SCDynamicStore, SCPreferences
// and configd), but code compares SCError() with them.
/// `1003`: a permission error. Never set on Linux.
public let kSCStatusAccessError: Int = 1003
/// `1004`: no such key (SCDynamicStore). Never set on Linux.
public let kSCStatusNoKey: Int = 1004
/// `1005`: the key exists already (SCDynamicStore). Never set on Linux.
public let kSCStatusKeyExists: Int = 1005
/// `1006`: the preferences are locked (SCPreferences). Never set on Linux.
public let kSCStatusLocked: Int = 1006
/// `1007`: a lock is needed (SCPreferences). Never set on Linux.
public let kSCStatusNeedLock: Int = 1007
/// `2001`: no SCDynamicStore session. Never set on Linux.
public let kSCStatusNoStoreSession: Int = 2001
/// `2002`: configd is not reachable. Never set on Linux.
public let kSCStatusNoStoreServer: Int = 2002
/// `2003`: a notifier is active already (SCDynamicStore). Never set on Linux.
public let kSCStatusNotifierActive: Int = 2003
/// `3001`: no SCPreferences session. Never set on Linux.
public let kSCStatusNoPrefsSession: Int = 3001
/// `3002`: a preferences update is under way. Never set on Linux.
public let kSCStatusPrefsBusy: Int = 3002
/// `3003`: no configuration file. Never set on Linux.
public let kSCStatusNoConfigFile: Int = 3003
/// `3004`: no such link (SCPreferences). Never set on Linux.
public let kSCStatusNoLink: Int = 3004
/// `3005`: the data is stale (SCPreferences). Never set on Linux.
public let kSCStatusStale: Int = 3005
/// `3006`: too many symbolic links (SCPreferences). Never set on Linux.
public let kSCStatusMaxLink: Int = 3006

enum SCErrorState {
    private static let key = "SystemConfiguration.SCError"

    /// Records `status` as the calling thread's last error (as SCError() is per thread on Apple).
    static func set(_ status: Int) {
        Thread.current.threadDictionary[key] = status
    }

    static var current: Int { Thread.current.threadDictionary[key] as? Int ?? kSCStatusOK }
}

/// The status of the calling thread's last SystemConfiguration call that failed.
///
/// - Returns: A `kSCStatus…` value; ``kSCStatusOK`` when no call failed.
public func SCError() -> Int32 { Int32(truncatingIfNeeded: SCErrorState.current) }

/// A message for a status.
///
/// - Parameter status: A status ``SCError()`` gave.
/// - Returns: The message, in static storage (never freed); `strerror`'s for
///   a status this module does not set.
public func SCErrorString(_ status: Int32) -> UnsafePointer<CChar> {
    switch Int(status) {
    case kSCStatusOK: return SCErrorMessages.ok
    case kSCStatusFailed: return SCErrorMessages.failed
    case kSCStatusInvalidArgument: return SCErrorMessages.invalidArgument
    case kSCStatusReachabilityUnknown: return SCErrorMessages.reachabilityUnknown
    default: return strerror(status).map { UnsafePointer($0) } ?? SCErrorMessages.failed
    }
}

/// The messages, in static storage (SCErrorString's result is never freed).
private enum SCErrorMessages {
    nonisolated(unsafe) static let ok = message("Success!")
    nonisolated(unsafe) static let failed = message("Failed!")
    nonisolated(unsafe) static let invalidArgument = message("Invalid argument")
    nonisolated(unsafe) static let reachabilityUnknown = message("Network reachability cannot be determined")

    private static func message(_ text: String) -> UnsafePointer<CChar> {
        UnsafePointer(strdup(text)!)
    }
}
