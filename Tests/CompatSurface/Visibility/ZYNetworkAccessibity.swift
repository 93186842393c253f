// What a Swift file of an app that compiles ZYNetworkAccessibity sees besides
// its own names (docs/compat-surface/ZYNetworkAccessibity.md, header): the
// header imports only <Foundation/Foundation.h>, and a bridging header's
// imports are visible in every Swift file of the target. Here the one import
// a port adds must give the same. (SystemConfiguration, CoreTelephony and
// UIKit are the .m's imports: not visible, there or here.)

import ZYNetworkAccessibity

func visibility_ZYNetworkAccessibity() {
    // Foundation (and Dispatch), by name: the README's observer, in Swift.
    let observer = NotificationCenter.default.addObserver(forName: .ZYNetworkAccessibityChanged, object: nil,
                                                          queue: OperationQueue.main) { (_: Notification) in
        if ZYNetworkAccessibity.currentState() == .restricted {
            NSLog("network permission is off")
        }
    }
    NotificationCenter.default.removeObserver(observer)
    let _: NSObject = ZYNetworkAccessibity()
    DispatchQueue.main.async { ZYNetworkAccessibity.start() }
}
