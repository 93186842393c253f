/// One remote_write receiver's queue and its last outcome, as the status page
/// (`GET /`) shows it; the same facts as the `reach_remote_write_*` series.
struct RemoteWriteStatus: Sendable, Equatable {
    /// The `remote` label: the configuration's `name`, else the URL's host:port.
    var name: String
    var url: String
    /// Samples waiting to be sent.
    var pending: Int
    /// Age of the oldest sample waiting, in seconds (0 when none wait).
    var lagSeconds: Double
    var sent: UInt64
    var retried: UInt64
    var dropped: UInt64
    /// The last failure, as logged ("HTTP 500 Internal Server Error"), nil
    /// since the last success.
    var lastError: String?
    /// Unix time of the last accepted request (nil: none yet).
    var lastSuccess: Double?
}
