// What `import ReachabilitySwift4` makes visible besides its own
// declarations, as Reachability.swift 4.3.1's framework module does: its
// umbrella header (Sources/Reachability.h, public in the Xcode project)
// has `#import <Foundation/Foundation.h>`, and the framework's module map
// exports what its headers import; CocoaPods' generated umbrella header
// imports UIKit, which includes Foundation. So Foundation (with Dispatch and
// the C library) is visible to a file that imports only Reachability.
// SystemConfiguration is not.

@_exported import Foundation
