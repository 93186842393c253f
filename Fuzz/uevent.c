/*
 * uevent.c - libFuzzer harness for the sysfs text parsers (CSupport/sysfs.c).
 *
 * The input is used three ways:
 *  - as the bytes of a uevent file (not NUL-terminated, exact-size buffer)
 *    for creach_uevent_value, with several keys and output sizes (0, 1, 2,
 *    8, CREACH_SYSFS_VALUESIZ and one that always fits), each output buffer
 *    malloc'd at exactly its size; the result is compared with a plain
 *    reference implementation of the documented contract;
 *  - as the NUL-terminated text of an ifindex file for creach_parse_ifindex
 *    (compared with a reference);
 *  - as an interface name for creach_valid_ifname, which is static: it is
 *    reached through creach_sysfs_read with dirfd -1, which validates the
 *    name first (EINVAL) and otherwise fails in openat with EBADF, so no
 *    file is ever opened;
 *  - as the text of /proc/net/pppoe and /proc/net/pppol2tp for the PPPoX
 *    session counter (CSupport/carriers.c), fed whole, in two chunks split
 *    where the first byte says (each chunk its own exact-size buffer) and a
 *    byte at a time; every way must give the counts of a reference.
 */
#include "fuzz_common.h"
#include "creach_internal.h"

#include <errno.h>
#include <unistd.h>

/* The documented contract of creach_uevent_value, written the obvious way. */
static int ref_uevent_value(const char *text, size_t len, const char *key, char *out, size_t outlen)
{
    size_t klen = strlen(key), pos = 0;

    if (outlen > 0)
        out[0] = '\0';
    while (pos < len) {
        size_t end = pos, vlen;

        while (end < len && text[end] != '\n')
            end++;
        /* "KEY=" then the value up to the end of the line or the first NUL. */
        if (end - pos > klen && memcmp(text + pos, key, klen) == 0 && text[pos + klen] == '=') {
            const char *v = text + pos + klen + 1;
            for (vlen = 0; v + vlen < text + end && v[vlen] != '\0'; vlen++)
                ;
            if (vlen >= outlen)
                return -1;
            memcpy(out, v, vlen);
            out[vlen] = '\0';
            return (int)vlen;
        }
        pos = end + 1;
    }
    return 0;
}

static void check_uevent(const char *text, size_t len, const char *key)
{
    static const size_t sizes[] = { 0, 1, 2, 8, CREACH_SYSFS_VALUESIZ };
    size_t outlens[6], n = 0;

    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
        outlens[n++] = sizes[i];
    outlens[n++] = len + 1;     /* every value fits */

    for (size_t i = 0; i < n; i++) {
        size_t outlen = outlens[i];
        char *out = malloc(outlen > 0 ? outlen : 1);
        char *ref = malloc(outlen + 1);
        int r, rr, e;

        CHECK(out != NULL && ref != NULL);
        memset(out, 'x', outlen > 0 ? outlen : 1);
        errno = 0;
        /* outlen 0 with a real pointer: nothing may be written (out[0] stays 'x'). */
        r = creach_uevent_value(text, len, key, out, outlen);
        e = errno;
        rr = ref_uevent_value(text, len, key, ref, outlen);

        CHECK(r == rr);
        if (r > 0) {
            CHECK((size_t)r < outlen && strlen(out) == (size_t)r && memcmp(out, ref, (size_t)r + 1) == 0);
            CHECK(memmem(text, len, out, (size_t)r) != NULL);
        } else if (r == 0) {
            if (outlen > 0)
                CHECK(out[0] == '\0');
        } else {
            CHECK(e == ENAMETOOLONG);
            if (outlen > 0)
                CHECK(out[0] == '\0');
        }
        if (outlen == 0)
            CHECK(out[0] == 'x');
        free(out);
        free(ref);
    }
    /* No output at all: a present key never fits. */
    errno = 0;
    {
        int r = creach_uevent_value(text, len, key, NULL, 0);
        char dummy[1];
        CHECK(r == ref_uevent_value(text, len, key, dummy, 0));
    }
}

static int32_t ref_parse_ifindex(const char *s)
{
    int64_t v = 0;
    size_t i = 0;

    if (!(s[0] >= '0' && s[0] <= '9'))
        return -1;
    for (; s[i] >= '0' && s[i] <= '9'; i++) {
        v = v * 10 + (s[i] - '0');
        if (v > INT32_MAX)
            return -1;
    }
    if (s[i] == '\n')
        i++;
    return s[i] == '\0' ? (int32_t)v : -1;
}

static int ref_valid_ifname(const char *s)
{
    size_t n = strlen(s);
    return n > 0 && n < CREACH_IFNAMSIZ && strchr(s, '/') == NULL && strcmp(s, ".") != 0 && strcmp(s, "..") != 0;
}

/*
 * The documented contract of the PPPoX session counters, written the obvious
 * way on the whole text: lines end at '\n' (a last line without one counts).
 * PPPoE: the header is the first line with any byte in it (the kernel's
 * header is never empty); sessions are the non-empty lines after it. L2TP:
 * the lines that begin "  SESSION", less one for the header's.
 */
static void ref_sessions(const char *text, size_t len, uint32_t *pppoe, uint32_t *l2tp)
{
    static const char prefix[] = "  SESSION";
    const size_t plen = sizeof(prefix) - 1;
    uint32_t nonempty = 0, prefixed = 0;
    size_t pos = 0;

    while (pos < len) {
        size_t end = pos;

        while (end < len && text[end] != '\n')
            end++;
        if (end > pos)
            nonempty++;
        if (end - pos >= plen && memcmp(text + pos, prefix, plen) == 0)
            prefixed++;
        pos = end + 1;
    }
    *pppoe = nonempty > 0 ? nonempty - 1 : 0;
    *l2tp = prefixed > 0 ? prefixed - 1 : 0;
}

static void check_counted(const creach_sessions_counter *c, uint32_t pppoe, uint32_t l2tp)
{
    CHECK(creach_sessions_pppoe(c) == pppoe);
    CHECK(creach_sessions_l2tp(c) == l2tp);
}

static void check_sessions(const uint8_t *data, size_t size)
{
    creach_sessions_counter whole, split, bytes, before;
    size_t cut = size > 0 ? data[0] % (size + 1) : 0;
    uint8_t *all = fuzz_dup(data, size), *head = fuzz_dup(data, cut), *tail = fuzz_dup(data + cut, size - cut);
    uint32_t pppoe, l2tp;

    ref_sessions((const char *)all, size, &pppoe, &l2tp);

    memset(&whole, 0, sizeof(whole));
    creach_sessions_feed(&whole, (const char *)all, size);
    check_counted(&whole, pppoe, l2tp);
    /* Reading the counts changes nothing; neither does a NULL or empty chunk. */
    memcpy(&before, &whole, sizeof(whole));
    check_counted(&whole, pppoe, l2tp);
    creach_sessions_feed(&whole, NULL, 7);
    creach_sessions_feed(&whole, (const char *)all, 0);
    CHECK(memcmp(&before, &whole, sizeof(whole)) == 0);

    memset(&split, 0, sizeof(split));
    creach_sessions_feed(&split, (const char *)head, cut);
    creach_sessions_feed(&split, (const char *)tail, size - cut);
    check_counted(&split, pppoe, l2tp);

    memset(&bytes, 0, sizeof(bytes));
    for (size_t i = 0; i < size; i++)
        creach_sessions_feed(&bytes, (const char *)all + i, 1);
    check_counted(&bytes, pppoe, l2tp);

    free(all);
    free(head);
    free(tail);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const keys[] = { "DEVTYPE", "INTERFACE", "IFINDEX", "DRIVER", "D", "DEVTYPE=X" };
    char *text = (char *)fuzz_dup(data, size);
    char *str = fuzz_strdup(data, size);
    creach_sysfs sys;
    int32_t idx;
    int r;

    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
        check_uevent(text, size, keys[i]);
    /* Invalid arguments. */
    CHECK(creach_uevent_value(text, size, "", NULL, 0) == -1 && errno == EINVAL);
    CHECK(creach_uevent_value(text, size, NULL, NULL, 0) == -1 && errno == EINVAL);

    check_sessions(data, size);

    idx = creach_parse_ifindex(str);
    CHECK(idx == ref_parse_ifindex(str));
    CHECK(idx >= -1);

    errno = 0;
    r = creach_sysfs_read(-1, str, &sys);
    CHECK(r == -1 && sys.ifindex == -1);
    CHECK(errno == (ref_valid_ifname(str) ? EBADF : EINVAL));

    free(text);
    free(str);
    return 0;
}
