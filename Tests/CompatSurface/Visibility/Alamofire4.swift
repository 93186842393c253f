// What a file that imports only Alamofire 4's module sees besides its own
// declarations (docs/compat-surface/Alamofire4.md): Foundation, as the
// original's framework module exports it (Alamofire.h imports Foundation),
// with Dispatch.

import Alamofire4

func visibility_Alamofire4() {
    let manager = NetworkReachabilityManager(host: "www.apple.com")
    manager?.listenerQueue = DispatchQueue(label: "reachability")
    let _: URL? = URL(string: "https://www.apple.com")
    NotificationCenter.default.post(name: Notification.Name("example"), object: manager)
}
