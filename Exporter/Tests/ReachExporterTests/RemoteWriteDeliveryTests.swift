// One receiver's writer (RemoteWriter) against a receiver on loopback whose
// answers the test holds and chooses: what is sent, what is counted, what
// is logged, when a request is in flight while the queue overflows, when a
// secret file cannot be read, when the receiver redirects or answers with
// control bytes. The receiver is a few lines of swift-nio's HTTP/1 server,
// not Prometheus: a real receiver cannot be told to hold an answer until
// the test has overflowed the queue (Prometheus itself is the receiver of
// Tests/IntegrationTests/RemoteWriteTests.swift). Every wait is on an
// event (a request arriving, a log line written); the time limits only
// turn a wait that would never end into a failure.

import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
@testable import ReachExporterKit
import Synchronization
import XCTest

/// A request the receiver got.
struct ReceivedRequest: Sendable {
    var path: String
    var headers: [(String, String)]
    var body: [UInt8]
    func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
}

/// An answer: status, extra headers, body.
struct ReceiverAnswer: Sendable {
    var status: HTTPResponseStatus = .noContent
    var headers: [(String, String)] = []
    var body: [UInt8] = []
}

/// An HTTP/1.1 receiver on 127.0.0.1 (a free port): each request is
/// recorded, handed to the test in order, and answered as `answer` says,
/// once its gate (if the test set one for that request's index) is opened.
final class TestReceiver: Sendable {
    private let channel: any Channel
    let port: Int
    let requests = Inbox<ReceivedRequest>()
    private let state = NIOLockedValueBox(State())

    private struct State {
        var count = 0
        var held: Set<Int> = []
        var waiting: [Int: @Sendable () -> Void] = [:]
    }

    init(answer: @escaping @Sendable (ReceivedRequest) -> ReceiverAnswer) throws {
        let box = HandlerBox()
        channel = try ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline().flatMapThrowing {
                    try channel.pipeline.syncOperations.addHandler(ReceiverHandler(receiver: box))
                }
            }
            .bind(host: "127.0.0.1", port: 0).wait()
        port = channel.localAddress?.port ?? 0
        let requests = self.requests, state = self.state
        box.handle.withLockedValue {
            $0 = { request, respond in
                requests.add(request)
                let held = state.withLockedValue { state -> Bool in
                    let index = state.count
                    state.count += 1
                    guard state.held.contains(index) else { return false }
                    state.waiting[index] = { respond(answer(request)) }
                    return true
                }
                if !held { respond(answer(request)) }
            }
        }
    }

    /// Request `index` (0: the first) waits for `release(index)` before it is answered.
    func hold(_ index: Int) { state.withLockedValue { _ = $0.held.insert(index) } }

    func release(_ index: Int) {
        let waiting = state.withLockedValue { state -> (@Sendable () -> Void)? in
            state.held.remove(index)
            return state.waiting.removeValue(forKey: index)
        }
        waiting?()
    }

    var url: String { "http://127.0.0.1:\(port)" }

    func close() {
        for index in state.withLockedValue({ Array($0.held) }) { release(index) }
        try? channel.close().wait()
    }
}

final class HandlerBox: Sendable {
    let handle = NIOLockedValueBox<(@Sendable (ReceivedRequest, @escaping @Sendable (ReceiverAnswer) -> Void) -> Void)?>(nil)
}

final class ReceiverHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart
    private let receiver: HandlerBox
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []

    init(receiver: HandlerBox) { self.receiver = receiver }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case let .head(head):
            self.head = head
            body = []
        case var .body(buffer):
            body += buffer.readBytes(length: buffer.readableBytes) ?? []
        case .end:
            guard let head else { return }
            let request = ReceivedRequest(path: head.uri, headers: head.headers.map { ($0.name, $0.value) }, body: body)
            let loop = context.eventLoop
            let bound = NIOLoopBound(context, eventLoop: loop)
            receiver.handle.withLockedValue { $0 }?(request) { answer in
                loop.execute {
                    let context = bound.value
                    var headers = HTTPHeaders(answer.headers)
                    headers.add(name: "Content-Length", value: String(answer.body.count))
                    context.write(NIOAny(HTTPServerResponsePart.head(HTTPResponseHead(version: .http1_1, status: answer.status, headers: headers))), promise: nil)
                    context.write(NIOAny(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(bytes: answer.body)))), promise: nil)
                    context.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil)), promise: nil)
                }
            }
        }
    }
}

/// Every line the writer logs, in order, and as a stream to wait on.
final class LogCapture: Sendable {
    let lines = Inbox<String>()

    var logger: Logger {
        Logger(label: "test") { _ in CapturingHandler(capture: self) }
    }

    func add(_ line: String) { lines.add(line) }

    struct CapturingHandler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String,
                 file: String, function: String, line: UInt) {
            capture.add("\(message)")
        }
    }
}

struct TimedOut: Error, CustomStringConvertible { let description: String }

/// What arrives (requests, log lines), kept in order, for the test to take
/// one by one, waiting for the next to arrive: each `add` wakes the waiter.
final class Inbox<Element: Sendable>: Sendable {
    private struct State {
        var items: [Element] = []
        var taken = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Mutex(State())

    func add(_ element: Element) {
        let waiters = state.withLock { state in
            state.items.append(element)
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    var all: [Element] { state.withLock { $0.items } }

    /// The next element not taken yet that matches `predicate` (those that
    /// do not are passed over); a failure, not a wait that never ends, when
    /// none arrives within `seconds`.
    func next(_ what: @autoclosure () -> String, within seconds: Int = 20,
              where predicate: (Element) -> Bool = { _ in true }) async throws -> Element {
        let deadline = ContinuousClock.now.advanced(by: .seconds(seconds))
        while true {
            let found = state.withLock { state -> Element? in
                while state.taken < state.items.count {
                    let element = state.items[state.taken]
                    state.taken += 1
                    if predicate(element) { return element }
                }
                return nil
            }
            if let found { return found }
            guard ContinuousClock.now < deadline else { throw TimedOut(description: "\(what()): none within \(seconds) s") }
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await self.arrival() }
                group.addTask { try? await Task.sleep(until: deadline) }
                await group.next()
                group.cancelAll()
            }
        }
    }

    /// Returns when an element arrives that is not taken yet (or when cancelled).
    private func arrival() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let now = state.withLock { state -> Bool in
                    if state.taken < state.items.count { return true }
                    state.waiters.append(continuation)
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiters = state.withLock { state in
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
    }
}

final class RemoteWriteDeliveryTests: XCTestCase {
    /// Sample times: now (ms), plus `n` seconds (older ones would be dropped as too_old).
    let start = Int64(WallClock.unixSeconds()) * 1000
    func at(_ n: Int64) -> Int64 { start + n * 1000 }

    /// A table of `count` series (s0, s1, ...) and a round of their samples.
    func table(_ count: Int) -> (SharedSeriesTable, [(series: UInt32, value: Double)]) {
        var table = SeriesTable(externalLabels: [])
        let round = table.samples(of: snapshot(gauges((0 ..< count).map { "s\($0)" })))
        return (SharedSeriesTable(table), round)
    }

    func makeWriter(_ receiver: TestReceiver, path: String = "/api/v1/write", table: SharedSeriesTable, logs: LogCapture,
                configure: (inout RemoteWriteConfiguration) -> Void = { _ in }) throws -> RemoteWriter {
        var configuration = RemoteWriteConfiguration(url: try RemoteURL(parsing: receiver.url + path), name: "test")
        configuration.remoteTimeout = .seconds(20)
        configuration.queue.minBackoff = .milliseconds(5)
        configuration.queue.maxBackoff = .milliseconds(50)
        configure(&configuration)
        return RemoteWriter(configuration: configuration, table: table,
                            group: MultiThreadedEventLoopGroup.singleton, userAgent: "test", logger: logs.logger)
    }

    /// The timestamps of a request's samples, decoded.
    func timestamps(_ request: ReceivedRequest) throws -> [Int64] {
        try RemoteWriteEncodingTests.decodeWriteRequest(try RemoteWriteEncodingTests.unsnappy(request.body)).flatMap { $0.samples.map(\.0) }
    }

    // MARK: - A snapshot pushed

    /// The snapshot /metrics renders (`fixedFamilies`, whose exact text
    /// ExpositionTests checks) is what the receiver gets: a series per
    /// sample in the snapshot's order, named as the exposition names it (a
    /// histogram's with its suffix), its labels as they are (no escapes)
    /// sorted by name as remote write asks, the external label added; the
    /// values (NaN included); every sample at the snapshot's time.
    func testASnapshotIsPushedAsItsSeries() async throws {
        let receiver = try TestReceiver { _ in ReceiverAnswer(status: .noContent) }
        defer { receiver.close() }
        var configuration = ExporterConfiguration()
        configuration.externalLabels = [("gateway", "gw1")]
        configuration.remoteWrites = [RemoteWriteConfiguration(url: try RemoteURL(parsing: receiver.url + "/api/v1/write"), name: "test")]
        let push = RemotePush(configuration: configuration, group: MultiThreadedEventLoopGroup.singleton, version: "test",
                              logger: LogCapture().logger)
        let task = Task { try await push.writers[0].run() }
        defer { task.cancel() }
        push.sample(snapshot(fixedFamilies(), at: at(1)))
        let request = try await receiver.requests.next("the snapshot's request")
        let series = try RemoteWriteEncodingTests.decodeWriteRequest(try RemoteWriteEncodingTests.unsnappy(request.body))
        XCTAssertEqual(series.map(\.labels), [
            ["__name__": "reach_target_status", "gateway": "gw1", "status": "reachable.wired", "target": "gw\"x\\y\nz"],
            ["__name__": "reach_target_status", "gateway": "gw1", "status": "notReachable", "target": "internet"],
            ["__name__": "reach_monitor_events_total", "gateway": "gw1"],
            ["__name__": "reach_probe_rtt_seconds_bucket", "gateway": "gw1", "interface": "wan0", "le": "0.0025"],
            ["__name__": "reach_probe_rtt_seconds_bucket", "gateway": "gw1", "interface": "wan0", "le": "+Inf"],
            ["__name__": "reach_probe_rtt_seconds_sum", "gateway": "gw1", "interface": "wan0"],
            ["__name__": "reach_probe_rtt_seconds_count", "gateway": "gw1", "interface": "wan0"],
            ["__name__": "reach_modem_signal_quality_percent", "gateway": "gw1", "interface": "", "modem": "0"],
        ])
        for labels in series.map(\.names) { XCTAssertEqual(labels, labels.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }) }
        let values = series.flatMap { $0.samples.map(\.1) }
        XCTAssertEqual(values.dropLast(), [1, 0, 42, 1, 2, 0.00375, 2])
        XCTAssertTrue(values.last?.isNaN == true)
        XCTAssertEqual(series.flatMap { $0.samples.map(\.0) }, Array(repeating: at(1), count: 8))
    }

    // MARK: - Point 4: a batch in flight while the queue overflows

    /// Round A (4 samples, a full queue) is in flight; round B arrives and
    /// pushes A out of the queue; then the receiver answers A. Whatever
    /// the answer, B is sent next, whole, and A is counted once for what
    /// happened to it: delivered (200), rejected (400), or lost to the full
    /// queue (500: it cannot be sent again). Before, the answer removed B,
    /// never sent, and a delivered A was counted as dropped (queue_full).
    func testABatchInFlightWhileTheQueueOverflowsLosesNoNewerSample() async throws {
        for code in [200, 400, 500] {
            let status = HTTPResponseStatus(statusCode: code)
            let receiver = try TestReceiver { _ in ReceiverAnswer(status: status) }
            defer { receiver.close() }
            receiver.hold(0)
            receiver.hold(1)   // (the writer settles the answer to A before it sends B: the counts are read then)
            let (table, round) = table(4)
            let logs = LogCapture()
            let writer = try makeWriter(receiver, table: table, logs: logs) {
                $0.queue.capacity = 4
                $0.queue.maxSamplesPerSend = 4
            }
            let task = Task { try await writer.run() }
            defer { task.cancel() }
            writer.enqueue(round, at: at(1))
            let first = try await receiver.requests.next("\(code): the first request")
            XCTAssertEqual(try timestamps(first), [at(1), at(1), at(1), at(1)])
            writer.enqueue(round, at: at(2))   // the queue is full: A goes, B stays
            receiver.release(0)
            let second = try await receiver.requests.next("\(code): round B sent after the answer to A (\(writer.status()))")
            XCTAssertEqual(try timestamps(second), [at(2), at(2), at(2), at(2)], "\(code)")
            let after = writer.status()
            XCTAssertEqual(after.pending, 4, "\(code): B waits for its answer: \(after)")
            switch code {
            case 200: XCTAssertEqual([after.sent, after.dropped], [4, 0], "\(code): A delivered: \(after)")
            case 400: XCTAssertEqual([after.sent, after.dropped], [0, 4], "\(code): A rejected: \(after)")
            default: XCTAssertEqual([after.sent, after.dropped, after.retried], [0, 4, 0], "\(code): A lost to the full queue, nothing of it to retry: \(after)")
            }
            receiver.release(1)
        }
    }

    // MARK: - Point 11: drops are said

    /// A receiver that holds its answer while rounds keep coming: the queue
    /// fills and drops, and the log says so (once), with the capacity.
    func testAFullQueueSaysSoInTheLog() async throws {
        let receiver = try TestReceiver { _ in ReceiverAnswer(status: .noContent) }
        defer { receiver.close() }
        receiver.hold(0)
        let (table, round) = table(2)
        let logs = LogCapture()
        let writer = try makeWriter(receiver, table: table, logs: logs) {
            $0.queue.capacity = 4
            $0.queue.maxSamplesPerSend = 2
        }
        let task = Task { try await writer.run() }
        defer { task.cancel() }
        writer.enqueue(round, at: at(1))
        _ = try await receiver.requests.next("the first request")
        for time in 2 ... 5 { writer.enqueue(round, at: at(Int64(time))) }   // 10 samples into 4 places
        let line = try await logs.lines.next("a log line about the full queue") { $0.contains("queue") && $0.contains("full") }
        XCTAssertTrue(line.contains("capacity 4"), line)
        for time in 6 ... 8 { writer.enqueue(round, at: at(Int64(time))) }
        XCTAssertEqual(logs.lines.all.count { $0.contains("full") }, 1, "one line per change of condition: \(logs.lines.all)")
    }

    // MARK: - Point 5: a secret file that cannot be read

    /// bearer_token_file missing (being rotated): no request goes out with
    /// an empty token, the log says why, and once the file is back the
    /// samples are sent with it, none dropped.
    func testAnUnreadableTokenFileIsRetriedNotSentEmpty() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("push-secret-\(getpid())-\(UInt32.random(in: 0 ... .max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let tokenFile = directory.appendingPathComponent("token").path
        let receiver = try TestReceiver { request in
            ReceiverAnswer(status: request.header("Authorization") == "Bearer s3cret" ? .noContent : .unauthorized)
        }
        defer { receiver.close() }
        let (table, round) = table(3)
        let logs = LogCapture()
        let writer = try makeWriter(receiver, table: table, logs: logs) { $0.authorization = .bearer(.file(tokenFile)) }
        let task = Task { try await writer.run() }
        defer { task.cancel() }
        writer.enqueue(round, at: at(1))
        let line = try await logs.lines.next("a log line naming the token file (log: \(logs.lines.all))") { $0.contains(tokenFile) }
        XCTAssertTrue(line.contains("retrying"), line)
        XCTAssertEqual(writer.status().dropped, 0, "the samples were dropped: \(logs.lines.all)")
        try "s3cret\n".write(toFile: tokenFile, atomically: true, encoding: .utf8)
        let sent = try await receiver.requests.next("a request with the token") { $0.header("Authorization") == "Bearer s3cret" }
        XCTAssertEqual(try timestamps(sent), [at(1), at(1), at(1)])
        XCTAssertEqual(writer.status().dropped, 0)
        XCTAssertEqual(receiver.requests.all.map { $0.header("Authorization") ?? "none" }, ["Bearer s3cret"], "requests before the file was back")
    }

    // MARK: - Point 6: redirects

    /// 307 and 308 are followed with the body (relative and absolute
    /// Location); a redirect loop ends after a bounded number of hops; a 301
    /// is a configuration error, logged with its Location, and retried.
    func testRedirects307And308AreFollowedOthersAreRetriedConfigurationErrors() async throws {
        let port = Mutex(0)
        let receiver = try TestReceiver { request in
            switch request.path {
            case "/api/v1/write": return ReceiverAnswer(status: .temporaryRedirect, headers: [("Location", "/moved")])
            case "/moved": return ReceiverAnswer(status: .permanentRedirect, headers: [("Location", "http://127.0.0.1:\(port.withLock { $0 })/receive")])
            case "/receive": return ReceiverAnswer(status: .noContent)
            case "/loop": return ReceiverAnswer(status: .temporaryRedirect, headers: [("Location", "/loop")])
            case "/old": return ReceiverAnswer(status: .movedPermanently, headers: [("Location", "/new-place")])
            default: return ReceiverAnswer(status: .notFound)
            }
        }
        defer { receiver.close() }
        port.withLock { $0 = receiver.port }
        let (table, round) = table(2)

        let logs = LogCapture()
        let writer = try makeWriter(receiver, table: table, logs: logs)
        let task = Task { try await writer.run() }
        defer { task.cancel() }
        writer.enqueue(round, at: at(1))
        let arrived = try await receiver.requests.next("the samples at /receive (log: \(logs.lines.all))") { $0.path == "/receive" }
        XCTAssertEqual(try timestamps(arrived), [at(1), at(1)])
        XCTAssertEqual(arrived.header("Content-Encoding"), "snappy")
        task.cancel()

        for (path, expected) in [("/loop", "redirect"), ("/old", "/new-place")] {
            let logs = LogCapture()
            let writer = try makeWriter(receiver, path: path, table: table, logs: logs)
            let task = Task { try await writer.run() }
            defer { task.cancel() }
                writer.enqueue(round, at: at(2))
            let line = try await logs.lines.next("\(path): a log line (log: \(logs.lines.all))")
            XCTAssertTrue(line.contains(expected) && line.contains("retrying"), "\(path): \(line)")
            XCTAssertEqual(writer.status().dropped, 0, "\(path): dropped as a rejection: \(line)")
        }
    }

    // MARK: - Point 7: secrets and control bytes in messages

    func testAURLWithAPasswordIsRefusedWithoutRepeatingIt() {
        for text in ["https://gw:s3cret@centre.example/api/v1/write", "ftp://gw:s3cret@centre.example/", "http://gw:s3cret@:99999/"] {
            XCTAssertThrowsError(try RemoteURL(parsing: text)) { error in
                XCTAssertFalse("\(error)".contains("s3cret"), "\(error)")
            }
        }
    }

    /// A receiver's error body with a terminal escape sequence, a bell and a
    /// newline: the log line holds none of them raw, each escaped.
    func testAReceiversErrorBodyReachesTheLogWithItsControlBytesEscaped() async throws {
        let receiver = try TestReceiver { _ in
            ReceiverAnswer(status: .badRequest, body: Array("bad sample\u{1B}]0;owned\u{07}\u{1B}[2J\nsecond line\u{9B}".utf8))
        }
        defer { receiver.close() }
        let (table, round) = table(1)
        let logs = LogCapture()
        let writer = try makeWriter(receiver, table: table, logs: logs)
        let task = Task { try await writer.run() }
        defer { task.cancel() }
        writer.enqueue(round, at: at(1))
        let line = try await logs.lines.next("the 400's log line") { $0.contains("400") }
        XCTAssertFalse(line.unicodeScalars.contains { $0.value < 0x20 || (0x7F ... 0x9F).contains($0.value) }, line.debugDescription)
        XCTAssertTrue(line.contains("bad sample\\u{1B}]0;owned\\u{07}\\u{1B}[2J\\nsecond line\\u{9B}"), line)
    }

    // MARK: - Point 8: series that leave the exposition

    /// A modem re-probed 3,000 times, each time under a new index (forty
    /// series each): the table holds the live series and those a queue may
    /// still refer to, not every series ever seen, and each series that
    /// left gets Prometheus' stale marker once.
    func testSeriesThatLeaveAreForgottenWithAStaleMarker() {
        var table = SeriesTable(externalLabels: [("gateway", "gw1")])
        func reprobed(_ modem: Int) -> SeriesSnapshot {
            let build = MetricFamily(name: "reach_build_info", help: "", kind: .gauge,
                                     samples: [Sample(labels: [SeriesLabel("version", "1")], value: .double(1))])
            let quality = MetricFamily(name: "reach_modem_signal_quality", help: "", kind: .gauge, samples: (0 ..< 40).map { series in
                Sample(labels: [SeriesLabel("modem", "\(modem)"), SeriesLabel("n", "\(series)")], value: .double(Double(series)))
            })
            return snapshot([build, quality], at: Int64(modem))
        }
        _ = table.samples(of: reprobed(0))
        let staleBits: UInt64 = 0x7FF0_0000_0000_0002
        for modem in 1 ... 3000 {
            let samples = table.samples(of: reprobed(modem))
            if modem == 1 || modem == 3000 {
                XCTAssertEqual(samples.count { $0.value.bitPattern == staleBits }, 40, "modem \(modem): a stale marker for each series of the last")
                XCTAssertEqual(samples.count { !$0.value.isNaN }, 41)
            }
        }
        XCTAssertLessThanOrEqual(table.count, 41 + 2 * 40, "series held after 3,000 re-probes")
    }
}
