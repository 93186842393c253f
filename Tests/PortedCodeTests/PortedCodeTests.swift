import XCTest
final class PortedPlaceholderTests: XCTestCase { func testNothing() {} }
