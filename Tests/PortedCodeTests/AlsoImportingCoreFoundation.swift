// A file that also imports CoreFoundation, as some iOS code does, scheduling
// on a CoreFoundation run loop. It must not name `CFString`: with CoreFoundation
// imported explicitly, `CFString` is ambiguous between CoreFoundation's and
// SystemConfiguration's (Swift's shadowing of re-exported modules does not
// apply to a module a file imports itself). README, "Porting from iOS", says
// so: drop the import (SystemConfiguration re-exports CoreFoundation, as
// Apple's does) and `"text" as CFString` compiles, as in LegacyReachability.swift.

import CoreFoundation
import Foundation
import SystemConfiguration

func scheduleOnCurrentRunLoop(_ ref: SCNetworkReachability) -> Bool {
    SCNetworkReachabilityScheduleWithRunLoop(ref, CFRunLoopGetCurrent(), kCFRunLoopDefaultMode)
}

func unscheduleFromCurrentRunLoop(_ ref: SCNetworkReachability) -> Bool {
    SCNetworkReachabilityUnscheduleFromRunLoop(ref, CFRunLoopGetCurrent(), kCFRunLoopDefaultMode)
}
