import NIOCore
import Synchronization

/// The text of snapshots for `/metrics`, each part's text kept while its
/// version stays (``SeriesSnapshot/Version``): the state series of 1,000
/// targets (18,000 lines) are written once per change and shared by every
/// scrape until the next one; the counters are written at each scrape.
final class ExpositionCache: Sendable {
    /// By source: the newest generation written, and its text.
    private let kept = Mutex<[UInt64: (generation: UInt64, text: ByteBuffer)]>([:])

    /// `snapshot`'s text, a buffer per part (the response's body, in order).
    func exposition(of snapshot: SeriesSnapshot) -> [ByteBuffer] {
        snapshot.parts.map { part in
            guard let version = part.version else { return Self.text(part) }
            if let kept = kept.withLock({ $0[version.source] }), kept.generation == version.generation { return kept.text }
            let text = Self.text(part)
            kept.withLock { kept in
                // (Two scrapes across a change may write both generations: the newer one stays.)
                if kept[version.source].map({ $0.generation < version.generation }) ?? true {
                    kept[version.source] = (version.generation, text)
                }
            }
            return text
        }
    }

    private static func text(_ part: SeriesSnapshot.Part) -> ByteBuffer {
        var text: [UInt8] = []
        part.exposition(into: &text)
        return ByteBuffer(bytes: text)
    }
}
