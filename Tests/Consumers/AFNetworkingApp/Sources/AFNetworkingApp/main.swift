// Code shared with iOS: the original's module where it exists, ours on Linux.
#if canImport(AFNetworking)
import AFNetworking
#else
import AFNetworkReachability
#endif
import Foundation

// AFNetworking's status is unknown until monitoring delivers the first one,
// on the main queue.
var address = sockaddr_in()
address.sin_family = sa_family_t(AF_INET)
address.sin_addr.s_addr = inet_addr("127.0.0.1")
let manager = AFNetworkReachabilityManager(forAddress: &address)
manager.setReachabilityStatusChange { status in
    print("AFNetworkingApp: \(String(reflecting: AFNetworkReachabilityManager.self)): 127.0.0.1 is \(AFStringFromNetworkReachabilityStatus(status))")
    exit(0)
}
manager.startMonitoring()
dispatchMain()
