import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// Push (`remote_write`): every `push_interval` the exporter's series, as
/// /metrics renders them, are sampled into each receiver's queue; each
/// receiver's writer sends its queue oldest first and waits for the answer
/// before the next request, so that a series' samples arrive in order.
///
/// - 2xx: sent. 5xx, 429 (unless `retry_on_http_429: false`), no connection,
///   TLS refused, no answer in time: the same samples again, after a backoff
///   that doubles from `min_backoff` to `max_backoff`, with jitter (a fleet
///   that lost its centre does not come back in step). Any other 4xx: the
///   receiver will never take them (a bad sample, a wrong password): dropped
///   and counted (`rejected`), as Prometheus does.
/// - The queue is in memory, bounded by `capacity` (the oldest dropped,
///   `queue_full`) and `sample_age_limit` (`too_old`). It does not survive a
///   restart: writing every sample to a gateway's flash would wear it for
///   the sake of the rare restart during an outage ("Pushing through NAT").
package final class RemotePush: Sendable {
    let writers: [RemoteWriter]
    private let interval: Duration
    private let table: SharedSeriesTable
    private let metrics: ExporterMetrics
    private let render: @Sendable () -> (state: ByteBuffer, counters: ByteBuffer)

    package init(configuration: ExporterConfiguration, metrics: ExporterMetrics, group: any EventLoopGroup, version: String,
         logger: Logger, render: @escaping @Sendable () -> (state: ByteBuffer, counters: ByteBuffer)) {
        interval = configuration.pushInterval
        table = SharedSeriesTable(SeriesTable(externalLabels: configuration.externalLabels))
        self.metrics = metrics
        self.render = render
        var writers: [RemoteWriter] = []
        for remote in configuration.remoteWrites {
            writers.append(RemoteWriter(configuration: remote, table: table, metrics: metrics, group: group,
                                            userAgent: "reach-exporter/\(version)", logger: logger))
        }
        self.writers = writers
    }

    /// Samples every series into every queue, now (`render` is the
    /// exporter's scrape, which brings the push's own gauges up to date first).
    func sample() {
        let (state, counters) = render()
        var exposition = Array(state.readableBytesView)
        exposition += counters.readableBytesView
        let timestamp = WallClock.unixMilliseconds()
        // Series that left are forgotten once no queue holds a sample of them.
        let oldest = writers.compactMap { $0.oldestQueued() }.min()
        let samples = table.table.withLock { $0.samples(of: exposition, at: timestamp, oldestQueued: oldest) }
        for writer in writers { writer.enqueue(samples, at: timestamp) }
    }

    /// Checks what a receiver needs from files (its TLS files, its password
    /// or token file) as the configuration is read: a missing one is a
    /// configuration error (exit 2), found before anything starts.
    static func check(_ configuration: ExporterConfiguration) throws(ConfigurationError) {
        for remote in configuration.remoteWrites {
            _ = try RemoteWriteClient.tlsContext(remote)
            switch remote.authorization {
            case let .basic(_, .file(path))?, let .bearer(.file(path))?:
                do { _ = try ConfigurationFile.secret(path) } catch { throw ConfigurationError("remote_write \(remote.name): \(error)") }
            default:
                break
            }
        }
    }

    package var services: [any Service] { [Sampler(push: self)] + writers.map { $0 as any Service } }

    /// Samples at each `push_interval`, on a steady clock (no drift, no burst after a stall).
    private struct Sampler: Service {
        let push: RemotePush
        /// Returns (never throws) when the shutdown cancels it: a service
        /// that throws makes the group cancel the others, and stopping is
        /// no failure.
        func run() async {
            await cancelWhenGracefulShutdown {
                let clock = ContinuousClock()
                var next = clock.now
                while !Task.isCancelled {
                    push.sample()
                    next = next.advanced(by: push.interval)
                    if next < clock.now { next = clock.now.advanced(by: push.interval) }
                    try? await Task.sleep(until: next, clock: clock)
                }
            }
        }
    }
}
