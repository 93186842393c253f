// What `import Alamofire4` makes visible besides its own declarations, as
// Alamofire 4.9.1's framework module does: its umbrella header
// (Source/Alamofire.h, public in the Xcode project, DEFINES_MODULE) has
// `@import Foundation;`, and the framework's module map exports what its
// headers import; CocoaPods' generated umbrella header imports UIKit, which
// includes Foundation. So Foundation (with Dispatch and the C library) is
// visible to a file that imports only Alamofire. SystemConfiguration is not.

@_exported import Foundation
