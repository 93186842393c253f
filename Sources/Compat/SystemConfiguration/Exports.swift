// What `import SystemConfiguration` makes visible besides its own
// declarations, as Apple's module does through SCNetworkReachability.h's
// includes: the C socket types and constants (`sockaddr_in`, `sockaddr`,
// `sa_family_t`, `AF_INET`: Darwin there, Glibc here), Dispatch (for
// `SCNetworkReachabilitySetDispatchQueue`), and CoreFoundation (SCTypes.swift).

#if canImport(Glibc)
@_exported import Glibc
#endif
@_exported import Dispatch
