import ReachabilityCore
#if canImport(Glibc)
import Glibc
#endif

// The smallest useful embedding: watch `internet`, print each change.
// With an argument it waits for ever (measure.sh reads its RSS and threads);
// without, it exits after the initial state.
let monitor = try ReachabilityMonitor(targets: [.internet])
let once = CommandLine.arguments.count == 1
let token = monitor.onChange { change in
    print(change.isReachable ? "reachable" : "not reachable", change.interface ?? "-")
    fflush(nil)
    if once { exit(0) }
}
try monitor.start()
while true { pause() }
