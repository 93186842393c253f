/// The push's own series (`reach_remote_write_*`, a series of each family
/// for every receiver, label `remote`), and each receiver's status for the
/// status page: made at every snapshot, pending and lag as they are then.
extension RemotePush: SeriesCollector {
    package func collect(into snapshot: inout SeriesSnapshot) {
        var sent = MetricFamily(name: "reach_remote_write_samples_sent_total", help: "Samples the receiver accepted (2xx).", kind: .counter)
        var retried = MetricFamily(name: "reach_remote_write_samples_retried_total", help: "Samples sent again after a 5xx, 429 or no answer.", kind: .counter)
        var bytes = MetricFamily(name: "reach_remote_write_bytes_sent_total", help: "Compressed request bodies written, retries included.", kind: .counter)
        var dropped = MetricFamily(name: "reach_remote_write_samples_dropped_total", help: "Samples never sent: rejected (a 4xx answer), queue_full, too_old (sample_age_limit).", kind: .counter)
        var requests = MetricFamily(name: "reach_remote_write_requests_total", help: "Requests by outcome: success (2xx), rejected (other 4xx), retried (5xx, 429), error (no answer).", kind: .counter)
        var pending = MetricFamily(name: "reach_remote_write_samples_pending", help: "Samples waiting to be sent.", kind: .gauge)
        var lag = MetricFamily(name: "reach_remote_write_lag_seconds", help: "Age of the oldest sample waiting (0 when none).", kind: .gauge)
        var lastSuccess = MetricFamily(name: "reach_remote_write_last_success_timestamp_seconds", help: "When the receiver last accepted a request (Unix time; 0: never).", kind: .gauge)
        var statuses: [RemoteWriteStatus] = []
        for writer in writers {
            let reading = writer.reading(), status = reading.status
            let remote = SeriesLabel("remote", writer.configuration.name)
            func count(_ value: UInt64) -> SampleValue { .integer(Int64(clamping: value)) }
            sent.samples.append(Sample(labels: [remote], value: count(status.sent)))
            retried.samples.append(Sample(labels: [remote], value: count(status.retried)))
            bytes.samples.append(Sample(labels: [remote], value: count(reading.bytes)))
            for reason in RemoteWriter.DropReason.allCases {
                dropped.samples.append(Sample(labels: [remote, SeriesLabel("reason", reason.rawValue)], value: count(reading.droppedBy[reason] ?? 0)))
            }
            for result in RemoteWriter.RequestResult.allCases {
                requests.samples.append(Sample(labels: [remote, SeriesLabel("result", result.rawValue)], value: count(reading.requests[result] ?? 0)))
            }
            pending.samples.append(Sample(labels: [remote], value: .double(Double(status.pending))))
            lag.samples.append(Sample(labels: [remote], value: .double(status.lagSeconds)))
            lastSuccess.samples.append(Sample(labels: [remote], value: .double(status.lastSuccess ?? 0)))
            statuses.append(status)
        }
        snapshot.append([sent, retried, bytes, dropped, requests, pending, lag, lastSuccess])
        snapshot.remotes = statuses
    }
}
