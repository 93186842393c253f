// What a file that imports only `CoreTelephony` sees besides the module's own
// declarations (docs/compat-surface/CoreTelephony.md, header). Apple's
// CTTelephonyNetworkInfo.h begins with `#import <Foundation/Foundation.h>`
// (its classes are NSObject subclasses): Foundation, and through it
// Dispatch, is visible to an importer of the framework module.

import CoreTelephony

final class VisibilityTelephonyObserver: NSObject {
    let info = CTTelephonyNetworkInfo()
    var token: NSObjectProtocol?

    func visibility_CoreTelephony() {
        // NotificationCenter with CoreTelephony's NSNotification.Name, as apps observe it.
        token = NotificationCenter.default.addObserver(forName: .CTServiceRadioAccessTechnologyDidChange,
                                                       object: nil, queue: OperationQueue.main) { (note: Notification) in
            if let service = note.object as? String { _ = CTTelephonyNetworkInfo().serviceCurrentRadioAccessTechnology?[service] }
        }
        let _: NSNotification.Name = .CTRadioAccessTechnologyDidChange
        let _: Notification.Name = .CTServiceRadioAccessTechnologyDidChange
        if let token { NotificationCenter.default.removeObserver(token) }

        // NSObject's members on CoreTelephony's classes.
        let _: Bool = info.isEqual(CTTelephonyNetworkInfo())
        let _: String = CTCellularData().description

        // Dispatch, through Foundation: the notifier runs on a global queue.
        DispatchQueue.main.async {}
        let _: Date = Date()
    }
}
