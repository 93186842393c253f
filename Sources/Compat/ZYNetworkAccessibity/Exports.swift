// What `import ZYNetworkAccessibity` makes visible besides its own
// declarations: what ZYNetworkAccessibity.h imports, Foundation (its .m
// imports SystemConfiguration and CoreTelephony, which stay private).

@_exported import Foundation
