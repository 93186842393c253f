// What a file that imports only Reachability.swift 5's module sees besides
// its own declarations (docs/compat-surface/ReachabilitySwift.md, header):
// Foundation, as the original's framework module exports it (its umbrella
// header Sources/Reachability.h imports Foundation; CocoaPods' generated one
// imports UIKit); and the members of the types in its signatures.
// SystemConfiguration's names are not visible, there or here.

import ReachabilitySwift

func visibility_ReachabilitySwift() throws {
    // Foundation (and through it Dispatch), by name: README's observer.
    let reachability = try Reachability(queueQoS: .utility, targetQueue: DispatchQueue(label: "target"))
    let observer = NotificationCenter.default.addObserver(forName: .reachabilityChanged, object: reachability,
                                                          queue: OperationQueue.main) { (note: Notification) in
        _ = note.object
    }
    NotificationCenter.default.removeObserver(observer)
    let _: Notification.Name = .reachabilityChanged

    // Members of the types in its signatures, unnamed.
    let _ = try Reachability(hostname: "www.apple.com", queueQoS: .background, targetQueue: nil, notificationQueue: .global())
    reachability.notificationCenter.post(name: .reachabilityChanged, object: reachability)
}
