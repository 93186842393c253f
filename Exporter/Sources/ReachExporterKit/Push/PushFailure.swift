/// Why a request came to no answer the writer can settle (no connection, TLS
/// refused, no answer in time, a secret file unreadable, a redirect not
/// followed), as one line for the log and the status page.
struct PushFailure: Error, Equatable, CustomStringConvertible {
    /// `secret`: a password or token file could not be read (nothing sent);
    /// `redirect`: a 3xx not followed (a configuration to correct).
    enum Kind: Equatable { case connect, tls, timeout, closed, secret, redirect }
    var kind: Kind
    var description: String
}
