// Idiom: AFNetworking's shared reachability manager from Swift: a status
// block with a switch over every status, then `startMonitoring()`. The
// original imports AFNetworking; the one changed line imports
// AFNetworkReachability.

import AFNetworkReachability

final class AFReachabilityWatcher {
    /// Called on the main queue with "wifi", "wwan", "offline" or "unknown".
    var onChange: ((String) -> Void)?

    func start() {
        AFNetworkReachabilityManager.shared().setReachabilityStatusChange { [weak self] status in
            switch status {
            case .notReachable:
                self?.onChange?("offline")
            case .reachableViaWiFi:
                self?.onChange?("wifi")
            case .reachableViaWWAN:
                self?.onChange?("wwan")
            case .unknown:
                self?.onChange?("unknown")
            @unknown default:
                self?.onChange?("unknown")
            }
        }
        AFNetworkReachabilityManager.shared().startMonitoring()
    }

    func stop() {
        AFNetworkReachabilityManager.shared().stopMonitoring()
        AFNetworkReachabilityManager.shared().setReachabilityStatusChange(nil)
    }
}
