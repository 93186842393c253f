// Idiom: Alamofire 5's reachability manager as apps write it: a manager of
// a host made with the module-qualified name (apps often have a type of
// their own called `NetworkReachabilityManager`, or just write it so), and
// `startListening(onQueue:onUpdatePerforming:)` with a switch that names
// every status and connection type. Imports Alamofire alone, as the
// original: the import line is unchanged.

import Alamofire

final class APIReachability {
    private let manager: Alamofire.NetworkReachabilityManager?
    private(set) var status: Alamofire.NetworkReachabilityManager.NetworkReachabilityStatus = .unknown
    /// Called on the main queue with "wifi", "cellular", "offline" or "unknown".
    var onChange: ((String) -> Void)?

    init(host: String = "www.apple.com") {
        manager = Alamofire.NetworkReachabilityManager(host: host)
    }

    func startListening() {
        manager?.startListening(onQueue: .main) { [weak self] status in
            self?.status = status
            switch status {
            case .notReachable:
                self?.onChange?("offline")
            case .unknown:
                self?.onChange?("unknown")
            case .reachable(.ethernetOrWiFi):
                self?.onChange?("wifi")
            case .reachable(.cellular):
                self?.onChange?("cellular")
            }
        }
    }

    func stopListening() {
        manager?.stopListening()
    }

    var isReachable: Bool { manager?.isReachable ?? false }
}
