// The configuration's YAML through libyaml: the tree and its lines, the
// forms operators write (flow and block lists, quotes, comments, empty
// values), and text that is not YAML as one line with its place.

@testable import ReachExporterKit
import XCTest

final class YAMLDocumentTests: XCTestCase {
    private func compose(_ text: String) throws -> YAMLNode {
        try XCTUnwrap(try YAMLDocument.compose(text))
    }

    private func mapping(_ node: YAMLNode) throws -> [(key: YAMLNode, value: YAMLNode)] {
        guard case let .mapping(pairs) = node.value else { throw XCTSkip("not a mapping: \(node)") }
        return pairs
    }

    func testBlockAndFlowFormsWithTheirLines() throws {
        let root = try compose("""
            # the gateway
            listen: 127.0.0.1:9789
            targets: [internet, "10.0.0.1", 'gw.example']
            empty:
            uplinks:
              - interface: wan0
                hosts:
                  - 192.0.2.1
                interval: 5s
            """)
        let pairs = try mapping(root)
        XCTAssertEqual(pairs.map { $0.key.string }, ["listen", "targets", "empty", "uplinks"])
        XCTAssertEqual(pairs.map(\.key.line), [2, 3, 4, 5])
        XCTAssertEqual(pairs[0].value.string, "127.0.0.1:9789")
        guard case let .sequence(targets) = pairs[1].value.value else { return XCTFail("targets: \(pairs[1].value)") }
        XCTAssertEqual(targets.map(\.string), ["internet", "10.0.0.1", "gw.example"], "quotes removed")
        XCTAssertEqual(pairs[2].value.string, "", "a key with no value")
        guard case let .sequence(uplinks) = pairs[3].value.value else { return XCTFail("uplinks: \(pairs[3].value)") }
        let uplink = try mapping(XCTUnwrap(uplinks.first))
        XCTAssertEqual(uplink.map { $0.key.string }, ["interface", "hosts", "interval"])
        XCTAssertEqual(uplink.map(\.key.line), [6, 7, 9])
        guard case let .sequence(hosts) = uplink[1].value.value else { return XCTFail("hosts: \(uplink[1].value)") }
        XCTAssertEqual(hosts.map(\.string), ["192.0.2.1"])
        XCTAssertEqual(hosts.first?.line, 8)
    }

    func testNoDocument() throws {
        XCTAssertNil(try YAMLDocument.compose(""))
        XCTAssertNil(try YAMLDocument.compose("# only a comment\n"))
    }

    func testAKeyGivenTwiceIsKeptForTheReaderToRefuse() throws {
        let pairs = try mapping(compose("a: 1\na: 2\n"))
        XCTAssertEqual(pairs.map { $0.key.string }, ["a", "a"])
        XCTAssertThrowsError(try NodeReader(source: "f.yml").mapping(compose("a: 1\na: 2\n"), "the top level", keys: ["a"])) {
            XCTAssertEqual("\($0)", "f.yml:2: the top level: 'a' is given twice")
        }
    }

    func testTextThatIsNotYAMLIsOneLineWithItsPlace() {
        for (text, expected) in [("listen: [127.0.0.1\n", "line 2 column 1: did not find expected ',' or ']' (while parsing a flow sequence, line 1)"),
                                 ("a: b: c\n", "line 1 column 5: mapping values are not allowed in this context"),
                                 ("a: &x 1\nb: *x\n", "line 2: aliases (*name) are not read in a configuration; write the value again")] {
            XCTAssertThrowsError(try YAMLDocument.compose(text), text) { error in
                XCTAssertEqual("\(error)", expected, text)
            }
        }
    }
}
