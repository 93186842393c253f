// What `import CoreTelephony` makes visible besides its own declarations, as
// Apple's module does through its headers: CTTelephonyNetworkInfo.h and
// CTCellularData.h begin with `#import <Foundation/Foundation.h>`, so a file
// that imports CoreTelephony alone uses `NSObject`, `NotificationCenter`.

@_exported import Foundation
