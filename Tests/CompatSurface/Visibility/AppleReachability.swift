// What a Swift file of an app that compiles Apple's Reachability sample sees
// besides the sample's own names (docs/compat-surface/AppleReachability.md,
// header): the bridging header's Reachability.h imports Foundation,
// SystemConfiguration and <netinet/in.h>, and a bridging header's imports
// are visible in every Swift file of the target. Here the one import a port
// adds must give the same.

import AppleReachability

func visibility_AppleReachability() {
    // The C socket types and constants (<netinet/in.h>, SystemConfiguration's
    // headers): the sample's own way to watch an address.
    var address = sockaddr_in()
    address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = in_addr_t(0)
    let reachability: Reachability? = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Reachability(address: $0) }
    }

    // SystemConfiguration, by name.
    var flags = SCNetworkReachabilityFlags()
    if let target = SCNetworkReachabilityCreateWithName(kCFAllocatorDefault, "www.apple.com") {
        _ = SCNetworkReachabilityGetFlags(target, &flags)
    }
    let _: Bool = flags.contains(.reachable)

    // Foundation (and Dispatch), by name: the sample's view controller observes
    // the notification on the run loop the notifier was started on.
    let observer = NotificationCenter.default.addObserver(forName: NSNotification.Name("kNetworkReachabilityChangedNotification"),
                                                          object: reachability, queue: OperationQueue.main) { (note: Notification) in
        _ = note.object as? Reachability
    }
    NotificationCenter.default.removeObserver(observer)
    let _: NSObject? = reachability
    _ = RunLoop.current
    DispatchQueue.main.async {}
}
