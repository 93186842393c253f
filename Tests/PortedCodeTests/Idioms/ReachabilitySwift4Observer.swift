// Idiom: Reachability.swift 4.x as apps of its time wrote it: the failable
// `Reachability()` unwrapped with `guard let`, the `.none` connection, the
// closures `whenReachable`/`whenUnreachable` beside the notification.
// Swift 5 mode only, as such code is: the observer block is `@Sendable` in
// Foundation (Apple's and Linux's) and captures the non-Sendable monitor.
//
// The original imports Foundation and `Reachability` (the pod's module);
// the one changed line: `import Reachability` → `import ReachabilitySwift4`.

import Foundation
import ReachabilitySwift4

final class LegacyReachabilityMonitor {
    private var reachability: Reachability?
    private var observer: NSObjectProtocol?
    /// Called on the main queue with the connection's words.
    var statusChanged: ((String) -> Void)?

    func start() {
        guard let reachability = Reachability() else {
            print("Unable to create Reachability")
            return
        }
        self.reachability = reachability

        reachability.whenReachable = { reachability in
            if reachability.connection == .wifi {
                print("Reachable via WiFi")
            } else {
                print("Reachable via Cellular")
            }
        }
        reachability.whenUnreachable = { _ in
            print("Not reachable")
        }
        observer = NotificationCenter.default.addObserver(forName: .reachabilityChanged, object: reachability,
                                                          queue: .main) { [weak self] note in
            let reachability = note.object as! Reachability
            self?.reachabilityChanged(reachability)
        }
        do {
            try reachability.startNotifier()
        } catch {
            print("Unable to start notifier")
        }
    }

    func stop() {
        reachability?.stopNotifier()
        if let observer = observer {
            NotificationCenter.default.removeObserver(observer)
        }
        observer = nil
        reachability = nil
    }

    private func reachabilityChanged(_ reachability: Reachability) {
        switch reachability.connection {
        case .wifi:
            statusChanged?("WiFi")
        case .cellular:
            statusChanged?("Cellular")
        case .none:
            statusChanged?("No Connection")
        }
    }
}
