// What `import SLReachability` makes visible besides its own declarations:
// what SLReachability.h imports (Foundation, SystemConfiguration,
// CoreTelephony), which a bridging header or its pod's module makes visible.

@_exported import CoreTelephony
@_exported import Foundation
@_exported import SystemConfiguration
