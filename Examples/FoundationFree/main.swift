// foundation-free: a program that uses ReachabilityCore and Reachability
// (evaluation, a monitor with a Dispatch delivery and an AsyncStream) and
// nothing else. FoundationFreeTests reads its ELF dynamic section: it must
// not need libFoundation, libFoundationEssentials or libFoundationInternationalization.
// The compat modules may use Foundation; the engine may not.

import Dispatch
import LinuxReachability

let evaluator = try ReachabilityEvaluator()
print(try evaluator.evaluate(IPAddress("127.0.0.1")!).flags)
let monitor = try ReachabilityMonitor(targets: [.internet])
monitor.onChange(on: .dispatch(DispatchQueue(label: "changes"))) { print($0.status) }
let stream = monitor.changes()
_ = stream
monitor.stop()
