import XCTest
import LinuxReachability
@testable import ReachabilityCore
@testable import ReachabilityKernel

/// Bad input gives a typed error, never a crash and never a silent wrong answer.
final class InputValidationTests: XCTestCase {
    func testTargetsParse() throws {
        XCTAssertEqual(try Target(parsing: "internet"), .internet)
        XCTAssertEqual(try Target(parsing: "10.0.0.1"), .address(IPAddress("10.0.0.1")!))
        XCTAssertEqual(try Target(parsing: "2001:db8::1"), .address(IPAddress("2001:db8::1")!))
        XCTAssertEqual(try Target(parsing: "example.org"), .host("example.org"))
        XCTAssertEqual(try Target(parsing: "localhost."), .host("localhost."))
        XCTAssertEqual(try Target(parsing: "_srv.my-host1"), .host("_srv.my-host1"))
    }

    func testBadTargetsThrowInvalidTarget() {
        let long = String(repeating: "a", count: 64) + ".org"
        let tooLong = Array(repeating: "abcdefgh", count: 40).joined(separator: ".")
        for bad in ["", "not_an_address!", "10.0.0.256", "1.2.3", "2001:db8::g", "::1%lo", "a..b", "-a.org", "a-.org", long, tooLong, "a b", "é.org"] {
            XCTAssertThrowsError(try Target(parsing: bad), bad) { error in
                guard case .invalidTarget = error as? ReachabilityError else { return XCTFail("\(bad): \(error)") }
            }
        }
    }

    func testAddressesRoundTrip() throws {
        for text in ["0.0.0.0", "255.255.255.255", "10.1.2.3", "::", "::1", "2001:db8::1", "fe80::1:2:3:4", "::ffff:10.0.0.1"] {
            XCTAssertEqual(try IPAddress(parsing: text).description, text)
        }
        XCTAssertEqual(IPAddress("10.0.0.1")?.family, .v4)
        XCTAssertEqual(IPAddress("::1")?.family, .v6)
        XCTAssertNotEqual(IPAddress("10.0.0.1"), IPAddress("10.0.0.2"))
        XCTAssertThrowsError(try IPAddress(parsing: "10.0.0")) { XCTAssertEqual($0 as? ReachabilityError, .invalidAddress("10.0.0")) }
    }

    /// An address's text is inet_ntop(3)'s, byte for byte: every pattern of
    /// zero and non-zero IPv6 groups (where `::` goes, ties, the dotted tails
    /// of IPv4-compatible and -mapped addresses), group values of every
    /// width, and IPv4 octets of one, two and three digits.
    func testAddressTextIsInetNtops() {
        func ntop(_ family: Int32, _ bytes: [UInt8]) -> String {
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            _ = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &text, socklen_t(text.count)) }
            return String(cString: text)
        }
        var generator = SystemRandomNumberGenerator()
        let values: [UInt16] = [1, 0xF, 0x10, 0xFF, 0x100, 0xFFF, 0x1000, 0xFFFF, 0xABCD]
        var checked = 0
        for pattern in 0..<256 {
            for round in 0..<12 {
                var bytes = [UInt8](repeating: 0, count: 16)
                for group in 0..<8 where pattern & (1 << group) != 0 {
                    let value = round < values.count ? values[(round + group) % values.count] : UInt16.random(in: 1...0xFFFF, using: &generator)
                    bytes[2 * group] = UInt8(value >> 8)
                    bytes[2 * group + 1] = UInt8(value & 0xFF)
                }
                if round == 11 { bytes[10] = 0xFF; bytes[11] = 0xFF }   // ::ffff: tails
                let address = bytes.withUnsafeBytes { IPAddress(family: .v6, bytes: $0) }
                XCTAssertEqual(address.description, ntop(AF_INET6, bytes), "\(bytes)")
                checked += 1
            }
        }
        for octets in [[0, 0, 0, 0], [255, 255, 255, 255], [1, 22, 103, 9], [10, 100, 0, 250]] + (0..<200).map({ _ in
            (0..<4).map { _ in Int.random(in: 0...255, using: &generator) }
        }) {
            let bytes = octets.map(UInt8.init)
            let address = bytes.withUnsafeBytes { IPAddress(family: .v4, bytes: $0) }
            XCTAssertEqual(address.description, ntop(AF_INET, bytes))
            checked += 1
        }
        XCTAssertEqual(checked, 256 * 12 + 204)
    }

    func testUIDAndMarkRanges() throws {
        XCTAssertEqual(try LookupOptions.validated(uid: 0, mark: nil, interface: nil).uid, 0)
        XCTAssertEqual(try LookupOptions.validated(uid: 4_294_967_294, mark: nil, interface: nil).uid, 4_294_967_294)
        XCTAssertEqual(try LookupOptions.validated(uid: nil, mark: 4_294_967_295, interface: nil).mark, 4_294_967_295)
        for uid: Int64 in [-1, 4_294_967_295, Int64.max, Int64.min] {
            XCTAssertThrowsError(try LookupOptions.validated(uid: uid, mark: nil, interface: nil)) {
                XCTAssertEqual($0 as? ReachabilityError, .invalidUID(uid))
            }
        }
        for mark: Int64 in [-1, 4_294_967_296] {
            XCTAssertThrowsError(try LookupOptions.validated(uid: nil, mark: mark, interface: nil)) {
                XCTAssertEqual($0 as? ReachabilityError, .invalidMark(mark))
            }
        }
    }

    func testInterfaceNames() throws {
        XCTAssertEqual(try LookupOptions.validated(uid: nil, mark: nil, interface: "eth0.100").interface, "eth0.100")
        XCTAssertNoThrow(try LookupOptions.validateInterfaceName("abcdefghijklmno"))   // 15 bytes
        for bad in ["", "abcdefghijklmnop", "a/b", "a b", "a:b", ".", "..", "a\tb", "\u{7F}"] {
            XCTAssertThrowsError(try LookupOptions.validateInterfaceName(bad), bad) { error in
                guard case .invalidInterfaceName = error as? ReachabilityError else { return XCTFail("\(bad): \(error)") }
            }
        }
    }

    func testSourceMustBeAnAddress() {
        XCTAssertThrowsError(try LookupOptions.validated(uid: nil, mark: nil, interface: nil, source: "nope")) {
            XCTAssertEqual($0 as? ReachabilityError, .invalidAddress("nope"))
        }
    }

    func testNamespaceNames() throws {
        XCTAssertEqual(try NetworkNamespace(parsing: "blue"), .named("blue"))
        XCTAssertEqual(try NetworkNamespace(parsing: "/proc/1/ns/net"), .path("/proc/1/ns/net"))
        for bad in ["", ".", "..", String(repeating: "n", count: 256)] {
            XCTAssertThrowsError(try NetworkNamespace(parsing: bad), bad) { error in
                guard case .invalidNamespace = error as? ReachabilityError else { return XCTFail("\(bad): \(error)") }
            }
        }
    }

    func testUnknownNamespaceIsTyped() {
        XCTAssertThrowsError(try ReachabilityEvaluator(namespace: .named("reach-no-such-namespace-\(getpid())"))) {
            XCTAssertEqual($0 as? ReachabilityError, .unknownNamespace("reach-no-such-namespace-\(getpid())"))
        }
        XCTAssertThrowsError(try ReachabilityEvaluator(namespace: .path("/nonexistent/ns"))) {
            XCTAssertEqual($0 as? ReachabilityError, .unknownNamespace("/nonexistent/ns"))
        }
    }

    func testSourceFamilyMismatchIsTyped() throws {
        let evaluator = try ReachabilityEvaluator()
        XCTAssertThrowsError(try evaluator.evaluate(IPAddress("127.0.0.1")!, options: LookupOptions(source: IPAddress("::1")))) { error in
            XCTAssertEqual(error as? ReachabilityError,
                           .invalidConfiguration("source", reason: "::1 is IPv6 and the target 127.0.0.1 is IPv4"))
        }
    }

    func testUnknownInterfaceIsTyped() throws {
        let evaluator = try ReachabilityEvaluator()
        XCTAssertThrowsError(try evaluator.evaluate(IPAddress("127.0.0.1")!, options: LookupOptions(interface: "nosuchif\(getpid() % 1000)"))) {
            XCTAssertEqual($0 as? ReachabilityError, .unknownInterface("nosuchif\(getpid() % 1000)"))
        }
    }

    func testMonitorRejectsBadInputBeforeTouchingTheKernel() {
        func expect(_ label: String, _ make: () throws -> ReachabilityMonitor, _ matches: (ReachabilityError) -> Bool) {
            XCTAssertThrowsError(try make(), label) { error in
                guard let typed = error as? ReachabilityError, matches(typed) else { return XCTFail("\(label): \(error)") }
            }
        }
        expect("unknown namespace", { try ReachabilityMonitor(targets: [.internet], namespace: .named("reach-no-such-namespace")) }) {
            if case .unknownNamespace = $0 { return true } else { return false }
        }
        expect("bad interface", { try ReachabilityMonitor(targets: [.internet], options: LookupOptions(interface: "a/b")) }) {
            if case .invalidInterfaceName = $0 { return true } else { return false }
        }
        let bad: [(String, (inout ReachabilityMonitor.Configuration) -> Void)] = [
            ("buffer 0", { $0.receiveBufferSize = 0 }),
            ("buffer negative", { $0.receiveBufferSize = -4096 }),
            ("buffer too big", { $0.receiveBufferSize = Int(Int32.max) + 1 }),
            ("resolve timeout 0", { $0.resolveTimeout = .zero }),
            ("retry negative", { $0.retryInterval = .seconds(-1) }),
            ("settle negative", { $0.settleTime = .milliseconds(-1) }),
            ("settle above its maximum", { $0.settleTime = .milliseconds(50); $0.maximumSettleTime = .milliseconds(10) }),
        ]
        for (label, change) in bad {
            var configuration = ReachabilityMonitor.Configuration()
            change(&configuration)
            expect(label, { try ReachabilityMonitor(targets: [.internet], configuration: configuration) }) {
                if case .invalidConfiguration = $0 { return true } else { return false }
            }
        }
    }
}
