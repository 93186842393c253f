// What a file that imports only Reachability.swift 4's module sees besides
// its own declarations (docs/compat-surface/ReachabilitySwift4.md): Foundation,
// as the original's framework module exports it (its umbrella header imports
// Foundation), with Dispatch.

import ReachabilitySwift4

func visibility_ReachabilitySwift4() {
    guard let reachability = Reachability() else { return }
    let observer = NotificationCenter.default.addObserver(forName: .reachabilityChanged, object: reachability,
                                                          queue: OperationQueue.main) { (note: Notification) in
        _ = note.object
    }
    NotificationCenter.default.removeObserver(observer)
    DispatchQueue.main.async {}
}
