// The ReachabilityCore module: the engine over the pure model. Kernel/ is the
// one seam to the C core (CReachability): it reads the kernel and hands typed
// facts to Evaluation, Monitor and Probes; the decisions on those facts are
// ReachabilityModel's, re-exported here so that one import gives both.
@_exported import ReachabilityModel
