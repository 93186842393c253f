// apple-reach-watch: Apple's Reachability sample as its ReadMe shows its
// use, on Linux: observe kReachabilityChangedNotification, start the
// notifier on this thread's run loop, read the status at start (the sample
// posts no notification for starting) and at each notification.
//
// Standard input: `wwan off` / `wwan on` flips the process's cellular-data
// switch (iOS's Settings), `REACH_ALLOW_WWAN=0` starts with it off.

import AppleReachability
import Foundation
import ReachabilityCompatSupport

func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
signal(SIGINT) { _ in exit(0) }
signal(SIGTERM) { _ in exit(0) }

func describe(_ reachability: Reachability) -> String {
    let status = reachability.currentReachabilityStatus()
    let text = status == NotReachable ? "NotReachable" : status == ReachableViaWiFi ? "ReachableViaWiFi" : "ReachableViaWWAN"
    return reachability.connectionRequired() ? text + ", connection required" : text
}

let internetReachability: Reachability = Reachability.forInternetConnection()
NotificationCenter.default.addObserver(forName: NSNotification.Name(rawValue: kReachabilityChangedNotification),
                                       object: nil, queue: nil) { note in
    guard let reachability = note.object as? Reachability else { return }
    say("changed: \(describe(reachability))")
}
guard internetReachability.startNotifier() else {
    say("cannot start the notifier")
    exit(1)
}
say("initial: \(describe(internetReachability))")

Thread.detachNewThread {
    while let line = readLine() { CompatEnvironment.allowsWWAN = line != "wwan off" }
}
RunLoop.current.run()
