// Idiom: a one-off connectivity check with Swift concurrency, iterating a
// monitor made in the loop header and leaving with the first path (Network's
// iterator keeps its monitor alive for the loop, and the loop's end cancels
// it). Imports Network alone, as the original.

import Network

enum ConnectivityProbe {
    enum Result: Equatable {
        case wifiOrEthernet, cellular, otherInterface, offline
    }

    static func current() async -> Result {
        for await path in NWPathMonitor() {
            guard path.status == .satisfied else { return .offline }
            if path.usesInterfaceType(.wifi) || path.usesInterfaceType(.wiredEthernet) { return .wifiOrEthernet }
            return path.usesInterfaceType(.cellular) ? .cellular : .otherInterface
        }
        return .offline
    }

    /// The first two paths, for code that waits for the path to settle.
    static func firstPaths(_ count: Int = 2) async -> [NWPath.Status] {
        var statuses: [NWPath.Status] = []
        for await path in NWPathMonitor() {
            statuses.append(path.status)
            if statuses.count == count { break }
        }
        return statuses
    }
}
