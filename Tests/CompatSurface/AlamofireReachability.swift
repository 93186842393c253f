// Compile test: Alamofire 5.12.0's `NetworkReachabilityManager` (Alamofire
// @7595cbcf, Source/Features/NetworkReachabilityManager.swift) against ours,
// imported as a port imports it. Every `provided` and `Linux
// meaning` row of docs/compat-surface/AlamofireReachability.md, with the
// original's spelling and types, with the one line a port changes: the
// import (module-qualified names become `AlamofireReachability.X`). Never run: it only has to compile, in Swift
// 5 and Swift 6 language modes.

import AlamofireReachability
// The original's users import these too when they spell `DispatchQueue` or
// `SCNetworkReachabilityFlags` (Alamofire does not re-export them).
import Foundation
import SystemConfiguration

private func isSendable<T: Sendable>(_: T.Type) {}
private func isEquatable<T: Equatable>(_: T.Type) {}
private func isHashable<T: Hashable>(_: T.Type) {}

// MARK: class NetworkReachabilityManager: open (every open member overridable
// from another module) and @unchecked Sendable.

final class SurfaceAlamofire5Manager: AlamofireReachability.NetworkReachabilityManager, @unchecked Sendable {
    override var isReachable: Bool { super.isReachable }
    override var isReachableOnCellular: Bool { super.isReachableOnCellular }
    override var isReachableOnEthernetOrWiFi: Bool { super.isReachableOnEthernetOrWiFi }
    override var flags: SCNetworkReachabilityFlags? { super.flags }
    override var status: NetworkReachabilityStatus { super.status }
    override func startListening(onQueue queue: DispatchQueue = .main,
                                 onUpdatePerforming listener: @escaping Listener) -> Bool {
        super.startListening(onQueue: queue, onUpdatePerforming: listener)
    }
    override func stopListening() { super.stopListening() }
}

func surface_AlamofireReachability() {
    isSendable(NetworkReachabilityManager.self)
    let _: AlamofireReachability.NetworkReachabilityManager.Type = NetworkReachabilityManager.self

    // MARK: NetworkReachabilityStatus: Equatable, Sendable, and its cases
    isSendable(AlamofireReachability.NetworkReachabilityManager.NetworkReachabilityStatus.self)
    isEquatable(AlamofireReachability.NetworkReachabilityManager.NetworkReachabilityStatus.self)
    func describe(_ status: AlamofireReachability.NetworkReachabilityManager.NetworkReachabilityStatus) -> String {
        switch status {
        case .unknown: return "unknown"
        case .notReachable: return "not reachable"
        case .reachable(.ethernetOrWiFi): return "ethernet or Wi-Fi"
        case .reachable(.cellular): return "cellular"
        }
    }
    _ = describe(.reachable(.ethernetOrWiFi))
    let _: (NetworkReachabilityManager.NetworkReachabilityStatus.ConnectionType) -> NetworkReachabilityManager.NetworkReachabilityStatus
        = NetworkReachabilityManager.NetworkReachabilityStatus.reachable

    // MARK: ConnectionType: Sendable (Equatable and Hashable as a plain enum)
    isSendable(NetworkReachabilityManager.NetworkReachabilityStatus.ConnectionType.self)
    isHashable(NetworkReachabilityManager.NetworkReachabilityStatus.ConnectionType.self)
    func kind(_ type: NetworkReachabilityManager.NetworkReachabilityStatus.ConnectionType) -> Int {
        switch type {
        case .ethernetOrWiFi: return 0
        case .cellular: return 1
        }
    }
    _ = kind(.cellular)

    // MARK: Listener = @Sendable (NetworkReachabilityStatus) -> Void
    let sendableListener: @Sendable (NetworkReachabilityManager.NetworkReachabilityStatus) -> Void = { _ in }
    let listener: NetworkReachabilityManager.Listener = sendableListener
    let _: @Sendable (NetworkReachabilityManager.NetworkReachabilityStatus) -> Void = listener

    // MARK: static let default (NetworkReachabilityManager?, from the failable init)
    let shared: NetworkReachabilityManager? = NetworkReachabilityManager.default

    // MARK: Initialisers: init?(host:), init?()
    let byHost: NetworkReachabilityManager? = NetworkReachabilityManager(host: "www.apple.com")
    let byAddress: AlamofireReachability.NetworkReachabilityManager? = AlamofireReachability.NetworkReachabilityManager()
    let _: (String) -> NetworkReachabilityManager? = NetworkReachabilityManager.init(host:)
    guard let manager = byHost ?? byAddress ?? shared else { return }

    // MARK: Properties
    let _: Bool = manager.isReachable
    let _: Bool = manager.isReachableOnCellular
    let _: Bool = manager.isReachableOnEthernetOrWiFi
    let _: DispatchQueue = manager.reachabilityQueue
    let _: SCNetworkReachabilityFlags? = manager.flags
    let _: NetworkReachabilityManager.NetworkReachabilityStatus = manager.status

    // MARK: startListening(onQueue:onUpdatePerforming:) -> Bool, stopListening()
    let _: (DispatchQueue, @escaping NetworkReachabilityManager.Listener) -> Bool
        = manager.startListening(onQueue:onUpdatePerforming:)
    manager.startListening { status in _ = describe(status) }            // default queue, result discardable
    let started: Bool = manager.startListening(onQueue: DispatchQueue(label: "surface"), onUpdatePerforming: listener)
    _ = started
    let _: () -> Void = manager.stopListening
    manager.stopListening()
}

#if !swift(>=6)
/// `@preconcurrency` on `startListening`: in Swift 5 mode a listener may
/// mutate what it captures, as Alamofire's own tests do.
func surface_AlamofireReachability_preconcurrency(_ manager: NetworkReachabilityManager) {
    var count = 0
    manager.startListening(onQueue: .main) { _ in count += 1 }
}
#endif
