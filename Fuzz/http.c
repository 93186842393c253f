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
 * creach_http_parse_response on the same bytes, with at_end 0 and 1:
 *  - it answers as creach_http_parse_head (1, 0, -1 alike; the same status
 *    and head_len), and at_end changes nothing but an UNKNOWN body;
 *  - location is NUL-terminated within its field, every time; a result
 *    other than 1 leaves the whole struct zero;
 *  - 1: body_bytes = len - head_len; the body is one of the four states,
 *    never UNKNOWN at the end; Location, Content-Length, Transfer-Encoding
 *    and the body state equal those of a reference model that reads the
 *    head line by line (strncasecmp, strspn) and the first chunk-size line
 *    with its own loop; a Location is kept whole (its exact bytes) or, longer
 *    than the field, not at all; a Content-Length the model refuses (not
 *    digits, above INT64_MAX, two that differ) is never a 1;
 *  - the same checks on the input appended to a Location value already
 *    990..1053 bytes long (the field's edge without long inputs).
 * It also drives creach_http_build_request with a host and path taken from
 * the input: a request it accepts is "GET <path> HTTP/1.1\r\n...\r\n\r\n"
 * with exactly one blank line, at the end.
 */
#include "fuzz_common.h"
#include "CReachability.h"

#include <errno.h>
#include <stdint.h>
#include <strings.h>

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

/* ---- creach_http_parse_response and its reference model ---- */

typedef struct {
    int bad_length;             /* a Content-Length the parser must refuse */
    int has_location;
    size_t location_at, location_len;
    int has_length;
    uint64_t length;
    int has_te, chunked;
} ref_head;

static int ref_ows(uint8_t c)
{
    return c == ' ' || c == '\t';
}

static int ref_name_is(const uint8_t *line, size_t name_len, const char *name)
{
    return name_len == strlen(name) && strncasecmp((const char *)line, name, name_len) == 0;
}

/* The framing facts of the head's header lines (the head is valid: the parser said 1). */
static void ref_read_head(const uint8_t *d, size_t head_len, ref_head *r)
{
    const uint8_t *line = memmem(d, head_len, "\r\n", 2) + 2;   /* after the status line */
    const uint8_t *end = d + head_len - 2;                     /* the final empty line */

    memset(r, 0, sizeof(*r));
    while (line < end) {
        const uint8_t *eol = memmem(line, (size_t)(end - line) + 2, "\r\n", 2);
        const uint8_t *colon = memchr(line, ':', (size_t)(eol - line));
        const uint8_t *v = colon + 1, *ve = eol;
        size_t name_len = (size_t)(colon - line);

        while (v < ve && ref_ows(*v))
            v++;
        while (ve > v && ref_ows(ve[-1]))
            ve--;
        if (ref_name_is(line, name_len, "location") && !r->has_location) {
            r->has_location = 1;
            r->location_at = (size_t)(v - d);
            r->location_len = (size_t)(ve - v);
        } else if (ref_name_is(line, name_len, "content-length")) {
            size_t n = (size_t)(ve - v);
            uint64_t value = 0;

            size_t digits = 0;

            while (digits < n && v[digits] >= '0' && v[digits] <= '9')
                digits++;
            if (n == 0 || digits < n) {
                r->bad_length = 1;
            } else {
                for (size_t i = 0; i < n; i++)
                    if (__builtin_mul_overflow(value, 10, &value) ||
                        __builtin_add_overflow(value, (uint64_t)(v[i] - '0'), &value))
                        r->bad_length = 1;
                if (value > (uint64_t)INT64_MAX)
                    r->bad_length = 1;
                if (r->has_length && r->length != value)
                    r->bad_length = 1;
                r->has_length = 1;
                r->length = value;
            }
        } else if (ref_name_is(line, name_len, "transfer-encoding")) {
            /* The last element that is not empty: strip trailing ',' and OWS, then take the last word. */
            const uint8_t *e = ve, *w;
            while (e > v && (e[-1] == ',' || ref_ows(e[-1])))
                e--;
            w = e;
            while (w > v && w[-1] != ',' && !ref_ows(w[-1]))
                w--;
            r->has_te = 1;
            r->chunked = e - w == 7 && strncasecmp((const char *)w, "chunked", 7) == 0;
        }
        line = eol + 2;
    }
}

static uint8_t ref_body(int status, const ref_head *r, const uint8_t *body, size_t n, int at_end)
{
    uint8_t state;

    if (status < 200 || status == 204 || status == 304)
        return CREACH_HTTP_BODY_EMPTY;
    if (r->chunked) {
        size_t zeros = 0;
        while (zeros < n && body[zeros] == '0')
            zeros++;
        if (zeros == n)
            state = CREACH_HTTP_BODY_UNKNOWN;
        else if (memchr("123456789abcdefABCDEF", body[zeros], 21) != NULL && body[zeros] != 0)
            state = CREACH_HTTP_BODY_PRESENT;
        else if (zeros > 0 && memchr(";\r \t", body[zeros], 4) != NULL && body[zeros] != 0)
            state = CREACH_HTTP_BODY_EMPTY;
        else
            state = CREACH_HTTP_BODY_MALFORMED;
    } else if (r->has_length && !r->has_te) {
        state = r->length == 0 ? CREACH_HTTP_BODY_EMPTY : CREACH_HTTP_BODY_PRESENT;
    } else {
        state = n > 0 ? CREACH_HTTP_BODY_PRESENT : CREACH_HTTP_BODY_UNKNOWN;
    }
    if (state == CREACH_HTTP_BODY_UNKNOWN && at_end)
        state = n == 0 ? CREACH_HTTP_BODY_EMPTY : CREACH_HTTP_BODY_MALFORMED;
    return state;
}

static int parse_response(const uint8_t *data, size_t len, int at_end, creach_http_head *h)
{
    uint8_t *copy = fuzz_dup(data, len);
    int r;

    memset(h, 0x5a, sizeof(*h));
    errno = 0;
    r = creach_http_parse_response(copy, len, at_end, h);
    CHECK(r == 1 || r == 0 || (r == -1 && errno == EBADMSG));
    CHECK(fuzz_terminated(h->location, sizeof(h->location)));
    if (r != 1)
        CHECK(fuzz_all_zero(h, sizeof(*h)));
    free(copy);
    return r;
}

static void check_response(const uint8_t *data, size_t size, int r_head, int status, size_t head_len)
{
    static creach_http_head h0, h1;     /* 1 KiB each: off the stack */
    ref_head ref;
    uint8_t end_body;
    int r0 = parse_response(data, size, 0, &h0);
    int r1 = parse_response(data, size, 1, &h1);

    CHECK(r0 == r_head && r1 == r_head);
    if (r0 != 1)
        return;
    CHECK(h0.status == status && h0.head_len == head_len && h0.body_bytes == size - head_len);
    CHECK(h0.body <= CREACH_HTTP_BODY_MALFORMED && h1.body <= CREACH_HTTP_BODY_MALFORMED);
    end_body = h1.body;
    CHECK(end_body != CREACH_HTTP_BODY_UNKNOWN);
    if (h0.body != CREACH_HTTP_BODY_UNKNOWN)
        CHECK(end_body == h0.body);
    h1.body = h0.body;
    CHECK(memcmp(&h0, &h1, sizeof(h0)) == 0);   /* at_end changes nothing else */

    ref_read_head(data, head_len, &ref);
    CHECK(!ref.bad_length);
    CHECK(h0.has_content_length == ref.has_length);
    if (ref.has_length)
        CHECK(h0.content_length == ref.length);
    CHECK(h0.has_transfer_encoding == ref.has_te && h0.chunked == ref.chunked);
    CHECK(h0.has_location == ref.has_location);
    if (ref.has_location) {
        CHECK(h0.location_len == ref.location_len);
        if (ref.location_len < CREACH_HTTP_LOCATION_SIZE) {
            CHECK(!h0.location_too_long);
            CHECK(strlen(h0.location) == ref.location_len);
            CHECK(memcmp(h0.location, data + ref.location_at, ref.location_len) == 0);
        } else {
            CHECK(h0.location_too_long && h0.location[0] == '\0');
        }
    } else {
        CHECK(!h0.location_too_long && h0.location_len == 0 && h0.location[0] == '\0');
    }
    CHECK(h0.body == ref_body(status, &ref, data + head_len, size - head_len, 0));
    CHECK(end_body == ref_body(status, &ref, data + head_len, size - head_len, 1));
}

/* The input as the rest of a Location value that starts with 990..1053
 * filler bytes (the first input byte picks how many): the field's edge, at
 * 1023 bytes, is reached whatever libFuzzer's length limit. */
static void check_long_location(const uint8_t *data, size_t size)
{
    static const char prefix[] = "HTTP/1.1 302 Found\r\nLocation: ";
    size_t fill = 990 + (size > 0 ? data[0] % 64 : 0), pre = sizeof(prefix) - 1, total = pre + fill + size;
    uint8_t *buf = malloc(total);
    int status, r;
    size_t head_len;

    CHECK(buf != NULL);
    memcpy(buf, prefix, pre);
    memset(buf + pre, 'a', fill);
    memcpy(buf + pre + fill, data, size);
    r = parse(buf, total, &status, &head_len);
    check_response(buf, total, r, status, head_len);
    free(buf);
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

    check_response(data, size, r, status, head_len);
    check_long_location(data, size);
    check_build(data, size);
    return 0;
}
