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
 *    file is ever opened.
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
