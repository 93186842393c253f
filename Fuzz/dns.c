/*
 * dns.c - libFuzzer harness for creach_dns_parse_response (CSupport/probe_parse.c).
 *
 * Input: one control byte, then the response message (copied to an
 * exact-size buffer). The control byte picks the query it is checked against:
 *   bit 0     qtype AAAA (else A)
 *   bits 1-2  name: 0 "example.com", 1 "Example.COM.", 2 "a-b.c_d.test",
 *             3 the message's own question name (uncompressed labels at
 *             offset 12; "example.com" when it is not a name the builder takes)
 *   bit 3     id: the message's id XOR 0x5a5a (a response to another query)
 *             instead of the message's own id
 * Seeds use 0x06 (A) / 0x07 (AAAA): the question's own name and id.
 *
 * Invariants: -1 only with EBADMSG (the query is always valid); 0 leaves
 * *out zeroed; 1 means id, QR, opcode 0 and one question all match, the
 * answer count fits ANCOUNT and the message's size, rcode/TC mirror the
 * header, and the first address is bytes of the message. The builder's own
 * query must parse as 0 (QR clear), and as 1 with no answers once QR is set.
 */
#include "fuzz_common.h"
#include "CReachability.h"

#include <ctype.h>
#include <errno.h>

static const char *const names[] = { "example.com", "Example.COM.", "a-b.c_d.test" };

/* The question's labels at offset 12 as dotted text into @out (>= 256 bytes). */
static int question_name(const uint8_t *msg, size_t len, char *out)
{
    size_t pos = 12, o = 0;

    while (pos < len && msg[pos] != 0) {
        size_t n = msg[pos];
        if (n > 63 || n >= len - pos || o + n + 1 >= 254)
            return -1;
        if (o > 0)
            out[o++] = '.';
        memcpy(out + o, msg + pos + 1, n);
        o += n;
        pos += n + 1;
    }
    if (o == 0)
        return -1;
    out[o] = '\0';
    return 0;
}

static void check_roundtrip(uint16_t id, const char *name, uint16_t qtype)
{
    uint8_t q[512];
    creach_dns_result res;
    int n = creach_dns_build_query(id, name, qtype, q, sizeof(q));
    uint8_t *copy;

    CHECK(n > 12 && (size_t)n <= sizeof(q));
    copy = fuzz_dup(q, (size_t)n);
    CHECK(creach_dns_parse_response(copy, (size_t)n, id, name, qtype, &res) == 0);   /* a query */
    copy[2] |= 0x80;
    CHECK(creach_dns_parse_response(copy, (size_t)n, id, name, qtype, &res) == 1);
    CHECK(res.answers == 0 && res.rcode == 0 && res.truncated == 0);
    /* Names compare case-insensitively. */
    for (int i = 12; i < n - 4; i++)
        copy[i] = (uint8_t)toupper(copy[i]);
    CHECK(creach_dns_parse_response(copy, (size_t)n, id, name, qtype, &res) == 1);
    free(copy);
    /* One byte less of room is refused. */
    CHECK(creach_dns_build_query(id, name, qtype, q, (size_t)n - 1) == -1 && errno == EMSGSIZE);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char derived[256];
    const char *name;
    uint16_t qtype, id, flags, ancount;
    size_t len, alen;
    uint8_t ctl, *msg, probe[512];
    creach_dns_result out;
    int r;

    if (size < 1)
        return 0;
    ctl = data[0];
    data++;
    len = size - 1;
    qtype = (ctl & 1) ? CREACH_DNS_TYPE_AAAA : CREACH_DNS_TYPE_A;
    alen = qtype == CREACH_DNS_TYPE_A ? 4 : 16;
    name = names[0];
    if (((ctl >> 1) & 3) < 3)
        name = names[(ctl >> 1) & 3];
    else if (question_name(data, len, derived) == 0 &&
             creach_dns_build_query(0, derived, qtype, probe, sizeof(probe)) > 0)
        name = derived;
    id = len >= 2 ? (uint16_t)((data[0] << 8) | data[1]) : 0;
    if (ctl & 8)
        id ^= 0x5a5a;

    msg = fuzz_dup(data, len);
    memset(&out, 0xa5, sizeof(out));
    errno = 0;
    r = creach_dns_parse_response(msg, len, id, name, qtype, &out);
    CHECK(r == -1 || r == 0 || r == 1);
    if (r == -1) {
        CHECK(errno == EBADMSG);
    } else if (r == 0) {
        CHECK(fuzz_all_zero(&out, sizeof(out)));
    } else {
        CHECK(len >= 12 + 1 + 4);
        flags = (uint16_t)((data[2] << 8) | data[3]);
        ancount = (uint16_t)((data[6] << 8) | data[7]);
        CHECK(!(ctl & 8));
        CHECK((flags & 0x8000) && ((flags >> 11) & 0xf) == 0);
        CHECK(data[4] == 0 && data[5] == 1);
        CHECK(out.rcode == (flags & 0xf) && out.truncated == ((flags & 0x0200) != 0));
        CHECK(out.answers <= ancount);
        /* Each counted record takes at least a 1-byte name, 10 fixed bytes and the address. */
        CHECK((size_t)out.answers * (11 + alen) <= len - 12 - 5);
        if (out.answers == 0) {
            CHECK(fuzz_all_zero(out.first, sizeof(out.first)));
        } else {
            CHECK(memmem(data, len, out.first, alen) != NULL);
            CHECK(fuzz_all_zero(out.first + alen, sizeof(out.first) - alen));
        }
    }
    free(msg);

    check_roundtrip(id, name, qtype);
    return 0;
}
