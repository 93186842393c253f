/*
 * carriers.c - what carries a PPP link: the PPPoX sessions of a network
 * namespace (/proc/net/pppoe, /proc/net/pppol2tp) and the modem devices of
 * the machine (/sys/class/tty/NAME/device/driver, /sys/class/wwan).
 *
 * The kernel keeps no link from a ppp unit to its channel that userspace can
 * read, so the rule that turns these counts into a kind lives in Swift
 * (InterfaceKind, "PPP links"); this file only counts and lists. Every path
 * is taken under a root directory (NULL: the real /), so tests and the fuzz
 * harness can give captured or synthesized trees.
 */
#include "creach_internal.h"

#ifdef __linux__

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------------------ */
/* Pure: session lines of /proc/net/pppoe and /proc/net/pppol2tp             */

/*
 * /proc/net/pppoe is one header line ("Id       Address              Device")
 * then one line per session. /proc/net/pppol2tp starts with a six-line
 * header, one line of which begins "  SESSION", then per tunnel a
 * "TUNNEL ..." block and per session a block whose first line begins
 * "  SESSION". So: PPPoE sessions are the non-empty lines after the first
 * non-empty one (the kernel's header is never empty); L2TP
 * sessions are lines that begin "  SESSION", less the header's one.
 * Fed in chunks of any size (a line may straddle two reads).
 */
static const char creach_l2tp_session_prefix[] = "  SESSION";

void creach_sessions_feed(creach_sessions_counter *c, const char *text, size_t len)
{
    const size_t plen = sizeof(creach_l2tp_session_prefix) - 1;
    size_t i;

    if (c == NULL || text == NULL)
        return;
    for (i = 0; i < len; i++) {
        char ch = text[i];

        if (ch == '\n') {
            if (c->column > 0 && c->lines < UINT32_MAX)
                c->lines++;
            if (c->prefix_ok && c->column >= plen && c->prefixed < UINT32_MAX)
                c->prefixed++;
            c->column = 0;
            c->prefix_ok = 1;
            continue;
        }
        if (c->column == 0)
            c->prefix_ok = 1;
        if (c->column < plen && ch != creach_l2tp_session_prefix[c->column])
            c->prefix_ok = 0;
        if (c->column < SIZE_MAX)
            c->column++;
    }
}

uint32_t creach_sessions_pppoe(const creach_sessions_counter *c)
{
    /* A last line without '\n' counts too; the first line is the header. */
    uint32_t lines = c->lines + (c->column > 0 ? 1u : 0u);
    return lines > 0 ? lines - 1 : 0;
}

uint32_t creach_sessions_l2tp(const creach_sessions_counter *c)
{
    const size_t plen = sizeof(creach_l2tp_session_prefix) - 1;
    uint32_t n = c->prefixed + (c->column >= plen && c->prefix_ok ? 1u : 0u);
    return n > 0 ? n - 1 : 0;
}

/* ------------------------------------------------------------------------ */
/* I/O                                                                       */

static int creach_rooted(char *out, size_t cap, const char *root, const char *path)
{
    int n = snprintf(out, cap, "%s%s", root != NULL ? root : "", path);
    if (n < 0 || (size_t)n >= cap) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return 0;
}

/* Streams one proc file through a counter with a stack buffer; a missing
 * file (module not loaded) is zero sessions, not an error. */
static int creach_count_file(const char *path, int l2tp, uint32_t *out)
{
    creach_sessions_counter c;
    char buf[512];
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);

    *out = 0;
    if (fd < 0)
        return errno == ENOENT ? 0 : -1;
    memset(&c, 0, sizeof(c));
    for (;;) {
        ssize_t n = creach_read_chunk(fd, buf, sizeof(buf));
        if (n <= 0) {
            int saved = errno;
            close(fd);
            if (n == 0)
                break;
            errno = saved;
            return -1;
        }
        creach_sessions_feed(&c, buf, (size_t)n);
    }
    *out = l2tp ? creach_sessions_l2tp(&c) : creach_sessions_pppoe(&c);
    return 0;
}

typedef struct {
    const char *root;
    creach_pppox *out;
} creach_pppox_job;

/* /proc/thread-self/net is the namespace of the reading thread: inside a
 * helper that entered the namespace, it is that namespace's. */
static int creach_pppox_read(void *arg)
{
    creach_pppox_job *job = arg;
    const char *net = job->root != NULL ? "/proc/net" : "/proc/thread-self/net";
    char path[4096], dir[64];

    snprintf(dir, sizeof(dir), "%s/pppoe", net);
    if (creach_rooted(path, sizeof(path), job->root, dir) < 0 ||
        creach_count_file(path, 0, &job->out->pppoe) < 0)
        return -1;
    snprintf(dir, sizeof(dir), "%s/pppol2tp", net);
    if (creach_rooted(path, sizeof(path), job->root, dir) < 0 ||
        creach_count_file(path, 1, &job->out->l2tp) < 0)
        return -1;
    return 0;
}

int creach_pppox_sessions(const char *root, int netns_fd, creach_pppox *out)
{
    creach_pppox_job job = { .root = root, .out = out };

    if (out == NULL) {
        errno = EINVAL;
        return -1;
    }
    memset(out, 0, sizeof(*out));
    if (root == NULL && netns_fd >= 0)
        return creach_netns_run(netns_fd, creach_pppox_read, &job);
    return creach_pppox_read(&job);
}

/* Calls @fn for each entry of the class directory @class under @root, with
 * the basename of NAME/device/driver ("" when there is none). */
static int creach_class_each(const char *root, const char *class, int with_driver,
                             creach_device_fn fn, void *ctx)
{
    char path[4096], link[1024];
    struct dirent *entry;
    DIR *dir;
    int count = 0;

    if (creach_rooted(path, sizeof(path), root, class) < 0)
        return -1;
    dir = opendir(path);
    if (dir == NULL)
        return errno == ENOENT ? 0 : -1;
    while ((entry = readdir(dir)) != NULL) {
        const char *driver = with_driver ? "" : "wwan";
        char target[CREACH_IFNAMSIZ + 300];

        if (entry->d_name[0] == '.')
            continue;
        if (with_driver) {
            int n = snprintf(target, sizeof(target), "%s/device/driver", entry->d_name);
            ssize_t len;

            if (n > 0 && (size_t)n < sizeof(target) &&
                (len = readlinkat(dirfd(dir), target, link, sizeof(link))) > 0 && (size_t)len < sizeof(link)) {
                const char *base;
                link[len] = '\0';
                base = strrchr(link, '/');
                driver = base != NULL ? base + 1 : link;
            }
        }
        count++;
        if (fn(entry->d_name, driver, ctx) != 0)
            break;
    }
    closedir(dir);
    return count;
}

int creach_modem_devices(const char *root, creach_device_fn fn, void *ctx)
{
    int ttys, wwan;

    if (fn == NULL) {
        errno = EINVAL;
        return -1;
    }
    if ((ttys = creach_class_each(root, "/sys/class/tty", 1, fn, ctx)) < 0)
        return -1;
    if ((wwan = creach_class_each(root, "/sys/class/wwan", 0, fn, ctx)) < 0)
        return -1;
    return ttys + wwan;
}

#endif /* __linux__ */
