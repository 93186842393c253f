/*
 * http.c - libFuzzer harness for creach_http_parse_head (CSupport/probe_parse.c),
 * the strict HTTP/1.x response-head parser of the HTTP probe.
 *
 * The input is the bytes received so far (exact-size buffer). Invariants:
 *  - 1: head_len <= len, the head ends in CRLF CRLF, starts "HTTP/1.0 " or
 *    "HTTP/1.1 ", status is 100..599 and equals the three digits; parsing
 *    exactly head_len bytes gives the same answer, and head_len - 1 bytes
 *    are only a prefix (0);
 *  - 0: every shorter prefix is also 0 (a valid prefix stays valid);
 *  - -1 (EBADMSG): more bytes never make it valid (the input plus CRLF CRLF
 *    is still -1), and nothing was written to the out parameters.
 * It also drives creach_http_build_request with a host and path taken from
 * the input: a request it accepts is "GET <path> HTTP/1.1\r\n...\r\n\r\n"
 * with exactly one blank line, at the end.
 */
#include "fuzz_common.h"
#include "CReachability.h"

#include <errno.h>

static int parse(const uint8_t *data, size_t len, int *status, size_t *head_len)
{
    uint8_t *copy = fuzz_dup(data, len);
    int r;

    *status = -12345;
    *head_len = (size_t)-1;
    errno = 0;
    r = creach_http_parse_head(copy, len, status, head_len);
    CHECK(r == 1 || r == 0 || (r == -1 && errno == EBADMSG));
    if (r != 1)
        CHECK(*status == -12345 && *head_len == (size_t)-1);
    free(copy);
    return r;
}

static void check_build(const uint8_t *data, size_t size)
{
    const uint8_t *nl = memchr(data, '\n', size);
    size_t hlen = nl != NULL ? (size_t)(nl - data) : size;
    char *host = fuzz_strdup(data, hlen);
    char *path = fuzz_strdup(nl != NULL ? nl + 1 : data + size, nl != NULL ? size - hlen - 1 : 0);
    size_t cap = size + 256;
    uint8_t *buf = malloc(cap);
    int n;

    CHECK(buf != NULL);
    errno = 0;
    n = creach_http_build_request(host, path, buf, cap);
    if (n < 0) {
        CHECK(errno == EINVAL || errno == EMSGSIZE);
    } else {
        const uint8_t *end;
        CHECK((size_t)n <= cap && n >= 4);
        CHECK(memcmp(buf, "GET /", 5) == 0);
        CHECK(memcmp(buf + n - 4, "\r\n\r\n", 4) == 0);
        end = memmem(buf, (size_t)n, "\r\n\r\n", 4);
        CHECK(end == buf + n - 4);
        CHECK(memchr(buf, '\0', (size_t)n) == NULL);
        /* One byte less of room is refused, never truncated. */
        CHECK(creach_http_build_request(host, path, buf, (size_t)n - 1) == -1 && errno == EMSGSIZE);
    }
    free(buf);
    free(host);
    free(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int status, s2;
    size_t head_len, h2;
    int r = parse(data, size, &status, &head_len);

    if (r == 1) {
        if (!(head_len <= size && status >= 100 && status <= 599))
            abort();
        CHECK(head_len >= 17);   /* "HTTP/1.1 200 \r\n\r\n" */
        CHECK(memcmp(data, "HTTP/1.", 7) == 0 && (data[7] == '0' || data[7] == '1') && data[8] == ' ');
        CHECK(status == (data[9] - '0') * 100 + (data[10] - '0') * 10 + (data[11] - '0'));
        CHECK(memcmp(data + head_len - 4, "\r\n\r\n", 4) == 0);
        CHECK(memmem(data, head_len - 2, "\r\n\r\n", 4) == NULL);   /* the first empty line */
        CHECK(memchr(data, '\0', head_len) == NULL);
        CHECK(parse(data, head_len, &s2, &h2) == 1 && s2 == status && h2 == head_len);
        CHECK(parse(data, head_len - 1, &s2, &h2) == 0);
    } else if (r == 0) {
        CHECK(memmem(data, size, "\r\n\r\n", 4) == NULL);   /* an empty line would have ended it */
        if (size > 0)
            CHECK(parse(data, size - 1, &s2, &h2) == 0);
        CHECK(parse(data, size / 2, &s2, &h2) == 0);
    } else {
        uint8_t *more = malloc(size + 4);
        CHECK(more != NULL);
        memcpy(more, data, size);
        memcpy(more + size, "\r\n\r\n", 4);
        CHECK(parse(more, size + 4, &s2, &h2) == -1);
        free(more);
    }

    check_build(data, size);
    return 0;
}
