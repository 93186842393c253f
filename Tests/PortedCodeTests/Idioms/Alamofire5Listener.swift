// Idiom: Alamofire 5's reachability manager as apps write it: a manager of
// a host made with the module-qualified name (apps often have a type of
// their own called `NetworkReachabilityManager`, or just write it so), and
// `startListening(onQueue:onUpdatePerforming:)` with a switch that names
// every status and connection type. The original imports Alamofire and
// qualifies with `Alamofire.`; a port changes that one module name
// ("Porting from iOS": no module of ours takes the original's name).

import AlamofireReachability

final class APIReachability {
    private let manager: AlamofireReachability.NetworkReachabilityManager?
    private(set) var status: AlamofireReachability.NetworkReachabilityManager.NetworkReachabilityStatus = .unknown
    /// Called on the main queue with "wifi", "cellular", "offline" or "unknown".
    var onChange: ((String) -> Void)?

    init(host: String = "www.apple.com") {
        manager = AlamofireReachability.NetworkReachabilityManager(host: host)
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
