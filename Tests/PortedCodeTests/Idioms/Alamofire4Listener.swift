// Idiom: Alamofire 4's reachability manager as apps of its time wrote it:
// a stored optional manager, a `listener` closure with a switch over 4.x's
// statuses and connection types (`.wwan`), `startListening()`.
//
// The original imports Alamofire; the one changed line: `import Alamofire`
// → `import Alamofire4`. Where 4.x code spells the module
// (`Alamofire.NetworkReachabilityManager`) the qualifier would have to change
// too (docs/compat-surface/Alamofire4.md); this file spells the type bare.

import Alamofire4

final class NetworkStatusManager {
    let manager: NetworkReachabilityManager?
    private(set) var lastStatus = "unknown"
    /// Called on the main queue with "wifi", "wwan", "offline" or "unknown".
    var onChange: ((String) -> Void)?

    init(host: String = "www.apple.com") {
        manager = NetworkReachabilityManager(host: host)
    }

    func startNetworkReachabilityObserver() {
        manager?.listener = { [weak self] status in
            guard let self = self else { return }
            switch status {
            case .notReachable:
                self.lastStatus = "offline"
            case .unknown:
                self.lastStatus = "unknown"
            case .reachable(.ethernetOrWiFi):
                self.lastStatus = "wifi"
            case .reachable(.wwan):
                self.lastStatus = "wwan"
            }
            self.onChange?(self.lastStatus)
        }
        manager?.startListening()
    }

    func stopNetworkReachabilityObserver() {
        manager?.stopListening()
    }
}
