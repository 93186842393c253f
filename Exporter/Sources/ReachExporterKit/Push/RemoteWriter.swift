import Logging
import NIOCore
import NIOHTTP1
import Prometheus
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
    private let series: Series
    private let state: Mutex<State>
    private let wake: AsyncStream<Void>
    private let wakeContinuation: AsyncStream<Void>.Continuation

    private struct State {
        var queue: SampleQueue
        var sent: UInt64 = 0
        var retried: UInt64 = 0
        var dropped: UInt64 = 0
        var lastError: String?
        var lastSuccess: Double?
        /// Whether the last round found the queue full (a condition logged once), and what it dropped since.
        var full = false
        var droppedWhileFull: UInt64 = 0
    }

    /// The `reach_remote_write_*` series of this receiver (label `remote`).
    private struct Series {
        let sent, retried, bytes: Counter
        let dropped: [DropReason: Counter]
        let requests: [RequestResult: Counter]
        let pending, lag, lastSuccess: Gauge
    }

    enum DropReason: String, CaseIterable { case rejected, queueFull = "queue_full", tooOld = "too_old" }
    enum RequestResult: String, CaseIterable { case success, rejected, retried, error }

    init(configuration: RemoteWriteConfiguration, table: SharedSeriesTable, metrics: ExporterMetrics,
         group: any EventLoopGroup, userAgent: String, logger: Logger) {
        self.configuration = configuration
        self.table = table
        self.group = group
        self.userAgent = userAgent
        self.logger = logger
        state = Mutex(State(queue: SampleQueue(capacity: configuration.queue.capacity)))
        (wake, wakeContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let registry = metrics.counters
        let remote = ("remote", configuration.name)
        func counter(_ name: String, _ labels: [(String, String)], _ help: String) -> Counter {
            registry.makeCounter(descriptor: ExporterMetrics.descriptor(name, help), labels: [remote] + labels)
        }
        func gauge(_ name: String, _ help: String) -> Gauge {
            registry.makeGauge(descriptor: ExporterMetrics.descriptor(name, help), labels: [remote])
        }
        series = Series(
            sent: counter("reach_remote_write_samples_sent_total", [], "Samples the receiver accepted (2xx)."),
            retried: counter("reach_remote_write_samples_retried_total", [], "Samples sent again after a 5xx, 429 or no answer."),
            bytes: counter("reach_remote_write_bytes_sent_total", [], "Compressed request bodies written, retries included."),
            dropped: Dictionary(uniqueKeysWithValues: DropReason.allCases.map { reason in
                (reason, counter("reach_remote_write_samples_dropped_total", [("reason", reason.rawValue)],
                                 "Samples never sent: rejected (a 4xx answer), queue_full, too_old (sample_age_limit)."))
            }),
            requests: Dictionary(uniqueKeysWithValues: RequestResult.allCases.map { result in
                (result, counter("reach_remote_write_requests_total", [("result", result.rawValue)],
                                 "Requests by outcome: success (2xx), rejected (other 4xx), retried (5xx, 429), error (no answer)."))
            }),
            pending: gauge("reach_remote_write_samples_pending", "Samples waiting to be sent."),
            lag: gauge("reach_remote_write_lag_seconds", "Age of the oldest sample waiting (0 when none)."),
            lastSuccess: gauge("reach_remote_write_last_success_timestamp_seconds", "When the receiver last accepted a request (Unix time; 0: never).")
        )
    }

    /// Adds a round of samples and wakes the sending loop. A full queue
    /// (the oldest pushed out) is a change of condition, said once, and so
    /// is its end (a round that fits again), with what it dropped.
    func enqueue(_ samples: [(series: UInt32, value: Double)], at timestamp: Int64) {
        let (dropped, change) = state.withLock { state -> (Int, (began: Bool, dropped: UInt64)?) in
            let overtakenBefore = state.queue.overtaken
            let dropped = state.queue.append(samples, at: timestamp)
            let pushedOut = dropped + state.queue.overtaken - overtakenBefore
            state.dropped += UInt64(dropped)
            let wasFull = state.full
            state.full = pushedOut > 0
            state.droppedWhileFull = (wasFull ? state.droppedWhileFull : 0) + UInt64(pushedOut)
            return (dropped, wasFull == state.full ? nil : (state.full, state.droppedWhileFull))
        }
        if dropped > 0 { series.dropped[.queueFull]?.increment(by: Int64(dropped)) }
        if let change {
            let name = configuration.name, capacity = configuration.queue.capacity
            if change.began {
                logger.warning("remote_write \(name): queue full (capacity \(capacity) samples): dropping the oldest (queue_full) until the receiver takes them faster")
            } else {
                logger.notice("remote_write \(name): queue no longer full; \(change.dropped) samples were pushed out of it (queue_full)")
            }
        }
        wakeContinuation.yield()
    }

    /// The time of the oldest sample waiting (ms), nil when none waits.
    func oldestQueued() -> Int64? { state.withLock { $0.queue.oldestTimestamp } }

    /// Sets the pending and lag gauges (before a sampling round and at each scrape).
    func refreshGauges() {
        let status = self.status()
        series.pending.set(to: Double(status.pending))
        series.lag.set(to: status.lagSeconds)
    }

    func status() -> RemoteWriteStatus {
        let now = WallClock.unixSeconds()
        return state.withLock { state in
            RemoteWriteStatus(name: configuration.name, url: configuration.url.description, pending: state.queue.count,
                              lagSeconds: state.queue.oldestTimestamp.map { max(0, now - Double($0) / 1000) } ?? 0,
                              sent: state.sent, retried: state.retried, dropped: state.dropped,
                              lastError: state.lastError, lastSuccess: state.lastSuccess)
        }
    }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            let client: RemoteWriteClient
            do {
                client = try RemoteWriteClient(configuration: self.configuration, group: self.group, userAgent: self.userAgent)
            } catch {
                self.logger.error("remote_write \(self.configuration.name): \(error)")
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
                self.series.bytes.increment(by: Int64(body.count))
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
        let (samples, tooOld) = state.withLock { state -> ([SampleQueue.Sample], Int) in
            let tooOld = state.queue.removeOlder(than: limit)
            state.dropped += UInt64(tooOld)
            return (state.queue.take(configuration.queue.maxSamplesPerSend), tooOld)
        }
        if tooOld > 0 { series.dropped[.tooOld]?.increment(by: Int64(tooOld)) }
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
        series.requests[result]?.increment()
        let now = WallClock.unixSeconds()
        // The answer is for the batch sent, whatever appends did to the queue
        // meanwhile: a delivered or rejected batch leaves (what is still
        // queued of it, nothing newer); a batch to send again stays, less
        // what a full queue pushed out (lost now: queue_full).
        let (previous, waiting, left, lost) = state.withLock { state -> (String?, Int, Int, Int) in
            let previous = state.lastError
            var left = count, lost = 0
            switch result {
            case .success:
                _ = state.queue.finish(removing: true)
                state.sent += UInt64(count)
                state.lastSuccess = now
            case .rejected:
                _ = state.queue.finish(removing: true)
                state.dropped += UInt64(count)
            case .retried, .error:
                (left, lost) = state.queue.finish(removing: false)
                state.retried += UInt64(left)
                state.dropped += UInt64(lost)
            }
            state.lastError = message
            return (previous, state.queue.count, left, lost)
        }
        switch result {
        case .success:
            series.sent.increment(by: Int64(count))
            series.lastSuccess.set(to: now)
            if previous != nil { logger.notice("remote_write \(name): sending again (\(waiting) samples waiting)") }
        case .rejected:
            series.dropped[.rejected]?.increment(by: Int64(count))
        case .retried, .error:
            series.retried.increment(by: Int64(left))
            if lost > 0 { series.dropped[.queueFull]?.increment(by: Int64(lost)) }
        }
        // One line per change of condition (a new kind of failure), not per retry.
        if let message, Self.condition(message) != previous.map(Self.condition) {
            logger.notice("remote_write \(name): \(message)")
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
