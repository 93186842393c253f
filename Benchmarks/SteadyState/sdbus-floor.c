/*
 * sdbus-floor.c - what sd-bus itself allocates per signal read: a client of
 * the system bus (DBUS_SYSTEM_BUS_ADDRESS) with ReachabilityModemManager's two
 * matches, whose callback walks every value of the message with the calls
 * the library reads with (peek, enter each container, read each basic
 * value), keeping nothing, until SIGTERM. modem-steady-state.sh runs it under
 * mcount.so beside `reach`, so that the library's own allocations per
 * PropertiesChanged are the difference.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <systemd/sd-bus.h>

static volatile sig_atomic_t done;
static void stop(int sig) { (void)sig; done = 1; }
/* Every value of the current container, depth first. */
static void walk(sd_bus_message *m) {
    char type;
    const char *contents;
    while (sd_bus_message_peek_type(m, &type, &contents) > 0) {
        if (type == 'a' || type == 'v' || type == 'r' || type == 'e') {
            if (sd_bus_message_enter_container(m, type, contents) <= 0) return;
            walk(m);
            if (sd_bus_message_exit_container(m) < 0) return;
        } else {
            union { uint64_t u; const char *s; } value;
            if (sd_bus_message_read_basic(m, type, &value) <= 0) return;
        }
    }
}

static int ignore(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)userdata; (void)error;
    walk(m);
    return 0;
}

int main(void) {
    sd_bus *bus = NULL;
    signal(SIGTERM, stop);
    if (sd_bus_open_system(&bus) < 0) { fprintf(stderr, "sdbus-floor: no bus\n"); return 1; }
    if (sd_bus_add_match(bus, NULL, "type='signal',sender='org.freedesktop.ModemManager1'", ignore, NULL) < 0 ||
        sd_bus_add_match(bus, NULL, "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
                         "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='org.freedesktop.ModemManager1'",
                         ignore, NULL) < 0) { fprintf(stderr, "sdbus-floor: no match\n"); return 1; }
    puts("ready");
    fflush(stdout);
    while (!done) {
        int r = sd_bus_process(bus, NULL);
        if (r < 0) break;
        if (r == 0) sd_bus_wait(bus, 100000);
    }
    sd_bus_flush_close_unref(bus);
    return 0;
}
