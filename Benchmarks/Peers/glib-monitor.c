/*
 * glib-monitor.c - the peer a Linux user would pick instead: GLib's
 * GNetworkMonitor (GNetworkMonitorNetlink, no NetworkManager). Starts the
 * default monitor, takes its first answer (network-available and whether
 * 192.0.2.1 -- like `internet` -- can be reached), prints it, and exits; with
 * "wait", it then waits so its RSS and threads can be read.
 */
#include <gio/gio.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    GNetworkMonitor *monitor = g_network_monitor_get_default();
    GSocketConnectable *internet = g_network_address_new("8.8.8.8", 0);
    gboolean available = g_network_monitor_get_network_available(monitor);
    gboolean reachable = g_network_monitor_can_reach(monitor, internet, NULL, NULL);

    printf("%s %s\n", available ? "available" : "unavailable", reachable ? "reachable" : "not-reachable");
    fflush(stdout);
    if (argc > 1 && strcmp(argv[1], "wait") == 0) {
        GMainLoop *loop = g_main_loop_new(NULL, FALSE);
        g_main_loop_run(loop);
    }
    g_object_unref(internet);
    return 0;
}
