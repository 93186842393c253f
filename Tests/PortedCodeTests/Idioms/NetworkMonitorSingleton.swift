// Idiom: the app-wide NWPathMonitor singleton of countless tutorials:
// `static let shared`, a private initialiser, the handler assigned after
// `start(queue:)` (the first path is delivered on the queue, after the
// caller's next line), a connection type worked out from the interface
// types. Imports Network alone (it brings Dispatch). Swift 5 mode only, as
// in the wild: the handler captures the non-Sendable singleton, which Swift
// 6 refuses on Apple's platforms too.

import Network

final class NetworkMonitor {
    enum ConnectionType {
        case wifi, cellular, ethernet, unknown
    }

    static let shared = NetworkMonitor()

    private let queue = DispatchQueue(label: "NetworkMonitor")
    private let monitor: NWPathMonitor

    private(set) var isConnected = false
    private(set) var isExpensive = false
    private(set) var connectionType: ConnectionType = .unknown
    /// Called on the monitor's queue after each update.
    var onUpdate: ((NetworkMonitor) -> Void)?

    private init() {
        monitor = NWPathMonitor()
    }

    func startMonitoring() {
        monitor.start(queue: queue)
        monitor.pathUpdateHandler = { [weak self] path in
            guard let self = self else { return }
            self.isConnected = path.status == .satisfied
            self.isExpensive = path.isExpensive
            self.connectionType = self.connectionType(of: path)
            self.onUpdate?(self)
        }
    }

    func stopMonitoring() {
        monitor.cancel()
    }

    private func connectionType(of path: NWPath) -> ConnectionType {
        if path.usesInterfaceType(.wifi) {
            return .wifi
        } else if path.usesInterfaceType(.cellular) {
            return .cellular
        } else if path.usesInterfaceType(.wiredEthernet) {
            return .ethernet
        } else {
            return .unknown
        }
    }
}
