/*
 * route.c - RTM_GETROUTE: ask the kernel which route it would use.
 * A lookup sends no packet; the kernel only consults its FIB and rules.
 */
#include "creach_internal.h"

#ifdef __linux__

#include <errno.h>
#include <string.h>
#include <sys/socket.h>

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

#endif /* __linux__ */
