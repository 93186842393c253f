// What a file that imports only AFNetworking sees besides its own names
// (docs/compat-surface/AFNetworkReachability.md, header): the original's
// module exports what its umbrella header includes (`export *`), Foundation
// and, through AFNetworkReachabilityManager.h, SystemConfiguration with the
// C socket types. `import AFNetworkReachability` is what a port writes in
// its place, and must see the same.

import AFNetworkReachability

func visibility_AFNetworkReachability() {
    // The C socket types and constants (SystemConfiguration's headers): the
    // zero IPv6 address, as AFNetworking 4's +manager builds it.
    var address = sockaddr_in6()
    address.sin6_len = UInt8(MemoryLayout<sockaddr_in6>.size)
    address.sin6_family = sa_family_t(AF_INET6)
    let manager = AFNetworkReachabilityManager(forAddress: &address)

    // SystemConfiguration, by name.
    if let target = SCNetworkReachabilityCreateWithName(kCFAllocatorDefault, "www.apple.com") {
        var flags = SCNetworkReachabilityFlags()
        _ = SCNetworkReachabilityGetFlags(target, &flags)
        _ = AFNetworkReachabilityManager(reachability: target)
    }

    // Foundation (and Dispatch), by name: the notification and its userInfo.
    let observer = NotificationCenter.default.addObserver(forName: .AFNetworkingReachabilityDidChange, object: manager,
                                                          queue: OperationQueue.main) { (note: Notification) in
        let number = note.userInfo?[AFNetworkingReachabilityNotificationStatusItem] as? NSNumber
        _ = number.flatMap { AFNetworkReachabilityStatus(rawValue: $0.intValue) }
    }
    NotificationCenter.default.removeObserver(observer)
    let _: NSObject = manager
    DispatchQueue.main.async {}
}
