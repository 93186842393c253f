// What `import AppleReachability` makes visible besides its own
// declarations: what the sample's Reachability.h imports, which a bridging
// header makes visible to the app's Swift files: Foundation,
// SystemConfiguration (and with it the socket types of netinet/in.h).

@_exported import Foundation
@_exported import SystemConfiguration
