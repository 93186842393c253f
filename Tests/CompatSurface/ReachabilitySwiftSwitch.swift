// typecheck: warnings are errors
// A Reachability.swift 5.2.x switch, as iOS code writes it: the three cases,
// no `default`. `.none` is a deprecated static constant in 5.2.x (a
// deprecated case only in 5.0.0–5.1.x), so this switch is exhaustive there
// and must be here, with no warning.

import ReachabilitySwift

func label(of connection: Reachability.Connection) -> String {
    switch connection {
    case .unavailable: return "offline"
    case .wifi: return "Wi-Fi"
    case .cellular: return "cellular"
    }
}
