import ReachabilityModel
internal import CReachability
#if canImport(Glibc)
internal import Glibc
#endif

/// Where the kernel's files are read: sysfs (`/sys/class/net`, `/sys/class/tty`,
/// `/sys/class/wwan`) and procfs (`/proc/net/pppoe`, `/proc/net/pppol2tp`).
enum KernelFiles {
    /// A directory that stands for `/` when reading sysfs and procfs: the one
    /// internal setting (like udev's `SYSFS_PATH`) through which tests give
    /// captured or synthesized trees for links this kernel cannot make (PPP,
    /// Wi-Fi, USB modems). nil, the default, is the real `/`. Read when an
    /// evaluator is created.
    nonisolated(unsafe) static var root: String?

    /// The PPP facts of a namespace: its PPPoX sessions and the machine's modems.
    /// `declaredModems` are device paths or globs (`/dev/ttyUSB2`, `/dev/pts/*`)
    /// the application says are modems; one that exists counts as a modem.
    static func pppFacts(root: String?, namespaceFD: Int32, declaredModems: [String]) -> PPPFacts {
        var sessions = creach_pppox()
        // Unreadable counts (no right to enter the namespace) stay zero: the rule
        // then sees no PPPoX session, as on a box without pppoe/l2tp modules.
        _ = creach_pppox_sessions(root, namespaceFD, &sessions)
        let found = Collected<String>()
        _ = creach_modem_devices(root, { name, driver, context in
            let driver = String(cString: driver!)
            if driver == "wwan" || InterfaceKind.modemSerialDrivers.contains(driver) {
                Unmanaged<Collected<String>>.fromOpaque(context!).takeUnretainedValue().items.append(String(cString: name!))
            }
            return 0
        }, Unmanaged.passUnretained(found).toOpaque())
        var modems = found.items
        for pattern in declaredModems { modems += existingPaths(matching: pattern, under: root) }
        return PPPFacts(pppoeSessions: Int(sessions.pppoe), l2tpSessions: Int(sessions.l2tp), modems: modems)
    }

    /// Paths that exist and match a glob(3) pattern (under `root` when set), as given.
    private static func existingPaths(matching pattern: String, under root: String?) -> [String] {
        var result = glob_t()
        defer { globfree(&result) }
        guard glob((root ?? "") + pattern, 0, nil, &result) == 0 else { return [] }
        return (0..<Int(result.gl_pathc)).compactMap { result.gl_pathv[$0].map { String(cString: $0) } }
    }
}

/// Receives the values of a C callback.
final class Collected<Item> {
    var items: [Item] = []
}
