import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOTLS
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// One receiver's HTTP/1.1 connection (swift-nio, with swift-nio-ssl for
/// https): POSTs one request at a time and keeps the connection for the
/// next, as Prometheus' own client does (a TLS handshake every 15 s would
/// cost an LTE uplink more than the samples). Used by one task only.
final class RemoteWriteClient {
    let configuration: RemoteWriteConfiguration
    private let group: any EventLoopGroup
    private let tlsContext: NIOSSLContext?
    private let userAgent: String
    private var channel: (any Channel)?
    /// Where `channel` goes (a redirect may lead elsewhere).
    private var channelOrigin: String?
    /// Redirects followed for one request at most (Go's client, Prometheus': 10).
    static let maxRedirects = 10

    init(configuration: RemoteWriteConfiguration, group: any EventLoopGroup, userAgent: String) throws(ConfigurationError) {
        self.configuration = configuration
        self.group = group
        self.userAgent = userAgent
        tlsContext = try Self.tlsContext(configuration)
    }

    /// The TLS context of an https URL (nil for http): its CA, client
    /// certificate and key read now, so that a missing or bad file is a
    /// configuration error at start.
    static func tlsContext(_ configuration: RemoteWriteConfiguration) throws(ConfigurationError) -> NIOSSLContext? {
        guard configuration.url.secure else { return nil }
        let tls = configuration.tls
        let path = "remote_write \(configuration.name): tls_config"
        var settings = TLSConfiguration.makeClientConfiguration()
        do {
            if let ca = tls.caFile {
                let roots = try NIOSSLCertificate.fromPEMFile(ca)
                guard !roots.isEmpty else { throw ConfigurationError("\(path).ca_file \(ca): no certificate in it") }
                settings.trustRoots = .certificates(roots)
            }
            if let cert = tls.certFile, let key = tls.keyFile {
                settings.certificateChain = try NIOSSLCertificate.fromPEMFile(cert).map { .certificate($0) }
                settings.privateKey = .privateKey(try NIOSSLPrivateKey(file: key, format: .pem))
            }
            if tls.insecureSkipVerify { settings.certificateVerification = .none }
            return try NIOSSLContext(configuration: settings)
        } catch let error as ConfigurationError {
            throw error
        } catch {
            throw ConfigurationError("\(path): \(error) (reading \([tls.caFile, tls.certFile, tls.keyFile].compactMap { $0 }.joined(separator: ", ")))")
        }
    }

    /// POSTs `body` (a snappy-compressed WriteRequest) and waits for the
    /// answer, `remote_timeout` at most. A kept connection that turns out to
    /// be closed (the receiver let it idle out) is replaced once at no cost.
    /// 307 and 308 are followed with the body (as Prometheus' Go client
    /// does), `maxRedirects` hops at most and never from https to http; the
    /// credentials go only to the configured host. Any other 3xx is a
    /// configuration error that names its Location, retried.
    func post(_ body: [UInt8]) async -> PushOutcome {
        let authorization: String?
        do {
            authorization = try self.authorization()
        } catch {
            return .failed(error)
        }
        var target = configuration.url
        var hops = 0
        while true {
            let reused = channel != nil && channelOrigin == target.origin
            var answer = await attempt(body, to: target, authorization: target.host == configuration.url.host ? authorization : nil)
            if reused, case .failure(let failure) = answer, failure.kind == .closed {
                answer = await attempt(body, to: target, authorization: target.host == configuration.url.host ? authorization : nil)
            }
            let response: PushAnswer
            switch answer {
            case let .failure(failure): return .failed(failure)
            case let .success(success): response = success
            }
            let code = response.status.code
            if (200 ..< 300).contains(code) { return .accepted }
            guard (300 ..< 400).contains(code) else { return .answered(response.status, reason: response.reason) }
            let said = "HTTP \(code) \(response.status.reasonPhrase) from \(target) to '\(escapingControlCharacters(RemoteURL.redacted(response.location ?? "")))'"
            guard code == 307 || code == 308 else {
                return .failed(PushFailure(kind: .redirect, description: "\(said): a configuration error (only 307 and 308 are followed; set url to where it points)"))
            }
            guard hops < Self.maxRedirects else {
                return .failed(PushFailure(kind: .redirect, description: "\(said): more than \(Self.maxRedirects) redirects, a configuration error"))
            }
            guard let location = response.location, let next = target.resolving(location) else {
                return .failed(PushFailure(kind: .redirect, description: "\(said): not an http:// or https:// URL, a configuration error"))
            }
            guard next.secure || !target.secure else {
                return .failed(PushFailure(kind: .redirect, description: "\(said): refused (from https to http), a configuration error"))
            }
            target = next
            hops += 1
        }
    }

    /// Closes the connection (at shutdown, or after an answer that asked for it).
    func close() {
        channel?.close(promise: nil)
        channel = nil
        channelOrigin = nil
    }

    /// The Authorization header's value, its secret read now (a rotated file
    /// is picked up). A file that cannot be read, or is empty (rotated:
    /// deleted, or created and not yet written), is a failure to retry, its
    /// reason said: never a request with an empty secret.
    private func authorization() throws(PushFailure) -> String? {
        switch configuration.authorization {
        case let .basic(username, password)?:
            return "Basic " + base64(Array("\(username):\(try secret(password, "basic_auth.password_file"))".utf8))
        case let .bearer(token)?:
            return "Bearer \(try secret(token, "bearer_token_file"))"
        case nil:
            return nil
        }
    }

    private func attempt(_ body: [UInt8], to target: RemoteURL, authorization: String?) async -> Result<PushAnswer, PushFailure> {
        let channel: any Channel
        do {
            channel = try await connection(to: target)
        } catch let failure as PushFailure {
            return .failure(failure)
        } catch {
            return .failure(PushFailure(kind: .connect, description: "cannot connect to \(target.authority): \(plainReason(error))"))
        }
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: target.authority)
        headers.add(name: "User-Agent", value: userAgent)
        headers.add(name: "Content-Type", value: "application/x-protobuf")
        headers.add(name: "Content-Encoding", value: "snappy")
        headers.add(name: "X-Prometheus-Remote-Write-Version", value: "0.1.0")
        headers.add(name: "Content-Length", value: String(body.count))
        if let authorization { headers.add(name: "Authorization", value: authorization) }
        for header in configuration.headers { headers.add(name: header.name, value: header.value) }
        let head = HTTPRequestHead(version: .http1_1, method: .POST, uri: target.path, headers: headers)
        let answer = channel.eventLoop.makePromise(of: PushAnswer.self)
        let timeout = configuration.remoteTimeout
        let authority = target.authority
        let deadline = channel.eventLoop.scheduleTask(in: .nanoseconds(Int64(clamping: timeout.clampedNanoseconds))) {
            answer.fail(PushFailure(kind: .timeout, description: "no answer from \(authority) within \(timeout.configurationText)"))
            channel.close(promise: nil)
        }
        channel.writeAndFlush(PushRequest(head: head, body: ByteBuffer(bytes: body), answer: answer)).whenFailure { error in
            answer.fail(PushFailure(kind: .closed, description: "cannot send to \(authority): \(plainReason(error))"))
        }
        do {
            let response = try await withTaskCancellationHandler {
                try await answer.futureResult.get()
            } onCancel: {
                channel.close(promise: nil)
            }
            deadline.cancel()
            if !response.keepAlive { close() }
            return .success(response)
        } catch {
            deadline.cancel()
            close()
            if let failure = error as? PushFailure { return .failure(failure) }
            return .failure(Self.failure(error, authority: authority))
        }
    }

    /// The open connection to `url`'s origin, or a new one (TCP, then TLS
    /// for https: a handshake failure shows in the request's answer).
    private func connection(to url: RemoteURL) async throws -> any Channel {
        if let channel, channel.isActive, channelOrigin == url.origin { return channel }
        close()
        let tlsContext = self.tlsContext
        let serverName = url.host == configuration.url.host ? configuration.tls.serverName ?? (isIPAddress(url.host) ? nil : url.host)
            : (isIPAddress(url.host) ? nil : url.host)
        let handshake = HandshakeBox()
        let bootstrap = ClientBootstrap(group: group)
            .connectTimeout(.nanoseconds(Int64(clamping: configuration.remoteTimeout.clampedNanoseconds)))
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                do {
                    // https: ready once the handshake is done (PushHandler
                    // sees TLS's event), so that a certificate refused is
                    // told as such, not as a closed connection.
                    if let tlsContext {
                        try channel.pipeline.syncOperations.addHandler(try NIOSSLClientHandler(context: tlsContext, serverHostname: serverName))
                    }
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    // The promise is PushHandler's from here on: it completes
                    // it, or fails it when it leaves the pipeline (a connect
                    // that timed out runs this initializer too).
                    let ready = tlsContext == nil ? nil : channel.eventLoop.makePromise(of: Void.self)
                    handshake.future.withLock { $0 = ready?.futureResult }
                    do {
                        try channel.pipeline.syncOperations.addHandler(PushHandler(ready: ready))
                    } catch {
                        ready?.fail(error)
                        throw error
                    }
                    return channel.eventLoop.makeSucceededVoidFuture()
                } catch {
                    return channel.eventLoop.makeFailedFuture(error)
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.connect(host: url.host, port: url.port).get()
        } catch {
            throw PushFailure(kind: .connect, description: "cannot connect to \(url.authority): \(plainReason(error))")
        }
        if tlsContext != nil {
            let timeout = configuration.remoteTimeout
            let deadline = channel.eventLoop.scheduleTask(in: .nanoseconds(Int64(clamping: timeout.clampedNanoseconds))) { channel.close(promise: nil) }
            defer { deadline.cancel() }
            do {
                // (The future, not the handler: a refused handshake closes the
                // channel and empties its pipeline, maybe before this looks.)
                try await (handshake.future.withLock { $0 } ?? channel.eventLoop.makeSucceededVoidFuture()).get()
            } catch {
                channel.close(promise: nil)
                if let failure = error as? PushFailure { throw failure }
                throw Self.failure(error, authority: url.authority)
            }
        }
        self.channel = channel
        channelOrigin = url.origin
        return channel
    }

    /// A failure's words: TLS errors say so (the certificate's problem is in
    /// BoringSSL's reason: CERTIFICATE_VERIFY_FAILED).
    static func failure(_ error: any Error, authority: String) -> PushFailure {
        if error is NIOSSLError || error is BoringSSLError || error is NIOSSLExtraError {
            return PushFailure(kind: .tls, description: "TLS handshake with \(authority) failed: \(plainReason(error))")
        }
        if let error = error as? ChannelError, error == .ioOnClosedChannel || error == .eof || error == .alreadyClosed {
            return PushFailure(kind: .closed, description: "\(authority) closed the connection")
        }
        return PushFailure(kind: .closed, description: "\(authority): \(plainReason(error))")
    }

    /// A password or token, read from its file at each request (a rotated file is picked up).
    private func secret(_ secret: RemoteWriteConfiguration.Secret, _ key: String) throws(PushFailure) -> String {
        switch secret {
        case let .inline(text):
            return text
        case let .file(path):
            let text: String
            do {
                text = try ConfigurationFile.secret(path)
            } catch {
                throw PushFailure(kind: .secret, description: "cannot read \(key) \(error); nothing sent")
            }
            guard !text.isEmpty else { throw PushFailure(kind: .secret, description: "\(key) \(path) is empty; nothing sent") }
            return text
        }
    }
}

