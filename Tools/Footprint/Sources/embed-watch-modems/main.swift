import ReachabilityCore
import ReachabilityModemManager
#if canImport(Glibc)
import Glibc
#endif

// embed-watch with ModemManager's radio facts (the ReachabilityModemManager
// product): the WWAN kind and technology of a modem's links from the modem.
// measure.sh (WITH_MODEMS=1) builds it with the firmware flags that keep the
// modem layer (firmware-flags.sh --modem-facts) and reports what it adds.
let monitor = try ReachabilityMonitor(targets: [.internet])
let once = CommandLine.arguments.count == 1
let token = monitor.onChange { change in
    print(change.isReachable ? "reachable" : "not reachable", change.interface ?? "-", change.evaluation.primary?.mask.description ?? "-")
    fflush(nil)
    if once { exit(0) }
}
try ModemManagerRadio.shared.follow(into: .processDefault)
try monitor.start()
while true { pause() }
