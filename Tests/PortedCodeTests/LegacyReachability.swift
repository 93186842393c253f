// Written as iOS code is written against Apple's frameworks, not for Linux:
// only Foundation and the frameworks' names are imported, `sa_len` is set,
// the context carries the object through `Unmanaged`, `copyDescription`
// returns `as CFString`, and closures mutate captured state (Swift 5 mode,
// as most iOS code still is). No `#if os(Linux)` anywhere in this target.

import CoreTelephony
import Foundation
import Network
import SystemConfiguration

enum LegacyStatus: Equatable {
    case notReachable, reachableViaWiFi, reachableViaWWAN
}

final class LegacyReachability {
    private let reachabilityRef: SCNetworkReachability
    var statusChanges: [LegacyStatus] = []
    var onChange: ((LegacyReachability) -> Void)?

    init?() {
        var zeroAddress = sockaddr()
        zeroAddress.sa_len = UInt8(MemoryLayout<sockaddr>.size)
        zeroAddress.sa_family = sa_family_t(AF_INET)
        guard let ref = SCNetworkReachabilityCreateWithAddress(nil, &zeroAddress) else { return nil }
        reachabilityRef = ref
    }

    deinit { stopNotifier() }

    var flags: SCNetworkReachabilityFlags {
        var flags = SCNetworkReachabilityFlags()
        if SCNetworkReachabilityGetFlags(reachabilityRef, &flags) {
            return flags
        }
        return []
    }

    var currentStatus: LegacyStatus {
        let flags = self.flags
        guard flags.contains(.reachable) else { return .notReachable }
        var status: LegacyStatus = flags.contains(.connectionRequired) ? .notReachable : .reachableViaWiFi
        if (flags.contains(.connectionOnDemand) || flags.contains(.connectionOnTraffic)) && !flags.contains(.interventionRequired) {
            status = .reachableViaWiFi
        }
        if flags.contains(.isWWAN) {
            status = .reachableViaWWAN
        }
        return status
    }

    @discardableResult
    func startNotifier(queue: DispatchQueue) -> Bool {
        let callback: SCNetworkReachabilityCallBack = { (reachability, flags, info) in
            guard let info = info else { return }
            let weakifiedReachability = Unmanaged<LegacyReachability>.fromOpaque(info).takeUnretainedValue()
            weakifiedReachability.statusChanges.append(weakifiedReachability.currentStatus)
            weakifiedReachability.onChange?(weakifiedReachability)
        }
        var context = SCNetworkReachabilityContext(
            version: 0,
            info: Unmanaged<LegacyReachability>.passUnretained(self).toOpaque(),
            retain: { (info: UnsafeRawPointer) -> UnsafeRawPointer in
                let unmanaged = Unmanaged<LegacyReachability>.fromOpaque(info)
                _ = unmanaged.retain()
                return UnsafeRawPointer(unmanaged.toOpaque())
            },
            release: { (info: UnsafeRawPointer) -> Void in
                let unmanaged = Unmanaged<LegacyReachability>.fromOpaque(info)
                unmanaged.release()
            },
            copyDescription: { (info: UnsafeRawPointer) -> Unmanaged<CFString> in
                let unmanaged = Unmanaged<LegacyReachability>.fromOpaque(info)
                let description = unmanaged.takeUnretainedValue().description
                return Unmanaged.passRetained(description as CFString)
            }
        )
        if !SCNetworkReachabilitySetCallback(reachabilityRef, callback, &context) {
            return false
        }
        if !SCNetworkReachabilitySetDispatchQueue(reachabilityRef, queue) {
            SCNetworkReachabilitySetCallback(reachabilityRef, nil, nil)
            return false
        }
        return true
    }

    func stopNotifier() {
        SCNetworkReachabilitySetCallback(reachabilityRef, nil, nil)
        SCNetworkReachabilitySetDispatchQueue(reachabilityRef, nil)
    }

    var description: String { "LegacyReachability \(currentStatus)" }
    var refDescription: String { "\(reachabilityRef)" }
}

/// Network's monitor as its documentation shows it, the handler mutating captured state.
final class PathWatcher {
    let monitor = NWPathMonitor()
    var paths: [NWPath] = []
    var lastStatus: NWPath.Status?

    func start(_ done: @escaping () -> Void) {
        var count = 0
        monitor.pathUpdateHandler = { path in
            count += 1
            self.lastStatus = path.status
            self.paths.append(path)
            if path.usesInterfaceType(.cellular) || path.usesInterfaceType(.wifi) || path.isExpensive {
                count += 0
            }
            switch path.unsatisfiedReason {
            case .notAvailable, .cellularDenied, .wifiDenied, .localNetworkDenied: break
            @unknown default: break
            }
            if count == 1 { done() }
        }
        monitor.start(queue: DispatchQueue(label: "PathWatcher"))
    }
}

/// CoreTelephony as an app asks it, the notifier mutating captured state.
final class CellularWatcher {
    let cellularData = CTCellularData()
    let networkInfo = CTTelephonyNetworkInfo()
    var states: [CTCellularDataRestrictedState] = []

    func start(_ done: @escaping () -> Void) {
        var calls = 0
        cellularData.cellularDataRestrictionDidUpdateNotifier = { state in
            calls += 1
            switch state {
            case .restricted, .notRestricted, .restrictedStateUnknown: self.states.append(state)
            @unknown default: break
            }
            if calls == 1 { done() }
        }
    }

    var technology: String? {
        networkInfo.serviceCurrentRadioAccessTechnology?.values.first ?? networkInfo.currentRadioAccessTechnology
    }
}

/// Run loop scheduling as Swift code on Apple's platforms writes it.
func scheduleTheSwiftWay(_ ref: SCNetworkReachability, on runLoop: RunLoop) -> Bool {
    SCNetworkReachabilityScheduleWithRunLoop(ref, runLoop.getCFRunLoop(), RunLoop.Mode.default.rawValue as CFString)
}

func unscheduleTheSwiftWay(_ ref: SCNetworkReachability, from runLoop: RunLoop) -> Bool {
    SCNetworkReachabilityUnscheduleFromRunLoop(ref, runLoop.getCFRunLoop(), CFRunLoopMode.defaultMode.rawValue)
}
