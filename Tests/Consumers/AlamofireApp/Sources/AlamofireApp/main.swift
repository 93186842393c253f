// Code shared with iOS: the original's module where it exists, ours on Linux.
#if canImport(Alamofire)
import Alamofire
#else
import AlamofireReachability
#endif

let manager = NetworkReachabilityManager(host: "127.0.0.1")
print("AlamofireApp: \(String(reflecting: NetworkReachabilityManager.self)): 127.0.0.1 is \(manager?.status ?? .unknown)")
