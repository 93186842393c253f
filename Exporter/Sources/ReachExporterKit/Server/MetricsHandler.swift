import LinuxReachability
import NIOCore
import NIOHTTP1

/// One connection's requests: `/metrics` (the registry's snapshot as text),
/// `/` (the status page, from the same kind of snapshot), readiness and
/// health; its deadlines (`MetricsServer.Limits`).
final class MetricsHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let exporter: Exporter
    private let registry: any SeriesSource
    private let cache: ExpositionCache
    private let limits: MetricsServer.Limits
    private var request: HTTPRequestHead?
    /// Closes the connection unless a whole request has come by then: the
    /// header timeout from its start, the idle timeout after a response.
    private var deadline: Scheduled<Void>?

    init(exporter: Exporter, registry: any SeriesSource, cache: ExpositionCache,
         limits: MetricsServer.Limits = MetricsServer.Limits()) {
        self.exporter = exporter
        self.registry = registry
        self.cache = cache
        self.limits = limits
    }

    private func arm(_ timeout: Duration, _ context: ChannelHandlerContext) {
        deadline?.cancel()
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: .nanoseconds(Int64(clamping: timeout.clampedNanoseconds))) {
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
                body = cache.exposition(of: registry.snapshot())
                contentType = "text/plain; version=0.0.4; charset=utf-8"
            case "/-/healthy":
                (status, body) = (.ok, [ByteBuffer(string: "Healthy.\n")])
            case "/-/ready":
                (status, body) = exporter.isReady ? (.ok, [ByteBuffer(string: "Ready.\n")])
                    : (.serviceUnavailable, [ByteBuffer(string: "Not ready: waiting for the first answers.\n")])
            case "/", "/index.html":
                (status, body) = (.ok, [ByteBuffer(string: StatusPage(snapshot: registry.snapshot(), exporter: exporter, version: ReachExporter.version).render())])
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
