import NIOCore
import NIOHTTP1
import NIOTLS
import Synchronization

/// The handshake's future, from the channel's initializer to `connection()`.
final class HandshakeBox: Sendable {
    let future = Mutex<EventLoopFuture<Void>?>(nil)
}

/// A request and where its answer goes.
struct PushRequest: Sendable {
    var head: HTTPRequestHead
    var body: ByteBuffer
    var answer: EventLoopPromise<PushAnswer>
}

struct PushAnswer: Sendable {
    var status: HTTPResponseStatus
    /// The body's first 512 bytes, as text on one line, control characters escaped.
    var reason: String
    var keepAlive: Bool
    /// A redirect's `Location`, as sent.
    var location: String?
}

/// Writes a `PushRequest` as HTTP/1.1 and completes its promise with the
/// answer; an error or the connection's end fails it.
final class PushHandler: ChannelDuplexHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundIn = PushRequest
    typealias OutboundOut = HTTPClientRequestPart

    private var waiting: EventLoopPromise<PushAnswer>?
    private var head: HTTPResponseHead?
    private var body: [UInt8] = []
    /// https: completed when TLS's handshake is, failed with its error.
    private var readyPromise: EventLoopPromise<Void>?

    init(ready: EventLoopPromise<Void>?) { readyPromise = ready }

    /// Fails what still waits (each promise completed once, then forgotten).
    private func fail(_ failure: PushFailure) {
        readyPromise?.fail(failure)
        readyPromise = nil
        waiting?.fail(failure)
        waiting = nil
    }

    /// Leaving the pipeline (the channel closed, connected or not): nothing
    /// may be left waiting, or its promise would leak.
    func handlerRemoved(context: ChannelHandlerContext) {
        fail(PushFailure(kind: .closed, description: "the connection closed before an answer"))
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? TLSUserEvent, case .handshakeCompleted = event {
            readyPromise?.succeed(())
            readyPromise = nil
        }
        context.fireUserInboundEventTriggered(event)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let request = unwrapOutboundIn(data)
        waiting = request.answer
        context.write(wrapOutboundOut(.head(request.head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(request.body))), promise: nil)
        context.write(wrapOutboundOut(.end(nil)), promise: promise)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case let .head(head):
            self.head = head
            body.removeAll(keepingCapacity: true)
        case var .body(buffer):
            let room = 512 - body.count
            if room > 0, let bytes = buffer.readBytes(length: min(room, buffer.readableBytes)) { body += bytes }
        case .end:
            guard let head, let waiting else { return }
            self.waiting = nil
            self.head = nil
            // (A receiver's words reach the journal and terminals: no escape sequence of theirs may act there.)
            var text = String(decoding: body, as: UTF8.self)
            while text.hasSuffix("\n") || text.hasSuffix("\r") { text.removeLast() }
            waiting.succeed(PushAnswer(status: head.status, reason: escapingControlCharacters(text), keepAlive: head.isKeepAlive,
                                       location: head.headers.first(name: "Location")))
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        let failure = RemoteWriteClient.failure(error, authority: plainAddress(context.remoteAddress))
        fail(failure)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail(PushFailure(kind: .closed, description: "the receiver closed the connection before answering"))
        context.fireChannelInactive()
    }
}
