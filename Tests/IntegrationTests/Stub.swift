import XCTest
final class StubTests: XCTestCase { func testStub() {} }
