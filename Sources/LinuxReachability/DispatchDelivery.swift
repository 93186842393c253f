import Dispatch
import ReachabilityCore

extension DeliveryQueue {
    /// On a Dispatch queue (a serial one keeps the order of changes).
    public static func dispatch(_ queue: DispatchQueue) -> DeliveryQueue {
        .custom { work in queue.async(execute: work) }
    }
}
