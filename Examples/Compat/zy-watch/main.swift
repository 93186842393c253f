// zy-watch: ZYNetworkAccessibity as its README shows its use, on Linux: a
// state notifier, then start(); the state arrives on the main queue, and
// again only when it changes.
//
// Standard input: `wwan off` / `wwan on` flips the process's cellular-data
// switch (iOS's Settings), `REACH_ALLOW_WWAN=0` starts with it off.

import Foundation
import ReachabilityCompatSupport
import ZYNetworkAccessibity

func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
signal(SIGINT) { _ in exit(0) }
signal(SIGTERM) { _ in exit(0) }

ZYNetworkAccessibity.setAlertEnable(true)
ZYNetworkAccessibity.setStateDidUpdateNotifier { state in
    switch state {
    case .accessible: say("state: accessible")
    case .restricted: say("state: restricted")
    case .unknown: say("state: unknown")
    case .checking: say("state: checking")
    }
}
ZYNetworkAccessibity.start()

Thread.detachNewThread {
    while let line = readLine() { CompatEnvironment.allowsWWAN = line != "wwan off" }
}
dispatchMain()
