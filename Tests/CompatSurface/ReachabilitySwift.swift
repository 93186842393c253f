// Compile test: ashleymills/Reachability.swift 5.2.4 (@21d1dc41,
// Sources/Reachability.swift) against `ReachabilitySwift`. Every `provided`
// and `Linux meaning` row of docs/compat-surface/ReachabilitySwift.md, with
// the original's spelling and types. The original's module is `Reachability`,
// the name of its class: `Reachability.X` names the class's member X there
// and here. Never run: it only has to compile, in Swift 5 and Swift 6
// language modes (deprecation warnings are expected: the rows are deprecated
// in the original too).

import ReachabilitySwift
// The original's users import these too when they spell `DispatchQueue`,
// `NotificationCenter` or `SCNetworkReachability`.
import Foundation
import SystemConfiguration

// MARK: ReachabilityError and its cases (payload: SCError())

private func explain(_ error: ReachabilityError) -> String {
    switch error {
    case let .failedToCreateWithAddress(address, code):
        let _: sockaddr = address
        let _: Int32 = code
        return "address"
    case let .failedToCreateWithHostname(name, code):
        let _: String = name
        let _: Int32 = code
        return "hostname"
    case let .unableToSetCallback(code): return "callback \(code as Int32)"
    case let .unableToSetDispatchQueue(code): return "queue \(code as Int32)"
    case let .unableToGetFlags(code): return "flags \(code as Int32)"
    }
}

func surface_ReachabilitySwift() throws {
    let _: Error = ReachabilityError.unableToGetFlags(0)
    _ = explain(.unableToSetCallback(0))

    // MARK: Notification.Name.reachabilityChanged
    let _: Notification.Name = .reachabilityChanged
    let _: Notification.Name = Notification.Name.reachabilityChanged

    // MARK: Typealiases NetworkReachable, NetworkUnreachable = (Reachability) -> ()
    var calls = 0
    let reachable: Reachability.NetworkReachable = { (_: Reachability) -> () in calls += 1 }
    let unreachable: Reachability.NetworkUnreachable = { (_: Reachability) -> () in calls += 1 }

    // MARK: Connection: CustomStringConvertible { unavailable, wifi, cellular }, description, deprecated none
    func name(_ connection: Reachability.Connection) -> String {
        switch connection {
        case .unavailable: return "none"
        case .wifi: return "Wi-Fi"
        case .cellular: return "cellular"
        }
    }
    _ = name(.wifi)
    let _: CustomStringConvertible = Reachability.Connection.cellular
    let _: String = Reachability.Connection.wifi.description
    let _: Reachability.Connection = Reachability.Connection.none   // deprecated, renamed: "unavailable"

    // MARK: Initialisers
    let _: Reachability = try Reachability()
    let _: Reachability = try Reachability(hostname: "www.apple.com")
    let _: Reachability = try Reachability(hostname: "www.apple.com", queueQoS: .utility,
                                           targetQueue: DispatchQueue(label: "target"), notificationQueue: nil)
    let _: Reachability = try Reachability(queueQoS: .default, targetQueue: nil, notificationQueue: .main)
    let _: (String, DispatchQoS, DispatchQueue?, DispatchQueue?) throws -> Reachability
        = Reachability.init(hostname:queueQoS:targetQueue:notificationQueue:)
    let _: (DispatchQoS, DispatchQueue?, DispatchQueue?) throws -> Reachability
        = Reachability.init(queueQoS:targetQueue:notificationQueue:)
    let _: (SCNetworkReachability, DispatchQoS, DispatchQueue?, DispatchQueue?) -> Reachability
        = Reachability.init(reachabilityRef:queueQoS:targetQueue:notificationQueue:)
    guard let ref = SCNetworkReachabilityCreateWithName(nil, "www.apple.com") else { return }
    let reachability = Reachability(reachabilityRef: ref)
    // required init: a subclass's metatype can make one.
    let type: Reachability.Type = Reachability.self
    let _: Reachability = type.init(reachabilityRef: ref, queueQoS: .default, targetQueue: nil, notificationQueue: .main)

    // MARK: Properties
    reachability.whenReachable = reachable
    reachability.whenUnreachable = unreachable
    let _: Reachability.NetworkReachable? = reachability.whenReachable
    let _: Reachability.NetworkUnreachable? = reachability.whenUnreachable
    reachability.whenReachable = { reachability in
        switch reachability.connection {
        case .wifi, .cellular: calls += 1
        case .unavailable: break
        }
    }
    let _: Bool = reachability.reachableOnWWAN                      // deprecated
    let allows: Bool = reachability.allowsCellularConnection
    reachability.allowsCellularConnection = allows
    let center: NotificationCenter = reachability.notificationCenter
    reachability.notificationCenter = center
    let _: String = reachability.currentReachabilityString          // deprecated
    let _: Reachability.Connection = reachability.connection
    let _: Bool = reachability.connection != .unavailable

    // MARK: startNotifier() throws, stopNotifier()
    let _: () throws -> Void = reachability.startNotifier
    try reachability.startNotifier()
    let _: () -> Void = reachability.stopNotifier
    reachability.stopNotifier()

    // MARK: Deprecated tests, description
    let _: Bool = reachability.isReachable
    let _: Bool = reachability.isReachableViaWWAN
    let _: Bool = reachability.isReachableViaWiFi
    let _: String = reachability.description

    // MARK: The notification observed as README shows it
    NotificationCenter.default.addObserver(forName: .reachabilityChanged, object: reachability, queue: .main) { note in
        let _: Reachability? = note.object as? Reachability
    }
}
