/*
 * icmp.c - libFuzzer harness for creach_icmp_parse (CSupport/probe_parse.c).
 *
 * The input is one datagram of an ICMP socket (exact-size buffer), parsed as
 * AF_INET with and without the IPv4 header, and as AF_INET6 without it (and
 * with it: refused, EINVAL). Invariants: -1 only with EBADMSG; 1 means
 * exactly one of is_echo_reply / is_error; 0 means neither and no id/seq;
 * type and code are the ICMP header's bytes, an echo reply's id and seq are
 * its own bytes 4..7. The echo builder is checked too: a request built from
 * the input's bytes parses as 0 (a request is not a reply), as 1 once its
 * type is turned into the reply type, and its IPv4 checksum verifies.
 */
#include "fuzz_common.h"
#include "CReachability.h"

#include <errno.h>
#include <sys/socket.h>

static uint16_t get16(const uint8_t *p)
{
    return (uint16_t)((p[0] << 8) | p[1]);
}

static void check_parse(uint8_t family, int has_ip, const uint8_t *data, size_t size)
{
    uint8_t *buf = fuzz_dup(data, size);
    creach_icmp_info info;
    size_t off = 0;
    int r;

    memset(&info, 0xa5, sizeof(info));
    errno = 0;
    r = creach_icmp_parse(family, has_ip, buf, size, &info);
    free(buf);

    if (has_ip && family == AF_INET6) {
        CHECK(r == -1 && errno == EINVAL);
        return;
    }
    CHECK(r == -1 || r == 0 || r == 1);
    if (r == -1) {
        CHECK(errno == EBADMSG);
        return;
    }
    CHECK(info.is_echo_reply <= 1 && info.is_error <= 1);
    if (has_ip) {
        CHECK(size >= 20 && (data[0] >> 4) == 4);
        off = (size_t)(data[0] & 0x0f) * 4;
        CHECK(off >= 20 && off <= size);
        if (data[9] != 1) {     /* not ICMP: ignored */
            CHECK(r == 0 && fuzz_all_zero(&info, sizeof(info)));
            return;
        }
    }
    CHECK(size - off >= CREACH_ICMP_ECHO_HDRLEN);
    CHECK(info.type == data[off] && info.code == data[off + 1]);
    if (r == 0) {
        CHECK(!info.is_echo_reply && !info.is_error && info.id == 0 && info.seq == 0);
    } else {
        CHECK(info.is_echo_reply + info.is_error == 1);
        if (info.is_echo_reply) {
            CHECK(info.type == (family == AF_INET ? 0 : 129));
            CHECK(info.id == get16(data + off + 4) && info.seq == get16(data + off + 6));
        } else {
            /* The quoted request (IP header + 8 bytes) lies within the datagram. */
            CHECK(size - off >= CREACH_ICMP_ECHO_HDRLEN + (family == AF_INET ? 20u : 40u) + CREACH_ICMP_ECHO_HDRLEN);
        }
    }
}

static uint16_t checksum(const uint8_t *p, size_t len)
{
    uint32_t sum = 0;
    size_t i;

    for (i = 0; i + 1 < len; i += 2)
        sum += get16(p + i);
    if (len & 1)
        sum += (uint32_t)p[len - 1] << 8;
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    return (uint16_t)~sum;
}

static void check_build(uint8_t family, const uint8_t *data, size_t size)
{
    uint16_t id = size >= 2 ? get16(data) : 7, seq = size >= 4 ? get16(data + 2) : 9;
    size_t plen = size > 4 ? size - 4 : 0;
    size_t cap = plen + CREACH_ICMP_ECHO_HDRLEN;
    uint8_t *buf = malloc(cap);
    creach_icmp_info info;
    int n;

    CHECK(buf != NULL);
    n = creach_icmp_echo_build(family, id, seq, plen ? data + 4 : NULL, plen, buf, cap);
    CHECK(n == (int)cap);
    CHECK(buf[0] == (family == AF_INET ? 8 : 128) && get16(buf + 4) == id && get16(buf + 6) == seq);
    if (family == AF_INET)
        CHECK(checksum(buf, cap) == 0);
    CHECK(creach_icmp_parse(family, 0, buf, cap, &info) == 0 && info.type == buf[0]);
    buf[0] = family == AF_INET ? 0 : 129;
    CHECK(creach_icmp_parse(family, 0, buf, cap, &info) == 1 && info.is_echo_reply && info.id == id &&
          info.seq == seq);
    CHECK(creach_icmp_echo_build(family, id, seq, plen ? data + 4 : NULL, plen, buf, cap - 1) == -1 &&
          errno == EMSGSIZE);
    free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check_parse(AF_INET, 0, data, size);
    check_parse(AF_INET, 1, data, size);
    check_parse(AF_INET6, 0, data, size);
    check_parse(AF_INET6, 1, data, size);
    if (size <= 1024) {
        check_build(AF_INET, data, size);
        check_build(AF_INET6, data, size);
    }
    return 0;
}
