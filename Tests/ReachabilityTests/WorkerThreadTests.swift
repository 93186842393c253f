// WorkerThread: the one lifecycle of the monitor's event thread and the
// tracker's round thread, tested once, every way it can be stopped.

import CReachability
import CTestSupport
import Dispatch
import Foundation
@testable import ReachabilityCore
@testable import ReachabilityKernel
import ReachabilityTesting
import Synchronization
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// A worker whose thread runs queued work until a stop, as the monitor's does.
private func startLooping(_ worker: WorkerThread) throws -> Bool {
    try worker.start(.monitor) { wakeFD in
        while !worker.stopRequested {
            worker.runQueued()
            if worker.stopRequested { break }
            if creach_wait(-1, wakeFD, -1) > 0 { creach_wakeup_clear(wakeFD) }
        }
    }
}

final class WorkerThreadTests: XCTestCase {
    /// The library's running monitor and tracker threads, as the library
    /// counts them. Not every thread: Dispatch's pool threads come and go on
    /// their own, and under load one ended between two counts (21 ≠ 22). Not
    /// threads named as the worker's ("reach.monitor") either: a Dispatch
    /// worker that Swift 6.0's Dispatch started from our thread bears its
    /// name (1 ≠ 0 on arm64), and a joined thread still leaving the kernel's
    /// task list was one too many once (1 ≠ 0, under the sanitizers).
    private func threadCount() -> Int {
        runningLibraryThreads()
    }

    private func waitUntil(_ timeout: TimeInterval = 5, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            if Date() > deadline { return false }
            usleep(200)
        }
        return true
    }

    func testStopFromAnotherThreadJoinsAndStartWorksAgain() throws {
        let worker = WorkerThread(owner: "test", runsQueuedWorkAtEnd: false)
        XCTAssertEqual(worker.stop(), .wasIdle)
        let before = threadCount()
        XCTAssertTrue(try startLooping(worker))
        XCTAssertFalse(try startLooping(worker), "a second start while running does nothing")
        XCTAssertTrue(worker.isRunning)
        XCTAssertGreaterThanOrEqual(worker.wakeFileDescriptor, 0)
        var stoppedRan = false
        XCTAssertEqual(worker.stop(stopped: { stoppedRan = true }), .joined)
        XCTAssertTrue(stoppedRan)
        XCTAssertFalse(worker.isRunning)
        XCTAssertEqual(worker.wakeFileDescriptor, -1, "the thread closed its wake-up fd")
        XCTAssertEqual(threadCount(), before, "the thread is gone once stop() returns")
        XCTAssertEqual(worker.stop(), .wasIdle, "idempotent")
        for _ in 0 ..< 50 {
            XCTAssertTrue(try startLooping(worker))
            XCTAssertEqual(worker.stop(), .joined)
        }
        XCTAssertEqual(threadCount(), before)
    }

    func testStopFromTheThreadItselfReturnsAtOnceAndTheWorkerIsIdleOnceTheCallbackReturns() throws {
        let worker = WorkerThread(owner: "test", runsQueuedWorkAtEnd: false)
        XCTAssertTrue(try startLooping(worker))
        let outcome = Mutex<WorkerThread.StopOutcome?>(nil)
        let release = DispatchSemaphore(value: 0)
        let startError = Mutex<ReachabilityError?>(nil)
        worker.enqueue {
            let result = worker.stop()
            // Still in the callback: a start must say the stop is finishing.
            do { _ = try startLooping(worker) } catch { startError.withLock { $0 = error as? ReachabilityError } }
            outcome.withLock { $0 = result }
            release.wait()
        }
        XCTAssertTrue(waitUntil { outcome.withLock { $0 } != nil })
        XCTAssertEqual(outcome.withLock { $0 }, .stoppingItself)
        guard case let .system(_, errno)? = startError.withLock({ $0 }) else { return XCTFail("start while stopping did not throw") }
        XCTAssertEqual(errno.rawValue, EBUSY)
        XCTAssertFalse(worker.isRunning)
        release.signal()
        XCTAssertTrue(waitUntil { worker.wakeFileDescriptor == -1 }, "the thread did not end after its callback")
        XCTAssertTrue(try startLooping(worker), "idle again")
        XCTAssertEqual(worker.stop(), .joined)
    }

    func testASecondStopWaitsForTheFirstAndTheThreadItselfDoesNotWait() throws {
        let worker = WorkerThread(owner: "test", runsQueuedWorkAtEnd: false)
        XCTAssertTrue(try startLooping(worker))
        // The thread is in a callback that waits; one thread stops (and joins),
        // another stops meanwhile, and the callback itself stops too.
        let inCallback = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        let fromCallback = Mutex<WorkerThread.StopOutcome?>(nil)
        worker.enqueue {
            inCallback.signal()
            release.wait()
            let outcome = worker.stop(); fromCallback.withLock { $0 = outcome }   // must not wait for its own end
        }
        inCallback.wait()
        let first = Mutex<WorkerThread.StopOutcome?>(nil), second = Mutex<WorkerThread.StopOutcome?>(nil)
        let group = DispatchGroup()
        group.enter()
        Thread { let outcome = worker.stop(); first.withLock { $0 = outcome }; group.leave() }.start()
        XCTAssertTrue(waitUntil { !worker.isRunning }, "the first stop did not begin")
        group.enter()
        Thread { let outcome = worker.stop(); second.withLock { $0 = outcome }; group.leave() }.start()
        usleep(20_000)   // gives a wrong second stop the time to return early (the check below)
        XCTAssertNil(second.withLock { $0 }, "the second stop returned while the thread was still running")
        release.signal()
        XCTAssertEqual(group.wait(timeout: .now() + 5), .success)
        XCTAssertEqual(first.withLock { $0 }, .joined)
        XCTAssertEqual(second.withLock { $0 }, .stoppedByOther)
        XCTAssertEqual(fromCallback.withLock { $0 }, .stoppedByOther)
        XCTAssertEqual(worker.wakeFileDescriptor, -1)
    }

    func testQueuedWorkRunsInOrderOnTheThreadAndWhatIsLeftAtTheEndRunsOrIsDropped() throws {
        for runsAtEnd in [false, true] {
            let worker = WorkerThread(owner: "test", runsQueuedWorkAtEnd: runsAtEnd)
            XCTAssertFalse(worker.enqueue(onlyWhileRunning: true) {}, "nothing runs: nothing queued")
            let log = Mutex<[Int]>([])
            worker.enqueue { XCTAssertTrue(worker.isCurrent); log.withLock { $0.append(0) } }   // waits for the start
            XCTAssertTrue(try startLooping(worker))
            for i in 1 ... 100 { worker.enqueue { log.withLock { $0.append(i) } } }
            XCTAssertTrue(waitUntil { log.withLock { $0.count } == 101 })
            XCTAssertEqual(log.withLock { $0 }, Array(0 ... 100))
            XCTAssertFalse(worker.isCurrent)

            // Work queued behind a stop: run or dropped as the owner chose.
            let blocked = DispatchSemaphore(value: 0), entered = DispatchSemaphore(value: 0)
            worker.enqueue { entered.signal(); blocked.wait() }
            entered.wait()
            let ran = Atomic<Bool>(false)
            worker.enqueue { ran.store(true, ordering: .relaxed) }
            let stopped = DispatchSemaphore(value: 0)
            Thread { worker.stop(); stopped.signal() }.start()
            XCTAssertTrue(waitUntil { !worker.isRunning })
            blocked.signal()
            stopped.wait()
            XCTAssertEqual(ran.load(ordering: .relaxed), runsAtEnd)
        }
    }

    /// A dropped closure may hold the last reference to an object whose
    /// deinit calls into the worker: it is released outside the lock.
    func testWorkDroppedAtTheEndIsReleasedOutsideTheLock() throws {
        final class CallsBack: Sendable {
            let worker: WorkerThread
            init(_ worker: WorkerThread) { self.worker = worker }
            deinit { _ = worker.isRunning; worker.enqueue {} }
        }
        let worker = WorkerThread(owner: "test", runsQueuedWorkAtEnd: false)
        XCTAssertTrue(try startLooping(worker))
        let blocked = DispatchSemaphore(value: 0), entered = DispatchSemaphore(value: 0)
        worker.enqueue { entered.signal(); blocked.wait() }
        entered.wait()
        do {
            let holder = CallsBack(worker)
            worker.enqueue { _ = holder }
        }
        let stopped = DispatchSemaphore(value: 0)
        Thread { worker.stop(); stopped.signal() }.start()
        XCTAssertTrue(waitUntil { !worker.isRunning })
        blocked.signal()
        XCTAssertEqual(stopped.wait(timeout: .now() + 2), .success, "the dropped closure's release deadlocked")
    }

    func testHeldWorkWaitsAndBusyThreadsAreNotWoken() throws {
        let worker = WorkerThread(owner: "test", runsQueuedWorkAtEnd: true)
        XCTAssertTrue(try startLooping(worker))
        worker.hold()
        let ran = Atomic<Bool>(false)
        worker.enqueue { ran.store(true, ordering: .relaxed) }
        usleep(20_000)   // a wrong implementation would run it meanwhile
        XCTAssertFalse(ran.load(ordering: .relaxed), "held work ran")
        worker.release()
        XCTAssertTrue(waitUntil { ran.load(ordering: .relaxed) })
        worker.stop()

        // A busy thread (a tracker probing) is not woken by queued work, only by a stop.
        let busy = WorkerThread(owner: "test", runsQueuedWorkAtEnd: true)
        let began = DispatchSemaphore(value: 0)
        let woken = Atomic<Bool>(false)
        _ = try busy.start(.tracker) { wakeFD in
            while true {
                busy.runQueued()
                switch busy.nextTurn(due: 0) {
                case .stop: return
                case .runQueued, .wait: continue
                case .begin:
                    began.signal()
                    // The thread's own work, cancelled by a wake-up.
                    if creach_wait(-1, wakeFD, 200_000_000) > 0 { woken.store(true, ordering: .relaxed) }
                    guard busy.end() else { return }
                    return
                }
            }
        }
        began.wait()
        busy.enqueue {}
        usleep(20_000)
        XCTAssertFalse(woken.load(ordering: .relaxed), "queued work woke a busy thread")
        XCTAssertEqual(busy.stop(), .joined)
    }

    /// A monitor's start refused while its thread, which stopped itself from
    /// a callback, is still finishing (EBUSY) leaves that thread's simulation
    /// listener in place: the refused start's own, already closed, must not
    /// take the finishing thread's wake-ups, or a simulation's `settled()`
    /// returns before the turn they cause (issue 39, defect 7).
    func testAStartRefusedWhileAStopFinishesKeepsTheFinishingThreadsSubscriber() throws {
        let net = SimulatedNetwork(.dualUplinkWanLte)
        let monitor = try ReachabilityMonitor(targets: [.internet], namespace: net.namespace)
        try monitor.start()
        let running = try XCTUnwrap(monitor.core.worker.simulationSubscriber)
        let seen = Mutex<(refused: Bool, same: Bool)?>(nil)
        let initial = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        monitor.onChange { [unowned monitor] change in
            guard !change.isInitial else { initial.signal(); return }
            monitor.stop()   // on the thread itself: it finishes once this callback returns
            var refused = false
            do { try monitor.start() } catch { refused = true }
            seen.withLock { $0 = (refused, monitor.core.worker.simulationSubscriber === running) }
            done.signal()
        }
        // Taken first: a change published while the initial state waits would be coalesced into it.
        XCTAssertEqual(initial.wait(timeout: .now() + 10), .success, "no initial state")
        net["wan0"].setDown()
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success, "no change after wan0 went down")
        let (refused, same) = try XCTUnwrap(seen.withLock { $0 })
        XCTAssertTrue(refused, "a start while the stop finishes must be refused (EBUSY)")
        XCTAssertTrue(same, "the refused start replaced the finishing thread's simulation subscriber")
    }
}
