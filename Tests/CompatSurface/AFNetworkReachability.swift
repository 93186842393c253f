// Compile test: AFNetworking 4.0.1's AFNetworkReachabilityManager.h, as the
// Clang importer gives it to Swift, against `AFNetworkReachability`, imported
// as a port imports it (the one changed line). Every `provided` and `Linux meaning` row of
// docs/compat-surface/AFNetworkReachability.md, with the original's Swift
// spelling and types. Never run: it only has to compile, in Swift 5 and
// Swift 6 language modes.
//
// Only `import AFNetworkReachability`: the original's module exports Foundation and
// SystemConfiguration (`export *`), so its users spell `SCNetworkReachability`
// and `NSNotification.Name` without importing them.

import AFNetworkReachability

private func isSendable<T: Sendable>(_: T.Type) {}
private func isHashable<T: Hashable>(_: T.Type) {}

// MARK: class AFNetworkReachabilityManager: NSObject, open: every instance
// member overridable from another module, with the imported signatures.

final class SurfaceAFNetworkReachabilityManager: AFNetworkReachability.AFNetworkReachabilityManager {
    override var networkReachabilityStatus: AFNetworkReachabilityStatus { super.networkReachabilityStatus }
    override var isReachable: Bool { super.isReachable }
    override var isReachableViaWWAN: Bool { super.isReachableViaWWAN }
    override var isReachableViaWiFi: Bool { super.isReachableViaWiFi }
    override func startMonitoring() { super.startMonitoring() }
    override func stopMonitoring() { super.stopMonitoring() }
    override func localizedNetworkReachabilityStatusString() -> String { super.localizedNetworkReachabilityStatusString() }
    override func setReachabilityStatusChange(_ block: ((AFNetworkReachabilityStatus) -> Void)?) {
        super.setReachabilityStatusChange(block)
    }
}

func surface_AFNetworkReachability() {
    // MARK: enum AFNetworkReachabilityStatus: Int (NS_ENUM), Sendable, Hashable
    isSendable(AFNetworkReachabilityStatus.self)
    isHashable(AFNetworkReachabilityStatus.self)
    func describe(_ status: AFNetworkReachabilityStatus) -> String {
        switch status {
        case .unknown: return "unknown"
        case .notReachable: return "not reachable"
        case .reachableViaWWAN: return "WWAN"
        case .reachableViaWiFi: return "WiFi"
        }
    }
    _ = describe(.unknown)
    let _: (Int) -> AFNetworkReachabilityStatus? = AFNetworkReachabilityStatus.init(rawValue:)
    let _: Int = AFNetworkReachabilityStatus.unknown.rawValue
    let _: [AFNetworkReachabilityStatus?] = [.init(rawValue: -1), .init(rawValue: 0), .init(rawValue: 1), .init(rawValue: 2)]

    // MARK: Initialisers: init(), init(forDomain:), init(forAddress:), init(reachability:)
    let _: () -> AFNetworkReachabilityManager = AFNetworkReachabilityManager.init
    let internet = AFNetworkReachabilityManager()
    let _: (String) -> AFNetworkReachabilityManager = AFNetworkReachabilityManager.init(forDomain:)
    let byDomain = AFNetworkReachabilityManager(forDomain: "www.google.com")
    let _: (UnsafeRawPointer) -> AFNetworkReachabilityManager = AFNetworkReachabilityManager.init(forAddress:)
    var zero = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))   // 32 bytes: room for a sockaddr_in6
    let byAddress = withUnsafeBytes(of: &zero) { AFNetworkReachabilityManager(forAddress: $0.baseAddress!) }
    let _: (SCNetworkReachability) -> AFNetworkReachabilityManager = AFNetworkReachabilityManager.init(reachability:)
    if let target = SCNetworkReachabilityCreateWithName(nil, "www.google.com") {
        _ = AFNetworkReachabilityManager(reachability: target)
    }
    let subclassed = SurfaceAFNetworkReachabilityManager(forDomain: "www.google.com")
    _ = [internet, byAddress, subclassed]

    // MARK: Properties
    let manager = byDomain
    let _: AFNetworkReachabilityStatus = manager.networkReachabilityStatus
    let _: Bool = manager.isReachable
    let _: Bool = manager.isReachableViaWWAN
    let _: Bool = manager.isReachableViaWiFi

    // MARK: startMonitoring(), stopMonitoring()
    let _: () -> Void = manager.startMonitoring
    manager.startMonitoring()
    let _: () -> Void = manager.stopMonitoring
    manager.stopMonitoring()

    // MARK: localizedNetworkReachabilityStatusString() -> String
    let _: () -> String = manager.localizedNetworkReachabilityStatusString
    let _: String = manager.localizedNetworkReachabilityStatusString()

    // MARK: setReachabilityStatusChange(_:): an optional block, not @Sendable
    // (a block that mutates what it captures compiles in Swift 6 mode).
    var seen: [AFNetworkReachabilityStatus] = []
    let _: (((AFNetworkReachabilityStatus) -> Void)?) -> Void = manager.setReachabilityStatusChange
    manager.setReachabilityStatusChange { status in seen.append(status) }
    manager.setReachabilityStatusChange { status in
        switch status {
        case .reachableViaWWAN, .reachableViaWiFi: seen.append(status)
        case .notReachable, .unknown: seen.removeAll()
        }
    }
    manager.setReachabilityStatusChange(nil)

    // MARK: NSNotification.Name.AFNetworkingReachabilityDidChange,
    // AFNetworkingReachabilityNotificationStatusItem
    let _: NSNotification.Name = .AFNetworkingReachabilityDidChange
    let _: NSNotification.Name = NSNotification.Name.AFNetworkingReachabilityDidChange
    let _: String = AFNetworkingReachabilityNotificationStatusItem

    // MARK: AFStringFromNetworkReachabilityStatus(_:) -> String
    let _: (AFNetworkReachabilityStatus) -> String = AFStringFromNetworkReachabilityStatus
    let _: String = AFStringFromNetworkReachabilityStatus(.reachableViaWiFi)
}
