import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The HTTP side (swift-nio's HTTP/1 server, one event loop): `GET /metrics`,
/// `GET /-/healthy`, `GET /-/ready`, as Prometheus' own exporters serve them,
/// and `GET /`, the status page for an operator (`StatusPage`).
/// A scrape renders the latest state; it never waits for the kernel.
package struct MetricsServer: Service {
    package let channel: any Channel

    /// What one client may hold (issue 52): 2,000 slow connections were once
    /// held for ever, and with 1,024 descriptors /metrics stopped answering.
    package struct Limits: Sendable {
        /// From a connection's start (or its last response) to the end of its
        /// next request: a head sent byte by byte ends here.
        var headerTimeout: Duration = .seconds(10)
        /// A keep-alive connection with no request after its last response.
        /// Longer than Prometheus' usual scrape interval, so that its
        /// connection stays.
        var idleTimeout: Duration = .seconds(60)
        /// Connections open at once; a new one past it is closed at accept.
        var maximumConnections = 512

        /// `maximumConnections`, but at most half the descriptors the process
        /// may open (`RLIMIT_NOFILE`'s soft limit): the rest are the
        /// monitor's, the probes', the pushes' and the files'.
        func effectiveMaximumConnections(descriptorLimit: Int) -> Int {
            max(1, min(maximumConnections, descriptorLimit / 2))
        }
    }

    /// Binds `address` (before any service starts, so a port in use is an
    /// error at start-up, exit 1). `/metrics` and the status page read
    /// `registry`'s snapshots; readiness and the page's configuration are
    /// `exporter`'s.
    package static func bind(_ address: ListenAddress, exporter: Exporter, registry: any SeriesSource,
                             group: MultiThreadedEventLoopGroup, limits: Limits = Limits(),
                             logger: Logger = Logger(label: "reach-exporter")) async throws -> MetricsServer {
        var descriptors = rlimit()
        let descriptorLimit = getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &descriptors) == 0 && descriptors.rlim_cur < rlim_t(Int32.max)
            ? Int(descriptors.rlim_cur) : Int(Int32.max)
        let gate = ConnectionGate(maximum: limits.effectiveMaximumConnections(descriptorLimit: descriptorLimit), logger: logger)
        // Our own Content-Length on every response: NIO's framing takes it
        // off a response to CONNECT (and its body), which left a 405 without
        // a length; the protocol error handler's 400 sets its own.
        let encoder = {
            var encoder = HTTPResponseEncoder.Configuration()
            encoder.automaticallySetFramingHeaders = false
            return encoder
        }()
        // The state series' text, kept from one scrape to the next until they change.
        let cache = ExpositionCache()
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            // TCP_NODELAY at the TCP level: `.socketOption(.tcp_nodelay)` would
            // ask SOL_SOCKET, where its number (1) is SO_DEBUG, which needs
            // CAP_NET_ADMIN; without it NIO closed every accepted connection.
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                guard gate.admit(channel) else { return channel.close() }
                return channel.pipeline.configureHTTPServerPipeline(withErrorHandling: true, withEncoderConfiguration: encoder).flatMapThrowing {
                    try channel.pipeline.syncOperations.addHandler(MetricsHandler(exporter: exporter, registry: registry, cache: cache, limits: limits))
                }
            }
        return MetricsServer(channel: try await bootstrap.bind(host: address.host, port: address.port).get())
    }

    /// Serves until the graceful shutdown, or until the group is cancelled
    /// (another service failed): either closes the listening socket. A
    /// future's wait does not end on cancellation by itself, so the server
    /// once kept a failing group from ending.
    package func run() async throws {
        let channel = self.channel
        try await withTaskCancellationHandler {
            try await withGracefulShutdownHandler {
                try await channel.closeFuture.get()
            } onGracefulShutdown: {
                channel.close(promise: nil)
            }
        } onCancel: {
            channel.close(promise: nil)
        }
    }
}
