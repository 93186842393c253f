/*
 * idrange.c - libFuzzer harness for creach_parse_id_range (CSupport/probe_parse.c),
 * the "LOW<blanks>HIGH[\n]" reader of net.ipv4.ping_group_range.
 *
 * The input is the file's bytes (exact-size buffer, not NUL-terminated).
 * The result is compared with a reference implementation of the documented
 * grammar, and an accepted pair must survive printing and parsing again.
 * On failure the outputs are left untouched.
 */
#include "fuzz_common.h"
#include "CReachability.h"

#include <errno.h>
#include <inttypes.h>

static int digit(char c)
{
    return c >= '0' && c <= '9';
}

/* digits, one or more of ' ' / '\t', digits, an optional '\n', the end. */
static int ref_parse(const char *t, size_t len, uint32_t *low, uint32_t *high)
{
    size_t i = 0;
    uint64_t v[2];

    for (int k = 0; k < 2; k++) {
        size_t start;
        if (k == 1) {
            start = i;
            while (i < len && (t[i] == ' ' || t[i] == '\t'))
                i++;
            if (i == start)
                return -1;
        }
        start = i;
        v[k] = 0;
        while (i < len && digit(t[i])) {
            v[k] = v[k] * 10 + (uint64_t)(t[i] - '0');
            if (v[k] > UINT32_MAX)
                return -1;
            i++;
        }
        if (i == start)
            return -1;
    }
    if (i < len && t[i] == '\n')
        i++;
    if (i != len)
        return -1;
    *low = (uint32_t)v[0];
    *high = (uint32_t)v[1];
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = (char *)fuzz_dup(data, size);
    uint32_t low = 0xdeadbeef, high = 0xfeedface, rl = 0, rh = 0;
    int r, rr;

    errno = 0;
    r = creach_parse_id_range(text, size, &low, &high);
    rr = ref_parse(text, size, &rl, &rh);
    CHECK(r == rr);
    if (r == 0) {
        char again[32];
        uint32_t l2, h2;
        int n;

        CHECK(low == rl && high == rh);
        n = snprintf(again, sizeof(again), "%" PRIu32 "\t%" PRIu32 "\n", low, high);
        CHECK(creach_parse_id_range(again, (size_t)n, &l2, &h2) == 0 && l2 == low && h2 == high);
    } else {
        CHECK(r == -1 && errno == EINVAL);
        CHECK(low == 0xdeadbeef && high == 0xfeedface);
    }
    free(text);
    return 0;
}
