/*
 * sysfs.c - interface classification facts from /sys/class/net.
 *
 * sysfs shows the network namespace of whoever mounted it, so the host's
 * /sys describes only the host's interfaces. For another namespace a helper
 * thread enters it, takes a private mount namespace, and mounts a fresh
 * sysfs there; the directory fd it opens keeps that mount (and the netns it
 * is tagged with) alive after the thread, and its mount namespace, are gone.
 */
#include "creach_internal.h"

#ifdef __linux__

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------------------ */
/* uevent text                                                               */

int creach_uevent_value(const char *text, size_t len, const char *key, char *out, size_t outlen)
{
    size_t klen, pos = 0;

    if (out != NULL && outlen > 0)
        out[0] = '\0';
    if (key == NULL || (klen = strlen(key)) == 0 || (text == NULL && len > 0) ||
        (out == NULL && outlen > 0)) {
        errno = EINVAL;
        return -1;
    }
    while (pos < len) {
        const char *line = text + pos;
        const char *nl = memchr(line, '\n', len - pos);
        size_t llen = nl != NULL ? (size_t)(nl - line) : len - pos;

        if (llen > klen && memcmp(line, key, klen) == 0 && line[klen] == '=') {
            const char *v = line + klen + 1;
            size_t vlen = llen - klen - 1;
            const char *nul = memchr(v, '\0', vlen);

            if (nul != NULL)        /* not representable as a C string */
                vlen = (size_t)(nul - v);
            if (vlen >= outlen || vlen > INT32_MAX) {
                errno = ENAMETOOLONG;
                return -1;
            }
            memcpy(out, v, vlen);
            out[vlen] = '\0';
            return (int)vlen;
        }
        pos += llen + 1;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Opening /sys/class/net                                                    */

/*
 * Runs on the helper thread, already inside the target netns. Mounting over
 * /sys in the thread's own mount namespace needs no temporary directory, so
 * there is nothing to clean up and nothing visible to other processes:
 * MS_SLAVE|MS_REC first, so the mount cannot propagate back to the host.
 */
static int creach_sysfs_mount_in_netns(void *arg)
{
    (void)arg;
    if (unshare(CLONE_NEWNS) < 0)
        return -1;
    if (mount(NULL, "/", NULL, MS_SLAVE | MS_REC, NULL) < 0)
        return -1;
    if (mount("sysfs", "/sys", "sysfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
        return -1;
    return open("/sys/class/net", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

int creach_sysfs_open(const char *root, int netns_fd)
{
    if (root != NULL) {
        char path[4096];
        int n = snprintf(path, sizeof(path), "%s/sys/class/net", root);
        if (n < 0 || (size_t)n >= sizeof(path)) {
            errno = ENAMETOOLONG;
            return -1;
        }
        return open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    }
    if (netns_fd < 0)
        return open("/sys/class/net", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    return creach_netns_run(netns_fd, creach_sysfs_mount_in_netns, NULL);
}

/* ------------------------------------------------------------------------ */
/* Reading one interface                                                     */

ssize_t creach_read_chunk(int fd, void *buf, size_t len)
{
    for (;;) {
        ssize_t n = read(fd, buf, len);
        if (n >= 0 || errno != EINTR)
            return n;
    }
}

/* Reads at most @cap - 1 bytes of a small sysfs file and NUL-terminates. */
static ssize_t creach_read_small(int dirfd, const char *path, char *buf, size_t cap)
{
    size_t got = 0;
    int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY);

    if (fd < 0)
        return -1;
    while (got < cap - 1) {
        ssize_t n = creach_read_chunk(fd, buf + got, cap - 1 - got);
        if (n < 0) {
            int saved = errno;
            close(fd);
            errno = saved;
            return -1;
        }
        if (n == 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    buf[got] = '\0';
    return (ssize_t)got;
}

/* "2\n" -> 2; anything else (empty, sign, junk, > INT32_MAX) -> -1.
 * Not static only so that Fuzz/uevent.c can link it (creach_internal.h). */
int32_t creach_parse_ifindex(const char *s)
{
    int64_t v = 0;

    if (*s < '0' || *s > '9')
        return -1;
    for (; *s >= '0' && *s <= '9'; s++) {
        v = v * 10 + (*s - '0');
        if (v > INT32_MAX)
            return -1;
    }
    if (*s == '\n')
        s++;
    return *s == '\0' ? (int32_t)v : -1;
}

static int creach_exists(int dirfd, const char *path)
{
    struct stat st;
    return fstatat(dirfd, path, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

static int creach_valid_ifname(const char *name)
{
    size_t n;

    if (name == NULL)
        return 0;
    n = strnlen(name, CREACH_IFNAMSIZ);
    return n > 0 && n < CREACH_IFNAMSIZ && strchr(name, '/') == NULL &&
           strcmp(name, ".") != 0 && strcmp(name, "..") != 0;
}

int creach_sysfs_read(int dirfd, const char *ifname, creach_sysfs *out)
{
    char buf[1024];
    char link[1024];
    ssize_t n;
    int dfd;

    if (out == NULL) {
        errno = EINVAL;
        return -1;
    }
    memset(out, 0, sizeof(*out));
    out->ifindex = -1;
    if (!creach_valid_ifname(ifname)) {
        errno = EINVAL;
        return -1;
    }
    /* One directory fd for every read: all facts describe the same device
     * even if the name is reused meanwhile. */
    dfd = openat(dirfd, ifname, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) {
        if (errno == ENOTDIR)   /* e.g. "bonding_masters", a file */
            errno = ENOENT;
        return -1;
    }

    if (creach_read_small(dfd, "ifindex", buf, sizeof(buf)) >= 0)
        out->ifindex = creach_parse_ifindex(buf);

    n = creach_read_small(dfd, "uevent", buf, sizeof(buf));
    if (n >= 0)
        (void)creach_uevent_value(buf, (size_t)n, "DEVTYPE", out->devtype, sizeof(out->devtype));

    out->wireless = (uint8_t)(creach_exists(dfd, "wireless") || creach_exists(dfd, "phy80211"));
    out->has_device = (uint8_t)creach_exists(dfd, "device");

    /* readlinkat does not terminate, and a full buffer may be a cut link. */
    n = readlinkat(dfd, "device/driver", link, sizeof(link));
    if (n > 0 && (size_t)n < sizeof(link)) {
        const char *base;
        size_t blen;

        link[n] = '\0';
        base = strrchr(link, '/');
        base = base != NULL ? base + 1 : link;
        blen = strlen(base);
        if (blen > 0 && blen < sizeof(out->driver))
            memcpy(out->driver, base, blen + 1);
    }

    close(dfd);
    return 0;
}

#endif /* __linux__ */
