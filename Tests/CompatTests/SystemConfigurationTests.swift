// SystemConfiguration on the real kernel: unscheduled answers, scheduled
// callbacks only on a change, names, contexts' retain/release, WWAN.

import Foundation
import LinuxReachability
import ReachabilityCompatSupport
import Synchronization
import ReachabilityCore
import SystemConfiguration
import XCTest

/// Counts what the context's callbacks did to one object.
final class ContextCounts: Sendable {
    let retains = Atomic<Int>(0)
    let releases = Atomic<Int>(0)
    let descriptions = Atomic<Int>(0)
    let flags = Arrivals<SCNetworkReachabilityFlags>()
    let threads = Mutex<[String]>([])
    /// At each callout (the callback, copyDescription): how many references
    /// to this object the reachability object held then (0: it had let go).
    let heldAtCallout = Arrivals<Int>()

    /// [retains, releases].
    var balance: [Int] { [retains.load(ordering: .relaxed), releases.load(ordering: .relaxed)] }

    func calledOut() { heldAtCallout.add(retains.load(ordering: .relaxed) - releases.load(ordering: .relaxed)) }
}

#if compiler(>=6.1)
private let queueKey = DispatchSpecificKey<String>()
#else
// Swift 6.0's Dispatch does not yet declare DispatchSpecificKey Sendable.
nonisolated(unsafe) private let queueKey = DispatchSpecificKey<String>()
#endif

/// The calling thread's name as the kernel has it (/proc/thread-self/comm).
/// Not Foundation's `Thread.name`: a `Thread` that names itself as it starts
/// can lose that name (it is applied only once Foundation has recorded the
/// thread's pthread, which the creating thread does after it starts), and
/// under load a run-loop callback read back the process's name.
private func currentThreadName() -> String {
    ((try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "")
        .trimmingCharacters(in: .whitespacesAndNewlines)
}

final class SystemConfigurationTests: CompatTestCase {
    private func address(_ text: String) -> SCNetworkReachability? {
        var storage = sockaddr_storage()
        return withUnsafeMutableBytes(of: &storage) { raw -> SCNetworkReachability? in
            if text.contains(":") {
                var address = sockaddr_in6()
                address.sin6_len = UInt8(MemoryLayout<sockaddr_in6>.size)
                address.sin6_family = sa_family_t(AF_INET6)
                XCTAssertEqual(inet_pton(AF_INET6, text, &address.sin6_addr), 1)
                raw.storeBytes(of: address, as: sockaddr_in6.self)
            } else {
                var address = sockaddr_in()
                address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
                address.sin_family = sa_family_t(AF_INET)
                XCTAssertEqual(inet_pton(AF_INET, text, &address.sin_addr), 1)
                raw.storeBytes(of: address, as: sockaddr_in.self)
            }
            return SCNetworkReachabilityCreateWithAddress(nil, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self))
        }
    }

    private func flags(_ ref: SCNetworkReachability, file: StaticString = #filePath, line: UInt = #line) -> SCNetworkReachabilityFlags {
        var flags = SCNetworkReachabilityFlags()
        XCTAssertTrue(SCNetworkReachabilityGetFlags(ref, &flags), "GetFlags: \(SCError())", file: file, line: line)
        return flags
    }

    /// A context whose info is `counts`, retained and released through Unmanaged as iOS code does it.
    private func context(_ counts: ContextCounts) -> SCNetworkReachabilityContext {
        SCNetworkReachabilityContext(
            version: 0, info: Unmanaged.passUnretained(counts).toOpaque(),
            retain: { info in
                let counts = Unmanaged<ContextCounts>.fromOpaque(info)
                counts.takeUnretainedValue().retains.add(1, ordering: .relaxed)
                return UnsafeRawPointer(counts.retain().toOpaque())
            },
            release: { info in
                let counts = Unmanaged<ContextCounts>.fromOpaque(info)
                counts.takeUnretainedValue().releases.add(1, ordering: .relaxed)
                counts.release()
            },
            copyDescription: { info in
                let counts = Unmanaged<ContextCounts>.fromOpaque(info).takeUnretainedValue()
                counts.calledOut()
                counts.descriptions.add(1, ordering: .relaxed)
                return Unmanaged.passRetained("counts" as CFString)
            })
    }

    private let callback: SCNetworkReachabilityCallBack = { _, flags, info in
        let counts = Unmanaged<ContextCounts>.fromOpaque(info!).takeUnretainedValue()
        counts.calledOut()
        counts.threads.withLock { $0.append(currentThreadName()) }
        counts.flags.add(flags)
    }

    /// `ref` scheduled on `queue` with a counting context.
    private func schedule(_ ref: SCNetworkReachability, _ counts: ContextCounts,
                          on queue: DispatchQueue = DispatchQueue(label: "sc-test")) {
        var context = context(counts)
        XCTAssertTrue(SCNetworkReachabilitySetCallback(ref, callback, &context))
        XCTAssertTrue(SCNetworkReachabilitySetDispatchQueue(ref, queue))
    }

    // MARK: Unscheduled

    func testTheZeroAddressIsTheInternetAndAnswersAtOnce() throws {
        let ns = try makeWiredNamespace()
        let ref = try XCTUnwrap(address("0.0.0.0"))
        XCTAssertEqual(flags(ref), .reachable)
        XCTAssertEqual(flags(try XCTUnwrap(address("10.10.0.9"))), [.reachable, .isDirect])
        XCTAssertEqual(flags(try XCTUnwrap(address("10.10.0.1"))), [.reachable, .isLocalAddress, .isDirect])
        ns.run("route del default")
        XCTAssertEqual(flags(ref), [], "no default route: not reachable")
        XCTAssertEqual(flags(try XCTUnwrap(address("::"))), [], "no IPv6 route either")
    }

    func testAnAddressOfAnotherFamilyOrNoHostNameIsAnInvalidArgument() throws {
        _ = try makeWiredNamespace()
        var unix = sockaddr()
        unix.sa_len = UInt8(MemoryLayout<sockaddr>.size)   // compiles, does nothing
        unix.sa_family = sa_family_t(AF_UNIX)
        XCTAssertNil(SCNetworkReachabilityCreateWithAddress(nil, &unix))
        XCTAssertEqual(Int(SCError()), kSCStatusInvalidArgument)
        XCTAssertEqual(String(cString: SCErrorString(SCError())), "Invalid argument")
        XCTAssertNil(SCNetworkReachabilityCreateWithName(nil, ""))
        XCTAssertEqual(Int(SCError()), kSCStatusInvalidArgument)
        XCTAssertNil(SCNetworkReachabilityCreateWithAddressPair(nil, nil, nil))
        XCTAssertEqual(unix.sa_len, 16)
    }

    func testAnAddressPairIsRoutedFromItsSource() throws {
        let ns = try makeWiredNamespace()
        ns.addVethPair("wwan0", peer: "wb", address: "10.20.0.1/24")
        ns.run("route add default via 10.20.0.2 table 100", "rule add from 10.20.0.1 table 100")
        func ipv4(_ text: String) -> sockaddr_in {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            inet_pton(AF_INET, text, &address.sin_addr)
            return address
        }
        var local = ipv4("10.20.0.1"), remote = ipv4("192.0.2.1")
        let pair = withUnsafePointer(to: &local) { local in
            withUnsafePointer(to: &remote) { remote in
                local.withMemoryRebound(to: sockaddr.self, capacity: 1) { local in
                    remote.withMemoryRebound(to: sockaddr.self, capacity: 1) { SCNetworkReachabilityCreateWithAddressPair(nil, local, $0) }
                }
            }
        }
        XCTAssertEqual(flags(try XCTUnwrap(pair)), [.reachable, .isWWAN], "from the WWAN source: its table, its link")
        XCTAssertEqual(flags(try XCTUnwrap(address("192.0.2.1"))), .reachable, "from any source: the main table's eth0")
    }

    func testANameIsOptimisticUnscheduledAndFollowsItsAddressesOnceScheduled() throws {
        let ns = try makeWiredNamespace()
        try configureNetns(ns, ["hosts": "10.10.0.7 gw.reach-test\n127.0.0.1 localhost\n", "resolv.conf": "nameserver 127.0.0.1\n"])
        let ref = try XCTUnwrap(SCNetworkReachabilityCreateWithName(nil, "gw.reach-test"))
        XCTAssertEqual(flags(ref), .reachable, "unscheduled: the internet's route, the name not asked")
        let counts = ContextCounts()
        schedule(ref, counts)
        XCTAssertEqual(counts.flags.wait(for: 1), [[.reachable, .isDirect]], "resolved: 10.10.0.7 is on eth0's subnet")
        XCTAssertEqual(flags(ref), [.reachable, .isDirect])
        ns.run("link set eth0 down")
        XCTAssertEqual(counts.flags.wait(for: 2), [[.reachable, .isDirect], []])
        SCNetworkReachabilitySetDispatchQueue(ref, nil)
    }

    func testANameThatNeverResolvesIsReachableFirstThenNot() throws {
        let ns = try makeWiredNamespace()
        // The name server is on lo, where nothing listens: the query is refused at once.
        try configureNetns(ns, ["hosts": "127.0.0.1 localhost\n", "resolv.conf": "nameserver 127.0.0.1\noptions attempts:1\n"])
        let ref = try XCTUnwrap(SCNetworkReachabilityCreateWithName(nil, "no-such-host.invalid"))
        XCTAssertEqual(flags(ref), .reachable, "optimistic while unscheduled (Reachability.swift's testInvalidHost)")
        let counts = ContextCounts()
        schedule(ref, counts)
        XCTAssertEqual(counts.flags.wait(for: 1, timeout: 15), [[]], "scheduled: the name does not resolve")
        XCTAssertEqual(flags(ref), [])
        SCNetworkReachabilitySetDispatchQueue(ref, nil)
    }

    // MARK: Scheduled

    func testTheCallbackRunsOnlyOnAChangeOnItsQueueWithoutDuplicates() throws {
        let ns = try makeWiredNamespace()
        let ref = try XCTUnwrap(address("0.0.0.0"))
        let counts = ContextCounts()
        let queue = DispatchQueue(label: "sc-test-queue")
        queue.setSpecific(key: queueKey, value: "sc-test-queue")
        var context = context(counts)
        let callback: SCNetworkReachabilityCallBack = { _, flags, info in
            let counts = Unmanaged<ContextCounts>.fromOpaque(info!).takeUnretainedValue()
            counts.threads.withLock { $0.append(DispatchQueue.getSpecific(key: queueKey) ?? "another queue") }
            counts.flags.add(flags)
        }
        XCTAssertTrue(SCNetworkReachabilitySetCallback(ref, callback, &context))
        XCTAssertTrue(SCNetworkReachabilitySetDispatchQueue(ref, queue))
        ns.run("route add 192.0.2.0/24 via 10.10.0.3")   // no answer for the internet changes
        ns.run("link set eth0 down")
        XCTAssertEqual(counts.flags.wait(for: 1), [[]], "the first callback is the first change: none for being scheduled")
        ns.run("link set eth0 up")
        ns.run("route add default via 10.10.0.2")
        XCTAssertEqual(counts.flags.wait(for: 2), [[], .reachable])
        ns.run("route replace default via 10.10.0.4")   // a new gateway: the same flags
        ns.run("link set eth0 down")
        XCTAssertEqual(counts.flags.wait(for: 3), [[], .reachable, []], "no callback for the same flags")
        XCTAssertEqual(counts.threads.withLock { $0 }, Array(repeating: "sc-test-queue", count: 3))
        SCNetworkReachabilitySetDispatchQueue(ref, nil)
    }

    func testUnschedulingStopsCallbacksAndSchedulingAgainStartsFromTheAnswerThen() throws {
        let ns = try makeWiredNamespace()
        let ref = try XCTUnwrap(address("0.0.0.0"))
        let counts = ContextCounts()
        schedule(ref, counts)
        ns.run("link set eth0 down")
        XCTAssertEqual(counts.flags.wait(for: 1), [[]])
        XCTAssertTrue(SCNetworkReachabilitySetDispatchQueue(ref, nil))
        ns.run("link set eth0 up", "route add default via 10.10.0.2")
        XCTAssertEqual(flags(ref), .reachable, "unscheduled, still answers")
        XCTAssertTrue(SCNetworkReachabilitySetDispatchQueue(ref, DispatchQueue(label: "again")))
        ns.run("link set eth0 down")
        XCTAssertEqual(counts.flags.wait(for: 2), [[], []],
                       "nothing while unscheduled; scheduled again, the reachable answer then is the baseline")
        SCNetworkReachabilitySetDispatchQueue(ref, nil)
    }

    func testRunLoopSchedulingCallsBackWhenTheRunLoopRuns() throws {
        let ns = try makeWiredNamespace()
        let ref = try XCTUnwrap(address("0.0.0.0"))
        let counts = ContextCounts()
        var context = context(counts)
        XCTAssertTrue(SCNetworkReachabilitySetCallback(ref, callback, &context))
        // The link changes only once the reference is scheduled: its answer then is the baseline.
        let scheduled = DispatchSemaphore(value: 0)
        let loopThread = Thread {
            // The kernel's name of this thread, set at once (see currentThreadName).
            do { try "sc-run-loop".write(toFile: "/proc/thread-self/comm", atomically: false, encoding: .utf8) } catch {
                XCTFail("naming the run loop's thread: \(error)")
            }
            XCTAssertTrue(SCNetworkReachabilityScheduleWithRunLoop(ref, CFRunLoopGetCurrent(), kCFRunLoopDefaultMode))
            XCTAssertFalse(SCNetworkReachabilitySetDispatchQueue(ref, .global()), "scheduled on a run loop already")
            scheduled.signal()
            let giveUp = Date(timeIntervalSinceNow: 30)   // a failed test must not leave the reference scheduled
            while counts.flags.all.count < 2 && Date() < giveUp {
                _ = RunLoop.current.run(mode: .default, before: Date(timeIntervalSinceNow: 0.05))
            }
            XCTAssertTrue(SCNetworkReachabilityUnscheduleFromRunLoop(ref, CFRunLoopGetCurrent(), kCFRunLoopDefaultMode))
        }
        loopThread.start()
        XCTAssertEqual(scheduled.wait(timeout: .now() + 10), .success)
        ns.run("link set eth0 down")
        XCTAssertEqual(counts.flags.wait(for: 1), [[]])
        ns.run("link set eth0 up", "route add default via 10.10.0.2")
        XCTAssertEqual(counts.flags.wait(for: 2), [[], .reachable])
        XCTAssertEqual(counts.threads.withLock { $0 }, ["sc-run-loop", "sc-run-loop"])
    }

    // MARK: The context

    func testTheContextIsRetainedOnSetAndReleasedOnReplaceAndDestruction() throws {
        _ = try makeWiredNamespace()
        let first = ContextCounts(), second = ContextCounts()
        var ref = SCNetworkReachabilityCreateWithName(nil, "gw.reach-test")
        var context = context(first)
        XCTAssertTrue(SCNetworkReachabilitySetCallback(ref!, callback, &context))
        XCTAssertEqual(first.balance, [1, 0])
        XCTAssertTrue(String(describing: ref!).contains("context = counts"), String(describing: ref!))
        XCTAssertEqual(first.descriptions.load(ordering: .relaxed), 1)
        XCTAssertEqual(first.balance, [2, 1], "held for copyDescription, released after it")
        context = self.context(second)
        XCTAssertTrue(SCNetworkReachabilitySetCallback(ref!, callback, &context))
        XCTAssertEqual(first.balance, [2, 2], "released on replace")
        XCTAssertEqual(second.balance, [1, 0])
        XCTAssertTrue(SCNetworkReachabilitySetCallback(ref!, nil, nil))
        XCTAssertEqual(second.releases.load(ordering: .relaxed), 1, "released when the callback is removed")
        context = self.context(second)
        XCTAssertTrue(SCNetworkReachabilitySetCallback(ref!, callback, &context))
        let queue = DispatchQueue(label: "freed")
        XCTAssertTrue(SCNetworkReachabilitySetDispatchQueue(ref!, queue))
        XCTAssertTrue(SCNetworkReachabilitySetDispatchQueue(ref!, nil))   // a scheduled object lives until this
        ref = nil
        queue.sync {}   // a delivery in flight holds the object until it returns
        XCTAssertEqual(second.balance, [2, 2], "released when the object is destroyed")
        print("context counts: first retained \(first.retains.load(ordering: .relaxed)), released \(first.releases.load(ordering: .relaxed)); "
              + "second retained \(second.retains.load(ordering: .relaxed)), released \(second.releases.load(ordering: .relaxed))")
    }

    /// As Apple's (configd's SCNetworkReachability.c retains a target while
    /// it is scheduled, and lets go when it is unscheduled), a scheduled
    /// object lives and calls back though nobody holds it, until it is
    /// unscheduled; then it goes with its last reference, and its context
    /// with it (issue 40).
    func testAScheduledObjectLivesAndCallsBackUntilUnscheduled() throws {
        let ns = try makeWiredNamespace()
        let counts = ContextCounts()
        weak var scheduled: SCNetworkReachability?
        let queue = DispatchQueue(label: "held")
        do {
            let ref = try XCTUnwrap(address("0.0.0.0"))
            schedule(ref, counts, on: queue)
            scheduled = ref
        }
        queue.sync {}
        XCTAssertNotNil(scheduled, "the scheduling holds the object")
        ns.run("link set eth0 down")
        XCTAssertEqual(counts.flags.wait(for: 1).count, 1, "a scheduled object nobody holds still calls back")
        XCTAssertTrue(SCNetworkReachabilitySetDispatchQueue(try XCTUnwrap(scheduled), nil))
        queue.sync {}   // a delivery in flight holds the object until it returns
        XCTAssertNil(scheduled, "unscheduled, the object goes with its last reference")
        let balance = counts.balance
        XCTAssertEqual(balance[0], balance[1], "and its context is released: \(balance) (retains, releases)")
    }

    /// A URL passed where a host name goes (common in the wild): as Apple's,
    /// an object whose lookup fails, not nil, so that a manager built on it
    /// exists and says not reachable; scheduled, it calls nothing (its flags
    /// never change from empty) and unschedules as any other (issue 40).
    func testANameThatIsNoHostNameGivesAnObjectThatIsNeverReachable() throws {
        _ = try makeWiredNamespace()
        let ref = try XCTUnwrap(SCNetworkReachabilityCreateWithName(nil, "https://www.example.com"), "nil for a URL")
        XCTAssertEqual(flags(ref), [])
        let counts = ContextCounts()
        let queue = DispatchQueue(label: "unresolvable")
        schedule(ref, counts, on: queue)
        XCTAssertEqual(flags(ref), [])
        XCTAssertTrue(String(describing: ref).contains("name = https://www.example.com"), String(describing: ref))
        XCTAssertTrue(SCNetworkReachabilitySetDispatchQueue(ref, nil))
        queue.sync {}
        XCTAssertEqual(counts.flags.all, [])
    }

    // MARK: Calls that race a delivery or a scheduling

    /// Alamofire's stopListening, Reachability.swift's stopNotifier and
    /// SLReachability's deinit remove the callback while a change may be
    /// delivered on another thread: the info must outlive the callout.
    func testACallbackRemovedWhileAChangeIsDeliveredStillHasItsInfo() throws {
        let ns = try makeWiredNamespace()
        let ref = try XCTUnwrap(address("0.0.0.0"))
        let counts = ContextCounts()
        let queue = DispatchQueue(label: "sc-callout")
        ref.testHooks.beforeCallout = { [unowned ref] in SCNetworkReachabilitySetCallback(ref, nil, nil) }
        schedule(ref, counts, on: queue)
        ns.run("link set eth0 down")
        XCTAssertEqual(counts.heldAtCallout.wait(for: 1), [1], "the info was released during the callout")
        queue.sync {}
        XCTAssertEqual(counts.balance, [2, 2], "retained for the callout, released after it")
        SCNetworkReachabilitySetDispatchQueue(ref, nil)
    }

    func testAContextReplacedWhileItDescribesItselfStillHasItsInfo() throws {
        let ref = try XCTUnwrap(address("0.0.0.0"))
        let counts = ContextCounts()
        var context = context(counts)
        XCTAssertTrue(SCNetworkReachabilitySetCallback(ref, callback, &context))
        ref.testHooks.beforeCallout = { [unowned ref] in SCNetworkReachabilitySetCallback(ref, nil, nil) }
        XCTAssertTrue(ref.description.contains("context = counts"), ref.description)
        XCTAssertEqual(counts.heldAtCallout.all, [1], "the info was released during copyDescription")
        XCTAssertEqual(counts.balance, [2, 2])
    }

    func testFlagsGetFlagsGaveAreFollowedByACallbackWhenTheyChangeBackBeforeTheQueueRuns() throws {
        let ns = try makeWiredNamespace()
        let ref = try XCTUnwrap(address("0.0.0.0"))
        let counts = ContextCounts()
        // The monitor's own answers, as it publishes them (before any queue runs).
        let published = Arrivals<ReachabilityFlags>()
        ref.testHooks.beforeStart = { monitor in monitor.onChange { published.add($0.evaluation.flags) } }
        let queue = DispatchQueue(label: "sc-held")
        schedule(ref, counts, on: queue)
        queue.suspend()   // the callback's deliveries wait from here
        ns.run("link set eth0 down")
        XCTAssertEqual(published.wait(until: { $0.last?.contains(.reachable) == false }).last, [])
        XCTAssertEqual(flags(ref), [], "GetFlags answers the latest flags, ahead of the waiting callback")
        ns.run("link set eth0 up", "route add default via 10.10.0.2")
        XCTAssertEqual(published.wait(until: { $0.last?.contains(.reachable) == true }).last, .reachable)
        queue.resume()
        // Back to the callback's last flags before it ran: without a callback
        // now, a caller that read [] (ZYNetworkAccessibity, SLReachability)
        // would keep it for ever.
        XCTAssertEqual(counts.flags.wait(for: 1), [.reachable], "the flags GetFlags gave are followed by a callback")
        XCTAssertEqual(flags(ref), .reachable)
        queue.sync {}
        XCTAssertEqual(counts.flags.all, [.reachable], "reading the callback's own flags queues nothing")
        SCNetworkReachabilitySetDispatchQueue(ref, nil)
    }

    func testFlagsGetFlagsGaveBeforeTheMonitorsFirstAnswerAreFollowedByACallback() throws {
        let ns = try makeWiredNamespace()
        let ref = try XCTUnwrap(address("0.0.0.0"))
        let counts = ContextCounts()
        let published = Arrivals<ReachabilityFlags>()
        let queue = DispatchQueue(label: "sc-held")
        queue.suspend()   // the callback's deliveries wait
        ref.testHooks.beforeStart = { [unowned ref] monitor in
            // Scheduled (the answer then, reachable, is the callback's baseline), its monitor not started yet.
            monitor.onChange { published.add($0.evaluation.flags) }
            ns.run("link set eth0 down")
            var flags = SCNetworkReachabilityFlags()
            XCTAssertTrue(SCNetworkReachabilityGetFlags(ref, &flags))
            XCTAssertEqual(flags, [], "before the monitor's first answer: the route lookup now")
        }
        schedule(ref, counts, on: queue)
        XCTAssertEqual(published.wait(for: 1), [[]], "the monitor's first answer")
        ns.run("link set eth0 up", "route add default via 10.10.0.2")
        XCTAssertEqual(published.wait(until: { $0.last?.contains(.reachable) == true }).last, .reachable)
        queue.resume()
        XCTAssertEqual(counts.flags.wait(for: 1), [.reachable], "the flags GetFlags gave are followed by a callback")
        SCNetworkReachabilitySetDispatchQueue(ref, nil)
    }

    /// An unscheduling between the monitor's storing and its start found it
    /// not running; the start must see that and stop it again.
    func testUnschedulingWhileASchedulingStartsLeavesNoMonitorRunning() throws {
        _ = try makeWiredNamespace()
        let ref = try XCTUnwrap(address("0.0.0.0"))
        let before = runningLibraryThreads(.monitor)
        let started = Mutex<[ReachabilityMonitor]>([])
        defer { started.withLock { $0 }.forEach { $0.stop() } }
        ref.testHooks.beforeStart = { [unowned ref] monitor in
            started.withLock { $0.append(monitor) }
            SCNetworkReachabilitySetDispatchQueue(ref, nil)
        }
        XCTAssertTrue(SCNetworkReachabilitySetDispatchQueue(ref, DispatchQueue(label: "sc-race")))
        XCTAssertEqual(started.withLock { $0.map(\.isRunning) }, [false], "SetDispatchQueue(nil) during the start: a monitor left running")
        ref.testHooks.beforeStart = { [unowned ref] monitor in
            started.withLock { $0.append(monitor) }
            SCNetworkReachabilityUnscheduleFromRunLoop(ref, CFRunLoopGetCurrent(), kCFRunLoopDefaultMode)
        }
        XCTAssertTrue(SCNetworkReachabilityScheduleWithRunLoop(ref, CFRunLoopGetCurrent(), kCFRunLoopDefaultMode))
        XCTAssertEqual(started.withLock { $0.map(\.isRunning) }, [false, false],
                       "UnscheduleFromRunLoop during the start: a monitor left running")
        XCTAssertEqual(runningLibraryThreads(.monitor), before)
        XCTAssertFalse(ref.isScheduled)
    }

    // MARK: WWAN

    func testAWWANPathIsWWANAndTheSwitchTakesReachableAway() throws {
        _ = try makeWWANNamespace()
        let ref = try XCTUnwrap(address("0.0.0.0"))
        XCTAssertEqual(flags(ref), [.reachable, .isWWAN])
        let counts = ContextCounts()
        schedule(ref, counts)
        ReachabilityPolicy.processDefault.allowsWWAN = false
        XCTAssertEqual(counts.flags.wait(for: 1), [.isWWAN], "cellular data off: not reachable, still WWAN's path")
        XCTAssertEqual(flags(ref), .isWWAN)
        ReachabilityPolicy.processDefault.allowsWWAN = true
        XCTAssertEqual(counts.flags.wait(for: 2), [.isWWAN, [.reachable, .isWWAN]])
        SCNetworkReachabilitySetDispatchQueue(ref, nil)
    }

    /// An app that reads GetFlags in its callback while a policy change is
    /// pending (the monitor has it to apply): GetFlags answers the change,
    /// and the callback is called with the change once the monitor applied
    /// it, never again with its own flags meanwhile. The monitor's event
    /// thread is held (a handler of its own, after the callback's change was
    /// handed over) while the change is made and the callback runs; the
    /// callback's queue waits until the change is made.
    func testGetFlagsInTheCallbackWhileAChangeIsPendingGivesNoCallbackWithUnchangedFlags() throws {
        _ = try makeWWANNamespace()
        let ref = try XCTUnwrap(address("0.0.0.0"))
        let counts = ContextCounts()
        let held = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        let holdOnce = Atomic<Bool>(true)
        addTeardownBlock {
            release.signal()
            ReachabilityPolicy.processDefault.allowsWWAN = true
        }
        ref.testHooks.beforeStart = { monitor in
            monitor.onChange { change in
                guard change.evaluation.unsatisfiedReason == .wwanRefused,
                      holdOnce.exchange(false, ordering: .relaxed) else { return }
                held.signal()
                release.wait()
            }
        }
        let readingCallback: SCNetworkReachabilityCallBack = { target, flags, info in
            var now = SCNetworkReachabilityFlags()
            XCTAssertTrue(SCNetworkReachabilityGetFlags(target, &now))
            XCTAssertEqual(now, [.reachable, .isWWAN], "GetFlags: the pending change, cellular data on")
            Unmanaged<ContextCounts>.fromOpaque(info!).takeUnretainedValue().flags.add(flags)
        }
        let queue = DispatchQueue(label: "sc-reading")
        var context = context(counts)
        XCTAssertTrue(SCNetworkReachabilitySetCallback(ref, readingCallback, &context))
        XCTAssertTrue(SCNetworkReachabilitySetDispatchQueue(ref, queue))
        queue.suspend()   // the callback runs once the change is pending
        ReachabilityPolicy.processDefault.allowsWWAN = false
        XCTAssertEqual(held.wait(timeout: .now() + 10), .success, "the monitor's answer to cellular data off")
        ReachabilityPolicy.processDefault.allowsWWAN = true   // pending: the monitor's thread is held
        queue.resume()
        XCTAssertEqual(counts.flags.wait(for: 1), [.isWWAN], "the callback, whose GetFlags answered the pending change")
        queue.sync {}   // what that GetFlags queued has run
        XCTAssertEqual(counts.flags.all, [.isWWAN], "called back with unchanged flags while the change was pending")
        release.signal()
        XCTAssertEqual(counts.flags.wait(for: 2), [.isWWAN, [.reachable, .isWWAN]], "the change, once the monitor applied it")
        SCNetworkReachabilitySetDispatchQueue(ref, nil)
        XCTAssertEqual(counts.flags.all, [.isWWAN, [.reachable, .isWWAN]])
    }

    // MARK: The example

    func testSCWatchAcrossALinkDownAndUp() throws {
        let ns = try makeWiredNamespace()
        let watch = try runExample("sc-watch", in: ns)
        XCTAssertEqual(watch.waitForLines(1), ["initial: reachable via WiFi/Ethernet [reachable]"], watch.stderr)
        ns.run("link set eth0 down")
        XCTAssertEqual(watch.waitForLines(2).last, "changed: not reachable [0]", watch.stderr)
        ns.run("link set eth0 up", "route add default via 10.10.0.2")
        XCTAssertEqual(watch.waitForLines(3), ["initial: reachable via WiFi/Ethernet [reachable]", "changed: not reachable [0]",
                                               "changed: reachable via WiFi/Ethernet [reachable]"], watch.stderr)
        print("sc-watch output:\n" + watch.lines.map { "  " + $0 }.joined(separator: "\n"))
    }
}
