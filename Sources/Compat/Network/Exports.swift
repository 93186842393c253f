// What `import Network` makes visible besides its own declarations, as
// Apple's module does through its headers: Dispatch (`start(queue:)` takes a
// `DispatchQueue`; wrappers in the wild import Network alone and write
// `DispatchQueue(label:)`), and the C socket types and constants that its
// endpoint header includes (`sockaddr`, `sa_family_t`, `AF_INET`: Darwin
// there, Glibc here).

#if canImport(Glibc)
@_exported import Glibc
#endif
@_exported import Dispatch
