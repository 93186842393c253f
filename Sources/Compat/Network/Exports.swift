// What `import Network` makes visible besides its own declarations, as
// Apple's module does through its headers: Dispatch (`start(queue:)` takes a
// `DispatchQueue`; wrappers in the wild import Network alone and write
// `DispatchQueue(label:)`).

@_exported import Dispatch
