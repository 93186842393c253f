// The decision tables and one evaluation, in a loop whose instructions
// callgrind counts (Benchmarks/Instructions/compare.sh): deterministic where
// wall-clock figures on a shared 2-CPU machine vary by half from run to run.
// MODE: none (the loop alone), status, networkStatus, mask, accessibility,
// evaluate [N] (N evaluations of 127.0.0.1 after the loop, 2,000 by default).

import ReachabilityCore
let allFlags: [ReachabilityFlags] = (0..<512).map { i in ReachabilityFlags(rawValue: UInt32(i & 0x3F) | (UInt32(i >> 6) << 16)) }
let kinds: [InterfaceKind] = (0..<512).map { [.wired, .wifi, .wwan, .tunnel, .loopback, .other][$0 % 6] }
let verdicts: [RouteVerdict] = (0..<512).map { $0 % 7 == 0 ? .prohibit : .unicast }
@inline(__always) func code<T>(_ value: T) -> UInt64 { withUnsafeBytes(of: value) { UInt64($0[0]) } }
let mode = CommandLine.arguments[1]
let rounds = 20_000
var sum: UInt64 = 0
allFlags.withUnsafeBufferPointer { flags in kinds.withUnsafeBufferPointer { kinds in verdicts.withUnsafeBufferPointer { verdicts in
    for _ in 0..<rounds {
        switch mode {
        case "status": for i in 0..<512 { sum &+= code(ReachabilityStatus(flags: flags[i], kind: kinds[i])) }
        case "networkStatus": for i in 0..<512 { sum &+= code(NetworkStatus(flags: flags[i])) }
        case "mask": for i in 0..<512 { sum &+= code(ReachabilityMask(flags: flags[i], kind: kinds[i], allowsWWAN: i & 1 == 0, radio: .g4)) }
        case "accessibility": for i in 0..<512 { sum &+= code(Accessibility(verdict: verdicts[i], flags: flags[i], allowsWWAN: i & 1 == 0, probe: .notProbed)) }
        default: for i in 0..<512 { sum &+= UInt64(flags[i].rawValue) }
        }
    }
}}}
if mode == "evaluate" {
    let evaluator = try! ReachabilityEvaluator()
    let address = IPAddress("127.0.0.1")!
    let evaluations = CommandLine.arguments.count > 2 ? Int(CommandLine.arguments[2])! : 2000
    for _ in 0..<evaluations { sum &+= code(try! evaluator.evaluate(address).status) }
}
print(sum)
