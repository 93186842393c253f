import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle

/// The HTTP side (swift-nio's HTTP/1 server, one event loop): `GET /metrics`,
/// `GET /-/healthy`, `GET /-/ready`, as Prometheus' own exporters serve them,
/// and `GET /`, the status page for an operator (`StatusPage`).
/// A scrape renders the latest state; it never waits for the kernel.
struct MetricsServer: Service {
    let channel: any Channel

    /// Binds `address` (before any service starts, so a port in use is an
    /// error at start-up, exit 1).
    static func bind(_ address: ListenAddress, exporter: Exporter, group: MultiThreadedEventLoopGroup) async throws -> MetricsServer {
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            // TCP_NODELAY at the TCP level: `.socketOption(.tcp_nodelay)` would
            // ask SOL_SOCKET, where its number (1) is SO_DEBUG, which needs
            // CAP_NET_ADMIN; without it NIO closed every accepted connection.
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline(withErrorHandling: true).flatMapThrowing {
                    try channel.pipeline.syncOperations.addHandler(MetricsHandler(exporter: exporter))
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

final class MetricsHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let exporter: Exporter
    private var request: HTTPRequestHead?

    init(exporter: Exporter) { self.exporter = exporter }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case let .head(head):
            request = head
        case .body:
            break
        case .end:
            guard let head = request else { return }
            request = nil
            respond(to: head, context: context)
        }
    }

    private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
        let path = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? head.uri
        let status: HTTPResponseStatus
        var body: [ByteBuffer]
        var contentType = "text/plain; charset=utf-8"
        var headers = HTTPHeaders()
        if head.method != .GET && head.method != .HEAD {
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
        let keepAlive = head.isKeepAlive
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))), promise: nil)
        if head.method != .HEAD {
            for part in body where part.readableBytes > 0 {
                context.write(wrapOutboundOut(.body(.byteBuffer(part))), promise: nil)
            }
        }
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
            if !keepAlive { channel.close(promise: nil) }
        }
    }
}
