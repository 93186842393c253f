// Soak: many link flaps under one running monitor, and many monitor
// start/stop cycles, in a namespace of the test's own. File descriptors and
// the library's threads must come back to exactly their starting values, and
// RSS must not grow with the number of cycles.
//
// A third soak stalls consumers while links flap: memory must stay flat.
//
// REACH_SOAK_CYCLES sets the number of cycles (CI: the default, a bounded
// run; `make soak`: 10,000). Each test prints its figures.

import CReachability
import Dispatch
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

/// What this process holds: open file descriptors, the library's threads
/// (named `reach.*`), all threads, and resident memory.
struct ProcessResources: CustomStringConvertible {
    var descriptors: Int
    var libraryThreads: Int
    /// Their names, for a failure message.
    var libraryThreadNames: [String] = []
    var threads: Int
    var rssKB: Int

    static func now() -> ProcessResources {
        let fm = FileManager.default
        let descriptors = (try? fm.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
        let tasks = (try? fm.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        let libraryThreadNames = tasks.compactMap { task in
            (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }.filter { $0.hasPrefix("reach.") && $0 != "reach.modems" }
        // Counted by the library, not by name: a thread started from one of
        // ours inherits its name (Swift 6.0's Dispatch names its workers so).
        // Not the modem reader's: ModemManagerRadio.shared's, which the compat
        // modules start at their first use in this process (their tests ran
        // before) and which lives with the process, as a monitor's does not.
        let libraryThreads = runningLibraryThreads()
        var rss = -1
        for line in ((try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? "").split(separator: "\n")
        where line.hasPrefix("VmRSS:") {
            rss = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? -1
        }
        return ProcessResources(descriptors: descriptors, libraryThreads: libraryThreads,
                                libraryThreadNames: libraryThreadNames, threads: tasks.count, rssKB: rss)
    }

    var description: String {
        "fds \(descriptors), library threads \(libraryThreads)"
            + (libraryThreadNames.isEmpty ? "" : " \(libraryThreadNames)") + ", threads \(threads), RSS \(rssKB) kB"
    }
}

/// Counts a monitor's changes without keeping them (a soak must not grow its
/// own memory), remembering the last status.
final class ChangeCounter: Sendable {
    private let state = Mutex<(count: Int, last: ReachabilityStatus?)>((0, nil))

    func record(_ change: ReachabilityChange) { state.withLock { $0 = ($0.count + 1, change.status) } }

    /// Waits until more than `count` changes arrived and the last one is
    /// `status`; false after `timeout`.
    func wait(beyond count: Int, for status: ReachabilityStatus, timeout: TimeInterval = 5) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let (seen, last) = state.withLock { ($0.count, $0.last) }
            if seen > count && last == status { return true }
            usleep(100)
        }
        return false
    }

    var count: Int { state.withLock { $0.count } }
}

final class SoakTests: NamespaceTestCase {

    /// REACH_SOAK_CYCLES, or 300.
    private var cycles: Int {
        ProcessInfo.processInfo.environment["REACH_SOAK_CYCLES"].flatMap(Int.init).map { max($0, 20) } ?? 300
    }

    /// RSS may move by allocator noise, not with the number of cycles: the
    /// allowance is fixed (2 MiB), so 10,000 cycles leave at most ~200 bytes
    /// per cycle undetected, and a 300-cycle CI run ~7 kB per cycle.
    private let rssAllowanceKB = 2048

    /// Under AddressSanitizer (`make test-sanitize`) freed memory waits in a
    /// quarantine, so RSS grows by design; LeakSanitizer checks leaks there.
    private let underAddressSanitizer = dlsym(nil, "__asan_init") != nil

    /// Under qemu-user (`make test-arm64`) the process's RSS is the
    /// emulator's too, whose translated code grows as new paths run.
    private let underEmulation = emulator != nil

    private func assertReturned(_ after: ProcessResources, to before: ProcessResources, _ what: String,
                                file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(after.descriptors, before.descriptors, "\(what): file descriptors", file: file, line: line)
        XCTAssertEqual(after.libraryThreads, before.libraryThreads, "\(what): library threads", file: file, line: line)
        if !underAddressSanitizer && !underEmulation {
            XCTAssertLessThanOrEqual(after.rssKB - before.rssKB, rssAllowanceKB, "\(what): RSS grew", file: file, line: line)
        }
    }

    /// Library threads end asynchronously only for detached helpers; joined
    /// ones are gone when stop() returns. Waits briefly for the former.
    private func settled(_ expectedLibraryThreads: Int) -> ProcessResources {
        let deadline = Date().addingTimeInterval(2)
        var now = ProcessResources.now()
        while now.libraryThreads != expectedLibraryThreads && Date() < deadline {
            usleep(10_000)
            now = ProcessResources.now()
        }
        return now
    }

    /// Takes va down, then up again; each is seen by `counter` before the next.
    private func flap(_ links: LinkControl, seenBy counter: ChangeCounter, _ index: Int) throws {
        let seen = counter.count
        try links.set("va", up: false)
        guard counter.wait(beyond: seen, for: .notReachable) else { throw TestStopped(reason: "flap \(index): down not seen") }
        try links.set("va", up: true)
        guard counter.wait(beyond: seen + 1, for: .reachable(.wired)) else { throw TestStopped(reason: "flap \(index): up not seen") }
    }

    func testLinkFlapsUnderOneMonitorLeaveNothingBehind() throws {
        // A neighbour on va's own subnet: its connected route leaves with the
        // link and comes back with it (a default route would not come back).
        let ns = try makeNamespace()
        ns.addVethPair("va", peer: "vb", address: "10.1.0.1/24")
        let links = try ns.linkControl()
        let idle = ProcessResources.now()

        // The monitor lives in this scope only: once released, its evaluator's
        // sockets are closed too, and the process is back to `idle`.
        weak var released: ReachabilityMonitor?
        try {
            let monitor = try ReachabilityMonitor(targets: [.address(try IPAddress(parsing: "10.1.0.7"))],
                                                  namespace: .named(ns.name))
            released = monitor
            defer { monitor.stop() }
            let counter = ChangeCounter()
            monitor.onChange { counter.record($0) }
            try monitor.start()
            XCTAssertTrue(counter.wait(beyond: 0, for: .reachable(.wired)), "no initial state")

            let warmUp = max(10, cycles / 10)
            for index in 0..<warmUp { try flap(links, seenBy: counter, index) }
            let before = ProcessResources.now()
            let started = Date()
            for index in warmUp..<(warmUp + cycles) { try flap(links, seenBy: counter, index) }
            let elapsed = Date().timeIntervalSince(started)
            let after = ProcessResources.now()
            let counters = monitor.counters
            print("soak: \(cycles) link flaps (\(2 * cycles) changes) in \(String(format: "%.1f", elapsed)) s; "
                  + "before: \(before); after: \(after); RSS \(after.rssKB - before.rssKB >= 0 ? "+" : "")\(after.rssKB - before.rssKB) kB; "
                  + "overflows \(counters.overflows), dropped foreign \(counters.droppedForeign), malformed \(counters.droppedMalformed)")
            assertReturned(after, to: before, "while running")
            XCTAssertEqual(counters.overflows, 0)
            XCTAssertEqual(counters.droppedMalformed, 0)
        }()
        XCTAssertNil(released, "the monitor outlived its last reference")
        let done = settled(idle.libraryThreads)
        XCTAssertEqual(done.descriptors, idle.descriptors, "after release: file descriptors")
        XCTAssertEqual(done.libraryThreads, idle.libraryThreads, "after release: library threads")
    }

    func testMonitorStartStopCyclesLeaveNothingBehind() throws {
        let ns = try makeNamespace()
        ns.addVethPair("va", peer: "vb", address: "10.1.0.1/24")
        let target = Target.address(try IPAddress(parsing: "10.1.0.7"))

        // A new monitor each cycle, and one monitor started and stopped again.
        let reused = try ReachabilityMonitor(targets: [target], namespace: .named(ns.name))
        func cycle(_ index: Int) throws -> Bool {
            let monitor = index % 2 == 0 ? try ReachabilityMonitor(targets: [target], namespace: .named(ns.name)) : reused
            let counter = ChangeCounter()
            let observation = monitor.onChange { counter.record($0) }
            try monitor.start()
            defer {
                observation.cancel()
                monitor.stop()
            }
            return counter.wait(beyond: 0, for: .reachable(.wired))
        }
        let warmUp = max(10, cycles / 10)
        for index in 0..<warmUp { guard try cycle(index) else { return XCTFail("cycle \(index): no initial state") } }
        let before = settled(0)
        let started = Date()
        for index in warmUp..<(warmUp + cycles) { guard try cycle(index) else { return XCTFail("cycle \(index): no initial state") } }
        let elapsed = Date().timeIntervalSince(started)
        let after = settled(0)

        print("soak: \(cycles) monitor start/stop cycles in \(String(format: "%.1f", elapsed)) s; "
              + "before: \(before); after: \(after); RSS \(after.rssKB - before.rssKB >= 0 ? "+" : "")\(after.rssKB - before.rssKB) kB")
        XCTAssertEqual(before.libraryThreads, 0, "a library thread outlived stop(): \(before)")
        assertReturned(after, to: before, "after \(cycles) cycles")
    }

    /// Consumers that stop reading: a `changes()` and a `statusChanges()`
    /// stream that nobody iterates, and a callback whose queue never runs.
    /// Each flap is a real change (a live observer sees it), yet memory stays
    /// flat: each stalled observer holds the latest change per target, and
    /// its queue holds one drain. Once read, each sees the current state.
    /// 10 flaps per cycle: 3,000 in `make test`, 100,000 in `make soak`.
    /// Not an `async` test: XCTest runs those on a thread with a run loop of
    /// its own (an epoll fd, an eventfd and a timerfd), which it closes some
    /// seconds later, in the middle of the next soak's count of descriptors.
    func testAStalledConsumerHoldsOnePendingChangePerTarget() throws {
        let flaps = cycles * 10
        let ns = try makeNamespace()
        ns.addVethPair("va", peer: "vb", address: "10.1.0.1/24")
        let links = try ns.linkControl()
        let monitor = try ReachabilityMonitor(targets: [.address(try IPAddress(parsing: "10.1.0.7"))],
                                              namespace: .named(ns.name))
        defer { monitor.stop() }
        let stalledChanges = monitor.changes()
        let stalledStatuses = monitor.statusChanges()
        final class BlockedQueue: Sendable { let work = Mutex<[@Sendable () -> Void]>([]) }
        let blocked = BlockedQueue()
        let stalledCalls = Atomic<Int>(0)
        monitor.onChange(on: .custom { work in blocked.work.withLock { $0.append(work) } }) { _ in
            stalledCalls.add(1, ordering: .relaxed)
        }
        let counter = ChangeCounter()
        monitor.onChange { counter.record($0) }
        try monitor.start()
        XCTAssertTrue(counter.wait(beyond: 0, for: .reachable(.wired)), "no initial state")

        let warmUp = max(10, flaps / 10)
        for index in 0..<warmUp { try flap(links, seenBy: counter, index) }
        let before = ProcessResources.now()
        let started = Date()
        for index in warmUp..<(warmUp + flaps) { try flap(links, seenBy: counter, index) }
        let elapsed = Date().timeIntervalSince(started)
        let after = ProcessResources.now()
        let counters = monitor.counters
        let queued = blocked.work.withLock { $0.count }
        print("soak: stalled consumer: \(flaps) link flaps (\(2 * flaps) changes) in \(String(format: "%.1f", elapsed)) s; "
              + "RSS before \(before.rssKB) kB, after \(after.rssKB) kB (\(after.rssKB - before.rssKB >= 0 ? "+" : "")"
              + "\(after.rssKB - before.rssKB) kB); coalesced \(counters.coalesced); closures on the blocked queue \(queued)")
        if !underAddressSanitizer && !underEmulation {
            XCTAssertLessThanOrEqual(after.rssKB - before.rssKB, rssAllowanceKB, "RSS grew with a stalled consumer")
        }
        XCTAssertEqual(queued, 1, "one drain waits on the blocked queue, not one closure per change")
        // Three stalled observers, two changes a flap: all but the first of each replaced a pending one.
        XCTAssertGreaterThanOrEqual(counters.coalesced, UInt64(3 * 2 * (warmUp + flaps) - 3))

        // Reading again: the current state, once; then the next change as it comes.
        for work in blocked.work.withLock({ $0 }) { work() }
        XCTAssertEqual(stalledCalls.load(ordering: .relaxed), 1)
        final class Reads: Sendable {
            let changes = Mutex<[ReachabilityChange]>([])
            let statuses = Mutex<[StatusChange]>([])
        }
        let reads = Reads()
        let firstRead = DispatchSemaphore(value: 0), wentDown = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        let reader = Task {
            var changes = stalledChanges.makeAsyncIterator()
            var statuses = stalledStatuses.makeAsyncIterator()
            for round in 0 ..< 2 {
                if round == 1 { wentDown.wait() }
                if let change = await changes.next() { reads.changes.withLock { $0.append(change) } }
                if let status = await statuses.next() { reads.statuses.withLock { $0.append(status) } }
                (round == 0 ? firstRead : done).signal()
            }
        }
        defer { reader.cancel() }
        XCTAssertEqual(firstRead.wait(timeout: .now() + 5), .success, "nothing to read")
        let first = reads.changes.withLock { $0.first }, firstStatus = reads.statuses.withLock { $0.first }
        XCTAssertEqual(first?.isInitial, true, "never read: still the initial state, now current")
        XCTAssertEqual(first?.status, .reachable(.wired))
        XCTAssertEqual(firstStatus?.status, .reachable(.wired))
        try links.set("va", up: false)
        wentDown.signal()
        XCTAssertEqual(done.wait(timeout: .now() + 5), .success, "the next change never came")
        let next = reads.changes.withLock { $0.last }, nextStatus = reads.statuses.withLock { $0.last }
        XCTAssertEqual(reads.changes.withLock { $0.count }, 2)
        XCTAssertEqual(next?.status, .notReachable)
        XCTAssertEqual(next?.previous?.status, .reachable(.wired), "previous: what this consumer saw")
        XCTAssertEqual(nextStatus?.previousStatus, .reachable(.wired))
    }
}
