// NWPathMonitor on Linux: a monitor of the internet target (kernel
// notifications, no polling) whose answers become NWPaths; a path is given
// when any field of it changed.

import Dispatch
import Foundation
import LinuxReachability
import ReachabilityCompatSupport

/// Watches the path to the internet and calls ``pathUpdateHandler`` with the
/// first path right after ``start(queue:)``, then with each path that differs
/// from the last one given (its status, interfaces, cost, families, gateways).
///
/// ``init(requiredInterfaceType:)`` and ``init(prohibitedInterfaceTypes:)``
/// count only the interfaces they allow: the path is satisfied when one of
/// them has its own usable route to the internet (a route lookup bound to it
/// that a routing table answers, not the kernel's on-link fallback), even
/// when the default route leaves by another.
///
/// As on Apple's platforms, ``start(queue:)`` works once, and ``cancel()`` ends the
/// monitor for good (make a new one to watch again). A started monitor lives,
/// and calls its handler, until it is cancelled, even when the caller keeps
/// no reference to it (Apple's holds itself while started too): cancel every
/// monitor you start.
public final class NWPathMonitor: @unchecked Sendable {
    private struct State {
        var handler: (@Sendable (NWPath) -> Void)?
        var current = NWPath.initial
        /// The last path given (nil before the first).
        var delivered: NWPath?
        var queue: DispatchQueue?
        var monitor: ReachabilityMonitor?
        var cancelled = false
        /// The monitor itself from `start` until `cancel()`: as Apple's, a
        /// started monitor lives, and calls its handler, until it is cancelled.
        var keepAlive: NWPathMonitor?
        /// A `for await` loop started it: the last loop to end cancels it.
        var startedByIteration = false
        var streams: [UInt64: AsyncStream<NWPath>.Continuation] = [:]
        var nextStream: UInt64 = 0
        var testHooks = TestHooks()
    }

    /// Where a test runs another thread's call at the one moment a race needs
    /// (all nil outside tests; read under the lock the step takes anyway).
    package struct TestHooks {
        /// After `start` stored its engine monitor (given) and before it starts it.
        package var beforeStart: ((ReachabilityMonitor) -> Void)?
        /// After a stream (`for await`) is registered and has read the current path.
        package var afterStreamRegistered: (() -> Void)?

        package init() {}
    }

    package var testHooks: TestHooks {
        get { lock.withLock { state.testHooks } }
        set { lock.withLock { state.testHooks = newValue } }
    }

    private let requiredInterfaceType: NWInterface.InterfaceType?
    private let prohibitedInterfaceTypes: [NWInterface.InterfaceType]
    private let lock = NSLock()
    private var state = State()

    /// A monitor of every interface type.
    public init() {
        requiredInterfaceType = nil
        prohibitedInterfaceTypes = []
    }

    /// A monitor that counts only interfaces of one type.
    ///
    /// - Parameter requiredInterfaceType: The type of the interfaces the path may use.
    public init(requiredInterfaceType: NWInterface.InterfaceType) {
        self.requiredInterfaceType = requiredInterfaceType
        prohibitedInterfaceTypes = []
    }

    /// A monitor that counts no interface of some types.
    ///
    /// - Parameter prohibitedInterfaceTypes: The types of the interfaces the path may not use.
    public init(prohibitedInterfaceTypes: [NWInterface.InterfaceType]) {
        requiredInterfaceType = nil
        self.prohibitedInterfaceTypes = prohibitedInterfaceTypes
    }

    deinit { state.monitor?.stop() }

    /// Called on the monitor's queue with each new path.
    @preconcurrency public var pathUpdateHandler: (@Sendable (NWPath) -> Void)? {
        get { lock.withLock { state.handler } }
        set { lock.withLock { state.handler = newValue } }
    }

    /// The latest path: unsatisfied with no interfaces until the first answer after ``start(queue:)``.
    public var currentPath: NWPath {
        get { lock.withLock { state.current } }
        set { lock.withLock { state.current = newValue } }
    }

    /// The queue given to ``start(queue:)``; nil before.
    public var queue: DispatchQueue? { lock.withLock { state.queue } }

    /// Starts watching; the handler gets the current path at once. Only the
    /// first call does anything, and none after ``cancel()``.
    ///
    /// - Parameter queue: The queue ``pathUpdateHandler`` is called on.
    public func start(queue: DispatchQueue) {
        let first = lock.withLock { () -> Bool in
            guard state.queue == nil, !state.cancelled else { return false }
            state.queue = queue
            state.keepAlive = self
            return true
        }
        guard first else { return }
        let filtered = requiredInterfaceType != nil || !prohibitedInterfaceTypes.isEmpty
        do {
            let evaluator = try CompatEnvironment.evaluator()
            let monitor = try CompatEnvironment.makeMonitor([.internet])
            monitor.onChange(on: .custom { work in queue.compatAsync(work) }) { [weak self] change in
                self?.update(change.evaluation, evaluator)
            }
            if filtered {
                // A route of an allowed interface that is not the default one
                // changes no answer of the monitor's: read it again after
                // every burst of kernel changes.
                monitor.observeKernelChanges { [weak self, weak monitor] in
                    guard let self, let monitor else { return }
                    queue.compatAsync {
                        guard let evaluation = monitor.currentEvaluations.first else { return }
                        self.update(evaluation, evaluator)
                    }
                }
            }
            let (cancelled, beforeStart) = lock.withLock { () -> (Bool, ((ReachabilityMonitor) -> Void)?) in
                if !state.cancelled { state.monitor = monitor }
                return (state.cancelled, state.testHooks.beforeStart)
            }
            if cancelled { return }
            beforeStart?(monitor)
            try monitor.start()
            // A cancel() since the monitor was stored stopped it before it
            // ran; nothing would stop it now.
            if lock.withLock({ state.cancelled }) { monitor.stop() }
        } catch {
            // The kernel cannot be watched: the first path says so, once.
            queue.compatAsync { self.give(NWPath.initial) }
        }
    }

    /// Stops the monitor for good, and ends every `for await` loop once it
    /// has had the paths given before.
    ///
    /// As on Apple's platforms, a delivery that has already begun on the
    /// monitor's queue when this is called may still call
    /// ``pathUpdateHandler``, once, after this returns; no other delivery
    /// begins. Called on that queue (a serial one, as ``start(queue:)`` is
    /// usually given), no handler call follows it.
    public func cancel() {
        let (monitor, streams, keepAlive) = lock.withLock {
            () -> (ReachabilityMonitor?, [AsyncStream<NWPath>.Continuation], NWPathMonitor?) in
            state.cancelled = true
            defer { state.monitor = nil; state.streams = [:]; state.keepAlive = nil }
            return (state.monitor, Array(state.streams.values), state.keepAlive)
        }
        monitor?.stop()
        for stream in streams { stream.finish() }
        // The monitor's own reference goes last, outside the lock: it may be the last one.
        withExtendedLifetime(keepAlive) {}
    }

    /// On the queue: the path of `evaluation` under the monitor's interface
    /// types, given when it differs from the last one.
    private func update(_ evaluation: TargetEvaluation, _ evaluator: ReachabilityEvaluator) {
        guard evaluation.isEvaluated else { return }
        give(path(evaluation, evaluator))
    }

    private func give(_ path: NWPath) {
        let (given, handler) = lock.withLock { () -> (Bool, (@Sendable (NWPath) -> Void)?) in
            guard !state.cancelled, state.delivered != path else { return (false, nil) }
            state.delivered = path
            state.current = path
            // Under the lock (a yield does not wait): streams get paths in the
            // order they became `delivered`, even from a concurrent queue, and
            // a stream registering now gets this one after the one it read.
            for stream in state.streams.values { stream.yield(path) }
            return (true, state.handler)
        }
        guard given, let handler else { return }
        handler(path)
    }

    private func allows(_ type: NWInterface.InterfaceType) -> Bool {
        if let requiredInterfaceType { return type == requiredInterfaceType }
        return !prohibitedInterfaceTypes.contains(type)
    }

    /// The path under the monitor's interface types: the engine's answer when
    /// it leaves by an allowed interface, else the answer of the first
    /// allowed interface that has its own route to the internet.
    func path(_ evaluation: TargetEvaluation, _ evaluator: ReachabilityEvaluator) -> NWPath {
        let path = NWPath(evaluation, allows: allows)
        guard requiredInterfaceType != nil || !prohibitedInterfaceTypes.isEmpty else { return path }
        if path.status == .satisfied, let used = path.usedInterfaceType, allows(used) { return path }
        var refused: NWPath?
        for interface in path.availableInterfaces where interface.type != .loopback {
            // A lookup bound to the interface: a routing table's answer, or
            // the kernel's on-link fallback (table 0, no gateway) when none covers it.
            let answers = Target.internetProbeAddresses.compactMap { address in
                try? evaluator.evaluate(address, options: LookupOptions(interface: interface.name))
            }.filter { $0.route.table != 0 && $0.route.verdict.isUsable }
            guard !answers.isEmpty else { continue }
            let own = TargetEvaluation(target: .internet, addresses: answers,
                                       availableInterfaces: [NetworkInterface(name: interface.name, index: Int32(interface.index),
                                                                              kind: answers[0].interfaceKind ?? .other)],
                                       supportsDNS: evaluation.supportsDNS)
            let candidate = NWPath(own)
            let interfaces = [interface] + path.availableInterfaces.filter { $0 != interface }
            let result = NWPath(status: candidate.status, unsatisfiedReason: candidate.unsatisfiedReason,
                                availableInterfaces: interfaces, isExpensive: candidate.isExpensive,
                                isConstrained: candidate.isConstrained, supportsIPv4: candidate.supportsIPv4,
                                supportsIPv6: candidate.supportsIPv6, supportsDNS: candidate.supportsDNS,
                                gateways: candidate.gateways, usedInterfaceType: candidate.usedInterfaceType)
            if result.status == .satisfied { return result }
            refused = refused ?? result
        }
        if let refused { return refused }
        return NWPath(status: .unsatisfied, unsatisfiedReason: .notAvailable, availableInterfaces: path.availableInterfaces,
                      isExpensive: false, isConstrained: false, supportsIPv4: false, supportsIPv6: false,
                      supportsDNS: path.supportsDNS, gateways: [], usedInterfaceType: nil)
    }

    // MARK: Streams

    fileprivate func stream() -> AsyncStream<NWPath> {
        let (stream, continuation) = AsyncStream<NWPath>.makeStream()
        let (id, cancelled, started, hook) = lock.withLock { () -> (UInt64, Bool, Bool, (() -> Void)?) in
            state.nextStream += 1
            if !state.cancelled {
                state.streams[state.nextStream] = continuation
                // With the registration: a path given once the lock is free comes after this one.
                if let current = state.delivered { continuation.yield(current) }
            }
            return (state.nextStream, state.cancelled, state.queue != nil, state.testHooks.afterStreamRegistered)
        }
        hook?()
        if cancelled {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            let last = lock.withLock { () -> Bool in
                state.streams.removeValue(forKey: id)
                return state.startedByIteration && state.streams.isEmpty && !state.cancelled
            }
            // A monitor that a loop started has no other owner to cancel it.
            if last { cancel() }
        }
        if !started {
            lock.withLock { state.startedByIteration = true }
            start(queue: DispatchQueue(label: "Network.NWPathMonitor"))
        }
        return stream
    }
}

extension NWPathMonitor: CustomDebugStringConvertible {
    /// Whether it watches (not started, started, cancelled) and its current
    /// path. Apple's (iOS 17) text is not documented; this one is ours.
    public var debugDescription: String {
        let (started, cancelled, path) = lock.withLock { (state.queue != nil, state.cancelled, state.current) }
        return "NWPathMonitor (\(cancelled ? "cancelled" : started ? "started" : "not started")) \(path.debugDescription)"
    }
}

extension NWPathMonitor: AsyncSequence {
    /// Each element of `for await path in monitor` is a path, the current one
    /// first.
    public typealias Element = NWPath
    /// The loop never throws: it ends when the task is cancelled or the monitor
    /// is.
    public typealias Failure = Never
    /// The iterator of `for await`, which starts the monitor when it has not
    /// been started.
    public typealias AsyncIterator = Iterator

    /// `for await path in monitor`: the current path first, then each new
    /// one. Starts the monitor (on a queue of its own) when it has not been
    /// started; ends when the task is cancelled or the monitor is. The
    /// iterator holds its monitor, so `for await path in NWPathMonitor()`
    /// works as on Apple's platforms; a monitor that the loop started is
    /// cancelled when the last loop over it ends (a `break`, the task cancelled).
    public struct Iterator: AsyncIteratorProtocol {
        var base: AsyncStream<NWPath>.Iterator
        /// Held for as long as the loop runs.
        let monitor: NWPathMonitor

        public mutating func next() async -> NWPath? { await base.next() }
    }

    public func makeAsyncIterator() -> Iterator { Iterator(base: stream().makeAsyncIterator(), monitor: self) }
}
