// Compile test: Alamofire 4.9.1's `NetworkReachabilityManager` (Alamofire
// @747c8db8, Source/NetworkReachabilityManager.swift) against `Alamofire4`.
// Every `provided` and `Linux meaning` row of docs/compat-surface/Alamofire4.md,
// with the original's spelling and types. Never run: it only has to compile,
// in Swift 5 and Swift 6 language modes.

import Alamofire4
// The original's users import these too when they spell `DispatchQueue` or
// `SCNetworkReachabilityFlags`.
import Foundation
import SystemConfiguration

private func isEquatable<T: Equatable>(_: T.Type) {}
private func isHashable<T: Hashable>(_: T.Type) {}

// MARK: open class NetworkReachabilityManager (not Sendable): every open
// member overridable from another module.

final class SurfaceAlamofire4Manager: Alamofire4.NetworkReachabilityManager {
    override var isReachable: Bool { super.isReachable }
    override var isReachableOnWWAN: Bool { super.isReachableOnWWAN }
    override var isReachableOnEthernetOrWiFi: Bool { super.isReachableOnEthernetOrWiFi }
    override var networkReachabilityStatus: NetworkReachabilityStatus { super.networkReachabilityStatus }
    override var listenerQueue: DispatchQueue {
        get { super.listenerQueue }
        set { super.listenerQueue = newValue }
    }
    override var listener: Listener? {
        get { super.listener }
        set { super.listener = newValue }
    }
    override var flags: SCNetworkReachabilityFlags? { super.flags }
    override var previousFlags: SCNetworkReachabilityFlags {
        get { super.previousFlags }
        set { super.previousFlags = newValue }
    }
    override func startListening() -> Bool { super.startListening() }
    override func stopListening() { super.stopListening() }
}

func surface_Alamofire4() {
    let _: Alamofire4.NetworkReachabilityManager.Type = NetworkReachabilityManager.self

    // MARK: NetworkReachabilityStatus { unknown, notReachable, reachable(ConnectionType) }
    // and ConnectionType { ethernetOrWiFi, wwan }, nested in the manager
    func describe(_ status: NetworkReachabilityManager.NetworkReachabilityStatus) -> String {
        switch status {
        case .notReachable: return "not reachable"
        case .unknown: return "unknown"
        case .reachable(.ethernetOrWiFi): return "ethernet or Wi-Fi"
        case .reachable(.wwan): return "WWAN"
        }
    }
    _ = describe(.unknown)
    let _: (NetworkReachabilityManager.ConnectionType) -> NetworkReachabilityManager.NetworkReachabilityStatus
        = NetworkReachabilityManager.NetworkReachabilityStatus.reachable
    func kind(_ type: Alamofire4.NetworkReachabilityManager.ConnectionType) -> Int {
        switch type {
        case .ethernetOrWiFi: return 0
        case .wwan: return 1
        }
    }
    _ = kind(.wwan)
    isHashable(NetworkReachabilityManager.ConnectionType.self)

    // MARK: Equatable (the conformance and the global ==)
    isEquatable(NetworkReachabilityManager.NetworkReachabilityStatus.self)
    let _: (NetworkReachabilityManager.NetworkReachabilityStatus, NetworkReachabilityManager.NetworkReachabilityStatus) -> Bool = (==)
    let _: Bool = NetworkReachabilityManager.NetworkReachabilityStatus.reachable(.wwan) == .reachable(.ethernetOrWiFi)

    // MARK: Listener = (NetworkReachabilityStatus) -> Void, not @Sendable: a
    // closure that is not Sendable is one (an error in Swift 6 mode otherwise).
    var seen: [NetworkReachabilityManager.NetworkReachabilityStatus] = []
    let plain: (NetworkReachabilityManager.NetworkReachabilityStatus) -> Void = { seen.append($0) }
    let listener: NetworkReachabilityManager.Listener = plain

    // MARK: Initialisers: init?(host:), init?()
    let byHost: NetworkReachabilityManager? = NetworkReachabilityManager(host: "www.apple.com")
    let byAddress: NetworkReachabilityManager? = NetworkReachabilityManager()
    let _: (String) -> NetworkReachabilityManager? = NetworkReachabilityManager.init(host:)
    guard let manager = byHost ?? byAddress else { return }

    // MARK: Properties
    let _: Bool = manager.isReachable
    let _: Bool = manager.isReachableOnWWAN
    let _: Bool = manager.isReachableOnEthernetOrWiFi
    let _: NetworkReachabilityManager.NetworkReachabilityStatus = manager.networkReachabilityStatus
    let queue: DispatchQueue = manager.listenerQueue
    manager.listenerQueue = queue
    let current: NetworkReachabilityManager.Listener? = manager.listener
    manager.listener = current
    manager.listener = listener
    manager.listener = { status in
        switch status {
        case .notReachable, .unknown: seen.removeAll()
        case .reachable(.ethernetOrWiFi), .reachable(.wwan): seen.append(status)
        }
    }
    let _: SCNetworkReachabilityFlags? = manager.flags
    let previous: SCNetworkReachabilityFlags = manager.previousFlags
    manager.previousFlags = previous

    // MARK: startListening() -> Bool (discardable), stopListening()
    let _: () -> Bool = manager.startListening
    manager.startListening()
    let started: Bool = manager.startListening()
    _ = started
    let _: () -> Void = manager.stopListening
    manager.stopListening()
}
