// What a file that imports only Alamofire 5's module sees besides the
// manager (docs/compat-surface/AlamofireReachability.md, header): Foundation,
// as the framework CocoaPods builds for Alamofire exports it (its generated
// umbrella header imports UIKit, which includes Foundation); and the members
// of the types in the manager's signatures (`DispatchQueue`,
// `SCNetworkReachabilityFlags`), which Swift's member lookup finds in every
// loaded module. SystemConfiguration's names (`SCNetworkReachabilityFlags`
// as a type name) are not visible, there or here.

import AlamofireReachability

func visibility_AlamofireReachability() {
    // Foundation (and through it Dispatch), by name.
    let queue = DispatchQueue(label: "visibility")
    let center: NotificationCenter = .default
    let _: URL? = URL(string: "https://www.apple.com")
    let _: Date = Date()
    _ = center

    // Members of the types in the manager's signatures, unnamed.
    guard let manager = NetworkReachabilityManager(host: "www.apple.com") else { return }
    manager.reachabilityQueue.async {}
    let _: Bool? = manager.flags?.contains(.reachable)
    manager.startListening(onQueue: queue) { _ in }
    manager.startListening(onQueue: .main) { _ in }
}
