/// One `remote_write` receiver, configured as Prometheus configures its own
/// (the same keys and defaults where Prometheus has them; "Running a fleet",
/// "Pushing through NAT"). Files (password, token, certificates) are read when
/// the exporter starts, so that a missing one is a configuration error.
package struct RemoteWriteConfiguration: Sendable {
    /// Where to POST: `http` or `https`, host (a name or an address, IPv6 in brackets), port, path.
    var url: RemoteURL
    /// The `remote` label of the exporter's own push series; the URL's host:port unless given.
    var name: String
    /// One request's time: connecting, TLS, sending, the answer (Prometheus: 30s).
    var remoteTimeout: Duration = .seconds(30)
    var headers: [(name: String, value: String)] = []
    var authorization: Authorization?
    var tls = TLS()
    var queue = Queue()

    enum Authorization: Sendable {
        case basic(username: String, password: Secret)
        case bearer(Secret)
    }

    /// A password or a token: inline, or a file read at start (and again at
    /// each new connection, so that a rotated file is picked up).
    enum Secret: Sendable {
        case inline(String)
        case file(String)
    }

    struct TLS: Sendable {
        var caFile: String?
        var certFile: String?
        var keyFile: String?
        /// The name sent (SNI) and verified; the URL's host unless given.
        var serverName: String?
        var insecureSkipVerify = false
    }

    /// The queue of one receiver (Prometheus' `queue_config` keys; the sizes
    /// chosen for a gateway, documented in "Pushing through NAT").
    struct Queue: Sendable {
        /// Samples held at most: 50,000 is an hour of 200 series every 15 s,
        /// about 1.2 MB. Beyond it the oldest are dropped (`queue_full`).
        var capacity = 50_000
        /// Samples older than this are dropped (`too_old`) rather than sent:
        /// a receiver's head block takes samples of about the last hour.
        var sampleAgeLimit: Duration = .seconds(3600)
        /// Samples in one request (Prometheus: 2,000).
        var maxSamplesPerSend = 2_000
        /// Backoff after a failure that is retried, doubled up to `maxBackoff`,
        /// with jitter (Prometheus: 30ms and 5s).
        var minBackoff: Duration = .milliseconds(30)
        var maxBackoff: Duration = .seconds(5)
        /// Whether 429 Too Many Requests is retried (else dropped as another 4xx).
        var retryOnHTTP429 = true
    }

    static let keys = ["url", "name", "remote_timeout", "headers", "basic_auth", "bearer_token", "bearer_token_file",
                       "tls_config", "queue_config"]
    static let tlsKeys = ["ca_file", "cert_file", "key_file", "server_name", "insecure_skip_verify"]
    static let queueKeys = ["capacity", "sample_age_limit", "max_samples_per_send", "min_backoff", "max_backoff",
                            "retry_on_http_429"]
    /// Headers a configuration may not set: the protocol's own.
    static let reservedHeaders = ["host", "authorization", "content-encoding", "content-type", "content-length",
                                  "user-agent", "x-prometheus-remote-write-version", "connection"]
}
