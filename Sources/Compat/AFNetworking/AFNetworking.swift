// The module name AFNetworking's own code spells: `import AFNetworking`, and
// `AFNetworking.AFNetworkReachabilityManager` in qualified positions (Swift
// looks a qualified name up in the modules a module re-exports).

@_exported import AFNetworkReachability
