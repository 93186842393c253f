// A Linux server: the real Alamofire for HTTP (its NetworkReachabilityManager
// is compiled out where there is no SystemConfiguration) and ours for
// reachability, imported in the same file.
import Alamofire
import AlamofireReachability
import Foundation

// A module-qualified name still finds Alamofire's module: no type or module of
// ours is called Alamofire.
print("AlamofireServer: Alamofire \(Alamofire.AFInfo.version) beside \(String(reflecting: NetworkReachabilityManager.self))")
let manager = NetworkReachabilityManager(host: "127.0.0.1")!
manager.startListening(onQueue: .main) { status in
    print("AlamofireServer: 127.0.0.1 is \(status)")
    exit(0)
}
dispatchMain()
