// Idiom: NWPath and NWPathMonitor put behind protocols of the app's own
// (retroactive conformances, so that tests can inject fakes), the monitor's
// protocol restating Network's declaration of the handler word for word,
// `@preconcurrency` and `@Sendable` included: a conformance compiles only if
// the compat module declares the handler exactly as Apple's does. Imports
// Network alone, as the original.

import Network

protocol NetworkPath {
    var status: NWPath.Status { get }
    var isExpensive: Bool { get }
    var isConstrained: Bool { get }
    func usesInterfaceType(_ type: NWInterface.InterfaceType) -> Bool
}

extension NWPath: NetworkPath {}

protocol NetworkPathMonitoring: AnyObject {
    var currentPath: NWPath { get }
    @preconcurrency var pathUpdateHandler: (@Sendable (NWPath) -> Void)? { get set }
    func start(queue: DispatchQueue)
    func cancel()
}

extension NWPathMonitor: NetworkPathMonitoring {}

final class ConnectivityService {
    enum State: Equatable {
        case offline, wifiOrEthernet, cellular, other
    }

    private let monitor: NetworkPathMonitoring

    init(monitor: NetworkPathMonitoring = NWPathMonitor()) {
        self.monitor = monitor
    }

    /// Starts the monitor; `update` is called on `queue` with each new state.
    func start(on queue: DispatchQueue, update: @escaping @Sendable (State) -> Void) {
        monitor.pathUpdateHandler = { path in
            update(ConnectivityService.state(of: path))
        }
        monitor.start(queue: queue)
    }

    func stop() {
        monitor.cancel()
    }

    static func state(of path: NetworkPath) -> State {
        guard path.status == .satisfied else { return .offline }
        if path.usesInterfaceType(.wifi) || path.usesInterfaceType(.wiredEthernet) { return .wifiOrEthernet }
        if path.usesInterfaceType(.cellular) { return .cellular }
        return .other
    }
}
