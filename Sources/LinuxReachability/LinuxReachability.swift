// The LinuxReachability module: everything of ReachabilityCore, plus what needs
// Swift concurrency or Dispatch (AsyncStreams.swift, AsyncLookups.swift,
// DispatchDelivery.swift). A program that takes changes through callbacks and
// wants neither runtime linked in imports ReachabilityCore instead.
@_exported import ReachabilityCore
