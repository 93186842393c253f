// Compile test of `CoreTelephony`'s surface against Apple's, as
// docs/compat-surface/CoreTelephony.md lists it: every `provided` and `Linux
// meaning` row, spelled as Swift imports CTCellularData.h and
// CTTelephonyNetworkInfo.h (iOS SDK generated interface). Nothing here runs:
// each function only has to type-check, in Swift 5 and 6.
//
// Imports the module and Foundation. On iOS, CoreTelephony's headers import
// Foundation, so `import CoreTelephony` alone shows NSObject and
// NSNotification.Name (Visibility/CoreTelephony.swift checks that we do the
// same); iOS files that use these classes also import Foundation or UIKit
// themselves, and the import here keeps this file about the declarations.

import CoreTelephony
import Foundation

// MARK: - CTCellularData.h

func surface_CoreTelephony_cellularData() {
    let state: CTCellularDataRestrictedState = .restrictedStateUnknown
    switch state {
    case .restrictedStateUnknown: break
    case .restricted: break
    case .notRestricted: break
    }
    let _: UInt = state.rawValue
    let _: CTCellularDataRestrictedState? = CTCellularDataRestrictedState(rawValue: 2)
    let _: Set<CTCellularDataRestrictedState> = [.restricted, .notRestricted]

    let notifier: CellularDataRestrictionDidUpdateNotifier = { (state: CTCellularDataRestrictedState) in _ = state }
    let _: (CTCellularDataRestrictedState) -> Void = notifier

    let data = CTCellularData()
    let _: NSObject = data
    let current: CellularDataRestrictionDidUpdateNotifier? = data.cellularDataRestrictionDidUpdateNotifier
    data.cellularDataRestrictionDidUpdateNotifier = current
    data.cellularDataRestrictionDidUpdateNotifier = { state in
        if state == .restricted { print("cellular data refused") }
    }
    data.cellularDataRestrictionDidUpdateNotifier = nil
    let _: CTCellularDataRestrictedState = data.restrictedState
}

/// Imported Objective-C classes are open: apps subclass them (test doubles).
final class SurfaceCellularData: CTCellularData {
    override var restrictedState: CTCellularDataRestrictedState { .notRestricted }
}

// MARK: - CTTelephonyNetworkInfo.h: notifications and constants

func surface_CoreTelephony_constants() {
    let _: NSNotification.Name = .CTServiceRadioAccessTechnologyDidChange
    let _: NSNotification.Name = NSNotification.Name.CTRadioAccessTechnologyDidChange
    let technologies: [String] = [
        CTRadioAccessTechnologyGPRS, CTRadioAccessTechnologyEdge, CTRadioAccessTechnologyWCDMA,
        CTRadioAccessTechnologyHSDPA, CTRadioAccessTechnologyHSUPA, CTRadioAccessTechnologyCDMA1x,
        CTRadioAccessTechnologyCDMAEVDORev0, CTRadioAccessTechnologyCDMAEVDORevA, CTRadioAccessTechnologyCDMAEVDORevB,
        CTRadioAccessTechnologyeHRPD, CTRadioAccessTechnologyLTE, CTRadioAccessTechnologyNRNSA, CTRadioAccessTechnologyNR,
    ]
    // As apps classify them: a switch over the String constants.
    switch technologies.first ?? "" {
    case CTRadioAccessTechnologyNR, CTRadioAccessTechnologyNRNSA: break
    case CTRadioAccessTechnologyLTE: break
    default: break
    }
}

// MARK: - CTTelephonyNetworkInfo

func surface_CoreTelephony_networkInfo() {
    let info = CTTelephonyNetworkInfo()
    let _: NSObject = info
    let _: String? = info.dataServiceIdentifier
    let delegate: (any CTTelephonyNetworkInfoDelegate)? = info.delegate
    info.delegate = delegate
    let services: [String: String]? = info.serviceCurrentRadioAccessTechnology
    if let services, let identifier = info.dataServiceIdentifier { _ = services[identifier] }
    let _: String? = info.currentRadioAccessTechnology
}

/// Imported Objective-C classes are open: apps subclass them (test doubles).
final class SurfaceNetworkInfo: CTTelephonyNetworkInfo {
    override var serviceCurrentRadioAccessTechnology: [String: String]? { ["0000000100000001": CTRadioAccessTechnologyLTE] }
    override var dataServiceIdentifier: String? { "0000000100000001" }
}
