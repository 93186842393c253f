// Idiom: Reachability.swift 5.x as its README has apps use it: one
// `Reachability` for the internet, an observer of `.reachabilityChanged`
// with the object as `object:`, `try startNotifier()`, and a switch over
// `connection` written against 5.0, whose `Connection` still had a
// deprecated `case none` that an exhaustive switch must name. The block
// form of `addObserver`: the `#selector` form needs the Objective-C runtime,
// which Linux's Foundation does not have. Swift 5 mode only, as in the wild:
// the observer block is `@Sendable` in Foundation (Apple's and Linux's) and
// captures the non-Sendable observer.
//
// The original imports Foundation and `Reachability` (the pod's module);
// the one changed line: `import Reachability` → `import ReachabilitySwift`.

import Foundation
import ReachabilitySwift

final class ReachabilityStatusObserver {
    private let reachability: Reachability
    private var observer: NSObjectProtocol?
    private(set) var lastStatus = "unknown"
    /// Called on the main queue with "WiFi", "Cellular" or "No Connection".
    var statusChanged: ((String) -> Void)?

    init() throws {
        reachability = try Reachability()
    }

    deinit { stop() }

    func start() throws {
        observer = NotificationCenter.default.addObserver(forName: .reachabilityChanged, object: reachability,
                                                          queue: .main) { [weak self] note in
            guard let reachability = note.object as? Reachability else { return }
            self?.reachabilityChanged(reachability)
        }
        try reachability.startNotifier()
    }

    func stop() {
        reachability.stopNotifier()
        if let observer = observer {
            NotificationCenter.default.removeObserver(observer, name: .reachabilityChanged, object: reachability)
        }
        observer = nil
    }

    private func reachabilityChanged(_ reachability: Reachability) {
        switch reachability.connection {
        case .wifi:
            lastStatus = "WiFi"
        case .cellular:
            lastStatus = "Cellular"
        case .unavailable:
            lastStatus = "No Connection"
        case .none:
            lastStatus = "No Connection"
        }
        statusChanged?(lastStatus)
    }
}
