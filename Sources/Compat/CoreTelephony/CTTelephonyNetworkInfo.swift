// CoreTelephony's CTTelephonyNetworkInfo on Linux: the radio access
// technology of each WWAN link, from `RadioSource.processDefault` (the kernel
// does not know it): ModemManager's, followed with no call by the application
// (CompatEnvironment.modemManager), under what the application or its modem
// driver sets there. A "service" is a WWAN interface: its identifier is the
// interface's name.

import Dispatch
import Foundation
import LinuxReachability
import ReachabilityCompatSupport

// Apple's names for radio access technologies, with Apple's string values.
/// GPRS, the packet data of GSM networks (2G). On Linux the kernel has no fact
/// for it: a WWAN link reports it when `RadioSource.processDefault` holds
/// `.gprs` or `.gsm` for it.
public let CTRadioAccessTechnologyGPRS = "CTRadioAccessTechnologyGPRS"
/// EDGE, GSM's faster packet data (2G). On Linux: reported when
/// `RadioSource.processDefault` holds `.edge` for the link; the kernel does not
/// know it.
public let CTRadioAccessTechnologyEdge = "CTRadioAccessTechnologyEdge"
/// WCDMA, the UMTS radio (3G). On Linux: reported for `.umts` or `.tdscdma` set
/// in `RadioSource.processDefault`; the kernel does not know it.
public let CTRadioAccessTechnologyWCDMA = "CTRadioAccessTechnologyWCDMA"
/// HSDPA, UMTS with faster downloads (3G). On Linux: reported for `.hsdpa`,
/// `.hspa` or `.hspaPlus` set in `RadioSource.processDefault`, as iPhones name
/// HSPA links.
public let CTRadioAccessTechnologyHSDPA = "CTRadioAccessTechnologyHSDPA"
/// HSUPA, UMTS with faster uploads (3G). On Linux: reported for `.hsupa` set in
/// `RadioSource.processDefault`.
public let CTRadioAccessTechnologyHSUPA = "CTRadioAccessTechnologyHSUPA"
/// CDMA2000 1x, the CDMA networks' 2G data. On Linux: reported for `.cdma1x`
/// set in `RadioSource.processDefault`.
public let CTRadioAccessTechnologyCDMA1x = "CTRadioAccessTechnologyCDMA1x"
/// CDMA EV-DO release 0. On Linux: reported for `.evdo` set in
/// `RadioSource.processDefault`.
public let CTRadioAccessTechnologyCDMAEVDORev0 = "CTRadioAccessTechnologyCDMAEVDORev0"
/// CDMA EV-DO revision A. On Linux: reported for `.evdoRevA` set in
/// `RadioSource.processDefault`.
public let CTRadioAccessTechnologyCDMAEVDORevA = "CTRadioAccessTechnologyCDMAEVDORevA"
/// CDMA EV-DO revision B. On Linux: reported for `.evdoRevB` set in
/// `RadioSource.processDefault`.
public let CTRadioAccessTechnologyCDMAEVDORevB = "CTRadioAccessTechnologyCDMAEVDORevB"
/// eHRPD, the CDMA radio that hands over to LTE. On Linux: reported for
/// `.ehrpd` set in `RadioSource.processDefault`.
public let CTRadioAccessTechnologyeHRPD = "CTRadioAccessTechnologyeHRPD"
/// LTE (4G). On Linux: reported for `.lte` set in `RadioSource.processDefault`
/// (or `REACH_RADIO=wwan0=lte`); the kernel does not know it.
public let CTRadioAccessTechnologyLTE = "CTRadioAccessTechnologyLTE"
/// 5G NR anchored on an LTE network (non-standalone). On Linux: reported for
/// `.nrNSA` set in `RadioSource.processDefault`.
public let CTRadioAccessTechnologyNRNSA = "CTRadioAccessTechnologyNRNSA"
/// 5G NR standalone. On Linux: reported for `.nr` set in
/// `RadioSource.processDefault`.
public let CTRadioAccessTechnologyNR = "CTRadioAccessTechnologyNR"

extension NSNotification.Name {
    /// Posted once per change of a service's technology; `object` is the
    /// service identifier (the WWAN interface's name), as on iOS.
    public static let CTServiceRadioAccessTechnologyDidChange =
        NSNotification.Name("CTServiceRadioAccessTechnologyDidChangeNotification")
    /// The older notification (iOS 7-12), posted with it: `object` is the
    /// service identifier too.
    public static let CTRadioAccessTechnologyDidChange =
        NSNotification.Name("CTRadioAccessTechnologyDidChangeNotification")
}

extension RadioTechnology {
    /// CoreTelephony's constant for this technology. iOS has no constant for
    /// GSM without data (GPRS stands for it), HSPA and HSPA+ (reported as
    /// HSDPA, as iPhones do) or TD-SCDMA (WCDMA).
    public var coreTelephonyName: String {
        switch self {
        case .gsm, .gprs: return CTRadioAccessTechnologyGPRS
        case .edge: return CTRadioAccessTechnologyEdge
        case .cdma1x: return CTRadioAccessTechnologyCDMA1x
        case .umts, .tdscdma: return CTRadioAccessTechnologyWCDMA
        case .hsdpa, .hspa, .hspaPlus: return CTRadioAccessTechnologyHSDPA
        case .hsupa: return CTRadioAccessTechnologyHSUPA
        case .evdo: return CTRadioAccessTechnologyCDMAEVDORev0
        case .evdoRevA: return CTRadioAccessTechnologyCDMAEVDORevA
        case .evdoRevB: return CTRadioAccessTechnologyCDMAEVDORevB
        case .ehrpd: return CTRadioAccessTechnologyeHRPD
        case .lte: return CTRadioAccessTechnologyLTE
        case .nrNSA: return CTRadioAccessTechnologyNRNSA
        case .nr: return CTRadioAccessTechnologyNR
        }
    }
}

/// The delegate told when the data service changes (iOS 13).
public protocol CTTelephonyNetworkInfoDelegate: AnyObject {
    func dataServiceIdentifierDidChange(_ identifier: String)
}

extension CTTelephonyNetworkInfoDelegate {
    /// The default does nothing, so a delegate need not write the method. On
    /// Linux the call comes when ``CTTelephonyNetworkInfo/dataServiceIdentifier``
    /// differs from before, which is looked at each time a technology changes
    /// in `RadioSource.processDefault`, not when routes change.
    ///
    /// - Parameter identifier: The new data service's identifier (its WWAN
    ///   interface's name).
    public func dataServiceIdentifierDidChange(_ identifier: String) {}
}

/// The radio access technology of each cellular service (WWAN interface),
/// fed by `RadioSource.processDefault`. Where ModemManager runs, it fills it
/// with no call by the application (`CompatEnvironment.modemManager`): a
/// modem on LTE behind `wwan0` makes ``serviceCurrentRadioAccessTechnology``
/// `["wwan0": CTRadioAccessTechnologyLTE]`, and each change of its technology
/// is told as below. Without ModemManager, the application or its modem
/// driver says it, and its setting wins over the modem's:
///
///     RadioSource.processDefault.set(.lte, for: "wwan0")
///
/// makes ``serviceCurrentRadioAccessTechnology`` `["wwan0": CTRadioAccessTechnologyLTE]`,
/// calls ``serviceRadioAccessTechnologyDidUpdateNotifier`` with `"wwan0"` on a
/// global queue, and posts `CTServiceRadioAccessTechnologyDidChange` and
/// `CTRadioAccessTechnologyDidChange` once (whatever the number of instances),
/// with the service identifier as object. Setting the same technology again
/// changes nothing. Carrier facts (`CTCarrier`, the SIM's provider) have no
/// Linux source here and are not provided.
open class CTTelephonyNetworkInfo: NSObject, @unchecked Sendable {
    private let lock = NSLock()
    private var notifier: ((String) -> Void)?
    private var observer: UInt64?

    /// The object told when ``dataServiceIdentifier`` changes. Held weakly, as
    /// on iOS. On Linux the data service is looked at again when a service's
    /// technology changes (not when routes change).
    open weak var delegate: (any CTTelephonyNetworkInfoDelegate)?
    private var lastDataService: String?

    /// Makes an object that reads each service's technology from
    /// `RadioSource.processDefault` and follows its changes. The data service
    /// is noted now, so the delegate hears only of later moves.
    public override init() {
        super.init()
        CompatEnvironment.followModems()   // before the first read: the modem's technology is in it
        lastDataService = dataServiceIdentifier
        RadioChanges.shared.start()
        observer = RadioChanges.shared.add { [weak self] service in self?.changed(service) }
    }

    deinit { if let observer { RadioChanges.shared.remove(observer) } }

    /// Each service's technology, by service identifier (the WWAN interface's
    /// name); nil when no technology is set for any.
    open var serviceCurrentRadioAccessTechnology: [String: String]? {
        let technologies = RadioSource.processDefault.technologies
        guard !technologies.isEmpty else { return nil }
        return technologies.mapValues(\.coreTelephonyName)
    }

    /// The technology of the data service (deprecated on iOS since 12).
    open var currentRadioAccessTechnology: String? {
        dataServiceIdentifier.flatMap { RadioSource.processDefault.technology(for: $0)?.coreTelephonyName }
    }

    /// The service that carries data: the WWAN interface the internet route
    /// leaves by when it leaves by one, else the first (by name) with a
    /// technology set; nil without either.
    open var dataServiceIdentifier: String? {
        let technologies = RadioSource.processDefault.technologies
        if let evaluator = try? CompatEnvironment.evaluator() {
            for address in Target.internetProbeAddresses {
                if let answer = try? evaluator.evaluate(address), answer.interfaceKind == .wwan,
                   answer.flags.contains(.reachable), let name = answer.link?.name {
                    return name
                }
            }
        }
        return technologies.keys.sorted().first
    }

    /// Called with the service identifier when that service's technology
    /// changes, on a global queue.
    open var serviceRadioAccessTechnologyDidUpdateNotifier: ((String) -> Void)? {
        get { lock.withLock { notifier } }
        set { lock.withLock { notifier = newValue } }
    }

    private func changed(_ service: String) {
        let dataService = dataServiceIdentifier
        let moved = lock.withLock { () -> Bool in
            defer { lastDataService = dataService }
            return lastDataService != dataService
        }
        if moved, let dataService { delegate?.dataServiceIdentifierDidChange(dataService) }
        deliver(service)
    }

    private func deliver(_ service: String) {
        guard let notifier = serviceRadioAccessTechnologyDidUpdateNotifier else { return }
        // Apple's block type is not Sendable: it runs on one queue, as there.
        nonisolated(unsafe) let block = notifier
        DispatchQueue.global().compatAsync { block(service) }
    }
}

/// The process-wide follower of `RadioSource.processDefault`: it tells which
/// services changed, posts the notifications once per change, and tells every
/// `CTTelephonyNetworkInfo`.
final class RadioChanges: @unchecked Sendable {
    static let shared = RadioChanges()

    private let lock = NSLock()
    private var started = false
    private var known: [String: RadioTechnology] = [:]
    private var instances: [UInt64: @Sendable (String) -> Void] = [:]
    private var nextID: UInt64 = 0
    /// Notifications are posted here, in the order of the changes.
    private let queue = DispatchQueue(label: "CoreTelephony.RadioChanges")
    /// For a test: runs at the end of the first `start()`, on its thread,
    /// where another start() and a change can come (nil outside tests).
    var afterStartClaimed: (() -> Void)?

    func start() {
        let first = lock.withLock { () -> Bool in
            guard !started else { return false }
            started = true
            // In one hold of the lock, so that a start() that finds this one
            // under way returns only once changes are followed. Observed, then
            // read: a change in between is in `known`, and its sourceChanged
            // (waiting for this lock) finds nothing new.
            _ = RadioSource.processDefault.addObserver(afterCaches: true) { [weak self] in self?.sourceChanged() }
            known = RadioSource.processDefault.technologies
            return true
        }
        if first { afterStartClaimed?() }
    }

    func add(_ instance: @escaping @Sendable (String) -> Void) -> UInt64 {
        lock.withLock {
            nextID += 1
            instances[nextID] = instance
            return nextID
        }
    }

    func remove(_ id: UInt64) { _ = lock.withLock { instances.removeValue(forKey: id) } }

    private func sourceChanged() {
        let (changed, instances) = lock.withLock { () -> ([String], [@Sendable (String) -> Void]) in
            let now = RadioSource.processDefault.technologies
            let services = Set(now.keys).union(known.keys).filter { now[$0] != known[$0] }.sorted()
            known = now
            return (services, Array(self.instances.values))
        }
        guard !changed.isEmpty else { return }
        queue.compatAsync {
            for service in changed {
                for instance in instances { instance(service) }
                NotificationCenter.default.post(name: .CTServiceRadioAccessTechnologyDidChange, object: service)
                NotificationCenter.default.post(name: .CTRadioAccessTechnologyDidChange, object: service)
            }
        }
    }
}
