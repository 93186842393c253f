// af-watch: AFNetworking's reachability manager as its README shows its
// use, on Linux: a status-change block on the shared manager, then
// startMonitoring(). AFNetworking delivers the current status after start,
// then every callback, on the main queue.
//
// Standard input: `wwan off` / `wwan on` flips the process's cellular-data
// switch (iOS's Settings), `REACH_ALLOW_WWAN=0` starts with it off.

import AFNetworkReachability
import Foundation
import ReachabilityCompatSupport

func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
signal(SIGINT) { _ in exit(0) }
signal(SIGTERM) { _ in exit(0) }

let manager = AFNetworkReachabilityManager.shared()
say("before start: \(AFStringFromNetworkReachabilityStatus(manager.networkReachabilityStatus))")
manager.setReachabilityStatusChange { status in
    say("status: \(AFStringFromNetworkReachabilityStatus(status))")
}
manager.startMonitoring()

Thread.detachNewThread {
    while let line = readLine() { CompatEnvironment.allowsWWAN = line != "wwan off" }
}
dispatchMain()
