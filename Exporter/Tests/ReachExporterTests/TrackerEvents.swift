// A tracker's event as UplinkTracker would give it, for the exporter's unit
// tests: a state, a verdict, and the quality window's loss and median.

@testable import ReachExporterKit
@testable import ReachabilityCore
@testable import ReachabilityModel

/// An event of uplink `interface` (score 5 online, 0 otherwise); `previous`
/// nil is the initial event. `loss` in percent and `latency` make the
/// quality window's summary (none when both are nil).
func trackerEvent(_ state: UplinkState, previous: UplinkState?, verdict: UplinkVerdict,
                  previousVerdict: UplinkVerdict? = nil, interface: String = "wan0", detail: String? = nil,
                  failovers: Int = 0, loss: Int? = nil, latency: Duration? = nil,
                  results: [ProbeResult] = []) -> TrackerEvent {
    let quality = loss == nil && latency == nil ? nil
        : QualitySummary(samples: 50, lost: (loss ?? 0) / 2, medianLatency: latency, lossPercent: loss)
    return TrackerEvent(interface: interface, state: state, previous: previous, score: state == .online ? 5 : 0, round: 1,
                        results: results, error: nil, time: MonotonicInstant(nanoseconds: 0), verdict: verdict,
                        previousVerdict: previous == nil ? nil : (previousVerdict ?? verdict), quality: quality,
                        detail: detail, failovers: failovers)
}
