// typecheck: expect diagnostic: case will never be executed
// A switch written for Reachability.swift 5.0.0–5.1.x, where `none` was a
// deprecated case, listing it after the three others. Against 5.2.x on iOS
// `.none` is a static constant equal to `.unavailable`, so the compiler warns
// that the case will never be executed (besides the deprecation); ours is the
// same declaration, so the same warning must appear here: if `.none` became
// a case, a 5.2.x switch without it (ReachabilitySwiftSwitch.swift) would no
// longer be exhaustive.

import ReachabilitySwift

func label(of connection: Reachability.Connection) -> String {
    switch connection {
    case .unavailable: return "offline"
    case .wifi: return "Wi-Fi"
    case .cellular: return "cellular"
    case .none: return "offline"
    }
}
