/* libsystemd's sd-bus, for ReachabilityModemManager only (Package.swift):
 * the rest of the package links nothing of it. */
#include <systemd/sd-bus.h>
