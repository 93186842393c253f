import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// Push (`remote_write`): every `push_interval` a snapshot of the exporter's
/// series (the registry's, which /metrics renders) is sampled into each
/// receiver's queue; each
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
///
/// The push has series of its own (`reach_remote_write_*`): it is one of
/// the registry's collectors (``collect(into:)``), and knows the registry
/// only as the source its sampler reads (``services(sampling:)``).
package final class RemotePush: Sendable {
    let writers: [RemoteWriter]
    private let interval: Duration
    private let table: SharedSeriesTable

    package init(configuration: ExporterConfiguration, group: any EventLoopGroup, version: String, logger: Logger) {
        interval = configuration.pushInterval
        table = SharedSeriesTable(SeriesTable(externalLabels: configuration.externalLabels))
        var writers: [RemoteWriter] = []
        for remote in configuration.remoteWrites {
            writers.append(RemoteWriter(configuration: remote, table: table, group: group,
                                        userAgent: "reach-exporter/\(version)", logger: logger))
        }
        self.writers = writers
    }

    /// Samples every series of `snapshot` into every queue, at the snapshot's time.
    func sample(_ snapshot: SeriesSnapshot) {
        // Series that left are forgotten once no queue holds a sample of them.
        let oldest = writers.compactMap { $0.oldestQueued() }.min()
        let samples = table.table.withLock { $0.samples(of: snapshot, oldestQueued: oldest) }
        for writer in writers { writer.enqueue(samples, at: snapshot.timestamp) }
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

    /// The sampler, which takes a snapshot of `source` at each
    /// `push_interval`, and each receiver's writer.
    package func services(sampling source: any SeriesSource) -> [any Service] {
        [Sampler(push: self, source: source)] + writers.map { $0 as any Service }
    }

    /// Samples at each `push_interval`, on a steady clock (no drift, no burst after a stall).
    private struct Sampler: Service {
        let push: RemotePush
        let source: any SeriesSource
        /// Returns (never throws) when the shutdown cancels it: a service
        /// that throws makes the group cancel the others, and stopping is
        /// no failure.
        func run() async {
            await cancelWhenGracefulShutdown {
                let clock = ContinuousClock()
                var next = clock.now
                while !Task.isCancelled {
                    push.sample(source.snapshot())
                    next = next.advanced(by: push.interval)
                    if next < clock.now { next = clock.now.advanced(by: push.interval) }
                    try? await Task.sleep(until: next, clock: clock)
                }
            }
        }
    }
}
