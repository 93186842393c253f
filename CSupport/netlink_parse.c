/*
 * netlink_parse.c - pure rtnetlink parsers: bytes in, fixed structs out.
 *
 * No I/O and no allocation. The input may come from a fuzzer, so every
 * length read from the bytes is checked before it is used, and headers are
 * copied out with memcpy because the buffer need not be aligned.
 */
#include "creach_internal.h"

#ifdef __linux__

#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/fib_rules.h>
#include <linux/neighbour.h>

/* ------------------------------------------------------------------------ */
/* Messages                                                                  */

void creach_msg_iter_init(creach_msg_iter *it, const void *buf, size_t len)
{
    it->pos = buf;
    it->remaining = buf != NULL ? len : 0;
}

int creach_msg_next(creach_msg_iter *it, const void **msg, size_t *msg_len)
{
    struct nlmsghdr h;
    size_t step;

    if (it->remaining == 0)
        return 0;
    if (it->remaining < sizeof(h)) {
        errno = EBADMSG;
        return -1;
    }
    memcpy(&h, it->pos, sizeof(h));
    if (h.nlmsg_len < NLMSG_HDRLEN || h.nlmsg_len > it->remaining) {
        errno = EBADMSG;
        return -1;
    }
    *msg = it->pos;
    *msg_len = h.nlmsg_len;
    /* The last message of a datagram may omit its alignment padding. */
    step = creach_nl_align((size_t)h.nlmsg_len);
    if (step > it->remaining)
        step = it->remaining;
    it->pos += step;
    it->remaining -= step;
    return 1;
}

uint16_t creach_msg_type(const void *msg)
{
    struct nlmsghdr h;
    memcpy(&h, msg, sizeof(h));
    return h.nlmsg_type;
}

uint32_t creach_msg_seq(const void *msg)
{
    struct nlmsghdr h;
    memcpy(&h, msg, sizeof(h));
    return h.nlmsg_seq;
}

uint16_t creach_msg_flags(const void *msg)
{
    struct nlmsghdr h;
    memcpy(&h, msg, sizeof(h));
    return h.nlmsg_flags;
}

/*
 * creach_msg_body - check the message header and locate the family header
 * (@fixed bytes) and the attributes after it.
 * The type test comes before the size test so that a message of another
 * kind is EPROTO even when it is shorter than the expected family header.
 */
static int creach_msg_body(const void *msg, size_t len, uint16_t type_a, uint16_t type_b,
                           size_t fixed, const uint8_t **body, const uint8_t **attrs,
                           size_t *attrs_len)
{
    struct nlmsghdr h;
    size_t off;

    if (msg == NULL || len < sizeof(h)) {
        errno = EBADMSG;
        return -1;
    }
    memcpy(&h, msg, sizeof(h));
    if (h.nlmsg_len < NLMSG_HDRLEN || h.nlmsg_len > len) {
        errno = EBADMSG;
        return -1;
    }
    if (h.nlmsg_type != type_a && h.nlmsg_type != type_b) {
        errno = EPROTO;
        return -1;
    }
    len = h.nlmsg_len;
    if (len - NLMSG_HDRLEN < fixed) {
        errno = EBADMSG;
        return -1;
    }
    *body = (const uint8_t *)msg + NLMSG_HDRLEN;
    off = NLMSG_HDRLEN + creach_nl_align(fixed);
    if (off > len)      /* family header present but its padding is not */
        off = len;
    *attrs = (const uint8_t *)msg + off;
    *attrs_len = len - off;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Attributes                                                                */

/* One slot per attribute type: the payload of the last occurrence. */
typedef struct {
    const uint8_t *data;
    size_t len;
    uint8_t present;
} creach_attr;

/*
 * creach_attr_parse - the one attribute walker (libmnl's mnl_attr_parse
 * idea): check each rtattr against the bytes left, then index it by type.
 * Types above @max are skipped (newer kernels add attributes); the nested
 * and byte-order flag bits are not part of the type. 1..3 stray bytes
 * after the last attribute are a truncated header: EBADMSG.
 */
static int creach_attr_parse(const uint8_t *p, size_t len, creach_attr *tb, size_t max)
{
    memset(tb, 0, (max + 1) * sizeof(*tb));
    while (len > 0) {
        struct rtattr a;
        size_t type, step;

        if (len < sizeof(a)) {
            errno = EBADMSG;
            return -1;
        }
        memcpy(&a, p, sizeof(a));
        if (a.rta_len < sizeof(a) || a.rta_len > len) {
            errno = EBADMSG;
            return -1;
        }
        type = (uint16_t)(a.rta_type & NLA_TYPE_MASK);
        if (type <= max) {
            tb[type].data = p + sizeof(a);
            tb[type].len = a.rta_len - sizeof(a);
            tb[type].present = 1;
        }
        step = RTA_ALIGN((size_t)a.rta_len);
        if (step > len)    /* the last attribute may omit its padding */
            step = len;
        p += step;
        len -= step;
    }
    return 0;
}

static int creach_attr_u32(const creach_attr *a, uint32_t *out)
{
    if (!a->present)
        return 0;
    if (a->len != sizeof(uint32_t)) {
        errno = EBADMSG;
        return -1;
    }
    memcpy(out, a->data, sizeof(uint32_t));
    return 0;
}

static int creach_attr_u8(const creach_attr *a, uint8_t *out)
{
    if (!a->present)
        return 0;
    if (a->len != sizeof(uint8_t)) {
        errno = EBADMSG;
        return -1;
    }
    *out = a->data[0];
    return 0;
}

static size_t creach_family_addr_len(int family)
{
    return family == AF_INET ? 4 : family == AF_INET6 ? 16 : 0;
}

/* An address of @family: exactly 4 or 16 bytes. */
static int creach_attr_addr(const creach_attr *a, int family, uint8_t out[16])
{
    size_t n = creach_family_addr_len(family);

    if (!a->present)
        return 0;
    if (n == 0 || a->len != n) {
        errno = EBADMSG;
        return -1;
    }
    memcpy(out, a->data, n);
    return 0;
}

/*
 * A name that must be a C string inside its payload and fit @outlen with
 * its NUL; never truncated, since a cut name would name another interface.
 */
static int creach_attr_name(const creach_attr *a, char *out, size_t outlen)
{
    size_t n;

    if (!a->present)
        return 0;
    n = strnlen((const char *)a->data, a->len);
    if (n == a->len || n >= outlen) {
        errno = EBADMSG;
        return -1;
    }
    memcpy(out, a->data, n);
    out[n] = '\0';
    return 0;
}

/* ------------------------------------------------------------------------ */
/* NLMSG_ERROR                                                               */

int creach_parse_error(const void *msg, size_t len, int32_t *error)
{
    const uint8_t *body, *attrs;
    size_t attrs_len;
    struct nlmsgerr e;

    if (creach_msg_body(msg, len, NLMSG_ERROR, NLMSG_ERROR, sizeof(e), &body, &attrs, &attrs_len) < 0)
        return -1;
    memcpy(&e, body, sizeof(e));
    if (e.error == INT32_MIN) {   /* no positive errno for it */
        errno = EBADMSG;
        return -1;
    }
    *error = e.error < 0 ? -e.error : e.error;
    return 0;
}

bool creach_error_is_request_fault(const void *msg, size_t len)
{
    const uint8_t *body, *attrs;
    size_t attrs_len, off;
    struct nlmsghdr h;
    struct nlmsgerr e;
    creach_attr tb[NLMSGERR_ATTR_MAX + 1];

    if (creach_msg_body(msg, len, NLMSG_ERROR, NLMSG_ERROR, sizeof(e), &body, &attrs, &attrs_len) < 0)
        return false;
    memcpy(&h, msg, sizeof(h));
    if (!(h.nlmsg_flags & NLM_F_ACK_TLVS))
        return false;
    memcpy(&e, body, sizeof(e));
    /* The TLVs follow the echoed request, or just its header when capped. */
    off = NLMSG_HDRLEN + sizeof(e);
    if (!(h.nlmsg_flags & NLM_F_CAPPED)) {
        /* An echoed request longer than the room after the error int leaves
         * no room for TLVs. Compared before any sum: with a 32-bit size_t,
         * sizeof(e.error) + an echoed length near UINT32_MAX wraps to a small
         * offset (creach_msg_body checked nlmsg_len >= NLMSG_HDRLEN + sizeof(e)). */
        if (e.msg.nlmsg_len < sizeof(e.msg) || e.msg.nlmsg_len > h.nlmsg_len - NLMSG_HDRLEN - sizeof(e.error))
            return false;
        off = NLMSG_HDRLEN + creach_nl_align(sizeof(e.error) + (size_t)e.msg.nlmsg_len);
    }
    if (off > h.nlmsg_len)
        return false;
    if (creach_attr_parse((const uint8_t *)msg + off, h.nlmsg_len - off, tb, NLMSGERR_ATTR_MAX) < 0)
        return false;
    return tb[NLMSGERR_ATTR_MSG].present || tb[NLMSGERR_ATTR_OFFS].present
#ifdef NLMSGERR_ATTR_MISS_TYPE
        || tb[NLMSGERR_ATTR_MISS_TYPE].present
#endif
        ;
}

/* ------------------------------------------------------------------------ */
/* Routes                                                                    */

int creach_parse_route(const void *msg, size_t len, creach_route *out)
{
    const uint8_t *body, *attrs;
    size_t attrs_len;
    struct rtmsg rtm;
    creach_attr tb[RTA_MAX + 1];
    uint32_t u;

    memset(out, 0, sizeof(*out));
    if (creach_msg_body(msg, len, RTM_NEWROUTE, RTM_DELROUTE, sizeof(rtm), &body, &attrs, &attrs_len) < 0)
        return -1;
    memcpy(&rtm, body, sizeof(rtm));
    if (rtm.rtm_family != AF_INET && rtm.rtm_family != AF_INET6) {
        errno = EPROTO;
        return -1;
    }
    if (creach_attr_parse(attrs, attrs_len, tb, RTA_MAX) < 0)
        goto bad;

    out->family = rtm.rtm_family;
    out->dst_len = rtm.rtm_dst_len;
    out->type = rtm.rtm_type;
    out->scope = rtm.rtm_scope;
    out->protocol = rtm.rtm_protocol;
    out->tos = rtm.rtm_tos;
    out->flags = rtm.rtm_flags;
    out->table = rtm.rtm_table;

    if (creach_attr_addr(&tb[RTA_DST], rtm.rtm_family, out->dst) < 0 ||
        creach_attr_addr(&tb[RTA_PREFSRC], rtm.rtm_family, out->prefsrc) < 0 ||
        creach_attr_addr(&tb[RTA_GATEWAY], rtm.rtm_family, out->gateway) < 0 ||
        creach_attr_u32(&tb[RTA_TABLE], &out->table) < 0 ||
        creach_attr_u32(&tb[RTA_UID], &out->uid) < 0 ||
        creach_attr_u32(&tb[RTA_MARK], &out->mark) < 0)
        goto bad;
    out->has_prefsrc = tb[RTA_PREFSRC].present;
    if (tb[RTA_GATEWAY].present) {
        out->has_gateway = 1;
        out->gateway_family = rtm.rtm_family;
    }
    if (tb[RTA_OIF].present) {
        u = 0;
        if (creach_attr_u32(&tb[RTA_OIF], &u) < 0)
            goto bad;
        out->oif = (int32_t)u;
    }
    if (tb[RTA_VIA].present && !tb[RTA_GATEWAY].present) {
        /* struct rtvia: a family, then an address of that family's size. */
        const creach_attr *a = &tb[RTA_VIA];
        uint16_t vfam;
        size_t n;

        if (a->len < sizeof(vfam))
            goto bad;
        memcpy(&vfam, a->data, sizeof(vfam));
        n = creach_family_addr_len(vfam);
        if (n == 0) {
            memset(out, 0, sizeof(*out));
            errno = EPROTO;
            return -1;
        }
        if (a->len != sizeof(vfam) + n)
            goto bad;
        memcpy(out->gateway, a->data + sizeof(vfam), n);
        out->has_gateway = 1;
        out->gateway_family = (uint8_t)vfam;
    }
    return 0;

bad:
    memset(out, 0, sizeof(*out));
    errno = EBADMSG;
    return -1;
}

/* ------------------------------------------------------------------------ */
/* Policy rules                                                              */

/* Attribute types up to here are read (FRA_MAX is about 30 today); a rule
 * carrying a type this file does not decode is flagged, not misread. */
#define CREACH_FRA_PARSE_MAX 63
#define CREACH_FRA_DPORT_RANGE 24   /* the last type of Debian 12's uapi header */

int creach_parse_rule(const void *msg, size_t len, creach_rule *out)
{
    const uint8_t *body, *attrs;
    size_t attrs_len, addr_bits;
    struct fib_rule_hdr frh;
    creach_attr tb[CREACH_FRA_PARSE_MAX + 1];
    uint32_t suppress_prefixlen = UINT32_MAX, suppress_ifgroup = UINT32_MAX;
    static const uint16_t undecoded[] = { FRA_TUN_ID, FRA_L3MDEV, FRA_IP_PROTO, FRA_SPORT_RANGE, FRA_DPORT_RANGE };

    memset(out, 0, sizeof(*out));
    if (creach_msg_body(msg, len, RTM_NEWRULE, RTM_DELRULE, sizeof(frh), &body, &attrs, &attrs_len) < 0)
        return -1;
    memcpy(&frh, body, sizeof(frh));
    if (frh.family != AF_INET && frh.family != AF_INET6) {
        errno = EPROTO;
        return -1;
    }
    addr_bits = creach_family_addr_len(frh.family) * 8;
    if (frh.dst_len > addr_bits || frh.src_len > addr_bits)
        goto bad;
    if (creach_attr_parse(attrs, attrs_len, tb, CREACH_FRA_PARSE_MAX) < 0)
        goto bad;

    out->family = frh.family;
    out->action = frh.action;
    out->dst_len = frh.dst_len;
    out->src_len = frh.src_len;
    out->tos = frh.tos;
    out->flags = frh.flags;
    out->table = frh.table;
    if (creach_attr_addr(&tb[FRA_SRC], frh.family, out->src) < 0 ||
        creach_attr_addr(&tb[FRA_DST], frh.family, out->dst) < 0 ||
        creach_attr_name(&tb[FRA_IIFNAME], out->iifname, sizeof(out->iifname)) < 0 ||
        creach_attr_name(&tb[FRA_OIFNAME], out->oifname, sizeof(out->oifname)) < 0 ||
        creach_attr_u32(&tb[FRA_TABLE], &out->table) < 0 ||
        creach_attr_u32(&tb[FRA_PRIORITY], &out->priority) < 0 ||
        creach_attr_u32(&tb[FRA_GOTO], &out->goto_target) < 0 ||
        creach_attr_u32(&tb[FRA_FWMARK], &out->fwmark) < 0 ||
        creach_attr_u32(&tb[FRA_FWMASK], &out->fwmask) < 0)
        goto bad;
    if (tb[FRA_UID_RANGE].present) {
        uint32_t range[2];

        if (tb[FRA_UID_RANGE].len != sizeof(range))
            goto bad;
        memcpy(range, tb[FRA_UID_RANGE].data, sizeof(range));
        out->uid_start = range[0];
        out->uid_end = range[1];
        out->has_uid_range = 1;
    }
    /* Kernels send both with every rule, -1 meaning "not set". */
    if (creach_attr_u32(&tb[FRA_SUPPRESS_PREFIXLEN], &suppress_prefixlen) < 0 ||
        creach_attr_u32(&tb[FRA_SUPPRESS_IFGROUP], &suppress_ifgroup) < 0)
        goto bad;
    out->has_suppress = suppress_prefixlen != UINT32_MAX || suppress_ifgroup != UINT32_MAX;
    for (size_t i = 0; i < sizeof(undecoded) / sizeof(undecoded[0]); i++)
        if (tb[undecoded[i]].present)
            out->other_selectors = 1;
    for (size_t t = CREACH_FRA_DPORT_RANGE + 1; t <= CREACH_FRA_PARSE_MAX; t++)
        if (tb[t].present)
            out->other_selectors = 1;
    return 0;

bad:
    memset(out, 0, sizeof(*out));
    errno = EBADMSG;
    return -1;
}

/* ------------------------------------------------------------------------ */
/* Links                                                                     */

int creach_parse_link(const void *msg, size_t len, creach_link *out)
{
    const uint8_t *body, *attrs;
    size_t attrs_len;
    struct ifinfomsg ifi;
    creach_attr tb[IFLA_MAX + 1];
    uint32_t u;

    memset(out, 0, sizeof(*out));
    out->carrier = -1;
    if (creach_msg_body(msg, len, RTM_NEWLINK, RTM_DELLINK, sizeof(ifi), &body, &attrs, &attrs_len) < 0)
        return -1;
    memcpy(&ifi, body, sizeof(ifi));
    if (creach_attr_parse(attrs, attrs_len, tb, IFLA_MAX) < 0)
        goto bad;

    out->index = ifi.ifi_index;
    out->type = ifi.ifi_type;
    out->flags = ifi.ifi_flags;
    if (creach_attr_name(&tb[IFLA_IFNAME], out->name, sizeof(out->name)) < 0 ||
        creach_attr_u32(&tb[IFLA_MTU], &out->mtu) < 0 ||
        creach_attr_u8(&tb[IFLA_OPERSTATE], &out->operstate) < 0 ||
        creach_attr_u8(&tb[IFLA_LINKMODE], &out->linkmode) < 0)
        goto bad;
    if (tb[IFLA_CARRIER].present) {
        uint8_t c = 0;
        if (creach_attr_u8(&tb[IFLA_CARRIER], &c) < 0)
            goto bad;
        out->carrier = c != 0;
    }
    u = 0;
    if (creach_attr_u32(&tb[IFLA_LINK], &u) < 0)
        goto bad;
    out->link = (int32_t)u;
    u = 0;
    if (creach_attr_u32(&tb[IFLA_MASTER], &u) < 0)
        goto bad;
    out->master = (int32_t)u;

    if (tb[IFLA_LINKINFO].present) {
        creach_attr info[IFLA_INFO_MAX + 1];
        const creach_attr *k = &info[IFLA_INFO_KIND];
        size_t n;

        if (creach_attr_parse(tb[IFLA_LINKINFO].data, tb[IFLA_LINKINFO].len, info, IFLA_INFO_MAX) < 0)
            goto bad;
        if (k->present) {
            /* The kernel sends the kind with its NUL; tolerate its absence. */
            n = strnlen((const char *)k->data, k->len);
            if (n >= sizeof(out->kind))
                goto bad;
            memcpy(out->kind, k->data, n);
            out->kind[n] = '\0';
        }
    }
    return 0;

bad:
    memset(out, 0, sizeof(*out));
    out->carrier = -1;
    errno = EBADMSG;
    return -1;
}

/* ------------------------------------------------------------------------ */
/* Addresses                                                                 */

int creach_parse_addr(const void *msg, size_t len, creach_addr *out)
{
    const uint8_t *body, *attrs;
    size_t attrs_len;
    struct ifaddrmsg ifa;
    creach_attr tb[IFA_MAX + 1];
    uint8_t local[16] = {0}, address[16] = {0};

    memset(out, 0, sizeof(*out));
    if (creach_msg_body(msg, len, RTM_NEWADDR, RTM_DELADDR, sizeof(ifa), &body, &attrs, &attrs_len) < 0)
        return -1;
    memcpy(&ifa, body, sizeof(ifa));
    if (ifa.ifa_family != AF_INET && ifa.ifa_family != AF_INET6) {
        errno = EPROTO;
        return -1;
    }
    if (creach_attr_parse(attrs, attrs_len, tb, IFA_MAX) < 0)
        goto bad;

    out->index = (int32_t)ifa.ifa_index;
    out->family = ifa.ifa_family;
    out->prefixlen = ifa.ifa_prefixlen;
    out->scope = ifa.ifa_scope;
    out->flags = ifa.ifa_flags;
    if (creach_attr_addr(&tb[IFA_LOCAL], ifa.ifa_family, local) < 0 ||
        creach_attr_addr(&tb[IFA_ADDRESS], ifa.ifa_family, address) < 0 ||
        creach_attr_u32(&tb[IFA_FLAGS], &out->flags) < 0 ||
        creach_attr_name(&tb[IFA_LABEL], out->label, sizeof(out->label)) < 0)
        goto bad;

    if (tb[IFA_LOCAL].present) {
        memcpy(out->address, local, sizeof(local));
        if (tb[IFA_ADDRESS].present && memcmp(local, address, sizeof(local)) != 0) {
            out->has_peer = 1;
            memcpy(out->peer, address, sizeof(address));
        }
    } else {
        memcpy(out->address, address, sizeof(address));
    }
    return 0;

bad:
    memset(out, 0, sizeof(*out));
    errno = EBADMSG;
    return -1;
}

int creach_parse_neigh(const void *msg, size_t len, creach_neigh *out)
{
    const uint8_t *body, *attrs;
    size_t attrs_len;
    struct ndmsg nd;
    struct nlmsghdr h;
    creach_attr tb[NDA_MAX + 1];

    memset(out, 0, sizeof(*out));
    if (creach_msg_body(msg, len, RTM_NEWNEIGH, RTM_DELNEIGH, sizeof(nd), &body, &attrs, &attrs_len) < 0)
        return -1;
    memcpy(&nd, body, sizeof(nd));
    if (nd.ndm_family != AF_INET && nd.ndm_family != AF_INET6) {
        errno = EPROTO;
        return -1;
    }
    if (creach_attr_parse(attrs, attrs_len, tb, NDA_MAX) < 0 ||
        creach_attr_addr(&tb[NDA_DST], nd.ndm_family, out->address) < 0) {
        memset(out, 0, sizeof(*out));
        errno = EBADMSG;
        return -1;
    }
    out->index = nd.ndm_ifindex;
    out->family = nd.ndm_family;
    out->state = nd.ndm_state;
    out->has_address = tb[NDA_DST].present ? 1 : 0;
    memcpy(&h, msg, sizeof(h));     /* creach_msg_body checked its length */
    out->deleted = h.nlmsg_type == RTM_DELNEIGH;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Notifications                                                             */

/* The family byte opens ifaddrmsg, rtmsg and fib_rule_hdr alike; the
 * message must still hold its whole family header (@fixed bytes). */
static void creach_events_count_family(creach_events *ev, const uint8_t *msg, size_t len, size_t fixed,
                                       uint32_t *v4, uint32_t *v6)
{
    if (len < NLMSG_HDRLEN + fixed) {
        ev->malformed++;
        return;
    }
    switch (msg[NLMSG_HDRLEN]) {
    case AF_INET:
        (*v4)++;
        break;
    case AF_INET6:
        (*v6)++;
        break;
    default:
        ev->other++;
        break;
    }
}

int creach_events_classify(const void *buf, size_t len, creach_events *ev)
{
    creach_msg_iter it;
    const void *msg;
    size_t mlen;
    int count = 0, r;

    if (ev == NULL) {
        errno = EINVAL;
        return -1;
    }
    creach_msg_iter_init(&it, buf, len);
    while ((r = creach_msg_next(&it, &msg, &mlen)) > 0) {
        count++;
        ev->messages++;
        switch (creach_msg_type(msg)) {
        case RTM_NEWLINK:
        case RTM_DELLINK: {
            struct ifinfomsg ifi;
            if (mlen < NLMSG_HDRLEN + sizeof(ifi)) {
                ev->malformed++;
                break;
            }
            memcpy(&ifi, (const uint8_t *)msg + NLMSG_HDRLEN, sizeof(ifi));
            /* A bridge's per-port message (AF_BRIDGE; its RTM_DELLINK means the
             * port left the bridge, not that a link was deleted). */
            if (ifi.ifi_family == AF_BRIDGE) {
                ev->other++;
                break;
            }
            ev->link++;
            if (creach_msg_type(msg) == RTM_DELLINK) {
                if (ev->deleted_count < CREACH_EVENTS_MAX_DELETED)
                    ev->deleted[ev->deleted_count] = ifi.ifi_index;
                if (ev->deleted_count < UINT32_MAX)
                    ev->deleted_count++;
            }
            break;
        }
        case RTM_NEWADDR:
        case RTM_DELADDR:
            creach_events_count_family(ev, msg, mlen, sizeof(struct ifaddrmsg), &ev->addr4, &ev->addr6);
            break;
        case RTM_NEWROUTE:
        case RTM_DELROUTE:
            creach_events_count_family(ev, msg, mlen, sizeof(struct rtmsg), &ev->route4, &ev->route6);
            /* rtm_type: the last byte of the 12-byte rtmsg. */
            if (creach_msg_type(msg) == RTM_NEWROUTE && mlen >= NLMSG_HDRLEN + sizeof(struct rtmsg) &&
                ((const uint8_t *)msg)[NLMSG_HDRLEN + offsetof(struct rtmsg, rtm_type)] == RTN_THROW)
                ev->throw_added++;
            break;
        case RTM_NEWRULE:
        case RTM_DELRULE:
            creach_events_count_family(ev, msg, mlen, sizeof(struct fib_rule_hdr), &ev->rule4, &ev->rule6);
            break;
        case RTM_NEWNEXTHOP:
        case RTM_DELNEXTHOP:
            /* struct nhmsg: 8 bytes (family, scope, protocol, resvd, flags). */
            if (mlen < NLMSG_HDRLEN + 8)
                ev->malformed++;
            else
                ev->nexthop++;
            break;
        default:
            ev->other++;
            break;
        }
    }
    if (r < 0) {
        ev->malformed++;
        return -1;
    }
    return count;
}

#endif /* __linux__ */
