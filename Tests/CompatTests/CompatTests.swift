import XCTest
final class CompatPlaceholderTests: XCTestCase { func testNothing() {} }
