// What `import ReachabilitySwift` makes visible besides its own declarations,
// as Reachability.swift's framework module does: its umbrella header,
// Reachability.h, imports Foundation, and the module exports it, so a file
// that imports only Reachability uses `NotificationCenter`, `DispatchQueue`
// (docs/compat-surface).

@_exported import Foundation
