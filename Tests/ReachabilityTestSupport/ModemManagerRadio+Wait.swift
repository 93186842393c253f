// Waiting for a radio's facts: the tests drive ModemManager (the stand-in on
// a PrivateBus) and wait for what the radio reports, never for a fixed time.

import Foundation
import ReachabilityModemManager
import XCTest

extension ModemManagerRadio {
    /// Waits until `done` holds, checking after every change the radio
    /// reports (its observer), for at most `timeout` seconds.
    package func wait(timeout: TimeInterval = 10, file: StaticString = #filePath, line: UInt = #line,
                      _ what: String, until done: @escaping (ModemManagerRadio) -> Bool) {
        let changed = DispatchSemaphore(value: 0)
        let id = addObserver { changed.signal() }
        defer { removeObserver(id) }
        let deadline = Date().addingTimeInterval(timeout)
        while !done(self) {
            guard changed.wait(timeout: .now() + deadline.timeIntervalSinceNow) == .success else {
                // Asked once more: whether it holds now tells a change that
                // came without its signal from one that never came.
                XCTFail("\(what): not within \(timeout) s (holds now: \(done(self))); availability \(availability), "
                        + "modems \(modems), changes \(changeCount)", file: file, line: line)
                return
            }
        }
    }
}
