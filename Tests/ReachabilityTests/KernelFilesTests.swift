// The kernel files behind PPP links and interface kinds (CSupport/carriers.c,
// CSupport/sysfs.c, KernelFiles.swift), read from trees synthesized in a
// temporary directory: the PPPoX session counter, creach_pppox_sessions,
// creach_modem_devices, KernelFiles.pppFacts, and KernelFiles.root as the
// evaluator uses it. No root, no kernel state.

import CReachability
import Foundation
import LinuxReachability
@testable import ReachabilityCore
@testable import ReachabilityKernel
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// A directory that stands for `/`, deleted when the test ends.
private final class FakeRoot {
    let url: URL
    var path: String { url.path }

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("reach-kernelfiles-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func remove() { try? FileManager.default.removeItem(at: url) }

    func directory(_ relative: String) throws {
        try FileManager.default.createDirectory(at: url.appendingPathComponent(relative), withIntermediateDirectories: true)
    }

    /// Writes `text` at `relative`, making its directories.
    func file(_ relative: String, _ text: String) throws {
        let target = url.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: target)
    }

    /// A symlink at `relative` to `destination` (relative, need not exist), making its directories.
    func link(_ relative: String, to destination: String) throws {
        let target = url.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: target.path, withDestinationPath: destination)
    }

    /// sys/class/tty/NAME, with device/driver pointing at a driver of that basename (nil: no device).
    func tty(_ name: String, driver: String?) throws {
        try directory("sys/class/tty/\(name)")
        if let driver {
            try link("sys/class/tty/\(name)/device/driver", to: "../../../bus/usb-serial/drivers/\(driver)")
        }
    }
}

/// The typical modem tree: ttyS0 (serial8250), ttyUSB2 (option1), tty0 (no device), wwan/wwan0at0.
private func modemTree(_ root: FakeRoot) throws {
    try root.tty("ttyS0", driver: "serial8250")
    try root.tty("ttyUSB2", driver: "option1")
    try root.tty("tty0", driver: nil)
    try root.directory("sys/class/wwan/wwan0at0")
}

/// /proc/net/pppoe as drivers/net/ppp/pppoe.c prints it: a header, then
/// "%08X %pM %8s\n" per session.
private func pppoeText(sessions: Int) -> String {
    var text = "Id       Address              Device\n"
    for i in 0..<sessions { text += String(format: "%08X 00:11:22:33:44:%02x     eth0\n", 0x100 + i, i) }
    return text
}

/// /proc/net/pppol2tp as net/l2tp/l2tp_ppp.c prints it: a six-line header
/// (one line of which begins "  SESSION"), then per tunnel "\nTUNNEL ..." and
/// a stats line, per session four lines of which the first begins "  SESSION".
private func pppol2tpText(tunnels: [Int]) -> String {
    var text = """
        PPPoL2TP driver info, 1.0
        TUNNEL name, user-data-ok session-count
         debug tx-pkts/bytes/errs rx-pkts/bytes/errs
          SESSION name, addr/port src-tid/sid dest-tid/sid state user-data-ok
           mtu/mru/rcvseq/sendseq/lns debug reorderto
           nr/ns tx-pkts/bytes/errs rx-pkts/bytes/errs

        """
    for (t, sessions) in tunnels.enumerated() {
        text += "\nTUNNEL 'tunl \(t + 1)', Y \(sessions)\n"
        text += " 00000000 120/9800/0 118/9240/0\n"
        for s in 0..<sessions {
            text += "  SESSION 'sess \(t + 1)/\(s + 1)' C0A80001/1701 \(String(format: "%04X/%04X -> %04X/%04X", t + 1, s + 1, t + 7, s + 30)) 1 Y\n"
            text += "   0/0/-/-/LAC 00000000 0\n"
            text += "   0/0 60/4900/0 59/4620/0\n"
            text += "   interface ppp\(s)\n"
        }
    }
    return text
}

/// Feeds `text` to a fresh counter in chunks of `chunk` bytes (nil: at once).
private func count(_ text: String, chunk: Int? = nil) -> (pppoe: UInt32, l2tp: UInt32) {
    let bytes = text.utf8.map { CChar(bitPattern: $0) }
    var counter = creach_sessions_counter()
    bytes.withUnsafeBufferPointer { buffer in
        guard let base = buffer.baseAddress else { return }
        let step = chunk ?? buffer.count
        var offset = 0
        while offset < buffer.count {
            let n = min(step, buffer.count - offset)
            creach_sessions_feed(&counter, base + offset, n)
            offset += n
        }
    }
    return (creach_sessions_pppoe(&counter), creach_sessions_l2tp(&counter))
}

/// The C string in a fixed char array.
private func cString<T>(_ tuple: T) -> String {
    withUnsafeBytes(of: tuple) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
}

private final class Listed {
    var devices: [(name: String, driver: String)] = []
    var stopAfter: Int?
}

/// Everything creach_modem_devices lists under `root`, with its return value.
private func modemDevices(_ root: String?, stopAfter: Int? = nil) -> (rc: Int32, devices: [(name: String, driver: String)]) {
    let listed = Listed()
    listed.stopAfter = stopAfter
    let rc = creach_modem_devices(root, { name, driver, context in
        let listed = Unmanaged<Listed>.fromOpaque(context!).takeUnretainedValue()
        listed.devices.append((String(cString: name!), String(cString: driver!)))
        return listed.devices.count == listed.stopAfter ? 1 : 0
    }, Unmanaged.passUnretained(listed).toOpaque())
    return (rc, listed.devices)
}

final class KernelFilesTests: XCTestCase {
    private var roots: [FakeRoot] = []

    private func makeRoot() throws -> FakeRoot {
        let root = try FakeRoot()
        roots.append(root)
        return root
    }

    override func tearDown() {
        KernelFiles.root = nil
        for root in roots { root.remove() }
        roots = []
        super.tearDown()
    }

    // MARK: The session counter

    func testPPPoEHeaderOnlyIsNoSession() {
        XCTAssertEqual(count(pppoeText(sessions: 0)).pppoe, 0)
        XCTAssertEqual(count("").pppoe, 0)
        XCTAssertEqual(count("Id       Address              Device").pppoe, 0, "header without its newline")
    }

    func testPPPoEHeaderAndTwoSessions() {
        let text = pppoeText(sessions: 2)
        XCTAssertEqual(text.split(separator: "\n").count, 3, "the fixture: a header and two sessions")
        XCTAssertEqual(count(text).pppoe, 2)
        XCTAssertEqual(count(pppoeText(sessions: 5)).pppoe, 5)
    }

    func testPPPoELastLineWithoutNewlineCounts() {
        var text = pppoeText(sessions: 2)
        text.removeLast()
        XCTAssertFalse(text.hasSuffix("\n"))
        XCTAssertEqual(count(text).pppoe, 2)
        for chunk in 1...text.utf8.count {
            XCTAssertEqual(count(text, chunk: chunk).pppoe, 2, "chunks of \(chunk)")
        }
    }

    func testPPPoEBlankLinesAreNotSessions() {
        let header = "Id       Address              Device\n"
        let a = "00000101 00:11:22:33:44:00     eth0\n"
        let b = "00000102 00:11:22:33:44:01     eth0\n"
        XCTAssertEqual(count(header + a + "\n" + b + "\n\n").pppoe, 2)
        XCTAssertEqual(count(header + "\n\n\n").pppoe, 0)
        XCTAssertEqual(count(header + "\n" + a).pppoe, 1)
        // A line of spaces is not empty (the kernel never writes one; it counts).
        XCTAssertEqual(count(header + " \n").pppoe, 1)
    }

    func testL2TPRealLookingFileCountsItsSessions() {
        let text = pppol2tpText(tunnels: [2])
        XCTAssertEqual(text.components(separatedBy: "\n").filter { $0.hasPrefix("  SESSION") }.count, 3,
                       "the fixture: the header's SESSION line and two sessions")
        XCTAssertEqual(count(text).l2tp, 2)
        XCTAssertEqual(count(pppol2tpText(tunnels: [])).l2tp, 0, "header only")
        XCTAssertEqual(count(pppol2tpText(tunnels: [1, 0, 3])).l2tp, 4)
    }

    func testL2TPPrefixMustStartTheLine() {
        let header = pppol2tpText(tunnels: [])
        XCTAssertEqual(count(header + "  SESSION 'x' 0/0\n").l2tp, 1, "control")
        XCTAssertEqual(count(header + "  SESSION").l2tp, 1, "the prefix alone, no newline")
        XCTAssertEqual(count(header + "   SESSION 'x'\n").l2tp, 0, "three spaces")
        XCTAssertEqual(count(header + " SESSION 'x'\n").l2tp, 0, "one space")
        XCTAssertEqual(count(header + "x  SESSION 'x'\n").l2tp, 0, "not at the start")
        XCTAssertEqual(count(header + "  SESSIO\n").l2tp, 0, "cut short")
        XCTAssertEqual(count(header + "  session 'x'\n").l2tp, 0, "case matters")
    }

    func testEveryChunkingGivesTheSameCounts() {
        let cases: [(text: String, pppoe: UInt32?, l2tp: UInt32?)] = [
            (pppoeText(sessions: 3), 3, nil),
            (String(pppoeText(sessions: 2).dropLast()), 2, nil),
            ("Id       Address              Device\n\n00000101 00:11:22:33:44:00 eth0\n\n", 1, nil),
            (pppol2tpText(tunnels: [2]), nil, 2),
            (pppol2tpText(tunnels: [1, 3]) + "  SESSION", nil, 5),
        ]
        for (index, item) in cases.enumerated() {
            let whole = count(item.text)
            if let pppoe = item.pppoe { XCTAssertEqual(whole.pppoe, pppoe, "case \(index) whole") }
            if let l2tp = item.l2tp { XCTAssertEqual(whole.l2tp, l2tp, "case \(index) whole") }
            for chunk in 1...item.text.utf8.count {
                let split = count(item.text, chunk: chunk)
                XCTAssertEqual(split.pppoe, whole.pppoe, "case \(index), chunks of \(chunk)")
                XCTAssertEqual(split.l2tp, whole.l2tp, "case \(index), chunks of \(chunk)")
            }
        }
    }

    // MARK: creach_pppox_sessions

    func testPPPoXSessionsUnderARoot() throws {
        let root = try makeRoot()
        try root.file("proc/net/pppoe", pppoeText(sessions: 2))
        var out = creach_pppox(pppoe: 99, l2tp: 99)
        XCTAssertEqual(creach_pppox_sessions(root.path, -1, &out), 0)
        XCTAssertEqual(out.pppoe, 2)
        XCTAssertEqual(out.l2tp, 0, "no pppol2tp file: the module is not loaded")

        try root.file("proc/net/pppol2tp", pppol2tpText(tunnels: [1, 2]))
        XCTAssertEqual(creach_pppox_sessions(root.path, -1, &out), 0)
        XCTAssertEqual(out.pppoe, 2)
        XCTAssertEqual(out.l2tp, 3)
    }

    func testPPPoXSessionsWithoutProcAreZero() throws {
        let root = try makeRoot()
        var out = creach_pppox(pppoe: 99, l2tp: 99)
        XCTAssertEqual(creach_pppox_sessions(root.path, -1, &out), 0)
        XCTAssertEqual(out.pppoe, 0)
        XCTAssertEqual(out.l2tp, 0)
    }

    func testPPPoXSessionsLargerThanOneReadBuffer() throws {
        // 40 sessions are ~1.5 KB: more than the 512-byte read buffer, lines straddle reads.
        let root = try makeRoot()
        let text = pppoeText(sessions: 40)
        XCTAssertGreaterThan(text.utf8.count, 1024)
        try root.file("proc/net/pppoe", text)
        var out = creach_pppox()
        XCTAssertEqual(creach_pppox_sessions(root.path, -1, &out), 0)
        XCTAssertEqual(out.pppoe, 40)
    }

    func testPPPoXSessionsUnreadableFileIsAnError() throws {
        let root = try makeRoot()
        try root.directory("proc/net/pppoe")   // read fails with EISDIR: not "no module"
        var out = creach_pppox()
        errno = 0
        XCTAssertEqual(creach_pppox_sessions(root.path, -1, &out), -1)
        XCTAssertEqual(errno, EISDIR)
        errno = 0
        XCTAssertEqual(creach_pppox_sessions(root.path, -1, nil), -1)
        XCTAssertEqual(errno, EINVAL)
    }

    // MARK: creach_modem_devices

    func testModemDevicesListsTTYsWithDriversAndWWANPorts() throws {
        let root = try makeRoot()
        try modemTree(root)
        let (rc, devices) = modemDevices(root.path)
        XCTAssertEqual(rc, 4)
        let byName = Dictionary(devices.map { ($0.name, $0.driver) }, uniquingKeysWith: { first, _ in first })
        XCTAssertEqual(devices.count, 4, "each device once: \(devices)")
        XCTAssertEqual(byName, ["ttyS0": "serial8250", "ttyUSB2": "option1", "tty0": "", "wwan0at0": "wwan"])
        // ttys before WWAN ports.
        XCTAssertEqual(devices.last?.name, "wwan0at0")
    }

    func testModemDevicesOfAnEmptyTree() throws {
        let root = try makeRoot()
        XCTAssertEqual(modemDevices(root.path).rc, 0)
        XCTAssertTrue(modemDevices(root.path).devices.isEmpty)
        try root.directory("sys/class/wwan/wwan0mbim0")
        XCTAssertEqual(modemDevices(root.path).rc, 1, "no tty class, one WWAN port")
    }

    func testModemDevicesCallbackStops() throws {
        let root = try makeRoot()
        try root.tty("ttyUSB0", driver: "option1")
        try root.tty("ttyUSB1", driver: "option1")
        try root.tty("ttyUSB2", driver: "option1")
        let (_, devices) = modemDevices(root.path, stopAfter: 1)
        XCTAssertEqual(devices.count, 1, "a non-zero return stops the tty walk")
        XCTAssertEqual(creach_modem_devices(root.path, nil, nil), -1)
    }

    func testMissingDriverLinkIsAnEmptyDriver() throws {
        let root = try makeRoot()
        // A tty with a device directory but no driver link (driver unbound), and one with no device at all.
        try root.directory("sys/class/tty/ttyUSB3/device")
        try root.tty("ttyS1", driver: nil)
        try root.tty("ttyUSB2", driver: "option1")
        let (rc, devices) = modemDevices(root.path)
        XCTAssertEqual(rc, 3)
        let byName = Dictionary(devices.map { ($0.name, $0.driver) }, uniquingKeysWith: { first, _ in first })
        XCTAssertEqual(byName, ["ttyUSB3": "", "ttyS1": "", "ttyUSB2": "option1"])
        // ... so no modem but the one with a modem driver.
        XCTAssertEqual(KernelFiles.pppFacts(root: root.path, namespaceFD: -1, declaredModems: []).modems, ["ttyUSB2"])

        // The same under /sys/class/net: a device without a driver link reads as no driver.
        try root.file("sys/class/net/usb0/ifindex", "5\n")
        try root.file("sys/class/net/usb0/uevent", "INTERFACE=usb0\n")
        try root.directory("sys/class/net/usb0/device")
        let fd = creach_sysfs_open(root.path, -1)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        var out = creach_sysfs()
        XCTAssertEqual(creach_sysfs_read(fd, "usb0", &out), 0)
        XCTAssertEqual(out.ifindex, 5)
        XCTAssertEqual(out.has_device, 1)
        XCTAssertEqual(cString(out.driver), "")
    }

    // MARK: KernelFiles.pppFacts

    func testPPPFactsOfATree() throws {
        let root = try makeRoot()
        try modemTree(root)
        try root.file("proc/net/pppoe", pppoeText(sessions: 2))
        try root.file("proc/net/pppol2tp", pppol2tpText(tunnels: [1]))
        let facts = KernelFiles.pppFacts(root: root.path, namespaceFD: -1, declaredModems: [])
        XCTAssertEqual(facts.modems, ["ttyUSB2", "wwan0at0"])
        XCTAssertEqual(facts.pppoeSessions, 2)
        XCTAssertEqual(facts.l2tpSessions, 1)
    }

    func testPPPFactsOfATreeWithoutModemsOrSessions() throws {
        let root = try makeRoot()
        try root.tty("ttyS0", driver: "serial8250")
        try root.tty("ttyACM0", driver: "cdc_acm")   // any USB serial gadget: not a modem by itself
        let facts = KernelFiles.pppFacts(root: root.path, namespaceFD: -1, declaredModems: [])
        XCTAssertEqual(facts, PPPFacts(pppoeSessions: 0, l2tpSessions: 0, modems: []))
        XCTAssertEqual(InterfaceKind(ppp: facts), .other)
    }

    func testDeclaredModemThatExistsIsAModem() throws {
        let root = try makeRoot()
        try root.tty("ttyACM0", driver: "cdc_acm")
        try root.file("dev/ttyACM0", "")
        let facts = KernelFiles.pppFacts(root: root.path, namespaceFD: -1, declaredModems: ["/dev/ttyACM*"])
        XCTAssertEqual(facts.modems, [root.path + "/dev/ttyACM0"])
        XCTAssertEqual(InterfaceKind(ppp: facts), .wwan)
        // An exact path works as well as a glob, after the listed modems.
        try modemTree(root)
        let more = KernelFiles.pppFacts(root: root.path, namespaceFD: -1, declaredModems: ["/dev/ttyACM0"])
        XCTAssertEqual(more.modems, ["ttyUSB2", "wwan0at0", root.path + "/dev/ttyACM0"])
    }

    func testDeclaredModemGlobThatMatchesNothingAddsNothing() throws {
        let root = try makeRoot()
        try root.file("dev/ttyACM0", "")
        for declared in ["/dev/ttyUSB*", "/dev/ttyACM9", "/nonexistent/*"] {
            let facts = KernelFiles.pppFacts(root: root.path, namespaceFD: -1, declaredModems: [declared])
            XCTAssertEqual(facts.modems, [], declared)
            XCTAssertEqual(InterfaceKind(ppp: facts), .other, declared)
        }
        try modemTree(root)
        XCTAssertEqual(KernelFiles.pppFacts(root: root.path, namespaceFD: -1, declaredModems: ["/dev/ttyUSB*"]).modems,
                       ["ttyUSB2", "wwan0at0"], "the listed modems stay")
    }

    // MARK: KernelFiles.root and the evaluator's sysfs path

    /// Reads `name` the way the evaluator does: creach_sysfs_open(KernelFiles.root, -1), creach_sysfs_read.
    private func sysfsFacts(_ name: String) throws -> creach_sysfs {
        let fd = creach_sysfs_open(KernelFiles.root, -1)
        guard fd >= 0 else {
            XCTFail("creach_sysfs_open(\(KernelFiles.root ?? "nil")): \(String(cString: strerror(errno)))")
            return creach_sysfs()
        }
        defer { close(fd) }
        var out = creach_sysfs()
        XCTAssertEqual(creach_sysfs_read(fd, name, &out), 0, name)
        return out
    }

    func testSysfsUnderKernelFilesRoot() throws {
        let root = try makeRoot()
        try root.file("sys/class/net/wlan0/ifindex", "7\n")
        try root.file("sys/class/net/wlan0/uevent", "DEVTYPE=wlan\nINTERFACE=wlan0\n")
        try root.directory("sys/class/net/wlan0/phy80211")
        try root.file("sys/class/net/usb0/ifindex", "9\n")
        try root.file("sys/class/net/usb0/uevent", "DEVTYPE=wwan\nINTERFACE=usb0\n")
        try root.link("sys/class/net/usb0/device/driver", to: "../../../bus/usb/drivers/cdc_ether")
        KernelFiles.root = root.path

        let wlan = try sysfsFacts("wlan0")
        XCTAssertEqual(wlan.ifindex, 7)
        XCTAssertEqual(cString(wlan.devtype), "wlan")
        XCTAssertEqual(wlan.wireless, 1)
        XCTAssertEqual(wlan.has_device, 0)

        let usb = try sysfsFacts("usb0")
        XCTAssertEqual(usb.ifindex, 9)
        XCTAssertEqual(cString(usb.devtype), "wwan")
        XCTAssertEqual(cString(usb.driver), "cdc_ether")
        XCTAssertEqual(usb.wireless, 0)
        XCTAssertEqual(usb.has_device, 1)

        // The facts as the evaluator turns them into kinds.
        XCTAssertEqual(InterfaceKind(facts: InterfaceFacts(name: "wlan0", hardwareType: 1, deviceType: cString(wlan.devtype),
                                                           isWireless: wlan.wireless != 0)), .wifi)
        XCTAssertEqual(InterfaceKind(facts: InterfaceFacts(name: "usb0", hardwareType: 1, deviceType: cString(usb.devtype),
                                                           driver: cString(usb.driver))), .wwan)

        // A root without sys/class/net: no sysfs (the evaluator then uses netlink facts alone).
        let empty = try makeRoot()
        errno = 0
        XCTAssertEqual(creach_sysfs_open(empty.path, -1), -1)
        XCTAssertEqual(errno, ENOENT)
    }

    func testEvaluatorReadsSysfsUnderKernelFilesRoot() throws {
        // A real Ethernet-type link of this namespace, with made-up sysfs facts.
        let probe = try ReachabilityEvaluator()
        guard let link = try probe.interfaces().map(\.link).first(where: { link in
            link.hardwareType == 1 && !link.isLoopback && link.linkKind == nil
                && !InterfaceKind.builtInWWANPatterns.contains(where: { fnmatch($0, link.name, 0) == 0 })
        }) else {
            throw XCTSkip("no plain ARPHRD_ETHER link in this namespace")
        }
        func kind(withUevent uevent: String, ifindex: Int32, wireless: Bool = false) throws -> InterfaceKind? {
            let root = try makeRoot()
            try root.file("sys/class/net/\(link.name)/ifindex", "\(ifindex)\n")
            try root.file("sys/class/net/\(link.name)/uevent", uevent)
            if wireless { try root.directory("sys/class/net/\(link.name)/phy80211") }
            KernelFiles.root = root.path
            defer { KernelFiles.root = nil }
            let evaluator = try ReachabilityEvaluator()
            return try evaluator.interfaces().first(where: { $0.link.index == link.index })?.kind
        }
        XCTAssertEqual(try kind(withUevent: "INTERFACE=\(link.name)\n", ifindex: link.index), .wired, "control")
        XCTAssertEqual(try kind(withUevent: "DEVTYPE=wwan\nINTERFACE=\(link.name)\n", ifindex: link.index), .wwan)
        XCTAssertEqual(try kind(withUevent: "INTERFACE=\(link.name)\n", ifindex: link.index, wireless: true), .wifi)
        // The ifindex check: facts of a tree that shows another link are ignored.
        XCTAssertEqual(try kind(withUevent: "DEVTYPE=wwan\n", ifindex: link.index + 1000), .wired)
    }
}
