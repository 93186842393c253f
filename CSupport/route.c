/*
 * route.c - RTM_GETROUTE: ask the kernel which route it would use. A lookup
 * sends no packet; the kernel only consults its FIB and rules. Also the
 * filtered route dump and the rule dump, which say why a lookup was refused.
 */
#include "creach_internal.h"

#ifdef __linux__

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/fib_rules.h>

typedef struct {
    uint8_t family;
    creach_route *out;
} creach_route_ctx;

static int creach_route_reply(void *ctx, const void *msg, size_t len)
{
    creach_route_ctx *c = ctx;
    int32_t error;

    switch (creach_msg_type(msg)) {
    case NLMSG_ERROR:
        if (creach_parse_error(msg, len, &error) < 0)
            return -1;
        if (error == 0) {           /* an ACK instead of an answer */
            errno = EPROTO;
            return -1;
        }
        /* Strict checking rejects a malformed request with EINVAL too:
         * that is our failure, not a blackhole route. */
        if (creach_error_is_request_fault(msg, len)) {
            errno = error;
            return -1;
        }
        memset(c->out, 0, sizeof(*c->out));
        c->out->error = error;
        c->out->family = c->family;
        return CREACH_NL_DONE;
    case RTM_NEWROUTE:
        if (creach_parse_route(msg, len, c->out) < 0)
            return -1;
        return CREACH_NL_DONE;
    default:
        errno = EPROTO;
        return -1;
    }
}

int creach_route_get(creach_nl *nl, const creach_route_query *q, void *buf, size_t buflen, creach_route *out)
{
    union {
        struct nlmsghdr h;
        uint8_t bytes[256];   /* header + rtmsg + 5 attributes < 128 bytes */
    } req;
    struct rtmsg *rtm;
    size_t alen;
    creach_route_ctx ctx;

    if (q == NULL || out == NULL) {
        errno = EINVAL;
        return -1;
    }
    memset(out, 0, sizeof(*out));
    if (q->family != AF_INET && q->family != AF_INET6) {
        errno = EINVAL;
        return -1;
    }
    alen = q->family == AF_INET ? 4 : 16;

    memset(&req, 0, sizeof(req));
    req.h.nlmsg_len = NLMSG_LENGTH(sizeof(*rtm));
    req.h.nlmsg_type = RTM_GETROUTE;
    req.h.nlmsg_flags = NLM_F_REQUEST;
    rtm = NLMSG_DATA(&req.h);
    rtm->rtm_family = q->family;
    rtm->rtm_dst_len = (uint8_t)(alen * 8);
    /* IPv4 reports the table of the matching route only when asked; IPv6
     * always does, and its strict validation rejects this flag (EINVAL). */
    if (q->family == AF_INET)
        rtm->rtm_flags = RTM_F_LOOKUP_TABLE;

    if (creach_nl_put_attr(&req.h, sizeof(req), RTA_DST, q->dst, alen) < 0)
        return -1;
    if (q->has_src) {
        rtm->rtm_src_len = (uint8_t)(alen * 8);
        if (creach_nl_put_attr(&req.h, sizeof(req), RTA_SRC, q->src, alen) < 0)
            return -1;
    }
    if (q->oif > 0) {
        uint32_t oif = (uint32_t)q->oif;
        if (creach_nl_put_attr(&req.h, sizeof(req), RTA_OIF, &oif, sizeof(oif)) < 0)
            return -1;
    }
    if (q->has_mark && creach_nl_put_attr(&req.h, sizeof(req), RTA_MARK, &q->mark, sizeof(q->mark)) < 0)
        return -1;
    if (q->has_uid && creach_nl_put_attr(&req.h, sizeof(req), RTA_UID, &q->uid, sizeof(q->uid)) < 0)
        return -1;

    ctx.family = q->family;
    ctx.out = out;
    if (creach_nl_exchange(nl, &req.h, buf, buflen, creach_route_reply, &ctx) < 0) {
        int saved = errno;
        memset(out, 0, sizeof(*out));
        errno = saved;
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Dumps                                                                     */

typedef struct {
    uint32_t table;
    uint8_t type;
    creach_route_cb route_cb;
    creach_rule_cb rule_cb;
    void *ctx;
} creach_route_filter;

static int creach_parse_route_any(const void *msg, size_t len, void *out)
{
    return creach_parse_route(msg, len, out);
}

static int creach_parse_rule_any(const void *msg, size_t len, void *out)
{
    return creach_parse_rule(msg, len, out);
}

/* What the kernel filters under strict checking, checked again for kernels
 * that send every route; cache entries are not routes of a table. */
static int creach_route_keep(const void *item, void *ctx)
{
    const creach_route *r = item;
    const creach_route_filter *f = ctx;

    return !(r->flags & RTM_F_CLONED) && (f->table == 0 || r->table == f->table) && (f->type == 0 || r->type == f->type);
}

static int creach_route_cb_any(const void *item, void *ctx)
{
    const creach_route_filter *f = ctx;
    return f->route_cb(item, f->ctx);
}

static int creach_rule_cb_any(const void *item, void *ctx)
{
    const creach_route_filter *f = ctx;
    return f->rule_cb(item, f->ctx);
}

int creach_route_dump(creach_nl *nl, uint8_t family, uint32_t table, uint8_t type, void *buf, size_t buflen,
                      creach_route_cb cb, void *ctx, uint64_t *skipped)
{
    union {
        struct nlmsghdr h;
        uint8_t bytes[64];
    } req;
    struct rtmsg *rtm;
    creach_route item;
    creach_route_filter filter = { .table = table, .type = type, .route_cb = cb, .ctx = ctx };
    creach_dump_ctx d = {
        .parse = creach_parse_route_any,
        .keep = creach_route_keep,
        .keep_ctx = &filter,
        .cb = cb != NULL ? creach_route_cb_any : NULL,
        .cb_ctx = &filter,
        .item = &item,
    };

    if (family != AF_INET && family != AF_INET6) {
        errno = EINVAL;
        return -1;
    }
    memset(&req, 0, sizeof(req));
    req.h.nlmsg_len = NLMSG_LENGTH(sizeof(*rtm));
    req.h.nlmsg_type = RTM_GETROUTE;
    req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
    rtm = NLMSG_DATA(&req.h);
    rtm->rtm_family = family;
    rtm->rtm_type = type;
    if (table != 0 && table < 256) {
        rtm->rtm_table = (uint8_t)table;
    } else if (table != 0) {
        if (creach_nl_put_attr(&req.h, sizeof(req), RTA_TABLE, &table, sizeof(table)) < 0)
            return -1;
    }
    return creach_dump(nl, &req.h, buf, buflen, &d, skipped);
}

int creach_rule_dump(creach_nl *nl, uint8_t family, void *buf, size_t buflen, creach_rule_cb cb, void *ctx, uint64_t *skipped)
{
    union {
        struct nlmsghdr h;
        uint8_t bytes[64];
    } req;
    struct fib_rule_hdr *frh;
    creach_rule item;
    creach_route_filter user = { .rule_cb = cb, .ctx = ctx };
    creach_dump_ctx d = {
        .parse = creach_parse_rule_any,
        .cb = cb != NULL ? creach_rule_cb_any : NULL,
        .cb_ctx = &user,
        .item = &item,
    };

    if (family != AF_INET && family != AF_INET6) {
        errno = EINVAL;
        return -1;
    }
    memset(&req, 0, sizeof(req));
    req.h.nlmsg_len = NLMSG_LENGTH(sizeof(*frh));
    req.h.nlmsg_type = RTM_GETRULE;
    req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
    frh = NLMSG_DATA(&req.h);
    frh->family = family;
    return creach_dump(nl, &req.h, buf, buflen, &d, skipped);
}

#endif /* __linux__ */
