// nw-watch: Network's path monitor as Apple's documentation shows it,
// unchanged, on Linux. Prints the first path right after start, then each
// new one.
//
// `nw-watch` watches every interface; `nw-watch wifi|cellular|wiredEthernet`
// requires one type of interface. `REACH_ALLOW_WWAN=0 nw-watch` runs it with
// cellular data off.

import Foundation
import Network

/// One line, written at once (a pipe would hold print's output back).
func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
signal(SIGINT) { _ in exit(0) }
signal(SIGTERM) { _ in exit(0) }

let types: [String: NWInterface.InterfaceType] = ["wifi": .wifi, "cellular": .cellular, "wiredEthernet": .wiredEthernet]
let monitor: NWPathMonitor
if let name = CommandLine.arguments.dropFirst().first {
    guard let type = types[name] else {
        say("usage: nw-watch [wifi|cellular|wiredEthernet]")
        exit(2)
    }
    monitor = NWPathMonitor(requiredInterfaceType: type)
} else {
    monitor = NWPathMonitor()
}

monitor.pathUpdateHandler = { path in
    var line = "path: \(path.status)"
    if path.status == .unsatisfied { line += " (\(path.unsatisfiedReason))" }
    line += ", interfaces: [\(path.availableInterfaces.map(\.name).joined(separator: ", "))]"
    if path.usesInterfaceType(.cellular) { line += ", cellular" }
    if path.isExpensive { line += ", expensive" }
    say(line)
}
monitor.start(queue: DispatchQueue(label: "nw-watch"))
dispatchMain()
