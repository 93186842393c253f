import XCTest
import ReachabilityTesting

final class PlaceholderTests: XCTestCase {
    func testTheModuleLinks() { XCTAssertEqual(NetworkNamespace.current.description, "current") }
}
