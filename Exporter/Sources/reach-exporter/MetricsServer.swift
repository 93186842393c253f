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
struct MetricsServer: Service {
    let channel: any Channel

    /// What one client may hold (issue 52): 2,000 slow connections were once
    /// held for ever, and with 1,024 descriptors /metrics stopped answering.
    struct Limits {
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
    /// error at start-up, exit 1).
    static func bind(_ address: ListenAddress, exporter: Exporter, group: MultiThreadedEventLoopGroup,
                     limits: Limits = Limits(), logger: Logger = Logger(label: "reach-exporter")) async throws -> MetricsServer {
        var descriptors = rlimit()
        let descriptorLimit = getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &descriptors) == 0 && descriptors.rlim_cur < rlim_t(Int32.max)
            ? Int(descriptors.rlim_cur) : Int(Int32.max)
        let gate = ConnectionGate(maximum: limits.effectiveMaximumConnections(descriptorLimit: descriptorLimit), logger: logger)
        // Our own Content-Length on every response: NIO's framing takes it
        // off a response to CONNECT (and its body), which left a 405 without
        // a length; the protocol error handler's 400 sets its own.
        var encoder = HTTPResponseEncoder.Configuration()
        encoder.automaticallySetFramingHeaders = false
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
                    try channel.pipeline.syncOperations.addHandler(MetricsHandler(exporter: exporter, limits: limits))
                }
            }
        return MetricsServer(channel: try await bootstrap.bind(host: address.host, port: address.port).get())
    }

    /// Serves until the graceful shutdown, or until the group is cancelled
    /// (another service failed): either closes the listening socket. A
    /// future's wait does not end on cancellation by itself, so the server
    /// once kept a failing group from ending.
    func run() async throws {
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

/// Counts the open connections; past the most, a new one is closed at once
/// and the log says so (once until the count falls below the most again).
final class ConnectionGate: Sendable {
    let maximum: Int
    private let logger: Logger
    /// Open connections, and whether the log has said the cap is reached.
    private let state = Mutex<(open: Int, saidFull: Bool)>((0, false))

    init(maximum: Int, logger: Logger) {
        self.maximum = maximum
        self.logger = logger
    }

    /// Whether `channel` may be served; if it may, it counts until it closes.
    func admit(_ channel: any Channel) -> Bool {
        let (admitted, say) = state.withLock { state -> (Bool, Bool) in
            guard state.open >= maximum else {
                state.open += 1
                return (true, false)
            }
            defer { state.saidFull = true }
            return (false, !state.saidFull)
        }
        if say {
            logger.warning("\(maximum) connections open, the most allowed: new connections are closed until one ends")
        }
        guard admitted else { return false }
        channel.closeFuture.whenComplete { _ in
            self.state.withLock { state in
                state.open -= 1
                if state.open < self.maximum { state.saidFull = false }
            }
        }
        return true
    }
}

final class MetricsHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let exporter: Exporter
    private let limits: MetricsServer.Limits
    private var request: HTTPRequestHead?
    /// Closes the connection unless a whole request has come by then: the
    /// header timeout from its start, the idle timeout after a response.
    private var deadline: Scheduled<Void>?

    init(exporter: Exporter, limits: MetricsServer.Limits = MetricsServer.Limits()) {
        self.exporter = exporter
        self.limits = limits
    }

    private func arm(_ timeout: Duration, _ context: ChannelHandlerContext) {
        deadline?.cancel()
        let channel = context.channel
        let (seconds, attoseconds) = timeout.components
        deadline = context.eventLoop.scheduleTask(in: .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)) {
            channel.close(promise: nil)
        }
    }

    func handlerAdded(context: ChannelHandlerContext) {
        arm(limits.headerTimeout, context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
        context.fireChannelInactive()
    }

    /// A request that is not HTTP (the protocol error handler has answered
    /// 400 with `Connection: close`): the connection is closed, as it says.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case let .head(head):
            request = head
        case .body:
            break
        case .end:
            guard let head = request else { return }
            request = nil
            deadline?.cancel()
            deadline = nil
            respond(to: head, context: context)
        }
    }

    private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
        let path = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? head.uri
        let status: HTTPResponseStatus
        var body: [ByteBuffer]
        var contentType = "text/plain; charset=utf-8"
        var headers = HTTPHeaders()
        if head.method == .CONNECT {
            // A response to CONNECT has no body (RFC 9110 §9.3.6): a length of
            // 0, and the connection closed (the decoder reads no further).
            (status, body) = (.methodNotAllowed, [])
            headers.add(name: "Allow", value: "GET, HEAD")
        } else if head.method != .GET && head.method != .HEAD {
            (status, body) = (.methodNotAllowed, [ByteBuffer(string: "Only GET and HEAD.\n")])
            headers.add(name: "Allow", value: "GET, HEAD")
        } else {
            switch path {
            case "/metrics":
                status = .ok
                let (state, counters) = exporter.scrape()
                body = [state, counters]
                contentType = "text/plain; version=0.0.4; charset=utf-8"
            case "/-/healthy":
                (status, body) = (.ok, [ByteBuffer(string: "Healthy.\n")])
            case "/-/ready":
                (status, body) = exporter.isReady ? (.ok, [ByteBuffer(string: "Ready.\n")])
                    : (.serviceUnavailable, [ByteBuffer(string: "Not ready: waiting for the first answers.\n")])
            case "/", "/index.html":
                (status, body) = (.ok, [ByteBuffer(string: StatusPage(exporter: exporter, version: ReachExporter.version).render())])
                contentType = "text/html; charset=utf-8"
                headers.add(name: "Cache-Control", value: "no-store")
            default:
                (status, body) = (.notFound, [ByteBuffer(string: "Not found: /, /metrics, /-/healthy, /-/ready.\n")])
            }
        }
        headers.add(name: "Content-Type", value: contentType)
        headers.add(name: "Content-Length", value: String(body.reduce(0) { $0 + $1.readableBytes }))
        let keepAlive = head.isKeepAlive && head.method != .CONNECT
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))), promise: nil)
        if head.method != .HEAD && head.method != .CONNECT {
            for part in body where part.readableBytes > 0 {
                context.write(wrapOutboundOut(.body(.byteBuffer(part))), promise: nil)
            }
        }
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
            if !keepAlive { channel.close(promise: nil) }
        }
        if keepAlive { arm(limits.idleTimeout, context) }
    }
}
