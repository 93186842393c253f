// CoreTelephony: see README, "Porting from iOS".
import ReachabilityCompatSupport
