// Compile test: Apple's Reachability sample 5.0 (Reachability.h), as the
// Clang importer gives it to Swift, against `AppleReachability`. Every
// `provided` and `Linux meaning` row of docs/compat-surface/AppleReachability.md,
// with the original's Swift spelling and types. Never run: it only has to
// compile, in Swift 5 and Swift 6 language modes.
//
// The sample's users see its header through the bridging header, with
// Foundation, SystemConfiguration and the socket types; so this file imports
// only our module, and names `sockaddr` as they would
// (Visibility/AppleReachability.swift checks the rest of what they see).

import AppleReachability

private func isSendable<T: Sendable>(_: T.Type) {}
private func isHashable<T: Hashable>(_: T.Type) {}
private func isIntRepresentable<T: RawRepresentable>(_: T.Type) where T.RawValue == Int {}

// MARK: class Reachability: NSObject, open: every method overridable from
// another module, with the imported signatures.

final class SurfaceAppleReachability: Reachability {
    override func startNotifier() -> Bool { super.startNotifier() }
    override func stopNotifier() { super.stopNotifier() }
    override func currentReachabilityStatus() -> NetworkStatus { super.currentReachabilityStatus() }
    override func connectionRequired() -> Bool { super.connectionRequired() }
}

func surface_AppleReachability() {
    // MARK: struct NetworkStatus: Hashable, Equatable, RawRepresentable
    // (an anonymous C enum: a struct, Sendable as imported C types are)
    isSendable(NetworkStatus.self)
    isHashable(NetworkStatus.self)
    isIntRepresentable(NetworkStatus.self)
    let _: (Int) -> NetworkStatus = NetworkStatus.init(_:)
    let _: (Int) -> NetworkStatus = NetworkStatus.init(rawValue:)
    var status = NetworkStatus(rawValue: 1)
    status.rawValue = 2
    let raw: Int = status.rawValue
    _ = NetworkStatus(raw)

    // MARK: global constants NotReachable, ReachableViaWiFi, ReachableViaWWAN
    let notReachable: NetworkStatus = NotReachable
    let viaWiFi: NetworkStatus = ReachableViaWiFi
    let viaWWAN: NetworkStatus = ReachableViaWWAN
    // No Swift enum: code compares, or switches with a default.
    switch status {
    case notReachable: break
    case viaWiFi, viaWWAN: break
    default: break
    }
    let _: Bool = status == NotReachable || status != ReachableViaWWAN

    // MARK: convenience init!(hostName: String!)
    let _: (String?) -> Reachability? = Reachability.init(hostName:)
    let host: Reachability = Reachability(hostName: "www.apple.com")   // IUO: unwrapped implicitly
    let maybe: Reachability? = Reachability(hostName: nil)
    _ = maybe

    // MARK: convenience init!(address hostAddress: UnsafePointer<sockaddr>!)
    let _: (UnsafePointer<sockaddr>?) -> Reachability? = Reachability.init(address:)
    let noAddress: Reachability? = Reachability(address: nil)
    _ = noAddress

    // MARK: Inherited from NSObject (found by member lookup)
    let _: Bool = host.isEqual(host)
    let _: Int = host.hash

    // MARK: func startNotifier() -> Bool, func stopNotifier()
    let _: () -> Bool = host.startNotifier
    let started: Bool = host.startNotifier()
    _ = started
    let _: () -> Void = host.stopNotifier
    host.stopNotifier()

    // MARK: func currentReachabilityStatus() -> NetworkStatus
    let _: () -> NetworkStatus = host.currentReachabilityStatus
    if host.currentReachabilityStatus() == NotReachable { return }

    // MARK: func connectionRequired() -> Bool
    let _: () -> Bool = host.connectionRequired
    let _: Bool = host.connectionRequired()
}
