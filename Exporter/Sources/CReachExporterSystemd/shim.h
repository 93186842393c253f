// libsystemd's sd-daemon (Debian's libsystemd-dev, pkg-config libsystemd):
// sd_notify and sd_watchdog_enabled for systemd's notify protocol
// (SystemdNotifier.swift). The program links libsystemd already, for
// ModemManager's sd-bus.
#include <systemd/sd-daemon.h>
