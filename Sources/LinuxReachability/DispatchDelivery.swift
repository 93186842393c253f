import Dispatch
import ReachabilityCore

extension DeliveryQueue {
    /// Delivery on a Dispatch queue.
    ///
    /// - Parameter queue: The queue callbacks run on; a serial one keeps the order of changes.
    /// - Returns: A delivery queue that runs each callback with `queue.async`.
    public static func dispatch(_ queue: DispatchQueue) -> DeliveryQueue {
        .custom { work in queue.async(execute: work) }
    }
}
