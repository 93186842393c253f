// rs-watch: Reachability.swift as its README shows its use, on Linux:
// whenReachable / whenUnreachable closures, then startNotifier(), which
// reads the state at once; closures run on the main queue.
//
// Standard input: `wwan off` / `wwan on` flips the process's cellular-data
// switch (iOS's Settings), `REACH_ALLOW_WWAN=0` starts with it off.

import Foundation
import ReachabilityCompatSupport
import ReachabilitySwift

func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
signal(SIGINT) { _ in exit(0) }
signal(SIGTERM) { _ in exit(0) }

let reachability = try! Reachability()
reachability.whenReachable = { reachability in
    say(reachability.connection == .wifi ? "reachable via WiFi" : "reachable via Cellular")
}
reachability.whenUnreachable = { _ in
    say("not reachable")
}
do {
    try reachability.startNotifier()
} catch {
    say("unable to start notifier: \(error)")
    exit(1)
}

Thread.detachNewThread {
    while let line = readLine() { CompatEnvironment.allowsWWAN = line != "wwan off" }
}
dispatchMain()
