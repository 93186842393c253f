// The uplink tracker's observers and thread: an observer registered while
// rounds publish changes gets its initial state first and never two calls at
// once; `stop()` called from the tracker's own callback ends the thread
// cleanly, and the tracker can be started again. The races are forced with
// the tracker's `onEvent` test hook, not timed.

import CReachability
import Foundation
import LinuxReachability
@testable import ReachabilityCore
@testable import ReachabilityKernel
import ReachabilityTestSupport
import Synchronization
import XCTest

#if canImport(Glibc)
import Glibc
#endif

final class TrackerLifetimeTests: NamespaceTestCase {
    /// The name of the calling thread (/proc/thread-self/comm).
    private static func currentThreadName() -> String {
        ((try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func openFileDescriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
    }

    /// Every open descriptor with what it is, for failure messages.
    private static func fdList() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).sorted { Int($0) ?? 0 < Int($1) ?? 0 }
            .map { "\($0)=\((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")) ?? "?")" }
    }

    /// What `fd` is (the /proc/self/fd link), or nil when it is not open.
    private static func describe(fd: Int32) -> String? {
        guard fd >= 0, fcntl(fd, F_GETFD) != -1 else { return nil }
        return try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)")
    }

    /// Whether the calling thread is detached (nobody can join it).
    private static func currentThreadIsDetached() -> Bool {
        // pthread_getattr_np is a GNU extension the Glibc module does not import.
        typealias GetAttr = @convention(c) (pthread_t, UnsafeMutablePointer<pthread_attr_t>) -> Int32
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "pthread_getattr_np") else { return false }
        let getattr = unsafeBitCast(symbol, to: GetAttr.self)
        var attributes = pthread_attr_t()
        guard getattr(pthread_self(), &attributes) == 0 else { return false }
        defer { pthread_attr_destroy(&attributes) }
        var state: Int32 = 0
        pthread_attr_getdetachstate(&attributes, &state)
        return state == Int32(PTHREAD_CREATE_DETACHED)
    }

    // MARK: Initial event

    /// Observer B registers while the tracker runs; inside `onEvent` (the
    /// hook, after B is registered) the test blackholes the uplink and waits
    /// until a round has published the change to B. B's change callback in
    /// turn waits for B's initial callback. Delivering the initial event
    /// after the lock (the defect) makes B's first event the change, and the
    /// two callbacks run at once (the hook returns, the initial event is
    /// delivered on this thread while the change callback still runs on the
    /// tracker's). Handed over under the lock, the initial event is queued
    /// before the change and both run in order on the tracker's thread.
    func testObserverAddedWhileRoundsPublishGetsTheInitialEventFirstAndNoOverlappingCalls() throws {
        let uplink = try makeUplink()
        let configuration = UplinkTracker.Configuration(
            interface: "wan0", hosts: [IPAddress("10.9.0.2")!], timeout: .milliseconds(100),
            interval: .milliseconds(100), down: 1, up: 1)
        let tracker = try UplinkTracker(configuration: configuration, namespace: .named(uplink.client.name))
        try tracker.start()
        defer { tracker.stop() }
        XCTAssertEqual(tracker.state, .online)

        let events = Mutex<[(event: TrackerEvent, thread: String)]>([])
        let inside = Atomic<Int>(0), maxInside = Atomic<Int>(0)
        let initialEntered = Atomic<Bool>(false), changeEntered = Atomic<Bool>(false)
        let changeWaitTimedOut = Atomic<Bool>(false)

        tracker.setAfterObserverAddedHook { [responder = uplink.responder] in
            // B is registered: make the next round fail (down 1: offline at once) ...
            responder.run("route add blackhole 10.9.0.1/32")
            // ... and let onEvent return only once that round's change has reached B.
            let deadline = creach_monotonic_ns() + 5_000_000_000
            while !changeEntered.load(ordering: .acquiring) && creach_monotonic_ns() < deadline { usleep(500) }
        }
        tracker.onEvent { event in
            let now = inside.add(1, ordering: .sequentiallyConsistent).newValue
            maxInside.max(now, ordering: .sequentiallyConsistent)
            events.withLock { $0.append((event, Self.currentThreadName())) }
            if event.isInitial {
                initialEntered.store(true, ordering: .releasing)
            } else if !changeEntered.exchange(true, ordering: .acquiringAndReleasing) {
                // The first change: stay inside until B's initial callback has run (or began).
                let deadline = creach_monotonic_ns() + 2_000_000_000
                while !initialEntered.load(ordering: .acquiring) {
                    if creach_monotonic_ns() > deadline { changeWaitTimedOut.store(true, ordering: .relaxed); break }
                    usleep(500)
                }
            }
            inside.subtract(1, ordering: .sequentiallyConsistent)
        }
        // onEvent returned: the change has reached B (or 5 s passed).
        XCTAssertTrue(changeEntered.load(ordering: .acquiring), "no round published the blackhole's change")
        XCTAssertTrue(eventually(timeout: 5) { events.withLock { $0.count } >= 2 && inside.load(ordering: .acquiring) == 0 })
        tracker.stop()

        let seen = events.withLock { $0 }
        XCTAssertEqual(seen.map(\.event.isInitial), [true, false], "B's events: \(seen.map(\.event))")
        XCTAssertEqual(seen.first?.event.state, .online, "the initial state")
        XCTAssertEqual(seen.dropFirst().first?.event.state, .offline, "down 1: one failed round")
        XCTAssertEqual(maxInside.load(ordering: .sequentiallyConsistent), 1, "B's callback ran on two threads at once")
        XCTAssertFalse(changeWaitTimedOut.load(ordering: .relaxed))
        XCTAssertEqual(seen.map(\.thread), ["reach.tracker", "reach.tracker"],
                       ".monitorThread: every call on the tracker's thread while it runs")
    }

    // MARK: stop() from a callback

    /// A callback on the tracker's thread calls `stop()`: it returns at once,
    /// the thread is detached (nobody could join it) and still has its
    /// wake-up fd while it runs; once the callback has returned the thread
    /// leaves, the tracker is idle, no fd is left behind, and `start()` runs
    /// rounds again that reach the observers.
    func testStopFromATrackerCallbackEndsTheThreadAndStartWorksAgain() throws {
        let uplink = try makeUplink()
        uplink.responder.run("route add blackhole 10.9.0.1/32")   // the first round fails
        let configuration = UplinkTracker.Configuration(
            interface: "wan0", hosts: [IPAddress("10.9.0.2")!], timeout: .milliseconds(100),
            interval: .milliseconds(200), down: 1, up: 1)
        let tracker = try UplinkTracker(configuration: configuration, namespace: .named(uplink.client.name))
        // Counted by the library: a Dispatch worker that Swift 6.0's Dispatch
        // starts from the tracker's thread bears its name (reach.tracker).
        let trackerThreadsBefore = runningLibraryThreads()
        let fdListBefore = Self.fdList()

        struct InCallback: Sendable {
            var thread = ""
            var wakeFD: Int32 = -1
            var wakeFDAfterStop: String?
            var detached = false
            var runningAfterStop = true
        }
        let stopReturned = Atomic<Bool>(false)
        let observed = Mutex(InCallback())
        let wakeFD = Mutex<Int32>(-1)
        tracker.onEvent { [weak tracker] event in
            guard let tracker, !event.isInitial, !stopReturned.load(ordering: .acquiring) else { return }
            tracker.stop()   // must neither deadlock nor leave the thread unjoinable and without its fd
            let fd = wakeFD.withLock { $0 }
            let report = InCallback(thread: Self.currentThreadName(), wakeFD: fd, wakeFDAfterStop: Self.describe(fd: fd),
                                    detached: Self.currentThreadIsDetached(), runningAfterStop: tracker.isRunning)
            observed.withLock { $0 = report }
            stopReturned.store(true, ordering: .releasing)
        }
        try tracker.start()
        wakeFD.withLock { $0 = tracker.wakeFileDescriptor }
        XCTAssertTrue(tracker.isRunning)

        XCTAssertTrue(eventually(timeout: 5) { stopReturned.load(ordering: .acquiring) }, "stop() from the callback never returned")
        let report = observed.withLock { $0 }
        XCTAssertEqual(report.thread, "reach.tracker")
        XCTAssertFalse(report.runningAfterStop, "stopped")
        XCTAssertTrue(report.detached, "stop() on the tracker's own thread must detach it: nobody joins it")
        XCTAssertGreaterThanOrEqual(report.wakeFD, 0)
        XCTAssertEqual(report.wakeFDAfterStop, "anon_inode:[eventfd]",
                       "the wake-up fd \(report.wakeFD) the thread still polls was closed under it")

        // The thread leaves once the callback returned, and takes its fd along.
        XCTAssertTrue(eventually(timeout: 5) { runningLibraryThreads() == trackerThreadsBefore && !tracker.isRunning },
                      "library threads: \(runningLibraryThreads()) (before: \(trackerThreadsBefore))")
        XCTAssertTrue(eventually(timeout: 2) { tracker.wakeFileDescriptor == -1 })
        // Compared by what each descriptor is, not by count: a pipe of the
        // `ip` commands the fixture ran may close meanwhile (Foundation closes
        // them when the child has gone), which is not the tracker's doing.
        XCTAssertEqual(Set(Self.fdList()).subtracting(fdListBefore), [], "file descriptors left behind")
        tracker.stop()   // idempotent
        XCTAssertEqual(tracker.state, .offline)

        // Again: rounds run (and fail: offline stays offline) ...
        try tracker.start()
        XCTAssertTrue(tracker.isRunning)
        // (The new thread names itself as it begins.)
        XCTAssertTrue(eventually(timeout: 5) { runningLibraryThreads() == trackerThreadsBefore + 1 })
        let again = Mutex<[(event: TrackerEvent, thread: String)]>([])
        tracker.onEvent { event in again.withLock { $0.append((event, Self.currentThreadName())) } }
        XCTAssertTrue(eventually(timeout: 5) { again.withLock { $0.count } >= 1 }, "no initial event after start()")
        // ... until the uplink heals: observers hear of it.
        uplink.responder.run("route del blackhole 10.9.0.1/32")
        XCTAssertTrue(eventually(timeout: 5) { again.withLock { $0.count } >= 2 }, "after start(): \(again.withLock { $0.map(\.event) })")
        tracker.stop()
        XCTAssertFalse(tracker.isRunning)
        let events = again.withLock { $0 }
        XCTAssertEqual(events.map(\.event.state), [.offline, .online])
        XCTAssertEqual(events.map(\.event.isInitial), [true, false])
        XCTAssertEqual(events.last?.thread, "reach.tracker", "the change comes from the new round thread")
        XCTAssertEqual(runningLibraryThreads(), trackerThreadsBefore, "stop() joined the thread")
        XCTAssertEqual(Set(Self.fdList()).subtracting(fdListBefore), [], "file descriptors left behind")
    }

    /// A cancelled observation gets nothing more, not even an event a round
    /// had already scheduled on its queue (as a monitor's removed observer
    /// gets nothing it had not taken). The observer's queue is held while the
    /// uplink goes offline; `onRound`, told after the round scheduled the
    /// event, says when it is waiting there; then the observation is
    /// cancelled and the queue let go.
    func testACancelledObservationGetsNoEventAlreadyScheduled() throws {
        let uplink = try makeUplink()
        var configuration = UplinkTracker.Configuration(interface: "wan0", hosts: [IPAddress("10.9.0.2")!])
        configuration.interval = .milliseconds(100)
        configuration.timeout = .milliseconds(100)
        configuration.down = 1
        let tracker = try UplinkTracker(configuration: configuration, namespace: .named(uplink.client.name))
        addTeardownBlock { tracker.stop() }
        let queue = DispatchQueue(label: "held")
        let states = Mutex<[UplinkState]>([])
        let observation = tracker.onEvent(on: .custom { work in queue.async(execute: work) }) { event in
            states.withLock { $0.append(event.state) }
        }
        let offline = DispatchSemaphore(value: 0)
        tracker.onRound { event in if event.state == .offline && event.previous != .offline { offline.signal() } }
        try tracker.start()
        queue.sync {}
        XCTAssertEqual(states.withLock { $0 }, [.online], "the initial state")
        let release = DispatchSemaphore(value: 0)
        queue.async { release.wait() }
        // Replies lost, the carrier kept: offline from a round (a carrier lost
        // would take it offline from the kernel's message, which is no round).
        uplink.responder.run("route add blackhole 10.9.0.1/32")
        XCTAssertEqual(offline.wait(timeout: .now() + 10), .success, "the uplink did not go offline")
        observation.cancel()
        release.signal()
        queue.sync {}
        XCTAssertEqual(states.withLock { $0 }, [.online], "an event scheduled before the cancel was delivered after it")
    }
}
