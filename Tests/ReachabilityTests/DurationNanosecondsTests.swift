import ReachabilityModel
import XCTest

/// `Duration.clampedNanoseconds`, the package's one duration → nanoseconds
/// conversion: its edges as its documentation states them.
final class DurationNanosecondsTests: XCTestCase {
    func testWholeNanosecondsWithTheFractionDropped() {
        XCTAssertEqual(Duration.seconds(2).clampedNanoseconds, 2_000_000_000)
        XCTAssertEqual(Duration.milliseconds(1500).clampedNanoseconds, 1_500_000_000)
        XCTAssertEqual(Duration.nanoseconds(7).clampedNanoseconds, 7)
        XCTAssertEqual((Duration.nanoseconds(7) + .init(secondsComponent: 0, attosecondsComponent: 999_999_999)).clampedNanoseconds, 7)
        XCTAssertEqual(Duration.zero.clampedNanoseconds, 0)
    }

    func testNegativeIsZero() {
        XCTAssertEqual(Duration.seconds(-1).clampedNanoseconds, 0)
        XCTAssertEqual(Duration.nanoseconds(-1).clampedNanoseconds, 0)
    }

    func testBeyondUInt64IsClampedNotWrapped() {
        // 18,446,744,073.709551615 s is UInt64.max ns; one second more would wrap.
        XCTAssertEqual(Duration.seconds(18_446_744_074).clampedNanoseconds, .max)
        XCTAssertEqual(Duration.seconds(Int64.max).clampedNanoseconds, .max)
        XCTAssertEqual(Duration.seconds(18_446_744_073).clampedNanoseconds, 18_446_744_073_000_000_000)
        XCTAssertEqual((Duration.seconds(18_446_744_073) + .nanoseconds(709_551_615)).clampedNanoseconds, .max)
        XCTAssertEqual((Duration.seconds(18_446_744_073) + .nanoseconds(709_551_616)).clampedNanoseconds, .max)
    }
}
