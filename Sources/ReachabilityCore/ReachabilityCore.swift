// The ReachabilityCore module: the engine over the kernel seam
// (ReachabilityKernel: typed kernel facts out of the C core) and the pure
// model (ReachabilityModel: the decisions on those facts). Both are
// re-exported here, so that one import gives the whole public API.
@_exported import ReachabilityKernel
@_exported import ReachabilityModel
