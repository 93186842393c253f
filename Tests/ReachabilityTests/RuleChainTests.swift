// Why a refused lookup was refused: creach_parse_rule on captured and built
// RTM_NEWRULE bytes, and RuleChain's walk of the rules as fib_rules_lookup
// does it for a route lookup made from this host (the kernel answers
// ENETUNREACH both for "no route" and for a throw route without fallback).

import CReachability
import LinuxReachability
@testable import ReachabilityCore
@testable import ReachabilityKernel
import XCTest

final class RuleChainTests: XCTestCase {

    // MARK: Parser

    private func parseRule(_ bytes: [UInt8]) -> (result: Int32, errno: Int32, rule: creach_rule) {
        var out = creach_rule()
        var saved: Int32 = 0
        let result = withGuardedBytes(bytes) { pointer, length -> Int32 in
            errno = 0
            let r = creach_parse_rule(pointer, length, &out)
            saved = errno
            return r
        }
        return (result, saved, out)
    }

    /// An RTM_NEWRULE: the fib_rule_hdr (family, dst_len, src_len, tos, table,
    /// res1, res2, action, flags) and attributes (type, payload).
    private func ruleMessage(family: UInt8 = K.AF_INET, dstLen: UInt8 = 0, srcLen: UInt8 = 0, action: UInt8 = 1,
                             flags: UInt32 = 0, attributes: [(UInt16, [UInt8])] = []) -> [UInt8] {
        var body: [UInt8] = [family, dstLen, srcLen, 0, 254, 0, 0, action]
        body += withUnsafeBytes(of: flags) { Array($0) }
        for (type, payload) in attributes {
            let length = UInt16(4 + payload.count)
            body += withUnsafeBytes(of: length) { Array($0) } + withUnsafeBytes(of: type) { Array($0) } + payload
            body += [UInt8](repeating: 0, count: (4 - payload.count % 4) % 4)
        }
        let total = UInt32(16 + body.count)
        var header = withUnsafeBytes(of: total) { Array($0) }
        header += withUnsafeBytes(of: K.RTM_NEWRULE) { Array($0) } + [0, 0] + [UInt8](repeating: 0, count: 8)
        return header + body
    }

    private func u32(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value) { Array($0) } }

    func testCapturedRulesParse() throws {
        let v4 = parseRule(try loadFixture("event_newrule_v4"))
        XCTAssertEqual(v4.result, 0)
        let prohibit = PolicyRule(v4.rule)
        XCTAssertEqual(prohibit.priority, 100)
        XCTAssertEqual(prohibit.action, .refuse)
        XCTAssertEqual(prohibit.source?.prefix, IPAddress("192.0.2.0"))
        XCTAssertEqual(prohibit.source?.length, 24)
        XCTAssertNil(prohibit.destination)
        XCTAssertFalse(prohibit.suppresses, "the kernel sends suppress_prefixlength -1 with every rule: not set")
        XCTAssertFalse(prohibit.hasOtherSelectors)

        let v6 = parseRule(try loadFixture("event_newrule_v6"))
        XCTAssertEqual(v6.result, 0)
        let lookup = PolicyRule(v6.rule)
        XCTAssertEqual(lookup.action, .lookup(table: 100))
        XCTAssertEqual(lookup.source?.prefix, IPAddress("2001:db8:3::"))
        XCTAssertEqual(lookup.source?.length, 64)
    }

    func testEveryDecodedAttributeLandsInItsField() {
        let parsed = parseRule(ruleMessage(dstLen: 16, action: 1, flags: 2 /* FIB_RULE_INVERT */, attributes: [
            (1, [10, 7, 0, 0]),                                      // FRA_DST
            (3, Array("lo".utf8) + [0]),                             // FRA_IIFNAME
            (17, Array("vb".utf8) + [0]),                            // FRA_OIFNAME
            (6, u32(300)), (15, u32(1000)),                          // FRA_PRIORITY, FRA_TABLE
            (10, u32(7)), (16, u32(0xff)),                           // FRA_FWMARK, FRA_FWMASK
            (20, u32(1000) + u32(1999)),                             // FRA_UID_RANGE
            (14, u32(0)),                                            // FRA_SUPPRESS_PREFIXLEN 0
        ]))
        XCTAssertEqual(parsed.result, 0)
        let rule = PolicyRule(parsed.rule)
        XCTAssertEqual(rule.action, .lookup(table: 1000), "FRA_TABLE wins over the header's table")
        XCTAssertEqual(rule.priority, 300)
        XCTAssertEqual(rule.destination?.prefix, IPAddress("10.7.0.0"))
        XCTAssertEqual(rule.destination?.length, 16)
        XCTAssertEqual(rule.inputInterface, "lo")
        XCTAssertEqual(rule.outputInterface, "vb")
        XCTAssertEqual(rule.mark, 7)
        XCTAssertEqual(rule.markMask, 0xff)
        XCTAssertEqual(rule.uids, 1000...1999)
        XCTAssertTrue(rule.inverted)
        XCTAssertTrue(rule.suppresses)
        XCTAssertFalse(rule.hasOtherSelectors)
    }

    func testSelectorsThisParserDoesNotDecodeAreFlagged() {
        for type: UInt16 in [12, 19, 22, 23, 24, 25, 26, 30, 63] {
            let parsed = parseRule(ruleMessage(attributes: [(type, [1, 0, 0, 0])]))
            XCTAssertEqual(parsed.result, 0, "type \(type)")
            XCTAssertEqual(parsed.rule.other_selectors, 1, "type \(type)")
        }
        // Metadata is not a selector: FRA_PROTOCOL, FRA_PAD, a realm (FRA_FLOW).
        for type: UInt16 in [21, 18, 11] {
            XCTAssertEqual(parseRule(ruleMessage(attributes: [(type, [1, 0, 0, 0])])).rule.other_selectors, 0, "type \(type)")
        }
    }

    func testMalformedRulesAreRefusedAndLeaveTheStructCleared() {
        let cases: [(String, [UInt8], Int32)] = [
            ("IPv4 prefix of 33 bits", ruleMessage(dstLen: 33), EBADMSG),
            ("IPv6 source prefix of 129 bits", ruleMessage(family: K.AF_INET6, srcLen: 129), EBADMSG),
            ("IPv4 FRA_DST of 16 bytes", ruleMessage(dstLen: 8, attributes: [(1, [UInt8](repeating: 1, count: 16))]), EBADMSG),
            ("interface name without NUL", ruleMessage(attributes: [(3, [UInt8](repeating: 65, count: 16))]), EBADMSG),
            ("uid range of 4 bytes", ruleMessage(attributes: [(20, u32(5))]), EBADMSG),
            ("priority of 2 bytes", ruleMessage(attributes: [(6, [1, 0])]), EBADMSG),
            ("another family (AF_BRIDGE)", ruleMessage(family: 7), EPROTO),
            ("header cut short", Array(ruleMessage().prefix(20)), EBADMSG),
        ]
        for (name, bytes, expected) in cases {
            var message = bytes
            if name == "header cut short" { message.replaceSubrange(0..<4, with: u32(20)) }
            let parsed = parseRule(message)
            XCTAssertEqual(parsed.result, -1, name)
            XCTAssertEqual(parsed.errno, expected, name)
            XCTAssertEqual(withUnsafeBytes(of: parsed.rule) { $0.allSatisfy { $0 == 0 } }, true, name)
        }
        var route = ruleMessage()
        route.replaceSubrange(4..<6, with: withUnsafeBytes(of: K.RTM_NEWROUTE) { Array($0) })
        XCTAssertEqual(parseRule(route).errno, EPROTO, "a route message is not a rule")
    }

    // MARK: The walk

    private func rule(_ priority: UInt32, _ action: PolicyRule.Action, configure: (inout PolicyRule) -> Void = { _ in }) -> PolicyRule {
        var rule = PolicyRule()
        rule.priority = priority
        rule.action = action
        configure(&rule)
        return rule
    }

    /// The default chain: 0 lookup local, 32766 lookup main, 32767 lookup default.
    private var defaults: [PolicyRule] {
        [rule(0, .lookup(table: 255)), rule(32766, .lookup(table: 254)), rule(32767, .lookup(table: 253))]
    }

    private func walk(_ rules: [PolicyRule], throwIn tables: Set<UInt32>, to destination: String = "10.7.1.1",
                      _ configure: (inout RuleChain.Lookup) -> Void = { _ in },
                      indexes: [String: Int32] = ["lo": 1, "vb": 5]) -> Bool? {
        var lookup = RuleChain.Lookup(destination: IPAddress(destination)!, source: nil, uid: 0)
        configure(&lookup)
        return RuleChain.refusalIsThrow(rules: rules, throwTables: tables, lookup: lookup) { indexes[$0] }
    }

    func testAThrowInAConsultedTableWithNothingAfterIsThrow() {
        XCTAssertEqual(walk(defaults, throwIn: [254]), true)
        XCTAssertEqual(walk(defaults, throwIn: [100]), false, "no rule consults table 100")
        XCTAssertEqual(walk(defaults, throwIn: []), false)
        XCTAssertEqual(walk([rule(10, .lookup(table: 0))], throwIn: [254]), true, "table 0 is main, as the kernel reads it")
    }

    func testTheWalkNamesTheFirstTableThatThrew() {
        let chain = [rule(10, .lookup(table: 100)), rule(20, .lookup(table: 200))] + defaults
        let lookup = RuleChain.Lookup(destination: IPAddress("10.7.1.1")!, source: nil, uid: 0)
        func table(_ tables: Set<UInt32>) -> UInt32?? {
            RuleChain.throwTable(rules: chain, throwTables: tables, lookup: lookup) { _ in nil }
        }
        XCTAssertEqual(table([200, 254]), .some(200), "the first consulted, in the kernel's order")
        XCTAssertEqual(table([100, 200]), .some(100))
        XCTAssertEqual(table([300]), .some(nil), "no consulted table threw: not a throw")
    }

    func testARefusingRuleOnTheWayEndsTheWalkAsNoRoute() {
        let chain = [rule(0, .lookup(table: 100)), rule(5, .refuse)] + defaults
        XCTAssertEqual(walk(chain, throwIn: [100]), false, "unreachable answers ENETUNREACH itself")
    }

    func testGotoSkipsTheRulesInBetweenAndNopGoesOn() {
        let chain = [rule(1, .goto(priority: 50)), rule(10, .lookup(table: 100)), rule(50, .nop)] + defaults
        XCTAssertEqual(walk(chain, throwIn: [100]), false)
        XCTAssertEqual(walk(chain, throwIn: [254]), true)
        let dangling = [rule(1, .goto(priority: 60)), rule(10, .lookup(table: 100))]
        XCTAssertEqual(walk(dangling, throwIn: [100]), true, "a goto without its target is passed over")
    }

    func testSelectorsDecideWhetherARuleApplies() {
        func only(_ configure: @escaping (inout PolicyRule) -> Void) -> [PolicyRule] {
            [rule(10, .lookup(table: 100), configure: configure)]
        }
        XCTAssertEqual(walk(only { $0.destination = (IPAddress("10.7.0.0")!, 16) }, throwIn: [100]), true)
        XCTAssertEqual(walk(only { $0.destination = (IPAddress("10.8.0.0")!, 16) }, throwIn: [100]), false)
        XCTAssertEqual(walk(only { $0.destination = (IPAddress("10.8.0.0")!, 16); $0.inverted = true }, throwIn: [100]), true)
        XCTAssertEqual(walk(only { $0.mark = 7; $0.markMask = .max }, throwIn: [100]), false)
        XCTAssertEqual(walk(only { $0.mark = 7; $0.markMask = .max }, throwIn: [100]) { $0.mark = 7 }, true)
        XCTAssertEqual(walk(only { $0.uids = 1000...1999 }, throwIn: [100]), false)
        XCTAssertEqual(walk(only { $0.uids = 1000...1999 }, throwIn: [100]) { $0.uid = 1500 }, true)
        XCTAssertEqual(walk(only { $0.inputInterface = "lo" }, throwIn: [100]), true, "a local lookup comes in on lo")
        XCTAssertEqual(walk(only { $0.inputInterface = "vb" }, throwIn: [100]), false)
        XCTAssertEqual(walk(only { $0.inputInterface = "lo"; $0.inputDetached = true }, throwIn: [100]), false)
        XCTAssertEqual(walk(only { $0.outputInterface = "vb" }, throwIn: [100]), false)
        XCTAssertEqual(walk(only { $0.outputInterface = "vb" }, throwIn: [100]) { $0.outputIndex = 5 }, true)
        XCTAssertEqual(walk(only { $0.outputInterface = "gone" }, throwIn: [100]) { $0.outputIndex = 5 }, false)
        XCTAssertEqual(walk(only { $0.tos = 0x10 }, throwIn: [100]), false)
        XCTAssertEqual(walk(only { $0.source = (IPAddress("192.0.2.0")!, 24) }, throwIn: [100]), false,
                       "IPv4 matches rules with source 0.0.0.0")
        XCTAssertEqual(walk(only { $0.source = (IPAddress("192.0.2.0")!, 24) }, throwIn: [100]) {
            $0.source = IPAddress("192.0.2.9") }, true)
    }

    func testWhatCannotBeJudgedIsUndecided() {
        XCTAssertNil(walk([rule(10, .lookup(table: 100)) { $0.hasOtherSelectors = true }], throwIn: [100]))
        XCTAssertNil(walk([rule(10, .lookup(table: 100)) { $0.suppresses = true }], throwIn: [100]),
                     "a suppressed route found there would also give ENETUNREACH")
        XCTAssertNil(walk([rule(10, .other(9))], throwIn: [100]))
        XCTAssertNil(walk([rule(10, .lookup(table: 100)) { $0.source = (IPAddress("2001:db8::")!, 32) }],
                          throwIn: [100], to: "2001:db8:9::1"), "IPv6 may pick a source for such a rule")
        // ... but a rule whose decoded selectors already fail does not apply, whatever the rest.
        XCTAssertEqual(walk([rule(10, .lookup(table: 100)) {
            $0.hasOtherSelectors = true; $0.destination = (IPAddress("10.8.0.0")!, 16) }] + defaults, throwIn: [254]), true)
    }

    func testTablesCoveringTheDestination() {
        func throwRoute(_ text: String, _ length: UInt8, table: UInt32, tos: UInt8 = 0) -> creach_route {
            var route = creach_route()
            let address = IPAddress(text)!
            route.family = address.family == .v4 ? K.AF_INET : K.AF_INET6
            route.dst_len = length
            route.table = table
            route.tos = tos
            address.copy(into: &route.dst)
            return route
        }
        let routes = [throwRoute("10.7.0.0", 16, table: 100), throwRoute("10.0.0.0", 8, table: 254),
                      throwRoute("10.7.1.0", 24, table: 200, tos: 0x10), throwRoute("10.9.0.0", 16, table: 300),
                      throwRoute("::", 0, table: 400)]
        XCTAssertEqual(RuleChain.tables(of: routes, covering: IPAddress("10.7.1.1")!), [100, 254],
                       "a TOS-only route does not match a plain lookup; an IPv6 route not an IPv4 one")
        XCTAssertEqual(RuleChain.tables(of: routes, covering: IPAddress("2001:db8::1")!), [400])
        XCTAssertEqual(RuleChain.tables(of: routes, covering: IPAddress("192.0.2.1")!), [])
    }

    func testPrefixMatching() {
        let a = IPAddress("2001:db8:0:1:8000::1")!
        XCTAssertTrue(a.isIn(IPAddress("2001:db8:0:1:8000::")!, length: 65))
        XCTAssertFalse(a.isIn(IPAddress("2001:db8:0:1::")!, length: 65))
        XCTAssertTrue(a.isIn(IPAddress("::")!, length: 0))
        XCTAssertFalse(a.isIn(IPAddress("2001:db8:0:1:8000::1")!, length: 129))
        XCTAssertFalse(IPAddress("10.0.0.1")!.isIn(IPAddress("::")!, length: 0), "another family never matches")
        XCTAssertTrue(IPAddress("10.0.0.1")!.isIn(IPAddress("10.0.0.0")!, length: 31))
        XCTAssertFalse(IPAddress("10.0.0.2")!.isIn(IPAddress("10.0.0.0")!, length: 31))
    }
}
