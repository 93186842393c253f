/*
 * netlink.c - libFuzzer harness: the input is one NETLINK_ROUTE datagram.
 *
 * Parsers under test (CSupport/netlink_parse.c): creach_msg_iter_init /
 * creach_msg_next (framing, NLMSG_DONE and NLMSG_ERROR are messages like any
 * other), creach_msg_type/seq/flags, creach_parse_error,
 * creach_error_is_request_fault, creach_parse_route, creach_parse_link,
 * creach_parse_addr, creach_parse_rule, creach_parse_neigh, creach_events_classify. Every parser is called on every
 * message whatever its type (a parser must refuse a foreign type with
 * EPROTO), and the reply handlers that consume the iterator's messages in
 * the library (link.c: creach_link_reply, creach_dump_msg with its
 * NLMSG_DONE / ACK / NLM_F_DUMP_INTR handling; route.c: creach_route_reply)
 * are driven too: they are static, so this file includes those two sources.
 *
 * The datagram is copied into a malloc'd buffer of exactly its size, so
 * AddressSanitizer catches any read past it, and the whole run is repeated
 * on a copy at an odd address (buffer + 1): the results must be identical,
 * and UBSan's alignment check catches a header read in place. Each message
 * is also parsed from a private exact-size copy (nothing may be read past
 * nlmsg_len) and with the rest of the datagram as its length (the result
 * must not depend on the bytes after nlmsg_len).
 */
#include "fuzz_common.h"

#include "../CSupport/link.c"
#include "../CSupport/route.c"

#include <errno.h>
#include <linux/neighbour.h>
#include <linux/fib_rules.h>

/* FNV-1a over everything the parsers returned: the aligned and the
 * unaligned run must produce the same digest. */
static void mix(uint64_t *h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++) {
        *h ^= b[i];
        *h *= 0x100000001b3ULL;
    }
}

static void mix_int(uint64_t *h, int64_t v)
{
    mix(h, &v, sizeof(v));
}

static int is_addr_family(int f)
{
    return f == AF_INET || f == AF_INET6;
}

/* A non-zero address the parser returned must be bytes of the message. */
static void check_addr_from(const uint8_t *msg, size_t len, const uint8_t *a, int family)
{
    size_t n = family == AF_INET ? 4 : 16;

    if (family == AF_INET)
        CHECK(fuzz_all_zero(a + 4, 12));
    if (!fuzz_all_zero(a, n))
        CHECK(memmem(msg, len, a, n) != NULL);
}

/* ------------------------------------------------------------------------ */
/* One parser, three ways                                                   */

typedef int (*parse_fn)(const void *msg, size_t len, void *out);

static int parse_route_any(const void *m, size_t l, void *o) { return creach_parse_route(m, l, o); }
static int parse_link_any(const void *m, size_t l, void *o) { return creach_parse_link(m, l, o); }
static int parse_addr_any(const void *m, size_t l, void *o) { return creach_parse_addr(m, l, o); }
static int parse_rule_any(const void *m, size_t l, void *o) { return creach_parse_rule(m, l, o); }
static int parse_error_any(const void *m, size_t l, void *o) { return creach_parse_error(m, l, o); }
static int parse_neigh_any(const void *m, size_t l, void *o) { return creach_parse_neigh(m, l, o); }

/*
 * Runs @fn on the message with its own length, with the rest of the datagram
 * as length, and on an exact-size private copy; all three must agree.
 * Returns the result (errno set as the parser left it) with *@out filled.
 */
static int parse3(parse_fn fn, const uint8_t *msg, size_t mlen, size_t rest, void *out, size_t outsz)
{
    uint8_t o2[128], o3[128];
    int r1, r2, r3, e1, e2, e3;
    uint8_t *copy;

    CHECK(outsz <= sizeof(o2));
    memset(out, 0xa5, outsz);
    memset(o2, 0x5a, outsz);
    memset(o3, 0x3c, outsz);
    errno = 0;
    r1 = fn(msg, mlen, out);
    e1 = errno;
    errno = 0;
    r2 = fn(msg, rest, o2);
    e2 = errno;
    copy = fuzz_dup(msg, mlen);
    errno = 0;
    r3 = fn(copy, mlen, o3);
    e3 = errno;
    free(copy);

    CHECK(r1 == 0 || r1 == -1);
    CHECK(r1 == r2 && r1 == r3);
    if (r1 < 0)
        CHECK(e1 == e2 && e1 == e3);
    /* parse_error leaves *error untouched on failure; the others write the whole struct. */
    if (r1 == 0 || fn != parse_error_any)
        CHECK(memcmp(out, o2, outsz) == 0 && memcmp(out, o3, outsz) == 0);
    errno = e1;
    return r1;
}

/* ------------------------------------------------------------------------ */
/* Reference decoders: the header's contract written out a second time.      */
/* Each returns 0 with *out filled, or -1 with the errno it must set; the    */
/* parser's result is compared field by field (differential check).          */

typedef struct {
    const uint8_t *data;
    size_t len;
    int present;
} ref_attr;

/* Attributes after the family header: framing checked, last occurrence of
 * each type <= @max kept, flag bits ignored, padding of the last optional. */
static int ref_attrs(const uint8_t *p, size_t len, ref_attr *tb, size_t max)
{
    memset(tb, 0, (max + 1) * sizeof(*tb));
    while (len > 0) {
        uint16_t alen, atype;
        size_t step;

        if (len < 4)
            return -1;
        memcpy(&alen, p, 2);
        memcpy(&atype, p + 2, 2);
        if (alen < 4 || alen > len)
            return -1;
        atype &= NLA_TYPE_MASK;
        if (atype <= max) {
            tb[atype].data = p + 4;
            tb[atype].len = alen - 4u;
            tb[atype].present = 1;
        }
        step = ((size_t)alen + 3) & ~(size_t)3;
        if (step > len)
            step = len;
        p += step;
        len -= step;
    }
    return 0;
}

/* Type check, family header, attributes. Returns 0, or the errno. */
static int ref_body(const uint8_t *msg, size_t mlen, uint16_t ta, uint16_t tb_, size_t fixed, ref_attr *tb,
                    size_t max, int *attrs_ok)
{
    uint16_t type = creach_msg_type(msg);
    size_t off;

    if (type != ta && type != tb_)
        return EPROTO;
    if (mlen - NLMSG_HDRLEN < fixed)
        return EBADMSG;
    off = NLMSG_HDRLEN + ((fixed + 3) & ~(size_t)3);
    if (off > mlen)
        off = mlen;
    *attrs_ok = ref_attrs(msg + off, mlen - off, tb, max) == 0;
    return 0;
}

static int ref_u32(const ref_attr *a, uint32_t *v)
{
    if (!a->present)
        return 1;
    if (a->len != 4)
        return 0;
    memcpy(v, a->data, 4);
    return 1;
}

static int ref_u8(const ref_attr *a, uint8_t *v)
{
    if (!a->present)
        return 1;
    if (a->len != 1)
        return 0;
    *v = a->data[0];
    return 1;
}

static int ref_ip(const ref_attr *a, int family, uint8_t out[16])
{
    size_t n = family == AF_INET ? 4 : 16;

    if (!a->present)
        return 1;
    if (a->len != n)
        return 0;
    memcpy(out, a->data, n);
    return 1;
}

/* A C string inside its payload, shorter than @cap with its NUL. */
static int ref_name(const ref_attr *a, char *out, size_t cap)
{
    size_t n;

    if (!a->present)
        return 1;
    n = strnlen((const char *)a->data, a->len);
    if (n == a->len || n >= cap)
        return 0;
    memcpy(out, a->data, n);
    out[n] = '\0';
    return 1;
}

static int ref_route(const uint8_t *msg, size_t mlen, creach_route *out)
{
    ref_attr tb[RTA_MAX + 1];
    struct rtmsg rtm;
    int ok, e;
    uint32_t u = 0;

    memset(out, 0, sizeof(*out));
    if ((e = ref_body(msg, mlen, RTM_NEWROUTE, RTM_DELROUTE, sizeof(rtm), tb, RTA_MAX, &ok)) != 0)
        return e;
    memcpy(&rtm, msg + NLMSG_HDRLEN, sizeof(rtm));
    if (!is_addr_family(rtm.rtm_family))
        return EPROTO;
    if (!ok)
        return EBADMSG;
    out->family = rtm.rtm_family;
    out->dst_len = rtm.rtm_dst_len;
    out->type = rtm.rtm_type;
    out->scope = rtm.rtm_scope;
    out->protocol = rtm.rtm_protocol;
    out->tos = rtm.rtm_tos;
    out->flags = rtm.rtm_flags;
    out->table = rtm.rtm_table;
    if (!ref_ip(&tb[RTA_DST], rtm.rtm_family, out->dst) || !ref_ip(&tb[RTA_PREFSRC], rtm.rtm_family, out->prefsrc) ||
        !ref_ip(&tb[RTA_GATEWAY], rtm.rtm_family, out->gateway) || !ref_u32(&tb[RTA_TABLE], &out->table) ||
        !ref_u32(&tb[RTA_UID], &out->uid) || !ref_u32(&tb[RTA_MARK], &out->mark) || !ref_u32(&tb[RTA_OIF], &u))
        goto bad;
    out->oif = (int32_t)u;
    out->has_prefsrc = tb[RTA_PREFSRC].present;
    if (tb[RTA_GATEWAY].present) {
        out->has_gateway = 1;
        out->gateway_family = rtm.rtm_family;
    } else if (tb[RTA_VIA].present) {
        /* struct rtvia: a family (u16), then an address of that family. */
        uint16_t vfam;
        size_t n;

        if (tb[RTA_VIA].len < 2)
            goto bad;
        memcpy(&vfam, tb[RTA_VIA].data, 2);
        if (!is_addr_family(vfam)) {
            memset(out, 0, sizeof(*out));
            return EPROTO;
        }
        n = vfam == AF_INET ? 4 : 16;
        if (tb[RTA_VIA].len != 2 + n)
            goto bad;
        memcpy(out->gateway, tb[RTA_VIA].data + 2, n);
        out->has_gateway = 1;
        out->gateway_family = (uint8_t)vfam;
    }
    return 0;
bad:
    memset(out, 0, sizeof(*out));
    return EBADMSG;
}

/* The rule's contract: prefixes within the family's bits; suppress values of
 * -1 mean unset; any attribute this parser does not decode that can select
 * (tunnel id 12, l3mdev 19, IP protocol 22, ports 23/24, 25..63) is flagged. */
static int ref_rule(const uint8_t *msg, size_t mlen, creach_rule *out)
{
    ref_attr tb[64];
    struct fib_rule_hdr frh;
    int ok, e;
    uint32_t sp = UINT32_MAX, sg = UINT32_MAX;
    size_t bits;

    memset(out, 0, sizeof(*out));
    if ((e = ref_body(msg, mlen, RTM_NEWRULE, RTM_DELRULE, sizeof(frh), tb, 63, &ok)) != 0)
        return e;
    memcpy(&frh, msg + NLMSG_HDRLEN, sizeof(frh));
    if (!is_addr_family(frh.family))
        return EPROTO;
    bits = frh.family == AF_INET ? 32 : 128;
    if (!ok || frh.dst_len > bits || frh.src_len > bits)
        return EBADMSG;
    out->family = frh.family;
    out->action = frh.action;
    out->dst_len = frh.dst_len;
    out->src_len = frh.src_len;
    out->tos = frh.tos;
    out->flags = frh.flags;
    out->table = frh.table;
    if (!ref_ip(&tb[FRA_SRC], frh.family, out->src) || !ref_ip(&tb[FRA_DST], frh.family, out->dst) ||
        !ref_name(&tb[FRA_IIFNAME], out->iifname, sizeof(out->iifname)) ||
        !ref_name(&tb[FRA_OIFNAME], out->oifname, sizeof(out->oifname)) || !ref_u32(&tb[FRA_TABLE], &out->table) ||
        !ref_u32(&tb[FRA_PRIORITY], &out->priority) || !ref_u32(&tb[FRA_GOTO], &out->goto_target) ||
        !ref_u32(&tb[FRA_FWMARK], &out->fwmark) || !ref_u32(&tb[FRA_FWMASK], &out->fwmask) ||
        !ref_u32(&tb[FRA_SUPPRESS_PREFIXLEN], &sp) || !ref_u32(&tb[FRA_SUPPRESS_IFGROUP], &sg))
        goto bad;
    if (tb[FRA_UID_RANGE].present) {
        if (tb[FRA_UID_RANGE].len != 8)
            goto bad;
        memcpy(&out->uid_start, tb[FRA_UID_RANGE].data, 4);
        memcpy(&out->uid_end, tb[FRA_UID_RANGE].data + 4, 4);
        out->has_uid_range = 1;
    }
    out->has_suppress = sp != UINT32_MAX || sg != UINT32_MAX;
    for (size_t t = 12; t <= 63; t++)
        if (tb[t].present && (t == 12 || t == 19 || t >= 22))
            out->other_selectors = 1;
    return 0;
bad:
    memset(out, 0, sizeof(*out));
    return EBADMSG;
}

static int ref_link(const uint8_t *msg, size_t mlen, creach_link *out)
{
    ref_attr tb[IFLA_MAX + 1];
    struct ifinfomsg ifi;
    int ok, e;
    uint8_t c = 0;
    uint32_t link = 0, master = 0;

    memset(out, 0, sizeof(*out));
    out->carrier = -1;
    if ((e = ref_body(msg, mlen, RTM_NEWLINK, RTM_DELLINK, sizeof(ifi), tb, IFLA_MAX, &ok)) != 0)
        return e;
    if (!ok)
        goto bad;
    memcpy(&ifi, msg + NLMSG_HDRLEN, sizeof(ifi));
    out->index = ifi.ifi_index;
    out->type = ifi.ifi_type;
    out->flags = ifi.ifi_flags;
    if (!ref_name(&tb[IFLA_IFNAME], out->name, sizeof(out->name)) || !ref_u32(&tb[IFLA_MTU], &out->mtu) ||
        !ref_u8(&tb[IFLA_OPERSTATE], &out->operstate) || !ref_u8(&tb[IFLA_LINKMODE], &out->linkmode) ||
        !ref_u8(&tb[IFLA_CARRIER], &c) || !ref_u32(&tb[IFLA_LINK], &link) || !ref_u32(&tb[IFLA_MASTER], &master))
        goto bad;
    if (tb[IFLA_CARRIER].present)
        out->carrier = c != 0;
    out->link = (int32_t)link;
    out->master = (int32_t)master;
    if (tb[IFLA_LINKINFO].present) {
        ref_attr info[IFLA_INFO_MAX + 1];
        size_t n;

        if (ref_attrs(tb[IFLA_LINKINFO].data, tb[IFLA_LINKINFO].len, info, IFLA_INFO_MAX) < 0)
            goto bad;
        if (info[IFLA_INFO_KIND].present) {
            /* NUL optional; never truncated. */
            n = strnlen((const char *)info[IFLA_INFO_KIND].data, info[IFLA_INFO_KIND].len);
            if (n >= sizeof(out->kind))
                goto bad;
            memcpy(out->kind, info[IFLA_INFO_KIND].data, n);
        }
    }
    return 0;
bad:
    memset(out, 0, sizeof(*out));
    out->carrier = -1;
    return EBADMSG;
}

static int ref_addr(const uint8_t *msg, size_t mlen, creach_addr *out)
{
    ref_attr tb[IFA_MAX + 1];
    struct ifaddrmsg ifa;
    uint8_t local[16] = { 0 }, address[16] = { 0 };
    int ok, e;

    memset(out, 0, sizeof(*out));
    if ((e = ref_body(msg, mlen, RTM_NEWADDR, RTM_DELADDR, sizeof(ifa), tb, IFA_MAX, &ok)) != 0)
        return e;
    memcpy(&ifa, msg + NLMSG_HDRLEN, sizeof(ifa));
    if (!is_addr_family(ifa.ifa_family))
        return EPROTO;
    if (!ok)
        return EBADMSG;
    out->index = (int32_t)ifa.ifa_index;
    out->family = ifa.ifa_family;
    out->prefixlen = ifa.ifa_prefixlen;
    out->scope = ifa.ifa_scope;
    out->flags = ifa.ifa_flags;
    if (!ref_ip(&tb[IFA_LOCAL], ifa.ifa_family, local) || !ref_ip(&tb[IFA_ADDRESS], ifa.ifa_family, address) ||
        !ref_u32(&tb[IFA_FLAGS], &out->flags) || !ref_name(&tb[IFA_LABEL], out->label, sizeof(out->label))) {
        memset(out, 0, sizeof(*out));
        return EBADMSG;
    }
    if (tb[IFA_LOCAL].present) {
        memcpy(out->address, local, 16);
        if (tb[IFA_ADDRESS].present && memcmp(local, address, 16) != 0) {
            out->has_peer = 1;
            memcpy(out->peer, address, 16);
        }
    } else {
        memcpy(out->address, address, 16);
    }
    return 0;
}

static int ref_error(const uint8_t *msg, size_t mlen, int32_t *error)
{
    struct nlmsgerr e;

    if (creach_msg_type(msg) != NLMSG_ERROR)
        return EPROTO;
    if (mlen - NLMSG_HDRLEN < sizeof(e))
        return EBADMSG;
    memcpy(&e, msg + NLMSG_HDRLEN, sizeof(e));
    if (e.error == INT32_MIN)
        return EBADMSG;
    *error = e.error < 0 ? -e.error : e.error;
    return 0;
}

/* The parser's (@r, errno @e, @out) against the reference's (@re, @ref). */
static void same(int r, int e, const void *out, int ref_errno, const void *ref, size_t n)
{
    if (ref_errno == 0) {
        CHECK(r == 0);
        CHECK(memcmp(out, ref, n) == 0);
    } else {
        CHECK(r == -1 && e == ref_errno);
        if (n > 0)
            CHECK(memcmp(out, ref, n) == 0);   /* failure leaves the cleared struct */
    }
}

/* ------------------------------------------------------------------------ */
/* Dump state carried across the messages of the datagram                   */

typedef struct {
    creach_dump_ctx d;
    creach_link link;
    creach_addr addr;
    int finished;           /* the handler returned DONE or -1: a real exchange stops there */
    int fed;                /* data messages handed to it */
} dump_state;

static int stop_after_first(const void *item, void *ctx)
{
    (void)item;
    (void)ctx;
    return 1;
}

static void dump_init(dump_state *s, int links)
{
    memset(s, 0, sizeof(*s));
    s->d.parse = links ? creach_parse_link_any : creach_parse_addr_any;
    s->d.item = links ? (void *)&s->link : (void *)&s->addr;
    /* The address walk asks to stop after its first item: later messages
     * must then be drained, not parsed. */
    s->d.cb = links ? NULL : stop_after_first;
}

static void dump_feed(dump_state *s, const uint8_t *msg, size_t mlen, int32_t err_value, int err_ok, uint64_t *h)
{
    uint16_t type = creach_msg_type(msg);
    int count = s->d.count;
    uint64_t skipped = s->d.skipped;
    uint8_t stopped = s->d.stopped;
    int r;

    if (s->finished)
        return;
    errno = 0;
    r = creach_dump_msg(&s->d, msg, mlen);
    CHECK(r == -1 || r == CREACH_NL_MORE || r == CREACH_NL_DONE);
    if (creach_msg_flags(msg) & NLM_F_DUMP_INTR)
        CHECK(s->d.interrupted);
    switch (type) {
    case NLMSG_DONE:
        if (r < 0) {
            int32_t e;
            CHECK(mlen >= NLMSG_LENGTH(sizeof(int32_t)));
            memcpy(&e, msg + NLMSG_HDRLEN, sizeof(e));
            CHECK(e < 0 && e != INT32_MIN && errno == -e);
        } else {
            CHECK(r == CREACH_NL_DONE);
        }
        break;
    case NLMSG_ERROR:
        CHECK(r != CREACH_NL_DONE);
        if (!err_ok)
            CHECK(r == -1);
        else if (err_value == 0)
            CHECK(r == CREACH_NL_MORE);
        else
            CHECK(r == -1 && errno == err_value);
        break;
    default:
        CHECK(r == CREACH_NL_MORE);
        s->fed++;
        if (stopped) {
            CHECK(s->d.count == count && s->d.skipped == skipped);
        } else {
            CHECK((s->d.count == count + 1 && s->d.skipped == skipped) ||
                  (s->d.count == count && s->d.skipped == skipped + 1));
        }
        break;
    }
    CHECK(s->d.count >= 0 && (uint64_t)s->d.count + s->d.skipped <= (uint64_t)s->fed);
    if (r != CREACH_NL_MORE)
        s->finished = 1;
    mix_int(h, r);
    mix_int(h, s->d.count);
    mix_int(h, (int64_t)s->d.skipped);
}

/* ------------------------------------------------------------------------ */
/* One message                                                               */

static void check_message(const uint8_t *msg, size_t mlen, size_t rest, dump_state *links, dump_state *addrs,
                          uint64_t *h)
{
    struct nlmsghdr hdr;
    uint16_t type;
    creach_route route, route2;
    creach_link link, link2;
    creach_addr addr;
    int32_t err = -1;
    int rr, rl, ra, re, rh;
    bool fault;

    memcpy(&hdr, msg, sizeof(hdr));
    type = hdr.nlmsg_type;
    CHECK(hdr.nlmsg_len == mlen);
    CHECK(creach_msg_type(msg) == hdr.nlmsg_type);
    CHECK(creach_msg_seq(msg) == hdr.nlmsg_seq);
    CHECK(creach_msg_flags(msg) == hdr.nlmsg_flags);
    mix(h, &hdr, sizeof(hdr));

    /* NLMSG_ERROR */
    re = parse3(parse_error_any, msg, mlen, rest, &err, sizeof(err));
    if (type != NLMSG_ERROR) {
        CHECK(re == -1 && errno == EPROTO);
    } else if (re == 0) {
        CHECK(mlen >= NLMSG_HDRLEN + sizeof(struct nlmsgerr));
        CHECK(err >= 0);
    } else {
        CHECK(errno == EBADMSG);
    }
    {
        int32_t ref_err = 0;
        int x = ref_error(msg, mlen, &ref_err);
        same(re, errno, &err, x, &ref_err, x == 0 ? sizeof(err) : 0);
        errno = x;
    }
    mix_int(h, re);
    mix_int(h, re == 0 ? err : -1);

    fault = creach_error_is_request_fault(msg, mlen);
    CHECK(fault == creach_error_is_request_fault(msg, rest));
    {
        uint8_t *copy = fuzz_dup(msg, mlen);
        CHECK(fault == creach_error_is_request_fault(copy, mlen));
        free(copy);
    }
    if (fault)
        CHECK(type == NLMSG_ERROR && (hdr.nlmsg_flags & NLM_F_ACK_TLVS) &&
              mlen >= NLMSG_HDRLEN + sizeof(struct nlmsgerr));
    /* Uncapped, the TLVs follow the whole echoed request: one longer than the
     * message leaves no room for them, whatever its length (an echoed
     * nlmsg_len near UINT32_MAX once wrapped to a small offset in NLMSG_ALIGN;
     * corpus/netlink/extack_echo_len_wraps). */
    if (type == NLMSG_ERROR && (hdr.nlmsg_flags & NLM_F_ACK_TLVS) && !(hdr.nlmsg_flags & NLM_F_CAPPED) &&
        mlen >= NLMSG_HDRLEN + sizeof(struct nlmsgerr)) {
        struct nlmsgerr e;
        memcpy(&e, msg + NLMSG_HDRLEN, sizeof(e));
        if ((uint64_t)NLMSG_HDRLEN + sizeof(e.error) + e.msg.nlmsg_len > mlen)
            CHECK(!fault);
    }
    mix_int(h, fault);

    /* Routes */
    rr = parse3(parse_route_any, msg, mlen, rest, &route, sizeof(route));
    {
        int e = errno, x = ref_route(msg, mlen, &route2);
        same(rr, e, &route, x, &route2, sizeof(route));
        errno = e;
    }
    if (type != RTM_NEWROUTE && type != RTM_DELROUTE)
        CHECK(rr == -1 && errno == EPROTO);
    if (rr < 0) {
        CHECK(errno == EPROTO || errno == EBADMSG);
        CHECK(fuzz_all_zero(&route, sizeof(route)));
    } else {
        CHECK(mlen >= NLMSG_HDRLEN + sizeof(struct rtmsg));
        CHECK(route.error == 0 && is_addr_family(route.family));
        CHECK(route.has_gateway <= 1 && route.has_prefsrc <= 1);
        check_addr_from(msg, mlen, route.dst, route.family);
        check_addr_from(msg, mlen, route.prefsrc, route.family);
        if (!route.has_prefsrc)
            CHECK(fuzz_all_zero(route.prefsrc, sizeof(route.prefsrc)));
        if (route.has_gateway) {
            CHECK(is_addr_family(route.gateway_family));
            check_addr_from(msg, mlen, route.gateway, route.gateway_family);
        } else {
            CHECK(route.gateway_family == 0 && fuzz_all_zero(route.gateway, sizeof(route.gateway)));
        }
    }
    mix_int(h, rr);
    mix(h, &route, sizeof(route));

    /* Rules */
    {
        creach_rule rule, rule2;
        int rp = parse3(parse_rule_any, msg, mlen, rest, &rule, sizeof(rule));
        int e = errno, x = ref_rule(msg, mlen, &rule2);

        same(rp, e, &rule, x, &rule2, sizeof(rule));
        errno = e;
        if (type != RTM_NEWRULE && type != RTM_DELRULE)
            CHECK(rp == -1 && errno == EPROTO);
        if (rp < 0) {
            CHECK(errno == EPROTO || errno == EBADMSG);
            CHECK(fuzz_all_zero(&rule, sizeof(rule)));
        } else {
            CHECK(is_addr_family(rule.family));
            CHECK(rule.dst_len <= (rule.family == AF_INET ? 32 : 128) && rule.src_len <= (rule.family == AF_INET ? 32 : 128));
            CHECK(fuzz_terminated(rule.iifname, sizeof(rule.iifname)) && fuzz_terminated(rule.oifname, sizeof(rule.oifname)));
            check_addr_from(msg, mlen, rule.src, rule.family);
            check_addr_from(msg, mlen, rule.dst, rule.family);
        }
        mix_int(h, rp);
        mix(h, &rule, sizeof(rule));
    }

    /* Links */
    rl = parse3(parse_link_any, msg, mlen, rest, &link, sizeof(link));
    {
        int e = errno, x = ref_link(msg, mlen, &link2);
        same(rl, e, &link, x, &link2, sizeof(link));
        errno = e;
    }
    if (type != RTM_NEWLINK && type != RTM_DELLINK)
        CHECK(rl == -1 && errno == EPROTO);
    if (rl < 0) {
        CHECK(errno == EPROTO || errno == EBADMSG);
        CHECK(link.carrier == -1);
        link.carrier = 0;
        CHECK(fuzz_all_zero(&link, sizeof(link)));
        link.carrier = -1;
    } else {
        CHECK(mlen >= NLMSG_HDRLEN + sizeof(struct ifinfomsg));
        CHECK(link.carrier >= -1 && link.carrier <= 1);
        CHECK(fuzz_terminated(link.name, sizeof(link.name)));
        CHECK(fuzz_terminated(link.kind, sizeof(link.kind)));
        if (link.name[0] != '\0')
            CHECK(memmem(msg, mlen, link.name, strlen(link.name) + 1) != NULL);   /* with its NUL */
        if (link.kind[0] != '\0')
            CHECK(memmem(msg, mlen, link.kind, strlen(link.kind)) != NULL);
    }
    mix_int(h, rl);
    mix(h, &link, sizeof(link));

    /* Addresses */
    ra = parse3(parse_addr_any, msg, mlen, rest, &addr, sizeof(addr));
    {
        creach_addr addr2;
        int e = errno, x = ref_addr(msg, mlen, &addr2);
        same(ra, e, &addr, x, &addr2, sizeof(addr));
        errno = e;
    }
    if (type != RTM_NEWADDR && type != RTM_DELADDR)
        CHECK(ra == -1 && errno == EPROTO);
    if (ra < 0) {
        CHECK(errno == EPROTO || errno == EBADMSG);
        CHECK(fuzz_all_zero(&addr, sizeof(addr)));
    } else {
        CHECK(mlen >= NLMSG_HDRLEN + sizeof(struct ifaddrmsg));
        CHECK(is_addr_family(addr.family) && addr.has_peer <= 1);
        CHECK(fuzz_terminated(addr.label, sizeof(addr.label)));
        check_addr_from(msg, mlen, addr.address, addr.family);
        if (addr.has_peer) {
            check_addr_from(msg, mlen, addr.peer, addr.family);
            CHECK(memcmp(addr.peer, addr.address, sizeof(addr.peer)) != 0);
        } else {
            CHECK(fuzz_all_zero(addr.peer, sizeof(addr.peer)));
        }
    }
    mix_int(h, ra);
    mix(h, &addr, sizeof(addr));

    /* Neighbours (an uplink tracker's next hop) */
    {
        creach_neigh nb;
        int rn = parse3(parse_neigh_any, msg, mlen, rest, &nb, sizeof(nb));

        if (type != RTM_NEWNEIGH && type != RTM_DELNEIGH)
            CHECK(rn == -1 && errno == EPROTO);
        if (rn < 0) {
            CHECK(errno == EPROTO || errno == EBADMSG);
            CHECK(fuzz_all_zero(&nb, sizeof(nb)));
        } else {
            CHECK(mlen >= NLMSG_HDRLEN + sizeof(struct ndmsg));
            CHECK(is_addr_family(nb.family) && nb.has_address <= 1);
            CHECK(nb.deleted == (type == RTM_DELNEIGH));
            if (nb.has_address)
                check_addr_from(msg, mlen, nb.address, nb.family);
            else
                CHECK(fuzz_all_zero(nb.address, sizeof(nb.address)));
        }
        mix_int(h, rn);
        mix(h, &nb, sizeof(nb));
    }

    /* The library's reply handlers, fed this message. */
    rh = creach_link_reply(&link2, msg, mlen);
    CHECK(rh == -1 || rh == CREACH_NL_DONE);
    if (rh == CREACH_NL_DONE)
        CHECK(type == RTM_NEWLINK && rl == 0 && memcmp(&link, &link2, sizeof(link)) == 0);
    else if (type == NLMSG_ERROR && re == 0)
        CHECK(errno == (err != 0 ? err : EPROTO));
    mix_int(h, rh);

    {
        creach_route_ctx rc = { .family = AF_INET6, .out = &route2 };
        memset(&route2, 0x77, sizeof(route2));
        errno = 0;
        rh = creach_route_reply(&rc, msg, mlen);
        CHECK(rh == -1 || rh == CREACH_NL_DONE);
        if (rh == CREACH_NL_DONE) {
            if (type == NLMSG_ERROR) {
                /* A refused lookup is an answer: error set, family kept, the rest zero. */
                CHECK(re == 0 && err > 0 && !fault);
                CHECK(route2.error == err && route2.family == AF_INET6);
                route2.error = 0;
                route2.family = 0;
                CHECK(fuzz_all_zero(&route2, sizeof(route2)));
            } else {
                CHECK(type == RTM_NEWROUTE && rr == 0 && memcmp(&route, &route2, sizeof(route)) == 0);
            }
        } else if (type == NLMSG_ERROR && re == 0) {
            CHECK(err == 0 ? errno == EPROTO : (fault && errno == err));
        }
        mix_int(h, rh);
    }

    dump_feed(links, msg, mlen, err, re == 0, h);
    dump_feed(addrs, msg, mlen, err, re == 0, h);
}

/* ------------------------------------------------------------------------ */
/* The documented contract of creach_events_classify, one message at a time  */

static void ref_count_family(creach_events *ev, const uint8_t *msg, size_t mlen, size_t fixed, uint32_t *v4,
                             uint32_t *v6)
{
    if (mlen < NLMSG_HDRLEN + fixed)
        ev->malformed++;
    else if (msg[NLMSG_HDRLEN] == AF_INET)
        (*v4)++;
    else if (msg[NLMSG_HDRLEN] == AF_INET6)
        (*v6)++;
    else
        ev->other++;
}

static void ref_classify(creach_events *ev, const uint8_t *msg, size_t mlen)
{
    uint16_t type = creach_msg_type(msg);

    ev->messages++;
    switch (type) {
    case RTM_NEWLINK:
    case RTM_DELLINK:
        if (mlen < NLMSG_HDRLEN + sizeof(struct ifinfomsg)) {
            ev->malformed++;
        } else if (msg[NLMSG_HDRLEN] == AF_BRIDGE) {
            ev->other++;    /* a bridge's per-port message: no link changed or deleted */
        } else {
            ev->link++;
            if (type == RTM_DELLINK) {
                struct ifinfomsg ifi;
                memcpy(&ifi, msg + NLMSG_HDRLEN, sizeof(ifi));
                if (ev->deleted_count < CREACH_EVENTS_MAX_DELETED)
                    ev->deleted[ev->deleted_count] = ifi.ifi_index;
                ev->deleted_count++;
            }
        }
        break;
    case RTM_NEWADDR:
    case RTM_DELADDR:
        ref_count_family(ev, msg, mlen, sizeof(struct ifaddrmsg), &ev->addr4, &ev->addr6);
        break;
    case RTM_NEWROUTE:
    case RTM_DELROUTE:
        ref_count_family(ev, msg, mlen, sizeof(struct rtmsg), &ev->route4, &ev->route6);
        if (type == RTM_NEWROUTE && mlen >= NLMSG_HDRLEN + sizeof(struct rtmsg)) {
            struct rtmsg rtm;
            memcpy(&rtm, msg + NLMSG_HDRLEN, sizeof(rtm));
            if (rtm.rtm_type == RTN_THROW)
                ev->throw_added++;    /* an added throw route, whatever its family */
        }
        break;
    case RTM_NEWRULE:
    case RTM_DELRULE:
        ref_count_family(ev, msg, mlen, sizeof(struct fib_rule_hdr), &ev->rule4, &ev->rule6);
        break;
    case RTM_NEWNEXTHOP:
    case RTM_DELNEXTHOP:
        if (mlen < NLMSG_HDRLEN + 8)    /* struct nhmsg */
            ev->malformed++;
        else
            ev->nexthop++;
        break;
    default:
        ev->other++;
        break;
    }
}

/* ------------------------------------------------------------------------ */
/* One datagram                                                              */

static uint64_t check_datagram(const uint8_t *buf, size_t len)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    creach_msg_iter it;
    const void *msg;
    size_t mlen, expect_off = 0;
    int r, count = 0;
    dump_state links, addrs;
    creach_events ev, ev2, ref;
    uint32_t sum;

    dump_init(&links, 1);
    dump_init(&addrs, 0);
    memset(&ref, 0, sizeof(ref));

    creach_msg_iter_init(&it, buf, len);
    CHECK(it.remaining == len);
    for (;;) {
        size_t before = it.remaining;

        errno = 0;
        r = creach_msg_next(&it, &msg, &mlen);
        if (r != 1)
            break;
        /* Messages are consecutive, inside the datagram, at least a header long. */
        CHECK((const uint8_t *)msg == buf + expect_off);
        CHECK(mlen >= NLMSG_HDRLEN && mlen <= len - expect_off);
        CHECK(it.remaining < before);
        CHECK(it.pos == buf + (len - it.remaining));
        expect_off = len - it.remaining;
        count++;
        ref_classify(&ref, msg, mlen);
        check_message(msg, mlen, len - (size_t)((const uint8_t *)msg - buf), &links, &addrs, &h);
    }
    CHECK(r == 0 || (r == -1 && errno == EBADMSG));
    if (r == 0)
        CHECK(it.remaining == 0);
    /* The end (or the break) is sticky. */
    CHECK(creach_msg_next(&it, &msg, &mlen) == r);
    mix_int(&h, r);
    mix_int(&h, count);

    /* The classifier sees the same messages. */
    memset(&ev, 0, sizeof(ev));
    errno = 0;
    r = creach_events_classify(buf, len, &ev);
    CHECK(r == (it.remaining == 0 ? count : -1));
    if (r < 0)
        CHECK(errno == EBADMSG);
    CHECK(ev.messages == (uint32_t)count);
    sum = ev.link + ev.addr4 + ev.addr6 + ev.route4 + ev.route6 + ev.rule4 + ev.rule6 + ev.nexthop + ev.other +
          ev.malformed;
    CHECK(sum == (uint32_t)count + (r < 0 ? 1u : 0u));
    CHECK(ev.deleted_count <= ev.link);
    if (r < 0)
        ref.malformed++;    /* the break */
    CHECK(memcmp(&ev, &ref, sizeof(ev)) == 0);
    /* Counts add up across datagrams. */
    ev2 = ev;
    CHECK(creach_events_classify(buf, len, &ev2) == r);
    CHECK(ev2.messages == 2 * ev.messages && ev2.malformed == 2 * ev.malformed &&
          ev2.deleted_count == 2 * ev.deleted_count && ev2.throw_added == 2 * ev.throw_added);
    for (uint32_t i = 0; i < ev.deleted_count && i < CREACH_EVENTS_MAX_DELETED; i++)
        CHECK(ev2.deleted[i] == ev.deleted[i]);
    mix(&h, &ev, sizeof(ev));

    /* Every parser on the raw bytes, framing unchecked (short, bad nlmsg_len). */
    {
        creach_route route;
        creach_link link;
        creach_addr addr;
        creach_rule rule;
        creach_neigh neigh;
        int32_t err;

        CHECK(creach_parse_route(buf, len, &route) <= 0);
        CHECK(creach_parse_rule(buf, len, &rule) <= 0);
        CHECK(creach_parse_link(buf, len, &link) <= 0);
        CHECK(creach_parse_addr(buf, len, &addr) <= 0);
        CHECK(creach_parse_neigh(buf, len, &neigh) <= 0);
        CHECK(creach_parse_error(buf, len, &err) <= 0);
        (void)creach_error_is_request_fault(buf, len);
    }
    return h;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *aligned = fuzz_dup(data, size);
    uint8_t *odd = malloc(size + 1);
    uint64_t h1, h2;

    CHECK(odd != NULL);
    if (size > 0)
        memcpy(odd + 1, data, size);
    h1 = check_datagram(aligned, size);
    h2 = check_datagram(odd + 1, size);
    CHECK(h1 == h2);
    free(aligned);
    free(odd);
    return 0;
}
