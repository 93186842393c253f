// alamofire-watch: Alamofire's NetworkReachabilityManager as its
// documentation shows its use, on Linux: startListening on the default
// manager. Alamofire gives the current status after start, then each
// change of status, on the main queue.
//
// Standard input: `wwan off` / `wwan on` flips the process's cellular-data
// switch (iOS's Settings), `REACH_ALLOW_WWAN=0` starts with it off.

import AlamofireReachability
import Foundation
import ReachabilityCompatSupport

func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
signal(SIGINT) { _ in exit(0) }
signal(SIGTERM) { _ in exit(0) }

guard let manager = NetworkReachabilityManager.default else {
    say("no reachability manager")
    exit(1)
}
manager.startListening { status in
    switch status {
    case .unknown: say("status: unknown")
    case .notReachable: say("status: not reachable")
    case .reachable(.ethernetOrWiFi): say("status: reachable over Ethernet or WiFi")
    case .reachable(.cellular): say("status: reachable over cellular")
    }
}

Thread.detachNewThread {
    while let line = readLine() { CompatEnvironment.allowsWWAN = line != "wwan off" }
}
dispatchMain()
