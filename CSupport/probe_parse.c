/*
 * probe_parse.c - pure builders and parsers of the probe packets: ICMP(v6)
 * echo, an HTTP/1.1 request and its response head, a DNS query and its
 * response, and the "LOW HIGH" proc files of ping_group_range.
 *
 * No I/O, no allocation, no mutable state. The input of a parser comes from
 * the network, so every length is checked against the bytes left before
 * anything is read, multi-byte fields are assembled byte by byte (network
 * order, any alignment), and all offset arithmetic is done in size_t in a
 * form that cannot wrap ("n > len - off", never "off + n > len").
 */
#include "creach_internal.h"

#ifdef __linux__

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/socket.h>

/* ------------------------------------------------------------------------ */
/* Byte helpers                                                              */

static uint16_t creach_get16(const uint8_t *p)
{
    return (uint16_t)(((unsigned)p[0] << 8) | p[1]);
}

static void creach_put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static int creach_fail(int e)
{
    errno = e;
    return -1;
}

/* ------------------------------------------------------------------------ */
/* ICMP / ICMPv6 echo                                                        */

enum {
    ICMP4_ECHO_REPLY = 0,
    ICMP4_DEST_UNREACH = 3,
    ICMP4_ECHO_REQUEST = 8,
    ICMP4_TIME_EXCEEDED = 11,
    ICMP4_PARAM_PROBLEM = 12,

    ICMP6_DEST_UNREACH = 1,
    ICMP6_PACKET_TOO_BIG = 2,
    ICMP6_TIME_EXCEEDED = 3,
    ICMP6_PARAM_PROBLEM = 4,
    ICMP6_ECHO_REQUEST = 128,
    ICMP6_ECHO_REPLY = 129,

    IPPROTO_ICMP_NUM = 1,
    IPPROTO_ICMPV6_NUM = 58,
    IPV4_MIN_HDRLEN = 20,
    IPV6_HDRLEN = 40,
};

/* No ICMP message is longer (IP length fields are 16 bits); it also fits an int. */
#define CREACH_ICMP_MAX_LEN 65535u

/*
 * RFC 1071 Internet checksum of @len bytes: the one's-complement of the
 * one's-complement sum of the big-endian 16-bit words (an odd last byte is
 * padded with a zero byte). @len <= 65535, so the 32-bit sum cannot wrap.
 */
static uint16_t creach_inet_checksum(const uint8_t *p, size_t len)
{
    uint32_t sum = 0;
    size_t i;

    for (i = 0; i + 1 < len; i += 2)
        sum += ((uint32_t)p[i] << 8) | p[i + 1];
    if (len & 1)
        sum += (uint32_t)p[len - 1] << 8;
    while (sum > 0xffff)
        sum = (sum & 0xffff) + (sum >> 16);
    return (uint16_t)~sum;
}

int creach_icmp_echo_build(uint8_t family, uint16_t id, uint16_t seq, const void *payload, size_t payload_len,
                           void *buf, size_t buflen)
{
    uint8_t *b = buf;
    size_t total;

    if (family != AF_INET && family != AF_INET6)
        return creach_fail(EINVAL);
    if (buf == NULL || (payload == NULL && payload_len > 0))
        return creach_fail(EINVAL);
    if (payload_len > CREACH_ICMP_MAX_LEN - CREACH_ICMP_ECHO_HDRLEN)
        return creach_fail(EMSGSIZE);
    total = CREACH_ICMP_ECHO_HDRLEN + payload_len;
    if (buflen < total)
        return creach_fail(EMSGSIZE);

    /* The payload first: memmove, in case it already lives in @buf. */
    if (payload_len > 0)
        memmove(b + CREACH_ICMP_ECHO_HDRLEN, payload, payload_len);
    b[0] = family == AF_INET ? ICMP4_ECHO_REQUEST : ICMP6_ECHO_REQUEST;
    b[1] = 0;
    b[2] = 0;
    b[3] = 0;
    creach_put16(b + 4, id);
    creach_put16(b + 6, seq);
    if (family == AF_INET)
        creach_put16(b + 2, creach_inet_checksum(b, total));
    return (int)total;
}

/*
 * The echo request quoted by an ICMP error whose body (after its own 8-byte
 * header) is @q, @qlen bytes. Returns 1 with its id and seq, or 0 when the
 * quote is not (or not enough of) an ICMP echo request of ours.
 */
static int creach_icmp_quoted_echo(uint8_t family, const uint8_t *q, size_t qlen, creach_icmp_info *out)
{
    uint8_t echo_type = family == AF_INET ? ICMP4_ECHO_REQUEST : ICMP6_ECHO_REQUEST;
    size_t hl;

    if (family == AF_INET) {
        if (qlen < IPV4_MIN_HDRLEN || (q[0] >> 4) != 4)
            return 0;
        hl = (size_t)(q[0] & 0x0f) * 4;
        if (hl < IPV4_MIN_HDRLEN || hl > qlen)
            return 0;
        if (q[9] != IPPROTO_ICMP_NUM)
            return 0;
        /* A non-first fragment quotes payload bytes, not the ICMP header. */
        if ((creach_get16(q + 6) & 0x1fff) != 0)
            return 0;
    } else {
        if (qlen < IPV6_HDRLEN || (q[0] >> 4) != 6)
            return 0;
        /* No extension-header walk: the probe sends none. */
        if (q[6] != IPPROTO_ICMPV6_NUM)
            return 0;
        hl = IPV6_HDRLEN;
    }
    if (qlen - hl < CREACH_ICMP_ECHO_HDRLEN)
        return 0;
    q += hl;
    if (q[0] != echo_type)
        return 0;
    out->is_error = 1;
    out->id = creach_get16(q + 4);
    out->seq = creach_get16(q + 6);
    return 1;
}

int creach_icmp_parse(uint8_t family, int has_ip_header, const void *buf, size_t len, creach_icmp_info *out)
{
    const uint8_t *p = buf;
    uint8_t type;

    if (buf == NULL || out == NULL)
        return creach_fail(EINVAL);
    if (family != AF_INET && family != AF_INET6)
        return creach_fail(EINVAL);
    /* Raw ICMPv6 sockets never deliver the IPv6 header. */
    if (has_ip_header && family != AF_INET)
        return creach_fail(EINVAL);
    memset(out, 0, sizeof(*out));

    if (has_ip_header) {
        size_t hl;

        if (len < IPV4_MIN_HDRLEN || (p[0] >> 4) != 4)
            return creach_fail(EBADMSG);
        hl = (size_t)(p[0] & 0x0f) * 4;
        if (hl < IPV4_MIN_HDRLEN || hl > len)
            return creach_fail(EBADMSG);
        if (p[9] != IPPROTO_ICMP_NUM)
            return 0;
        p += hl;
        len -= hl;
    }
    /* Every ICMP and ICMPv6 message the probe reads has an 8-byte header. */
    if (len < CREACH_ICMP_ECHO_HDRLEN)
        return creach_fail(EBADMSG);

    type = p[0];
    out->type = type;
    out->code = p[1];
    if ((family == AF_INET && type == ICMP4_ECHO_REPLY) || (family == AF_INET6 && type == ICMP6_ECHO_REPLY)) {
        out->is_echo_reply = 1;
        out->id = creach_get16(p + 4);
        out->seq = creach_get16(p + 6);
        return 1;
    }
    if (family == AF_INET) {
        if (type != ICMP4_DEST_UNREACH && type != ICMP4_TIME_EXCEEDED && type != ICMP4_PARAM_PROBLEM)
            return 0;
    } else {
        if (type != ICMP6_DEST_UNREACH && type != ICMP6_PACKET_TOO_BIG && type != ICMP6_TIME_EXCEEDED &&
            type != ICMP6_PARAM_PROBLEM)
            return 0;
    }
    return creach_icmp_quoted_echo(family, p + CREACH_ICMP_ECHO_HDRLEN, len - CREACH_ICMP_ECHO_HDRLEN, out);
}

/* ------------------------------------------------------------------------ */
/* HTTP                                                                      */

#define CREACH_HTTP_USER_AGENT "swift-reachability"

static int creach_is_vchar(uint8_t c)
{
    return c >= 0x21 && c <= 0x7e;
}

/* RFC 9110 tchar: "!#$%&'*+-.^_`|~", DIGIT, ALPHA. */
static int creach_is_tchar(uint8_t c)
{
    if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
        return 1;
    return c != 0 && strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

/* Appends @n bytes of @s at *@off of @buf; the caller checked that they fit. */
static void creach_append(uint8_t *buf, size_t *off, const char *s, size_t n)
{
    memcpy(buf + *off, s, n);
    *off += n;
}

int creach_http_build_request(const char *host, const char *path, void *buf, size_t buflen)
{
    static const char l1[] = "GET ";
    static const char l2[] = " HTTP/1.1\r\nHost: ";
    static const char l3[] = "\r\nUser-Agent: " CREACH_HTTP_USER_AGENT "\r\nAccept: */*\r\nConnection: close\r\n\r\n";
    size_t host_len, path_len, fixed, total, off, i;

    if (host == NULL || path == NULL || buf == NULL)
        return creach_fail(EINVAL);
    host_len = strnlen(host, 256);
    if (host_len == 0 || host_len > 255)
        return creach_fail(EINVAL);
    for (i = 0; i < host_len; i++)
        if (!creach_is_vchar((uint8_t)host[i]) || host[i] == '/')
            return creach_fail(EINVAL);
    path_len = strlen(path);
    if (path_len == 0 || path[0] != '/')
        return creach_fail(EINVAL);
    for (i = 0; i < path_len; i++)
        if (!creach_is_vchar((uint8_t)path[i]))
            return creach_fail(EINVAL);

    fixed = (sizeof(l1) - 1) + (sizeof(l2) - 1) + (sizeof(l3) - 1) + host_len;
    if (path_len > (size_t)INT_MAX - fixed)
        return creach_fail(EMSGSIZE);
    total = fixed + path_len;
    if (buflen < total)
        return creach_fail(EMSGSIZE);
    off = 0;
    creach_append(buf, &off, l1, sizeof(l1) - 1);
    creach_append(buf, &off, path, path_len);
    creach_append(buf, &off, l2, sizeof(l2) - 1);
    creach_append(buf, &off, host, host_len);
    creach_append(buf, &off, l3, sizeof(l3) - 1);
    return (int)off;
}

/* Where the head parser is between two bytes. */
enum {
    HTTP_STATUS_LINE,   /* in the fixed part "HTTP/1.x DDD " (by index) */
    HTTP_REASON,        /* in the reason phrase */
    HTTP_LINE_LF,       /* after a CR that ends a line: LF must follow */
    HTTP_LINE_START,    /* at the start of a header line or of the final empty line */
    HTTP_NAME,          /* in a field name (at least one tchar read) */
    HTTP_VALUE,         /* after the ':' */
    HTTP_END_LF,        /* after the CR of the empty line: LF must follow */
};

/* Whether byte @i (0..12) of the status line may be @c. */
static int creach_http_status_byte(size_t i, uint8_t c)
{
    static const char version[] = "HTTP/1.";

    if (i < sizeof(version) - 1)
        return c == (uint8_t)version[i];
    switch (i) {
    case 7:  return c == '0' || c == '1';
    case 8:  return c == ' ';
    case 9:  return c >= '1' && c <= '5';
    case 10:
    case 11: return c >= '0' && c <= '9';
    default: return c == ' ';   /* 12 */
    }
}

#define CREACH_HTTP_STATUS_FIXED 13   /* "HTTP/1.1 204 " */

/* The header fields the response parser reads. */
enum {
    HTTP_FIELD_OTHER,
    HTTP_FIELD_LOCATION,
    HTTP_FIELD_CONTENT_LENGTH,
    HTTP_FIELD_TRANSFER_ENCODING,
};

static uint8_t creach_ascii_lower(uint8_t c)
{
    return c >= 'A' && c <= 'Z' ? (uint8_t)(c + ('a' - 'A')) : c;
}

/* Whether the @n bytes at @p are @lower (all lower case, NUL-terminated), ignoring ASCII case. */
static int creach_equal_nocase(const uint8_t *p, size_t n, const char *lower)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (lower[i] == '\0' || creach_ascii_lower(p[i]) != (uint8_t)lower[i])
            return 0;
    return lower[n] == '\0';
}

/* The field named by the @n bytes at @p. */
static int creach_http_field(const uint8_t *p, size_t n)
{
    if (creach_equal_nocase(p, n, "location"))
        return HTTP_FIELD_LOCATION;
    if (creach_equal_nocase(p, n, "content-length"))
        return HTTP_FIELD_CONTENT_LENGTH;
    if (creach_equal_nocase(p, n, "transfer-encoding"))
        return HTTP_FIELD_TRANSFER_ENCODING;
    return HTTP_FIELD_OTHER;
}

static int creach_is_ows(uint8_t c)
{
    return c == ' ' || c == '\t';
}

/* A Content-Length value (OWS already trimmed): 1*DIGIT, at most INT64_MAX. */
static int creach_http_content_length(const uint8_t *p, size_t n, uint64_t *out)
{
    uint64_t v = 0;
    size_t i;

    if (n == 0)
        return -1;
    for (i = 0; i < n; i++) {
        unsigned d;

        if (p[i] < '0' || p[i] > '9')
            return -1;
        d = (unsigned)(p[i] - '0');
        if (v > ((uint64_t)INT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

/* Whether the last non-empty element of the list of @n bytes at @p
 * (OWS trimmed) is "chunked", in any case. */
static int creach_http_last_is_chunked(const uint8_t *p, size_t n)
{
    size_t end = n, start;

    while (end > 0 && (p[end - 1] == ',' || creach_is_ows(p[end - 1])))
        end--;
    start = end;
    while (start > 0 && p[start - 1] != ',' && !creach_is_ows(p[start - 1]))
        start--;
    return creach_equal_nocase(p + start, end - start, "chunked");
}

/* What the first chunk-size line (RFC 9112 7.1: 1*HEXDIG, then BWS and a
 * chunk-ext, or CRLF) of the @n body bytes at @b says about the body. */
static uint8_t creach_http_chunked_body(const uint8_t *b, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        uint8_t c = creach_ascii_lower(b[i]);

        if (c == '0')
            continue;
        if ((c >= '1' && c <= '9') || (c >= 'a' && c <= 'f'))
            return CREACH_HTTP_BODY_PRESENT;      /* a chunk of at least one byte */
        if (i > 0 && (c == ';' || c == '\r' || creach_is_ows(c)))
            return CREACH_HTTP_BODY_EMPTY;        /* the last chunk comes first */
        return CREACH_HTTP_BODY_MALFORMED;
    }
    return CREACH_HTTP_BODY_UNKNOWN;
}

/* The body facts of a complete head: RFC 9112 6.3, in its order. */
static uint8_t creach_http_body(const creach_http_head *h, const uint8_t *body, int at_end)
{
    uint8_t state;

    if (h->status < 200 || h->status == 204 || h->status == 304)
        return CREACH_HTTP_BODY_EMPTY;
    if (h->chunked)
        state = creach_http_chunked_body(body, h->body_bytes);
    else if (h->has_content_length && !h->has_transfer_encoding)
        state = h->content_length > 0 ? CREACH_HTTP_BODY_PRESENT : CREACH_HTTP_BODY_EMPTY;
    else
        state = h->body_bytes > 0 ? CREACH_HTTP_BODY_PRESENT : CREACH_HTTP_BODY_UNKNOWN;
    if (state == CREACH_HTTP_BODY_UNKNOWN && at_end)
        state = h->body_bytes == 0 ? CREACH_HTTP_BODY_EMPTY : CREACH_HTTP_BODY_MALFORMED;
    return state;
}

/*
 * A header line's value is complete: [@vs, @ve) of @p, OWS not yet trimmed.
 * Records what @field says in @h (the Location's place in *@loc_at).
 * Returns 0, or -1 for a framing header that makes the response invalid.
 */
static int creach_http_value(const uint8_t *p, size_t vs, size_t ve, int field, creach_http_head *h,
                             size_t *loc_at)
{
    uint64_t length;

    while (vs < ve && creach_is_ows(p[vs]))
        vs++;
    while (ve > vs && creach_is_ows(p[ve - 1]))
        ve--;
    switch (field) {
    case HTTP_FIELD_LOCATION:
        if (!h->has_location) {             /* a singleton: the first one counts */
            h->has_location = 1;
            *loc_at = vs;
            h->location_len = ve - vs;
        }
        return 0;
    case HTTP_FIELD_CONTENT_LENGTH:
        if (creach_http_content_length(p + vs, ve - vs, &length) < 0)
            return -1;
        if (h->has_content_length && h->content_length != length)
            return -1;
        h->has_content_length = 1;
        h->content_length = length;
        return 0;
    case HTTP_FIELD_TRANSFER_ENCODING:
        h->has_transfer_encoding = 1;
        h->chunked = (uint8_t)creach_http_last_is_chunked(p + vs, ve - vs);
        return 0;
    default:
        return 0;
    }
}

/* The bytes can never be a valid head: *@out is cleared again, -1 EBADMSG. */
static int creach_http_reject(creach_http_head *out)
{
    memset(out, 0, sizeof(*out));
    return creach_fail(EBADMSG);
}

int creach_http_parse_response(const void *buf, size_t len, int at_end, creach_http_head *out)
{
    const uint8_t *p = buf;
    int state = HTTP_STATUS_LINE, field = HTTP_FIELD_OTHER;
    size_t i, name_at = 0, value_at = 0, loc_at = 0;

    if (out != NULL)
        memset(out, 0, sizeof(*out));
    if (buf == NULL || out == NULL)
        return creach_fail(EINVAL);
    for (i = 0; i < len; i++) {
        uint8_t c = p[i];

        switch (state) {
        case HTTP_STATUS_LINE:
            if (!creach_http_status_byte(i, c))
                return creach_http_reject(out);
            if (i == CREACH_HTTP_STATUS_FIXED - 1)
                state = HTTP_REASON;
            break;
        case HTTP_REASON:
            if (c == '\r')
                state = HTTP_LINE_LF;
            else if (!creach_is_vchar(c) && c != ' ' && c != '\t')
                return creach_http_reject(out);
            break;
        case HTTP_LINE_LF:
            if (c != '\n')
                return creach_http_reject(out);
            state = HTTP_LINE_START;
            break;
        case HTTP_LINE_START:
            /* SP or HTAB here would be obs-fold: not a tchar, so rejected. */
            if (c == '\r') {
                state = HTTP_END_LF;
            } else if (creach_is_tchar(c)) {
                state = HTTP_NAME;
                name_at = i;
            } else {
                return creach_http_reject(out);
            }
            break;
        case HTTP_NAME:
            if (c == ':') {
                state = HTTP_VALUE;
                field = creach_http_field(p + name_at, i - name_at);
                value_at = i + 1;
            } else if (!creach_is_tchar(c)) {
                return creach_http_reject(out);
            }
            break;
        case HTTP_VALUE:
            if (c == '\r') {
                if (creach_http_value(p, value_at, i, field, out, &loc_at) < 0)
                    return creach_http_reject(out);
                state = HTTP_LINE_LF;
            } else if (!creach_is_vchar(c) && c != ' ' && c != '\t' && c < 0x80) {
                return creach_http_reject(out);
            }
            break;
        default: /* HTTP_END_LF */
            if (c != '\n')
                return creach_http_reject(out);
            out->status = (p[9] - '0') * 100 + (p[10] - '0') * 10 + (p[11] - '0');
            out->head_len = i + 1;
            out->body_bytes = len - (i + 1);
            /* The value lies in the head, which holds no NUL, CR or LF there. */
            if (out->has_location && out->location_len < sizeof(out->location))
                memcpy(out->location, p + loc_at, out->location_len);
            else if (out->has_location)
                out->location_too_long = 1;
            out->body = creach_http_body(out, p + i + 1, at_end);
            return 1;
        }
    }
    memset(out, 0, sizeof(*out));
    return 0;
}

int creach_http_parse_head(const void *buf, size_t len, int *status, size_t *head_len)
{
    creach_http_head head;
    int r;

    if (buf == NULL || status == NULL || head_len == NULL)
        return creach_fail(EINVAL);
    r = creach_http_parse_response(buf, len, 0, &head);
    if (r == 1) {
        *status = head.status;
        *head_len = head.head_len;
    }
    return r;
}

/* ------------------------------------------------------------------------ */
/* DNS                                                                       */

enum {
    DNS_HDRLEN = 12,
    DNS_NAME_MAX = 255,     /* wire form, with the length bytes and the root */
    DNS_TEXT_MAX = 253,     /* dotted form, without the trailing dot */
    DNS_LABEL_MAX = 63,
    DNS_MAX_JUMPS = 127,    /* a 255-byte name has at most 127 labels */
    DNS_CLASS_IN = 1,
    DNS_FLAG_QR = 0x8000,
    DNS_FLAG_TC = 0x0200,
    DNS_FLAG_RD = 0x0100,
    DNS_RR_FIXED = 10,      /* type, class, TTL, rdlength */
};

static int creach_dns_label_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

/*
 * The wire form of the dotted @name into @out (DNS_NAME_MAX bytes).
 * Returns its length, or -1 with errno EINVAL for a name the builder refuses.
 */
static int creach_dns_encode_name(const char *name, uint8_t *out)
{
    size_t n = strnlen(name, DNS_TEXT_MAX + 2);
    size_t i, label_at = 0, label_len = 0;

    if (n > 0 && name[n - 1] == '.')
        n--;                                /* one trailing dot */
    if (n == 0 || n > DNS_TEXT_MAX)
        return creach_fail(EINVAL);
    /* out[0] is the first length byte; each '.' becomes the next one. */
    for (i = 0; i < n; i++) {
        char c = name[i];

        if (c == '.') {
            if (label_len == 0)
                return creach_fail(EINVAL);
            out[label_at] = (uint8_t)label_len;
            label_at = i + 1;
            label_len = 0;
        } else {
            if (!creach_dns_label_char(c) || ++label_len > DNS_LABEL_MAX)
                return creach_fail(EINVAL);
            out[i + 1] = (uint8_t)c;
        }
    }
    if (label_len == 0)
        return creach_fail(EINVAL);        /* "a.." or a second trailing dot */
    out[label_at] = (uint8_t)label_len;
    out[n + 1] = 0;
    return (int)(n + 2);
}

int creach_dns_build_query(uint16_t id, const char *name, uint16_t qtype, void *buf, size_t buflen)
{
    uint8_t wire[DNS_NAME_MAX];
    uint8_t *b = buf;
    int name_len;
    size_t total;

    if (name == NULL || buf == NULL)
        return creach_fail(EINVAL);
    name_len = creach_dns_encode_name(name, wire);
    if (name_len < 0)
        return -1;
    total = DNS_HDRLEN + (size_t)name_len + 4;
    if (buflen < total)
        return creach_fail(EMSGSIZE);
    creach_put16(b, id);
    creach_put16(b + 2, DNS_FLAG_RD);
    creach_put16(b + 4, 1);     /* QDCOUNT */
    creach_put16(b + 6, 0);     /* ANCOUNT */
    creach_put16(b + 8, 0);     /* NSCOUNT */
    creach_put16(b + 10, 0);    /* ARCOUNT */
    memcpy(b + DNS_HDRLEN, wire, (size_t)name_len);
    creach_put16(b + DNS_HDRLEN + name_len, qtype);
    creach_put16(b + DNS_HDRLEN + name_len + 2, DNS_CLASS_IN);
    return (int)total;
}

/*
 * creach_dns_read_name - the (possibly compressed) name at *@off of the
 * message, expanded into wire form in @out (DNS_NAME_MAX bytes) when @out is
 * not NULL, its length in *@out_len. *@off moves past the name as it
 * appears at *@off (past the first pointer, if any).
 * A pointer must point into the message after the header and strictly
 * before the previous jump target (for the first one: before the start of
 * this name, hence before the pointer itself), so every walk ends; jumps
 * are also capped. The expanded name is at most 255
 * bytes. Label types 01 and 10 (extended, reserved) are refused.
 * Returns 0, or -1 with errno EBADMSG.
 */
static int creach_dns_read_name(const uint8_t *msg, size_t len, size_t *off, uint8_t *out, size_t *out_len)
{
    size_t pos = *off, limit = *off, end = 0, total = 0;
    unsigned jumps = 0;

    for (;;) {
        uint8_t c;

        if (pos >= len)
            return creach_fail(EBADMSG);
        c = msg[pos];
        if ((c & 0xc0) == 0xc0) {
            size_t target;

            if (len - pos < 2)
                return creach_fail(EBADMSG);
            target = ((size_t)(c & 0x3f) << 8) | msg[pos + 1];
            if (target < DNS_HDRLEN || target >= limit || ++jumps > DNS_MAX_JUMPS)
                return creach_fail(EBADMSG);
            if (jumps == 1)
                end = pos + 2;
            limit = target;
            pos = target;
            continue;
        }
        if (c & 0xc0)
            return creach_fail(EBADMSG);
        /* The length byte and the label must lie in the message and the name in 255 bytes. */
        if ((size_t)c >= len - pos || (size_t)c + 1 > DNS_NAME_MAX - total)
            return creach_fail(EBADMSG);
        if (out != NULL)
            memcpy(out + total, msg + pos, (size_t)c + 1);
        total += (size_t)c + 1;
        pos += (size_t)c + 1;
        if (c == 0)
            break;
    }
    *off = jumps > 0 ? end : pos;
    *out_len = total;
    return 0;
}

/*
 * Two wire-form names, ASCII case-insensitively. Length bytes (<= 63) are
 * below 'A', so folding them changes nothing and labels stay aligned.
 */
static int creach_dns_name_equal(const uint8_t *a, size_t a_len, const uint8_t *b, size_t b_len)
{
    size_t i;

    if (a_len != b_len)
        return 0;
    for (i = 0; i < a_len; i++)
        if (creach_ascii_lower(a[i]) != creach_ascii_lower(b[i]))
            return 0;
    return 1;
}

int creach_dns_parse_response(const void *buf, size_t len, uint16_t id, const char *name, uint16_t qtype,
                              creach_dns_result *out)
{
    const uint8_t *p = buf;
    uint8_t want[DNS_NAME_MAX], got[DNS_NAME_MAX];
    size_t want_len, got_len, off, addr_len;
    uint16_t flags, qdcount, ancount, i;
    int n;

    if (buf == NULL || name == NULL || out == NULL)
        return creach_fail(EINVAL);
    if (qtype != CREACH_DNS_TYPE_A && qtype != CREACH_DNS_TYPE_AAAA)
        return creach_fail(EINVAL);
    n = creach_dns_encode_name(name, want);
    if (n < 0)
        return -1;
    want_len = (size_t)n;
    addr_len = qtype == CREACH_DNS_TYPE_A ? 4 : 16;
    memset(out, 0, sizeof(*out));

    if (len < DNS_HDRLEN)
        return creach_fail(EBADMSG);
    flags = creach_get16(p + 2);
    /* Another id, a query (QR clear), another opcode: not our answer. */
    if (creach_get16(p) != id || !(flags & DNS_FLAG_QR) || ((flags >> 11) & 0x0f) != 0)
        return 0;
    qdcount = creach_get16(p + 4);
    ancount = creach_get16(p + 6);
    if (qdcount != 1)
        return 0;

    off = DNS_HDRLEN;
    if (creach_dns_read_name(p, len, &off, got, &got_len) < 0)
        return -1;
    if (len - off < 4)
        return creach_fail(EBADMSG);
    if (!creach_dns_name_equal(got, got_len, want, want_len) || creach_get16(p + off) != qtype ||
        creach_get16(p + off + 2) != DNS_CLASS_IN)
        return 0;
    off += 4;

    for (i = 0; i < ancount; i++) {
        uint16_t type, klass, rdlength;

        if (creach_dns_read_name(p, len, &off, NULL, &got_len) < 0)
            return -1;
        if (len - off < DNS_RR_FIXED)
            return creach_fail(EBADMSG);
        type = creach_get16(p + off);
        klass = creach_get16(p + off + 2);
        rdlength = creach_get16(p + off + 8);
        off += DNS_RR_FIXED;
        if (rdlength > len - off)
            return creach_fail(EBADMSG);
        if (type == qtype && klass == DNS_CLASS_IN && rdlength == addr_len) {
            if (out->answers == 0)
                memcpy(out->first, p + off, addr_len);
            out->answers++;
        }
        off += rdlength;
    }
    out->rcode = (uint8_t)(flags & 0x0f);
    out->truncated = (uint8_t)((flags & DNS_FLAG_TC) != 0);
    return 1;
}

/* ------------------------------------------------------------------------ */
/* "LOW HIGH" proc files                                                     */

/* One decimal number at *@pos, at most UINT32_MAX. Returns 0, or -1. */
static int creach_parse_u32(const char *text, size_t len, size_t *pos, uint32_t *out)
{
    size_t i = *pos;
    uint64_t v = 0;

    if (i >= len || text[i] < '0' || text[i] > '9')
        return -1;
    while (i < len && text[i] >= '0' && text[i] <= '9') {
        v = v * 10 + (uint64_t)(text[i] - '0');
        if (v > UINT32_MAX)
            return -1;
        i++;
    }
    *pos = i;
    *out = (uint32_t)v;
    return 0;
}

int creach_parse_id_range(const char *text, size_t len, uint32_t *low, uint32_t *high)
{
    size_t pos = 0, blanks;
    uint32_t a, b;

    if (text == NULL || low == NULL || high == NULL)
        return creach_fail(EINVAL);
    if (creach_parse_u32(text, len, &pos, &a) < 0)
        return creach_fail(EINVAL);
    for (blanks = 0; pos < len && (text[pos] == ' ' || text[pos] == '\t'); pos++)
        blanks++;
    if (blanks == 0 || creach_parse_u32(text, len, &pos, &b) < 0)
        return creach_fail(EINVAL);
    if (pos < len && text[pos] == '\n')
        pos++;
    if (pos != len)
        return creach_fail(EINVAL);
    *low = a;
    *high = b;
    return 0;
}

#endif /* __linux__ */
