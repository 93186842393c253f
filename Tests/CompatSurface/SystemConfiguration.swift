// Compile test of `SystemConfiguration`'s surface against Apple's, as
// docs/compat-surface/SystemConfiguration.md lists it: every `provided` and
// `Linux meaning` row, written with the spelling Swift gives Apple's header
// (iOS SDK generated interface, SCNetworkReachability.h, SystemConfiguration.h).
// Nothing here runs: each function only has to type-check, in Swift 5 and 6.
//
// Imports only the module, as a ported iOS file does.

import SystemConfiguration

// MARK: - SCNetworkReachability (the reference type)

func surface_SystemConfiguration_reference(_ ref: SCNetworkReachability, _ other: SCNetworkReachability) {
    // `class SCNetworkReachability : _CFObject`: a class, Equatable and Hashable through _CFObject.
    let _: AnyObject = ref
    let _: Bool = ref == other
    var set = Set<SCNetworkReachability>()
    set.insert(ref)
    let _: Int = ref.hashValue
}

// MARK: - SCNetworkReachabilityContext

func surface_SystemConfiguration_context() {
    var context = SCNetworkReachabilityContext()
    let version: CFIndex = context.version
    context.version = version
    let info: UnsafeMutableRawPointer? = context.info
    context.info = info
    let retain: (@convention(c) (UnsafeRawPointer) -> UnsafeRawPointer)? = context.retain
    context.retain = retain
    let release: (@convention(c) (UnsafeRawPointer) -> Void)? = context.release
    context.release = release
    // C functions from closures that capture nothing, as iOS code writes them.
    context.retain = { UnsafeRawPointer(Unmanaged<AnyObject>.fromOpaque($0).retain().toOpaque()) }
    context.release = { Unmanaged<AnyObject>.fromOpaque($0).release() }
    // Not here (table: not provided, differs): `copyDescription`, whose type is
    // not @convention(c) on Linux, and the memberwise initialiser that takes it.
}

// MARK: - SCNetworkReachabilityFlags

func surface_SystemConfiguration_flags() {
    let raw: UInt32 = 0
    var flags = SCNetworkReachabilityFlags(rawValue: raw)
    let _: UInt32 = flags.rawValue
    let all: [SCNetworkReachabilityFlags] = [
        .transientConnection, .reachable, .connectionRequired, .connectionOnTraffic, .interventionRequired,
        .connectionOnDemand, .isLocalAddress, .isDirect, .isWWAN, .connectionAutomatic,
    ]
    let _: SCNetworkReachabilityFlags = SCNetworkReachabilityFlags.reachable
    // OptionSet, ExpressibleByArrayLiteral, SetAlgebra, Equatable, as imported CF_OPTIONS are.
    flags.insert(.reachable)
    flags.formUnion([.isDirect, .isLocalAddress])
    let _: Bool = flags.contains(.connectionRequired)
    let _: Bool = flags == SCNetworkReachabilityFlags()
    let _: SCNetworkReachabilityFlags = [.reachable, .isWWAN]
    func generic<T: OptionSet & Sendable>(_: T) where T.RawValue == UInt32 {}
    generic(flags)
    _ = all
}

// MARK: - The functions
//
// `SCNetworkReachabilitySetCallback`'s callout is written by its alias name,
// `SCNetworkReachabilityCallBack`: the name is ours too, its type is not
// @convention(c) here (table: the alias row is not provided). A global
// function and a closure that captures nothing, as iOS code passes them,
// are accepted by both.

/// A global function as the callout, as Apple's sample and many ports pass it.
func surface_SystemConfiguration_callout(_ target: SCNetworkReachability, _ flags: SCNetworkReachabilityFlags,
                                         _ info: UnsafeMutableRawPointer?) {}

func surface_SystemConfiguration_functions() {
    let _: (CFAllocator?, UnsafePointer<sockaddr>) -> SCNetworkReachability? = SCNetworkReachabilityCreateWithAddress
    let _: (CFAllocator?, UnsafePointer<sockaddr>?, UnsafePointer<sockaddr>?) -> SCNetworkReachability? =
        SCNetworkReachabilityCreateWithAddressPair
    let _: (CFAllocator?, UnsafePointer<CChar>) -> SCNetworkReachability? = SCNetworkReachabilityCreateWithName
    let _: (SCNetworkReachability, UnsafeMutablePointer<SCNetworkReachabilityFlags>) -> Bool = SCNetworkReachabilityGetFlags
    let _: (SCNetworkReachability, SCNetworkReachabilityCallBack?, UnsafeMutablePointer<SCNetworkReachabilityContext>?) -> Bool =
        SCNetworkReachabilitySetCallback
    let _: (SCNetworkReachability, CFRunLoop, CFString) -> Bool = SCNetworkReachabilityScheduleWithRunLoop
    let _: (SCNetworkReachability, CFRunLoop, CFString) -> Bool = SCNetworkReachabilityUnscheduleFromRunLoop
    let _: (SCNetworkReachability, DispatchQueue?) -> Bool = SCNetworkReachabilitySetDispatchQueue

    // As code calls them: a String for the name, &address for the address,
    // results ignored (imported C functions are discardable).
    guard let ref = SCNetworkReachabilityCreateWithName(nil, "example.org") else { return }
    var address = sockaddr()
    _ = SCNetworkReachabilityCreateWithAddress(nil, &address)
    _ = SCNetworkReachabilityCreateWithAddressPair(kCFAllocatorDefault, nil, &address)
    var flags = SCNetworkReachabilityFlags()
    SCNetworkReachabilityGetFlags(ref, &flags)
    var context = SCNetworkReachabilityContext()
    SCNetworkReachabilitySetCallback(ref, surface_SystemConfiguration_callout, &context)
    SCNetworkReachabilitySetCallback(ref, { _, _, _ in }, &context)
    SCNetworkReachabilitySetCallback(ref, nil, nil)
    SCNetworkReachabilitySetDispatchQueue(ref, DispatchQueue(label: "surface"))
    SCNetworkReachabilitySetDispatchQueue(ref, nil)
    SCNetworkReachabilityScheduleWithRunLoop(ref, CFRunLoopGetCurrent(), CFRunLoopMode.defaultMode.rawValue)
    SCNetworkReachabilityUnscheduleFromRunLoop(ref, CFRunLoopGetCurrent(), CFRunLoopMode.defaultMode.rawValue)
}

// MARK: - SCError, SCErrorString, kSCStatus*

func surface_SystemConfiguration_errors() {
    let _: () -> Int32 = SCError
    let _: (Int32) -> UnsafePointer<CChar> = SCErrorString
    let _: String = String(cString: SCErrorString(SCError()))
    let codes: [Int] = [kSCStatusOK, kSCStatusFailed, kSCStatusInvalidArgument, kSCStatusReachabilityUnknown]
    // Compared with SCError() as code does it.
    let _: Bool = Int(SCError()) == kSCStatusReachabilityUnknown
    _ = codes
}

// The other status codes, as Apple's headers number them (declared; never set here).
func surface_SystemConfiguration_statusCodes() {
    let codes: [Int] = [kSCStatusAccessError, kSCStatusNoKey, kSCStatusKeyExists, kSCStatusLocked, kSCStatusNeedLock,
                        kSCStatusNoStoreSession, kSCStatusNoStoreServer, kSCStatusNotifierActive, kSCStatusNoPrefsSession,
                        kSCStatusPrefsBusy, kSCStatusNoConfigFile, kSCStatusNoLink, kSCStatusStale, kSCStatusMaxLink]
    _ = codes.contains(Int(SCError()))
}
