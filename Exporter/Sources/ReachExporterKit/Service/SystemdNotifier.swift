internal import CReachExporterSystemd

/// systemd's notify protocol (sd_notify(3)), through libsystemd: a state
/// ("READY=1", "WATCHDOG=1", "STOPPING=1", "STATUS=...") to the socket in
/// `$NOTIFY_SOCKET`. Without the variable (not started by systemd), nothing
/// is sent.
package struct SystemdNotifier: Sendable {
    /// Half of `$WATCHDOG_USEC`, when the watchdog is on for this process
    /// (sd_watchdog_enabled(3): `$WATCHDOG_PID`, when set, is this process).
    let watchdogInterval: Duration?

    package init() {
        var microseconds: UInt64 = 0
        watchdogInterval = sd_watchdog_enabled(0, &microseconds) > 0 && microseconds > 0
            ? .microseconds(Int64(clamping: microseconds / 2)) : nil
    }

    /// Sends `state`; false when there is no socket or sending failed
    /// (systemd then sees no readiness: the failure is its to report).
    @discardableResult
    func notify(_ state: String) -> Bool {
        sd_notify(0, state) > 0
    }
}
