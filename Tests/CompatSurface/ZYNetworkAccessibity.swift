// Compile test of our `ZYNetworkAccessibity` module: every `provided` and `Linux
// meaning` row of docs/compat-surface/ZYNetworkAccessibity.md (which says where the
// original's API was read), in the Swift spelling and types its users write.
// Never run: it only has to compile, in Swift 5 and Swift 6 language modes.
//
// The original's users see its header through the bridging header, with
// Foundation; so this file imports only our module, and names
// `NSNotification.Name` as they would (Visibility/ZYNetworkAccessibity.swift
// checks the rest of what they see).

import ZYNetworkAccessibity

private func isSendable<T: Sendable>(_: T.Type) {}
private func isHashable<T: Hashable>(_: T.Type) {}

// MARK: class ZYNetworkAccessibity: NSObject, open: every class method
// overridable from another module, with the imported signatures.

final class SurfaceZYNetworkAccessibity: ZYNetworkAccessibity {
    override class func start() { super.start() }
    override class func stop() { super.stop() }
    override class func setAlertEnable(_ setAlertEnable: Bool) { super.setAlertEnable(setAlertEnable) }
    override class func setStateDidUpdateNotifier(_ block: ((ZYNetworkAccessibleState) -> Void)!) {
        super.setStateDidUpdateNotifier(block)
    }
    override class func currentState() -> ZYNetworkAccessibleState { super.currentState() }
}

func surface_ZYNetworkAccessibity() {
    // MARK: NSNotification.Name.ZYNetworkAccessibityChanged
    let _: NSNotification.Name = .ZYNetworkAccessibityChanged
    let _: NSNotification.Name = NSNotification.Name.ZYNetworkAccessibityChanged

    // MARK: enum ZYNetworkAccessibleState: UInt (NS_ENUM), Sendable, Hashable
    isSendable(ZYNetworkAccessibleState.self)
    isHashable(ZYNetworkAccessibleState.self)
    func describe(_ state: ZYNetworkAccessibleState) -> String {
        switch state {
        case .checking: return "checking"
        case .unknown: return "unknown"
        case .accessible: return "accessible"
        case .restricted: return "restricted"
        }
    }
    _ = describe(.accessible)
    let _: (UInt) -> ZYNetworkAccessibleState? = ZYNetworkAccessibleState.init(rawValue:)
    let _: UInt = ZYNetworkAccessibleState.restricted.rawValue

    // MARK: typealias NetworkAccessibleStateNotifier = (ZYNetworkAccessibleState) -> Void
    // (not @Sendable: a block that mutates what it captures compiles in Swift 6 mode)
    var seen: [ZYNetworkAccessibleState] = []
    let notifier: NetworkAccessibleStateNotifier = { state in seen.append(state) }
    let _: (ZYNetworkAccessibleState) -> Void = notifier

    // MARK: init() (inherited from NSObject)
    let _: ZYNetworkAccessibity = ZYNetworkAccessibity()

    // MARK: class func start(), stop()
    let _: () -> Void = ZYNetworkAccessibity.start
    ZYNetworkAccessibity.start()
    let _: () -> Void = ZYNetworkAccessibity.stop
    ZYNetworkAccessibity.stop()

    // MARK: class func setAlertEnable(_:)
    let _: (Bool) -> Void = ZYNetworkAccessibity.setAlertEnable
    ZYNetworkAccessibity.setAlertEnable(true)

    // MARK: class func setStateDidUpdateNotifier(_:): an IUO block
    let _: (((ZYNetworkAccessibleState) -> Void)?) -> Void = ZYNetworkAccessibity.setStateDidUpdateNotifier
    ZYNetworkAccessibity.setStateDidUpdateNotifier(notifier)
    ZYNetworkAccessibity.setStateDidUpdateNotifier { state in
        if state == .accessible { seen.removeAll() }
    }
    ZYNetworkAccessibity.setStateDidUpdateNotifier(nil)

    // MARK: class func currentState() -> ZYNetworkAccessibleState
    let _: () -> ZYNetworkAccessibleState = ZYNetworkAccessibity.currentState
    if ZYNetworkAccessibity.currentState() == .restricted { return }
}
