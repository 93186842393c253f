// What `import AlamofireReachability` makes visible
// besides its own declarations, as Alamofire's framework module does: built
// as a framework (Carthage, CocoaPods, Xcode), its umbrella header imports
// Foundation and the module exports it, so a file that imports only
// Alamofire uses `DispatchQueue`, `URL`, `NotificationCenter` (docs/compat-surface).

@_exported import Foundation
