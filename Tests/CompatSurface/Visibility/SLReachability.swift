// What a Swift file of an app that compiles SLReachability sees besides its
// own names (docs/compat-surface/SLReachability.md, header): the header
// begins `@import Foundation; @import SystemConfiguration; @import
// CoreTelephony;`, and a bridging header's imports are visible in every Swift
// file of the target. Here the one import a port adds must give the same.

import SLReachability

func visibility_SLReachability() {
    // The C socket types and constants (SystemConfiguration's headers).
    var address = sockaddr_in()
    address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
    address.sin_family = sa_family_t(AF_INET)
    let reachability: SLReachability? = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { SLReachability(address: $0) }
    }

    // SystemConfiguration, by name.
    var flags = SCNetworkReachabilityFlags()
    if let target = SCNetworkReachabilityCreateWithName(kCFAllocatorDefault, "www.apple.com") {
        _ = SCNetworkReachabilityGetFlags(target, &flags)
    }

    // CoreTelephony, by name: the radio SLReachability reads.
    let info = CTTelephonyNetworkInfo()
    let _: Bool = info.currentRadioAccessTechnology == CTRadioAccessTechnologyLTE
    let _: NSNotification.Name = .CTRadioAccessTechnologyDidChange

    // Foundation (and Dispatch), by name: observing one of its notifications.
    let observer = NotificationCenter.default.addObserver(forName: Notification.Name(kSLReachabilityMaskChanged),
                                                          object: reachability, queue: OperationQueue.main) { (note: Notification) in
        if let changed = note.object as? SLReachability { _ = changed.netWorkMask }
    }
    NotificationCenter.default.removeObserver(observer)
    DispatchQueue.main.async {}
}
