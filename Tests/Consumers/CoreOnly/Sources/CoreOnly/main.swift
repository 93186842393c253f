// Only the library's front door.
import LinuxReachability

let evaluator = try ReachabilityEvaluator()
print("CoreOnly: 127.0.0.1 is \(try evaluator.evaluate(IPAddress("127.0.0.1")!).status)")
