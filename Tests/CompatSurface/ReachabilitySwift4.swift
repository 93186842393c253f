// Compile test: ashleymills/Reachability.swift 4.3.1 (@6c8652a8,
// Sources/Reachability.swift) against `ReachabilitySwift4`. Every `provided`
// and `Linux meaning` row of docs/compat-surface/ReachabilitySwift4.md, with
// the original's spelling and types. Never run: it only has to compile, in
// Swift 5 and Swift 6 language modes (deprecation warnings are expected:
// the rows are deprecated in the original too).

import ReachabilitySwift4
// The original's users import these too when they spell `DispatchQueue`,
// `NotificationCenter`, `sockaddr_in` or `SCNetworkReachability`.
import Foundation
import SystemConfiguration

// MARK: ReachabilityError and its cases (4.x: capitalised, no SCError() payload)

private func explain(_ error: ReachabilityError) -> String {
    switch error {
    case let .FailedToCreateWithAddress(address):
        let _: sockaddr_in = address
        return "address"
    case let .FailedToCreateWithHostname(name):
        let _: String = name
        return "hostname"
    case .UnableToSetCallback: return "callback"
    case .UnableToSetDispatchQueue: return "queue"
    case .UnableToGetInitialFlags: return "flags"
    }
}

func surface_ReachabilitySwift4() {
    let _: Error = ReachabilityError.UnableToGetInitialFlags
    _ = explain(.UnableToSetCallback)

    // MARK: Notification.Name.reachabilityChanged
    let _: Notification.Name = .reachabilityChanged
    let _: Notification.Name = Notification.Name.reachabilityChanged

    // MARK: Typealiases NetworkReachable, NetworkUnreachable = (Reachability) -> ()
    var calls = 0
    let reachable: Reachability.NetworkReachable = { (_: Reachability) -> () in calls += 1 }
    let unreachable: Reachability.NetworkUnreachable = { (_: Reachability) -> () in calls += 1 }

    // MARK: Connection: CustomStringConvertible { none, wifi, cellular }, description
    func name(_ connection: Reachability.Connection) -> String {
        switch connection {
        case .none: return "none"
        case .wifi: return "Wi-Fi"
        case .cellular: return "cellular"
        }
    }
    _ = name(.wifi)
    let _: CustomStringConvertible = Reachability.Connection.cellular
    let _: String = Reachability.Connection.none.description

    // MARK: Initialisers: failable init?(hostname:queueQoS:targetQueue:),
    // init?(queueQoS:targetQueue:), required init(reachabilityRef:queueQoS:targetQueue:)
    let _: Reachability? = Reachability()
    let _: Reachability? = Reachability(hostname: "www.apple.com")
    let _: Reachability? = Reachability(hostname: "www.apple.com", queueQoS: .utility, targetQueue: DispatchQueue(label: "target"))
    let _: Reachability? = Reachability(queueQoS: .default, targetQueue: nil)
    let _: (String, DispatchQoS, DispatchQueue?) -> Reachability? = Reachability.init(hostname:queueQoS:targetQueue:)
    let _: (DispatchQoS, DispatchQueue?) -> Reachability? = Reachability.init(queueQoS:targetQueue:)
    let _: (SCNetworkReachability, DispatchQoS, DispatchQueue?) -> Reachability = Reachability.init(reachabilityRef:queueQoS:targetQueue:)
    guard let reachability = Reachability() else { return }
    if let ref = SCNetworkReachabilityCreateWithName(nil, "www.apple.com") {
        let type: Reachability.Type = Reachability.self   // required init: a metatype can make one
        let _: Reachability = type.init(reachabilityRef: ref, queueQoS: .default, targetQueue: nil)
    }

    // MARK: Properties
    reachability.whenReachable = reachable
    reachability.whenUnreachable = unreachable
    let _: Reachability.NetworkReachable? = reachability.whenReachable
    let _: Reachability.NetworkUnreachable? = reachability.whenUnreachable
    reachability.whenReachable = { reachability in
        if reachability.connection == .wifi { calls += 1 } else { calls -= 1 }
    }
    let _: Bool = reachability.reachableOnWWAN                      // deprecated
    let allows: Bool = reachability.allowsCellularConnection
    reachability.allowsCellularConnection = allows
    let center: NotificationCenter = reachability.notificationCenter
    reachability.notificationCenter = center
    let _: String = reachability.currentReachabilityString          // deprecated
    let _: Reachability.Connection = reachability.connection
    let _: Bool = reachability.connection != .none

    // MARK: startNotifier() throws, stopNotifier()
    let _: () throws -> Void = reachability.startNotifier
    do { try reachability.startNotifier() } catch { _ = error as? ReachabilityError }
    let _: () -> Void = reachability.stopNotifier
    reachability.stopNotifier()

    // MARK: Deprecated tests, description
    let _: Bool = reachability.isReachable
    let _: Bool = reachability.isReachableViaWWAN
    let _: Bool = reachability.isReachableViaWiFi
    let _: String = reachability.description
}
