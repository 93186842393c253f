import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// One receiver: its queue, its sending loop, its series and log lines.
final class RemoteWriter: Service, Sendable {
    let configuration: RemoteWriteConfiguration
    private let table: SharedSeriesTable
    private let group: any EventLoopGroup
    private let userAgent: String
    private let logger: Logger
    private let state: Mutex<State>
    private let wake: AsyncStream<Void>
    private let wakeContinuation: AsyncStream<Void>.Continuation

    /// The queue, and what became of the samples and requests since the
    /// start: the receiver's series (``reading()``) and status.
    private struct State {
        var queue: SampleQueue
        var sent: UInt64 = 0
        var retried: UInt64 = 0
        var dropped: UInt64 = 0
        var droppedBy: [DropReason: UInt64] = [:]
        var requests: [RequestResult: UInt64] = [:]
        /// Compressed request bodies written, retries included.
        var bytes: UInt64 = 0
        var lastError: String?
        var lastSuccess: Double?
        /// Whether the last round found the queue full (a condition logged once), and what it dropped since.
        var full = false
        var droppedWhileFull: UInt64 = 0
    }

    enum DropReason: String, CaseIterable { case rejected, queueFull = "queue_full", tooOld = "too_old" }
    enum RequestResult: String, CaseIterable { case success, rejected, retried, error }

    init(configuration: RemoteWriteConfiguration, table: SharedSeriesTable, group: any EventLoopGroup, userAgent: String,
         logger: Logger) {
        self.configuration = configuration
        self.table = table
        self.group = group
        self.userAgent = userAgent
        self.logger = logger
        state = Mutex(State(queue: SampleQueue(capacity: configuration.queue.capacity)))
        (wake, wakeContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Adds a round of samples and wakes the sending loop. A full queue
    /// (the oldest pushed out) is a change of condition, said once, and so
    /// is its end (a round that fits again), with what it dropped.
    func enqueue(_ samples: [(series: UInt32, value: Double)], at timestamp: Int64) {
        let change = state.withLock { state -> (began: Bool, dropped: UInt64)? in
            let overtakenBefore = state.queue.overtaken
            let dropped = state.queue.append(samples, at: timestamp)
            let pushedOut = dropped + state.queue.overtaken - overtakenBefore
            state.dropped += UInt64(dropped)
            state.droppedBy[.queueFull, default: 0] += UInt64(dropped)
            let wasFull = state.full
            state.full = pushedOut > 0
            state.droppedWhileFull = (wasFull ? state.droppedWhileFull : 0) + UInt64(pushedOut)
            return wasFull == state.full ? nil : (state.full, state.droppedWhileFull)
        }
        if let change {
            let name = configuration.name, capacity = configuration.queue.capacity
            if change.began {
                logger.warning("remote_write \(name): queue full (capacity \(capacity) samples): dropping the oldest (queue_full) until the receiver takes them faster", source: Logger.exporterSource)
            } else {
                logger.notice("remote_write \(name): queue no longer full; \(change.dropped) samples were pushed out of it (queue_full)", source: Logger.exporterSource)
            }
        }
        wakeContinuation.yield()
    }

    /// The time of the oldest sample waiting (ms), nil when none waits.
    func oldestQueued() -> Int64? { state.withLock { $0.queue.oldestTimestamp } }

    /// The queue and the last outcome, as the status page shows them.
    func status() -> RemoteWriteStatus {
        let now = WallClock.unixSeconds()
        return state.withLock { state in
            RemoteWriteStatus(name: configuration.name, url: configuration.url.description, pending: state.queue.count,
                              lagSeconds: state.queue.oldestTimestamp.map { max(0, now - Double($0) / 1000) } ?? 0,
                              sent: state.sent, retried: state.retried, dropped: state.dropped,
                              lastError: state.lastError, lastSuccess: state.lastSuccess)
        }
    }

    /// The receiver's status, and what its counters say: samples dropped
    /// by reason, requests by outcome, bytes written (``RemotePush``'s series).
    func reading() -> (status: RemoteWriteStatus, droppedBy: [DropReason: UInt64], requests: [RequestResult: UInt64], bytes: UInt64) {
        let counts = state.withLock { ($0.droppedBy, $0.requests, $0.bytes) }
        return (status(), counts.0, counts.1, counts.2)
    }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            let client: RemoteWriteClient
            do {
                client = try RemoteWriteClient(configuration: self.configuration, group: self.group, userAgent: self.userAgent)
            } catch {
                self.logger.error("remote_write \(self.configuration.name): \(error)", source: Logger.exporterSource)
                return
            }
            defer { client.close() }
            var backoff = Duration.zero
            var wakes = self.wake.makeAsyncIterator()
            while !Task.isCancelled {
                guard let batch = self.nextBatch() else {
                    if await wakes.next() == nil { return }
                    continue
                }
                let body = Snappy.compress(batch.message)
                self.state.withLock { $0.bytes += UInt64(body.count) }
                let outcome = await client.post(body)
                guard !Task.isCancelled else { return }
                if self.settle(batch.count, outcome) {
                    backoff = .zero
                } else {
                    let q = self.configuration.queue
                    backoff = backoff == .zero ? q.minBackoff : min(backoff * 2, q.maxBackoff)
                    // Jitter: somewhere in the second half of the backoff.
                    let wait = backoff / 2 + backoff / 2 * Double.random(in: 0 ... 1)
                    try? await Task.sleep(for: wait)
                }
            }
        }
    }

    /// The oldest samples (up to max_samples_per_send) as a WriteRequest,
    /// each series once with its samples in time order; samples past
    /// sample_age_limit are dropped first. nil when none wait.
    private func nextBatch() -> (message: [UInt8], count: Int)? {
        let limit = Int64((WallClock.unixSeconds() - Double(configuration.queue.sampleAgeLimit.clampedNanoseconds) / 1e9) * 1000)
        let samples = state.withLock { state -> [SampleQueue.Sample] in
            let tooOld = state.queue.removeOlder(than: limit)
            state.dropped += UInt64(tooOld)
            state.droppedBy[.tooOld, default: 0] += UInt64(tooOld)
            return state.queue.take(configuration.queue.maxSamplesPerSend)
        }
        guard !samples.isEmpty else { return nil }
        var order: [UInt32] = []
        var bySeries: [UInt32: [(timestamp: Int64, value: Double)]] = [:]
        for sample in samples {
            if bySeries[sample.series] == nil { order.append(sample.series) }
            bySeries[sample.series, default: []].append((sample.timestamp, sample.value))
        }
        let message = table.table.withLock { table in
            WriteRequest.encode(order.map { (table.encodedLabels[Int($0)], bySeries[$0]![...]) })
        }
        return (message, samples.count)
    }

    /// Applies an outcome to the queue, the series and the log; true when
    /// the samples left the queue (sent, or dropped for good).
    private func settle(_ count: Int, _ outcome: PushOutcome) -> Bool {
        let name = configuration.name
        let retry429 = configuration.queue.retryOnHTTP429
        let (result, message): (RequestResult, String?)
        switch outcome {
        case .accepted:
            (result, message) = (.success, nil)
        case let .answered(status, reason) where status.code >= 500 || (status.code == 429 && retry429):
            (result, message) = (.retried, "\(Self.describe(status, reason)); retrying with backoff")
        case let .answered(status, reason):
            let hint = status.code == 401 || status.code == 403 ? ": check basic_auth or bearer_token" : ""
            (result, message) = (.rejected, "\(Self.describe(status, reason)): \(count) samples dropped (rejected)\(hint)")
        case let .failed(failure):
            (result, message) = (.error, "\(failure.description); retrying with backoff")
        }
        let now = WallClock.unixSeconds()
        // The answer is for the batch sent, whatever appends did to the queue
        // meanwhile: a delivered or rejected batch leaves (what is still
        // queued of it, nothing newer); a batch to send again stays, less
        // what a full queue pushed out (lost now: queue_full).
        let (previous, waiting) = state.withLock { state -> (String?, Int) in
            let previous = state.lastError
            state.requests[result, default: 0] += 1
            switch result {
            case .success:
                _ = state.queue.finish(removing: true)
                state.sent += UInt64(count)
                state.lastSuccess = now
            case .rejected:
                _ = state.queue.finish(removing: true)
                state.dropped += UInt64(count)
                state.droppedBy[.rejected, default: 0] += UInt64(count)
            case .retried, .error:
                let (left, lost) = state.queue.finish(removing: false)
                state.retried += UInt64(left)
                state.dropped += UInt64(lost)
                state.droppedBy[.queueFull, default: 0] += UInt64(lost)
            }
            state.lastError = message
            return (previous, state.queue.count)
        }
        if result == .success, previous != nil { logger.notice("remote_write \(name): sending again (\(waiting) samples waiting)", source: Logger.exporterSource) }
        // One line per change of condition (a new kind of failure), not per retry.
        if let message, Self.condition(message) != previous.map(Self.condition) {
            logger.notice("remote_write \(name): \(message)", source: Logger.exporterSource)
        }
        return result == .success || result == .rejected
    }

    /// `HTTP 400 Bad Request: out of order sample`: the status, and the
    /// receiver's reason when it says more than the status does.
    private static func describe(_ status: HTTPResponseStatus, _ reason: String) -> String {
        let said = reason.drop { $0 == " " }   // (not trimmingPrefix: _StringProcessing's, 1 MB of regex engine)
        let more = !said.isEmpty && said.lowercased() != status.reasonPhrase.lowercased()
        return "HTTP \(status.code) \(status.reasonPhrase)\(more ? ": \(said)" : "")"
    }

    /// A message without its counts: what makes two failures the same condition.
    private static func condition(_ message: String) -> String {
        String(message.filter { !$0.isNumber })
    }
}
