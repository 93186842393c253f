// sc-watch: SystemConfiguration's reachability API as Apple's documentation
// and its Reachability sample use it, unchanged, on Linux. Prints the flags
// of a target now, then each change, from a callback scheduled on this
// thread's run loop that reaches its object through the context's `info`.
//
// `sc-watch` watches the internet (0.0.0.0); `sc-watch HOST` a host name or
// an address. `REACH_ALLOW_WWAN=0 sc-watch` runs it with cellular data off.

import Foundation
import SystemConfiguration

/// One line, written at once (a pipe would hold print's output back).
func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
signal(SIGINT) { _ in exit(0) }
signal(SIGTERM) { _ in exit(0) }

/// The set flags' names (`reachable,isWWAN`), `0` when none is set: the
/// program's own text, as an iOS program has one (Apple's flags have no
/// description of their own, only `SCNetworkReachabilityFlags(rawValue: 2)`).
func names(of flags: SCNetworkReachabilityFlags) -> String {
    let known: [(SCNetworkReachabilityFlags, String)] = [
        (.transientConnection, "transientConnection"), (.reachable, "reachable"),
        (.connectionRequired, "connectionRequired"), (.connectionOnTraffic, "connectionOnTraffic"),
        (.interventionRequired, "interventionRequired"), (.connectionOnDemand, "connectionOnDemand"),
        (.isLocalAddress, "isLocalAddress"), (.isDirect, "isDirect"), (.isWWAN, "isWWAN"),
    ]
    let set = known.filter { flags.contains($0.0) }.map(\.1)
    return set.isEmpty ? "0" : set.joined(separator: ",")
}

final class Watcher {
    let name: String
    var changes = 0
    init(name: String) { self.name = name }

    func report(_ flags: SCNetworkReachabilityFlags, _ event: String) {
        let reachable = flags.contains(.reachable) && !flags.contains(.connectionRequired)
        let via = flags.contains(.isWWAN) ? "WWAN" : "WiFi/Ethernet"
        say("\(event): \(reachable ? "reachable via \(via)" : "not reachable") [\(names(of: flags))]")
    }
}

let arguments = CommandLine.arguments.dropFirst()
let reachability: SCNetworkReachability?
let watcher: Watcher
if let host = arguments.first {
    watcher = Watcher(name: host)
    reachability = SCNetworkReachabilityCreateWithName(nil, host)
} else {
    watcher = Watcher(name: "internet")
    var zeroAddress = sockaddr_in()
    zeroAddress.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
    zeroAddress.sin_family = sa_family_t(AF_INET)
    reachability = withUnsafePointer(to: &zeroAddress) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { SCNetworkReachabilityCreateWithAddress(nil, $0) }
    }
}
guard let reachability else {
    say("cannot watch \(arguments.first ?? "0.0.0.0"): \(String(cString: SCErrorString(SCError())))")
    exit(1)
}

var flags = SCNetworkReachabilityFlags()
guard SCNetworkReachabilityGetFlags(reachability, &flags) else {
    say("no flags: \(String(cString: SCErrorString(SCError())))")
    exit(1)
}
watcher.report(flags, "initial")

// The context holds the watcher: the framework retains it while the
// callback is set, and releases it when the reachability object goes.
var context = SCNetworkReachabilityContext(
    version: 0, info: Unmanaged.passUnretained(watcher).toOpaque(),
    retain: { info in
        UnsafeRawPointer(Unmanaged<Watcher>.fromOpaque(info).retain().toOpaque())
    },
    release: { info in Unmanaged<Watcher>.fromOpaque(info).release() },
    copyDescription: { info in
        Unmanaged.passRetained("watcher of \(Unmanaged<Watcher>.fromOpaque(info).takeUnretainedValue().name)" as CFString)
    })
let callback: SCNetworkReachabilityCallBack = { _, flags, info in
    guard let info else { return }
    let watcher = Unmanaged<Watcher>.fromOpaque(info).takeUnretainedValue()
    watcher.changes += 1
    watcher.report(flags, "changed")
}
guard SCNetworkReachabilitySetCallback(reachability, callback, &context),
      SCNetworkReachabilityScheduleWithRunLoop(reachability, CFRunLoopGetCurrent(), kCFRunLoopDefaultMode) else {
    say("cannot schedule: \(String(cString: SCErrorString(SCError())))")
    exit(1)
}
RunLoop.current.run()
