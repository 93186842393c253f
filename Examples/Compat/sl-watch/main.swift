// sl-watch: SLReachability as its article shows its use, on Linux: create it
// (it starts observing by itself) and observe its mask notification.
//
// Standard input: `wwan off` / `wwan on` flips the process's cellular-data
// switch (iOS's Settings); `radio wwan0 lte` says what the modem is on
// (`radio wwan0 -` forgets it), as a modem driver would.

import Foundation
import ReachabilityCompatSupport
import SLReachability

func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
signal(SIGINT) { _ in exit(0) }
signal(SIGTERM) { _ in exit(0) }

func describe(_ reachability: SLReachability) -> String {
    "\(SLNetWorkStatusMask2String(reachability.netWorkMask) ?? "?") (mask \(reachability.netWorkMask.rawValue), "
        + "status \(reachability.reachStatus), wwan \(reachability.wwanType))"
}

let reachability: SLReachability = SLReachability.forInternetConnection()
say("initial: \(describe(reachability))")
NotificationCenter.default.addObserver(forName: Notification.Name(kSLReachabilityMaskChanged), object: reachability,
                                       queue: nil) { _ in
    say("mask changed: \(describe(reachability))")
}

Thread.detachNewThread {
    while let line = readLine() {
        let fields = line.split(separator: " ").map(String.init)
        if fields.count == 3, fields[0] == "radio" {
            CompatEnvironment.setRadioTechnology(fields[2] == "-" ? nil : fields[2], for: fields[1])
        } else {
            CompatEnvironment.allowsWWAN = line != "wwan off"
        }
    }
}
dispatchMain()
