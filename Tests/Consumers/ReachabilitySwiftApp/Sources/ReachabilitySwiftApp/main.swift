// Code shared with iOS: the original's module where it exists, ours on Linux.
#if canImport(Reachability)
import Reachability
#else
import ReachabilitySwift
#endif

let reachability = try Reachability(hostname: "127.0.0.1")
print("ReachabilitySwiftApp: \(String(reflecting: Reachability.self)): 127.0.0.1 is \(reachability.connection)")
