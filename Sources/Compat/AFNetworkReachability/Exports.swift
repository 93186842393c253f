// What `import AFNetworkReachability` makes
// visible besides its own declarations, as AFNetworking's framework module
// does (its module map exports what its headers import):
// AFNetworkReachabilityManager.h imports Foundation and SystemConfiguration.

@_exported import Foundation
@_exported import SystemConfiguration
