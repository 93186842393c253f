// SCNetworkReachability on Linux: a reachability object answers from the
// engine's evaluator while unscheduled, and from a monitor of its target once
// scheduled on a queue or a run loop. README, "Porting from iOS", has the table.

import Dispatch
import Foundation
import LinuxReachability
import ReachabilityCompatSupport

/// A reachability object: a target (an address, a pair, a host name, or the
/// internet for `0.0.0.0`) and, once scheduled, its callback.
///
/// Unscheduled, ``SCNetworkReachabilityGetFlags(_:_:)`` answers at once from route
/// lookups (nothing is sent). For a host name it is optimistic, as Apple's is:
/// the flags of the route the internet would take, the name not yet asked
/// for. Scheduled, a monitor of the target (kernel notifications, no polling)
/// resolves the name and follows it; the callback runs, on the queue or run
/// loop given, each time the flags differ from the last ones this object gave
/// (the answer when it was scheduled is the first), never merely for being
/// scheduled. A name that does not resolve is not reachable.
///
/// ``SCNetworkReachabilityGetFlags(_:_:)`` on a scheduled object answers the latest
/// flags, which can be ahead of the callback (its delivery waits for the
/// queue). Flags it gave that the callback has not are followed by a callback
/// with the flags then, even the callback's last ones: a change there and
/// back before the queue ran would otherwise leave a caller with flags that
/// are no longer true (Apple's compares with the callback's last flags only).
///
/// As Apple's, a scheduled object lives, and calls back, until it is
/// unscheduled (`SCNetworkReachabilitySetDispatchQueue(ref, nil)`,
/// `SCNetworkReachabilityUnscheduleFromRunLoop`), even when the caller keeps
/// no reference to it: the scheduling holds it.
///
/// When `ReachabilityPolicy.processDefault.allowsWWAN` is false (iOS's
/// cellular-data switch off), a path only WWAN carries has no
/// ``SCNetworkReachabilityFlags/reachable``.
public final class SCNetworkReachability: @unchecked Sendable, Hashable, CustomStringConvertible {
    /// What the object was created for.
    enum Subject: Hashable {
        case internet
        case address(IPAddress)
        /// From `local` (nil: any source) to `remote` (nil: `local` itself).
        case pair(local: IPAddress?, remote: IPAddress?)
        case name(String)
        /// Text that is no host name (a URL, say): as Apple's, an object
        /// whose lookup fails, never reachable.
        case unresolvable(String)
    }

    enum Schedule {
        case queue(DispatchQueue)
        case runLoop(CFRunLoop, CFRunLoopMode)
    }

    private struct State {
        var callback: SCNetworkReachabilityCallBack?
        var context = SCNetworkReachabilityContext()
        var schedule: Schedule?
        var monitor: ReachabilityMonitor?
        /// The flags this object last gave its callback (at scheduling: the answer then).
        var given: SCNetworkReachabilityFlags?
        /// Flags `SCNetworkReachabilityGetFlags` gave since, other than `given`:
        /// a delivery (`reconcile`, queued when it is set) follows them.
        var shown: SCNetworkReachabilityFlags?
        /// Runs a block where the callback runs (the schedule's queue or run loop).
        var post: (@Sendable (@escaping @Sendable () -> Void) -> Void)?
        /// Bumped by every (un)scheduling: a delivery of an older monitor is dropped.
        var generation: UInt64 = 0
        /// The object itself while scheduled: as Apple's, a scheduled object
        /// lives (and calls back) until it is unscheduled, whoever holds it.
        var keepAlive: SCNetworkReachability?
        var testHooks = TestHooks()
    }

    /// Where a test runs another thread's call at the one moment a race needs
    /// (all nil outside tests; read under the lock the step takes anyway).
    package struct TestHooks {
        /// After the context is read and before its `info` is handed to the
        /// callback or to `copyDescription`.
        package var beforeCallout: (() -> Void)?
        /// After scheduling stored its monitor (given) and before it starts it.
        package var beforeStart: ((ReachabilityMonitor) -> Void)?

        package init() {}
    }

    package var testHooks: TestHooks {
        get { lock.withLock { state.testHooks } }
        set { lock.withLock { state.testHooks = newValue } }
    }

    let subject: Subject
    private let lock = NSLock()
    private var state = State()

    init(_ subject: Subject) { self.subject = subject }

    deinit {
        state.monitor?.stop()
        state.context.releaseInfo()
    }

    public static func == (lhs: SCNetworkReachability, rhs: SCNetworkReachability) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    public var description: String {
        // Retained under the lock: a SetCallback meanwhile must not free what copyDescription is given.
        let (context, given, hook) = lock.withLock { (state.context.retainingInfo(), state.given, state.testHooks.beforeCallout) }
        defer { context.releaseInfo() }
        var text = "<SCNetworkReachability \(Unmanaged.passUnretained(self).toOpaque())> {\(subjectDescription)"
        if let given { text += ", flags = 0x\(String(given.rawValue, radix: 16)) (\(given.names))" }
        if let info = context.info, let copyDescription = context.copyDescription {
            hook?()
            text += ", context = \(copyDescription(UnsafeRawPointer(info)).takeRetainedValue())"
        }
        return text + "}"
    }

    private var subjectDescription: String {
        switch subject {
        case .internet: return "address = 0.0.0.0"
        case let .address(address): return "address = \(address)"
        case let .pair(local, remote):
            return "local address = \(local.map(\.description) ?? "none"), remote address = \(remote.map(\.description) ?? "none")"
        case let .name(name), let .unresolvable(name): return "name = \(name)"
        }
    }

    // MARK: What the engine is asked

    /// The engine's target and lookup options for the subject.
    var target: (Target, LookupOptions) {
        switch subject {
        case .internet: return (.internet, LookupOptions())
        case let .address(address): return (.address(address), LookupOptions())
        case let .pair(local, remote?): return (.address(remote), LookupOptions(source: local))
        case let .pair(local?, nil): return (.address(local), LookupOptions())
        case .pair(nil, nil): return (.internet, LookupOptions())
        case let .name(name), let .unresolvable(name): return (.host(name), LookupOptions())
        }
    }

    /// The flags an app is given for an engine answer: the kernel's, without
    /// `.reachable` when only WWAN carries the path and the process's policy
    /// refuses it (iOS with the app's cellular data switched off).
    static func flags(_ evaluation: TargetEvaluation) -> SCNetworkReachabilityFlags {
        flags(evaluation.flags, evaluation.unsatisfiedReason)
    }

    static func flags(_ kernel: ReachabilityFlags, _ reason: UnsatisfiedReason?) -> SCNetworkReachabilityFlags {
        var flags = SCNetworkReachabilityFlags(kernel)
        if reason == .wwanRefused { flags.remove(.reachable) }
        return flags
    }

    private static func isName(_ target: Target) -> Bool {
        if case .host = target { return true }
        return false
    }

    /// The unscheduled answer: route lookups now. A name is not resolved: its
    /// answer is the internet's (Apple: "optimistic").
    func unscheduledFlags() throws(ReachabilityError) -> SCNetworkReachabilityFlags {
        if case .unresolvable = subject { return [] }
        let evaluator = try CompatEnvironment.evaluator()
        let (target, options) = target
        switch target {
        case let .address(address):
            let answer = try evaluator.evaluate(address, options: options)
            return Self.flags(answer.flags, answer.unsatisfiedReason)
        case .internet, .host:
            var answers: [AddressEvaluation] = []
            for address in Target.internetProbeAddresses { answers.append(try evaluator.evaluate(address)) }
            return Self.flags(TargetEvaluation(target: .internet, addresses: answers))
        }
    }

    /// The current flags: the monitor's latest answer while scheduled (once
    /// it has one), else the unscheduled answer. Scheduled, flags the callback
    /// has not been given are `show`n.
    func currentFlags() throws(ReachabilityError) -> SCNetworkReachabilityFlags {
        let (monitor, generation) = lock.withLock { (state.monitor, state.generation) }
        guard let monitor else { return try unscheduledFlags() }
        let flags: SCNetworkReachabilityFlags
        if monitor.reevaluationPending, !Self.isName(target.0) {
            // A radio or policy change the monitor has not applied yet (a
            // modem went away): its last answer is stale, the evaluator's is
            // not (a name's would be the internet's: the monitor's stays).
            flags = try unscheduledFlags()
        } else if let evaluation = monitor.currentEvaluations.first, evaluation.isEvaluated {
            flags = Self.flags(evaluation)
        } else {
            flags = try unscheduledFlags()   // before the monitor's first answer
        }
        show(flags, generation: generation)
        return flags
    }

    /// Notes flags a caller was given while scheduled (`generation`); the
    /// first that differ from the callback's queue a delivery of the flags
    /// then, so the callback follows whatever this object told anyone.
    private func show(_ flags: SCNetworkReachabilityFlags, generation: UInt64) {
        let post = lock.withLock { () -> (@Sendable (@escaping @Sendable () -> Void) -> Void)? in
            guard state.generation == generation, state.given != flags else { return nil }
            defer { state.shown = flags }
            return state.shown == nil ? state.post : nil
        }
        post? { [weak self] in self?.reconcile(generation: generation) }
    }

    /// Where the callback runs, after flags were shown: the latest answer is delivered.
    private func reconcile(generation: UInt64) {
        guard let (monitor, post) = lock.withLock({ state.generation == generation ? state.monitor.map { ($0, state.post) } : nil }),
              let evaluation = monitor.currentEvaluations.first else { return }
        // A radio or policy change the monitor has not applied (GetFlags
        // answered it from the evaluator): its answer is from before, the
        // callback's own flags, and delivering it would call back with them,
        // again each time a callback reads GetFlags, until the monitor applies
        // the change. Tried again after the monitor's event thread has turned.
        if monitor.reevaluationPending, !Self.isName(target.0), let post,
           monitor.pingEventThread({ post { [weak self] in self?.reconcile(generation: generation) } }) {
            return
        }
        deliver(evaluation, generation: generation)
    }

    // MARK: Callback and scheduling

    func setCallback(_ callback: SCNetworkReachabilityCallBack?, context: SCNetworkReachabilityContext?) {
        let new = (context ?? SCNetworkReachabilityContext()).retainingInfo()
        let old = lock.withLock { () -> SCNetworkReachabilityContext in
            let old = state.context
            state.callback = callback
            state.context = new
            return old
        }
        old.releaseInfo()
    }

    /// Starts a monitor of the target delivering to `schedule`; false when
    /// the object is scheduled elsewhere already or the kernel cannot be watched.
    func schedule(_ schedule: Schedule) -> Bool {
        if case .queue = schedule, case .queue? = lock.withLock({ state.schedule }) {
            unschedule()   // another queue: SetDispatchQueue moves it
        }
        guard lock.withLock({ state.schedule == nil }) else {
            SCErrorState.set(kSCStatusInvalidArgument)
            return false
        }
        if case .unresolvable = subject {
            // Nothing to watch: no lookup of it can succeed, its flags stay empty.
            return lock.withLock {
                guard state.schedule == nil else { return false }
                state.generation &+= 1
                state.schedule = schedule
                state.given = []
                state.keepAlive = self
                return true
            }
        }
        let (target, options) = target
        let baseline: SCNetworkReachabilityFlags
        let monitor: ReachabilityMonitor
        do {
            baseline = try unscheduledFlags()
            monitor = try CompatEnvironment.makeMonitor([target], options: options)
        } catch {
            SCErrorState.set(kSCStatusReachabilityUnknown)
            return false
        }
        let post: @Sendable (@escaping @Sendable () -> Void) -> Void
        switch schedule {
        case let .queue(queue):
            post = { work in queue.async(execute: work) }
        case let .runLoop(runLoop, mode):
            nonisolated(unsafe) let (loop, mode) = (runLoop, mode)
            post = { work in
                CFRunLoopPerformBlock(loop, mode, work)
                CFRunLoopWakeUp(loop)
            }
        }
        let stored = lock.withLock { () -> (generation: UInt64, hook: ((ReachabilityMonitor) -> Void)?)? in
            guard state.schedule == nil else { return nil }   // scheduled elsewhere meanwhile
            state.generation &+= 1
            state.schedule = schedule
            state.monitor = monitor
            state.given = baseline
            state.post = post
            state.keepAlive = self
            return (state.generation, state.testHooks.beforeStart)
        }
        guard let (generation, beforeStart) = stored else {
            SCErrorState.set(kSCStatusInvalidArgument)
            return false
        }
        monitor.onChange(on: .custom(post)) { [weak self] change in
            self?.deliver(change.evaluation, generation: generation)
        }
        beforeStart?(monitor)
        do {
            try monitor.start()
        } catch {
            unschedule(ifGeneration: generation)
            SCErrorState.set(kSCStatusReachabilityUnknown)
            return false
        }
        // An unscheduling since the monitor was stored stopped it before it
        // ran; nothing would stop it now.
        if lock.withLock({ state.generation != generation }) { monitor.stop() }
        return true
    }

    /// Stops the monitor; the callback stays set. True when it was scheduled
    /// (by the scheduling of `generation`, when given).
    @discardableResult
    func unschedule(ifGeneration generation: UInt64? = nil) -> Bool {
        let taken = lock.withLock { () -> (monitor: ReachabilityMonitor?, keepAlive: SCNetworkReachability?)? in
            guard state.schedule != nil, generation == nil || generation == state.generation else { return nil }
            state.generation &+= 1
            state.schedule = nil
            defer { state.monitor = nil; state.keepAlive = nil; state.post = nil; state.shown = nil }
            return (state.monitor, state.keepAlive)
        }
        guard let taken else { return false }
        taken.monitor?.stop()
        // The object's own reference goes last, outside the lock: it may be the last one.
        withExtendedLifetime(taken.keepAlive) {}
        return true
    }

    /// Whether a queue or a run loop has it (for the libraries' modules' tests).
    package var isScheduled: Bool { lock.withLock { state.schedule != nil } }

    func isScheduled(on runLoop: CFRunLoop, _ mode: CFRunLoopMode) -> Bool {
        lock.withLock {
            guard case let .runLoop(loop, scheduledMode)? = state.schedule else { return false }
            return loop === runLoop && CFEqual(scheduledMode, mode)
        }
    }

    /// On the schedule's queue or run loop: calls the callback when the flags
    /// differ from the last ones given, to it or to `SCNetworkReachabilityGetFlags`.
    private func deliver(_ evaluation: TargetEvaluation, generation: UInt64) {
        guard evaluation.isEvaluated else { return }
        let flags = Self.flags(evaluation)
        let call = lock.withLock { () -> (SCNetworkReachabilityCallBack, SCNetworkReachabilityContext, (() -> Void)?)? in
            guard state.generation == generation else { return nil }
            let shown = state.shown
            state.shown = nil
            guard state.given != flags || shown.map({ $0 != flags }) == true else { return nil }
            state.given = flags
            // Retained under the lock, released after the callout: a
            // SetCallback meanwhile (a library's stop on another thread)
            // releases only its own reference.
            return state.callback.map { ($0, state.context.retainingInfo(), state.testHooks.beforeCallout) }
        }
        guard let (callback, context, hook) = call else { return }
        defer { context.releaseInfo() }
        hook?()
        callback(self, flags, context.info)
    }
}

extension SCNetworkReachabilityContext {
    /// This context, its `info` retained once more through its own `retain`.
    func retainingInfo() -> SCNetworkReachabilityContext {
        var context = self
        if let info, let retain { context.info = UnsafeMutableRawPointer(mutating: retain(info)) }
        return context
    }

    /// Releases the reference `retainingInfo()` took (or the stored one).
    func releaseInfo() {
        if let info, let release { release(info) }
    }
}

// MARK: - The functions, as Swift imports Apple's

/// Makes a reachability object for a socket address.
///
/// - Parameters:
///   - allocator: Ignored; pass nil.
///   - address: An `AF_INET` or `AF_INET6` socket address; `0.0.0.0` (or
///     `::`) is the internet: the default routes.
/// - Returns: The object; nil, with ``SCError()`` giving
///   ``kSCStatusInvalidArgument``, for another family.
public func SCNetworkReachabilityCreateWithAddress(_ allocator: CFAllocator?, _ address: UnsafePointer<sockaddr>) -> SCNetworkReachability? {
    guard let ip = SocketAddress.address(address) else {
        SCErrorState.set(kSCStatusInvalidArgument)
        return nil
    }
    return SCNetworkReachability(ip.isUnspecified ? .internet : .address(ip))
}

/// Makes a reachability object for packets from one address to another: the
/// route a socket bound to the local address takes (source-based policy
/// rules apply).
///
/// - Parameters:
///   - allocator: Ignored; pass nil.
///   - localAddress: The source address; nil for any source.
///   - remoteAddress: The destination; nil for the local address itself.
/// - Returns: The object; nil, with ``kSCStatusInvalidArgument``, when both
///   addresses are nil or one is of another family than `AF_INET`/`AF_INET6`.
public func SCNetworkReachabilityCreateWithAddressPair(_ allocator: CFAllocator?, _ localAddress: UnsafePointer<sockaddr>?,
                                                       _ remoteAddress: UnsafePointer<sockaddr>?) -> SCNetworkReachability? {
    let local = localAddress.map(SocketAddress.address)
    let remote = remoteAddress.map(SocketAddress.address)
    guard local != nil || remote != nil, local != .some(nil), remote != .some(nil) else {
        SCErrorState.set(kSCStatusInvalidArgument)
        return nil
    }
    return SCNetworkReachability(.pair(local: local ?? nil, remote: remote ?? nil))
}

/// Makes a reachability object for a host. Unscheduled, its flags are
/// optimistic (the internet's route, the name not yet resolved); scheduled,
/// they follow the name's addresses. As Apple's, any text but the empty
/// string gives an object: text that is no host name (a URL such as
/// `"https://example.org"`, passed by mistake) gives one whose lookup fails,
/// so its flags are empty (not reachable), scheduled or not.
///
/// - Parameters:
///   - allocator: Ignored; pass nil.
///   - nodename: A host name, or an address in text.
/// - Returns: The object; nil, with ``kSCStatusInvalidArgument``, for the
///   empty string.
public func SCNetworkReachabilityCreateWithName(_ allocator: CFAllocator?, _ nodename: UnsafePointer<CChar>) -> SCNetworkReachability? {
    let text = String(cString: nodename)
    guard !text.isEmpty else {
        SCErrorState.set(kSCStatusInvalidArgument)
        return nil
    }
    switch try? Target(parsing: text) {
    case let .address(address)?: return SCNetworkReachability(address.isUnspecified ? .internet : .address(address))
    case .host?, .internet?: return SCNetworkReachability(.name(text))   // "internet" is a name here
    case nil: return SCNetworkReachability(.unresolvable(text))
    }
}

/// Reads a reachability object's flags now: whether its target is reachable,
/// and how.
///
/// - Parameters:
///   - target: The reachability object.
///   - flags: Where the flags are written.
/// - Returns: `true` when `flags` holds the flags; `false`, with
///   ``kSCStatusReachabilityUnknown``, when the kernel cannot be asked.
@discardableResult
public func SCNetworkReachabilityGetFlags(_ target: SCNetworkReachability,
                                          _ flags: UnsafeMutablePointer<SCNetworkReachabilityFlags>) -> Bool {
    do {
        flags.pointee = try target.currentFlags()
        return true
    } catch {
        SCErrorState.set(kSCStatusReachabilityUnknown)
        return false
    }
}

/// Sets the callback a scheduled object calls, and its context. The
/// context's `retain` is called on its `info` now, and `release` when it is
/// replaced and when `target` is destroyed; each callout (the callback,
/// `copyDescription`) holds a reference of its own, retained before it and
/// released after it, as on Apple's platforms.
///
/// - Parameters:
///   - target: The reachability object.
///   - callout: The callback; nil removes the callback and the context.
///   - context: What the callback is given with the flags; nil for none.
/// - Returns: `true`: on Linux setting the callback always succeeds.
@discardableResult
public func SCNetworkReachabilitySetCallback(_ target: SCNetworkReachability, _ callout: SCNetworkReachabilityCallBack?,
                                             _ context: UnsafeMutablePointer<SCNetworkReachabilityContext>?) -> Bool {
    target.setCallback(callout, context: context?.pointee)
    return true
}

/// Schedules a reachability object on a Dispatch queue, or unschedules it.
///
/// - Parameters:
///   - target: The reachability object.
///   - queue: The queue its callback runs on; nil unschedules it.
/// - Returns: `false` when it is scheduled on a run loop, or the kernel cannot
///   be watched.
@discardableResult
public func SCNetworkReachabilitySetDispatchQueue(_ target: SCNetworkReachability, _ queue: DispatchQueue?) -> Bool {
    guard let queue else {
        target.unschedule()
        return true
    }
    return target.schedule(.queue(queue))
}

/// Schedules a reachability object on a CoreFoundation run loop.
/// `kCFRunLoopDefaultMode` and `kCFRunLoopCommonModes` are CoreFoundation's
/// on Linux, optional there, so this takes an optional mode.
///
/// - Parameters:
///   - target: The reachability object.
///   - runLoop: The run loop; the callback runs when it runs in
///     `runLoopMode` (`RunLoop.current.run()` or `CFRunLoopRun()`).
///   - runLoopMode: The mode; nil for the default mode.
/// - Returns: `false` when the object is scheduled elsewhere already, or the
///   kernel cannot be watched.
@discardableResult
public func SCNetworkReachabilityScheduleWithRunLoop(_ target: SCNetworkReachability, _ runLoop: CFRunLoop,
                                                     _ runLoopMode: CFRunLoopMode?) -> Bool {
    guard let mode = runLoopMode ?? kCFRunLoopDefaultMode else { return false }
    return target.schedule(.runLoop(runLoop, mode))
}

/// Schedules a reachability object on a CoreFoundation run loop, with the
/// mode as Foundation names it: `RunLoop.Mode.default.rawValue as CFString`
/// (here ``CFString`` is `NSString`).
///
/// - Parameters:
///   - target: The reachability object.
///   - runLoop: The run loop; the callback runs when it runs in `runLoopMode`.
///   - runLoopMode: The mode's name.
/// - Returns: `false` when the object is scheduled elsewhere already, or the
///   kernel cannot be watched.
@discardableResult
public func SCNetworkReachabilityScheduleWithRunLoop(_ target: SCNetworkReachability, _ runLoop: CFRunLoop,
                                                     _ runLoopMode: CFString) -> Bool {
    SCNetworkReachabilityScheduleWithRunLoop(target, runLoop, RunLoopModes.mode(runLoopMode))
}

/// Unschedules a reachability object from the run loop it was scheduled on with
/// ``SCNetworkReachabilityScheduleWithRunLoop(_:_:_:)-(_,_,CFRunLoopMode?)``.
///
/// - Parameters:
///   - target: The reachability object.
///   - runLoop: The run loop it was scheduled on.
///   - runLoopMode: The mode it was scheduled in; nil for the default mode.
/// - Returns: `false`, with ``kSCStatusInvalidArgument``, when it is not
///   scheduled there.
@discardableResult
public func SCNetworkReachabilityUnscheduleFromRunLoop(_ target: SCNetworkReachability, _ runLoop: CFRunLoop,
                                                       _ runLoopMode: CFRunLoopMode?) -> Bool {
    guard let mode = runLoopMode ?? kCFRunLoopDefaultMode, target.isScheduled(on: runLoop, mode) else {
        SCErrorState.set(kSCStatusInvalidArgument)
        return false
    }
    return target.unschedule()
}

/// Unschedules a reachability object from a run loop, with the mode as
/// Foundation names it.
///
/// - Parameters:
///   - target: The reachability object.
///   - runLoop: The run loop it was scheduled on.
///   - runLoopMode: The name of the mode it was scheduled in.
/// - Returns: `false`, with ``kSCStatusInvalidArgument``, when it is not
///   scheduled there.
@discardableResult
public func SCNetworkReachabilityUnscheduleFromRunLoop(_ target: SCNetworkReachability, _ runLoop: CFRunLoop,
                                                       _ runLoopMode: CFString) -> Bool {
    SCNetworkReachabilityUnscheduleFromRunLoop(target, runLoop, RunLoopModes.mode(runLoopMode))
}

// MARK: - Run loops as Swift code on Apple's platforms names them

enum RunLoopModes {
    /// CoreFoundation's mode for Foundation's name of it.
    static func mode(_ name: CFString) -> CFRunLoopMode? {
        switch name as String {
        case "kCFRunLoopDefaultMode": return kCFRunLoopDefaultMode
        case "kCFRunLoopCommonModes": return kCFRunLoopCommonModes
        default: return CFStringCreateWithCString(nil, name as String, CFStringBuiltInEncodings.UTF8.rawValue)
        }
    }
}

extension CFRunLoopMode {
    /// `CFRunLoopMode.defaultMode.rawValue`, as Swift code on Apple's platforms writes it.
    public static var defaultMode: CFRunLoopMode! { kCFRunLoopDefaultMode }
    /// `CFRunLoopMode.commonModes.rawValue`, as Swift code on Apple's platforms writes it.
    public static var commonModes: CFRunLoopMode! { kCFRunLoopCommonModes }
    /// The mode itself (on Linux `CFRunLoopMode` is CoreFoundation's string type, not a wrapper of it).
    public var rawValue: CFRunLoopMode { self }
}

extension RunLoop {
    /// This run loop's CoreFoundation run loop, for
    /// `SCNetworkReachabilityScheduleWithRunLoop(ref, RunLoop.current.getCFRunLoop(), …)`.
    /// Linux's Foundation has this method, but not public: this one reads the
    /// run loop's CoreFoundation object by reflection, and gives the calling
    /// thread's run loop if a Foundation version stores it elsewhere.
    ///
    /// - Returns: The CoreFoundation run loop under this run loop.
    public func getCFRunLoop() -> CFRunLoop {
        for child in Mirror(reflecting: self).children where child.label == "_cfRunLoopStorage" {
            if let object = (child.value as? AnyObject?) ?? nil { return unsafeBitCast(object, to: CFRunLoop.self) }
        }
        return self === RunLoop.main ? CFRunLoopGetMain() : CFRunLoopGetCurrent()
    }
}

// MARK: - For the libraries' modules

/// Sets `target`'s callback to call `body` with `object` and the flags while
/// `object` lives: the context holds it weakly, in a box the reachability
/// object retains and releases as CoreFoundation does (Alamofire's
/// `WeakManager`, Reachability.swift's weakifier). For the modules of the
/// libraries built on this one; not Apple's API.
@discardableResult
package func SCNetworkReachabilitySetWeakCallback<Object: AnyObject>(
    _ target: SCNetworkReachability, _ object: Object, _ body: @escaping (Object, SCNetworkReachabilityFlags) -> Void
) -> Bool {
    let box = Unmanaged.passRetained(WeakObject(object))
    defer { box.release() }   // SetCallback retains its own
    var context = SCNetworkReachabilityContext(
        version: 0, info: box.toOpaque(),
        retain: { info in UnsafeRawPointer(Unmanaged<WeakObject>.fromOpaque(info).retain().toOpaque()) },
        release: { info in Unmanaged<WeakObject>.fromOpaque(info).release() },
        copyDescription: nil)
    return SCNetworkReachabilitySetCallback(target, { _, flags, info in
        guard let info, let object = Unmanaged<WeakObject>.fromOpaque(info).takeUnretainedValue().object as? Object else { return }
        body(object, flags)
    }, &context)
}

/// An object, weakly.
private final class WeakObject {
    weak var object: AnyObject?
    init(_ object: AnyObject) { self.object = object }
}
