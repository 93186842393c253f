// ct-watch: CoreTelephony as its documentation shows it, on Linux. Prints
// whether this process may use cellular data, and each change; and the radio
// access technology of each cellular service, and each change.
//
// The radio technology comes from the modem, which iOS reads itself; on Linux
// the application or its modem driver says it (RadioSource.processDefault,
// or REACH_RADIO=wwan0=lte). This program plays that driver too: each line
// `INTERFACE TECHNOLOGY` on standard input (`wwan0 lte`, `wwan0 -` to forget)
// is set as the modem would report it.
//
// `ct-watch`; `REACH_ALLOW_WWAN=0 ct-watch` runs it with cellular data off.

import CoreTelephony
import Foundation
import LinuxReachability

/// One line, written at once (a pipe would hold print's output back).
func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
signal(SIGINT) { _ in exit(0) }
signal(SIGTERM) { _ in exit(0) }

func name(_ state: CTCellularDataRestrictedState) -> String {
    switch state {
    case .restricted: return "restricted"
    case .notRestricted: return "notRestricted"
    case .restrictedStateUnknown: return "restrictedStateUnknown"
    }
}

// The radio first: the cellular-data notifier's first call comes on another
// queue as soon as it is set, so its line would race this one.
let networkInfo = CTTelephonyNetworkInfo()
say("radio: \(networkInfo.serviceCurrentRadioAccessTechnology ?? [:])")
networkInfo.serviceRadioAccessTechnologyDidUpdateNotifier = { service in
    let technology = networkInfo.serviceCurrentRadioAccessTechnology?[service] ?? "none"
    say("radio: \(service) \(technology)")
}

let cellularData = CTCellularData()
cellularData.cellularDataRestrictionDidUpdateNotifier = { state in
    say("cellular data: \(name(state))")
}

// The modem driver's part.
Thread.detachNewThread {
    while let line = readLine() {
        let fields = line.split(separator: " ").map(String.init)
        guard fields.count == 2 else { continue }
        RadioSource.processDefault.set(RadioTechnology(parsing: fields[1]), for: fields[0])
    }
}
dispatchMain()
