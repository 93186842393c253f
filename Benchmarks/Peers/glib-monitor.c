/*
 * glib-monitor.c - the peer a Linux user would pick instead: GLib's
 * GNetworkMonitor (GNetworkMonitorNetlink, no NetworkManager).
 *
 *   glib-monitor              start the default monitor, take its first answer
 *                             (network-available, and whether 8.8.8.8 -- like
 *                             `internet` -- can be reached), print it, exit
 *   glib-monitor wait         the same, then wait (its RSS and threads are read)
 *   glib-monitor events ADDR  print "ready", then one line per network-changed
 *                             signal: CLOCK_MONOTONIC ns, network-available and
 *                             whether ADDR can be reached (the change latency)
 */
#include <gio/gio.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static GSocketConnectable *watched;

static void on_changed(GNetworkMonitor *monitor, gboolean available, gpointer data)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    gboolean reachable = g_network_monitor_can_reach(monitor, watched, NULL, NULL);
    printf("%llu %d %d\n", (unsigned long long)now.tv_sec * 1000000000ull + (unsigned long long)now.tv_nsec,
           available ? 1 : 0, reachable ? 1 : 0);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    GNetworkMonitor *monitor = g_network_monitor_get_default();
    if (argc > 2 && strcmp(argv[1], "events") == 0) {
        watched = g_network_address_new(argv[2], 0);
        g_signal_connect(monitor, "network-changed", G_CALLBACK(on_changed), NULL);
        printf("ready\n");
        fflush(stdout);
        g_main_loop_run(g_main_loop_new(NULL, FALSE));
        return 0;
    }
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
