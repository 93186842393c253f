import NIOHTTP1

/// What one remote write request came to.
enum PushOutcome: Equatable {
    /// 2xx.
    case accepted
    /// Any other answer: its status and the start of its body (the receiver's reason).
    case answered(HTTPResponseStatus, reason: String)
    /// No answer: no connection, TLS refused, no answer in time, closed.
    case failed(PushFailure)
}
