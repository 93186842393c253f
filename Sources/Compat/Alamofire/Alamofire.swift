// The module name Alamofire's own code spells: `import Alamofire`, and
// `Alamofire.NetworkReachabilityManager` in qualified positions (Swift looks
// a qualified name up in the modules a module re-exports). Alamofire 5.x;
// Alamofire 4.x code imports `Alamofire4` (docs/compat-surface/Alamofire4.md).

@_exported import AlamofireReachability
