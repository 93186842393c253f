// Written as the articles our users wrote show it (their own words here): an
// app's manager that combines Alamofire's reachability manager, in Alamofire
// 4's spellings, with CTCellularData, to tell "this app's mobile data is
// switched off" from "no network". Ported with one changed import line:
// `import Alamofire` became `import AlamofireReachability`.

import AlamofireReachability
import CoreTelephony
import Foundation

final class ApiReachabilityManager {
    private let reachabilityManager = NetworkReachabilityManager()
    private let cellularData = CTCellularData()

    private(set) var isNetworkAvailable = false
    private(set) var isMobileDataRestricted = false
    var onUpdate: (() -> Void)?

    func startMonitoring() {
        reachabilityManager?.listener = { [weak self] status in
            guard let self = self else { return }
            switch status {
            case .reachable(.wwan), .reachable(.ethernetOrWiFi):
                self.isNetworkAvailable = true
            case .notReachable, .unknown:
                self.isNetworkAvailable = false
            default:
                self.isNetworkAvailable = true
            }
            self.onUpdate?()
        }
        reachabilityManager?.startListening()

        cellularData.cellularDataRestrictionDidUpdateNotifier = { [weak self] state in
            DispatchQueue.main.async {
                self?.isMobileDataRestricted = (state == .restricted)
                self?.onUpdate?()
            }
        }
    }

    func stopMonitoring() {
        reachabilityManager?.stopListening()
        cellularData.cellularDataRestrictionDidUpdateNotifier = nil
    }

    /// The articles' formula: no network, and cellular data refused to this app.
    var isMobileDataSwitchedOff: Bool {
        !isNetworkAvailable && isMobileDataRestricted
    }
}
