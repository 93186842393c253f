/*
 * link.c - RTM_GETLINK (one link, or a dump), the RTM_GETADDR dump, and the
 * dump walk every dump shares (creach_dump; route.c dumps routes and rules).
 */
#include "creach_internal.h"

#ifdef __linux__

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>

/* Statistics are most of a link message and we never read them. Kernels
 * that do not know the bit ignore it. */
static const uint32_t creach_link_ext_mask = RTEXT_FILTER_SKIP_STATS;

/* ------------------------------------------------------------------------ */
/* One link                                                                  */

static int creach_link_reply(void *ctx, const void *msg, size_t len)
{
    int32_t error;

    switch (creach_msg_type(msg)) {
    case NLMSG_ERROR:
        if (creach_parse_error(msg, len, &error) < 0)
            return -1;
        errno = error != 0 ? error : EPROTO;    /* ENODEV: no such link */
        return -1;
    case RTM_NEWLINK:
        if (creach_parse_link(msg, len, ctx) < 0)
            return -1;
        return CREACH_NL_DONE;
    default:
        errno = EPROTO;
        return -1;
    }
}

int creach_link_get(creach_nl *nl, int32_t ifindex, const char *name, void *buf, size_t buflen, creach_link *out)
{
    union {
        struct nlmsghdr h;
        uint8_t bytes[128];
    } req;
    struct ifinfomsg *ifi;

    if (out == NULL || ifindex < 0 || (ifindex == 0 && name == NULL)) {
        errno = EINVAL;
        return -1;
    }
    memset(out, 0, sizeof(*out));
    out->carrier = -1;

    memset(&req, 0, sizeof(req));
    req.h.nlmsg_len = NLMSG_LENGTH(sizeof(*ifi));
    req.h.nlmsg_type = RTM_GETLINK;
    req.h.nlmsg_flags = NLM_F_REQUEST;
    ifi = NLMSG_DATA(&req.h);
    ifi->ifi_family = AF_UNSPEC;
    ifi->ifi_index = ifindex;
    if (ifindex == 0) {
        size_t n = strnlen(name, CREACH_IFNAMSIZ);
        if (n == 0 || n >= CREACH_IFNAMSIZ) {
            errno = EINVAL;
            return -1;
        }
        if (creach_nl_put_attr(&req.h, sizeof(req), IFLA_IFNAME, name, n + 1) < 0)
            return -1;
    }
    if (creach_nl_put_attr(&req.h, sizeof(req), IFLA_EXT_MASK, &creach_link_ext_mask,
                           sizeof(creach_link_ext_mask)) < 0)
        return -1;

    if (creach_nl_exchange(nl, &req.h, buf, buflen, creach_link_reply, out) < 0) {
        int saved = errno;
        memset(out, 0, sizeof(*out));
        out->carrier = -1;
        errno = saved;
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Dumps                                                                     */

static int creach_dump_msg(void *ctx, const void *msg, size_t len)
{
    creach_dump_ctx *d = ctx;
    int32_t error;

    /* The kernel marks messages (and NLMSG_DONE) of a dump that raced with
     * a change; finish reading it, then report EAGAIN. */
    if (creach_msg_flags(msg) & NLM_F_DUMP_INTR)
        d->interrupted = 1;

    switch (creach_msg_type(msg)) {
    case NLMSG_DONE:
        /* NLMSG_DONE carries the dump's own error as an int. */
        if (len >= NLMSG_LENGTH(sizeof(int32_t))) {
            memcpy(&error, (const uint8_t *)msg + NLMSG_HDRLEN, sizeof(error));
            if (error < 0 && error != INT32_MIN) {
                errno = -error;
                return -1;
            }
        }
        return CREACH_NL_DONE;
    case NLMSG_ERROR:
        if (creach_parse_error(msg, len, &error) < 0)
            return -1;
        if (error == 0)
            return CREACH_NL_MORE;
        errno = error;
        return -1;
    default:
        break;
    }

    /* After the callback asked to stop, keep reading to NLMSG_DONE so the
     * next request on this socket does not find the dump still running. */
    if (d->stopped)
        return CREACH_NL_MORE;
    if (d->parse(msg, len, d->item) < 0) {
        d->skipped++;
        return CREACH_NL_MORE;
    }
    if (d->keep != NULL && !d->keep(d->item, d->keep_ctx))
        return CREACH_NL_MORE;
    d->count++;
    if (d->cb != NULL && d->cb(d->item, d->cb_ctx) != 0)
        d->stopped = 1;
    return CREACH_NL_MORE;
}

int creach_dump(creach_nl *nl, struct nlmsghdr *req, void *buf, size_t buflen, creach_dump_ctx *d,
                uint64_t *skipped)
{
    int r = creach_nl_exchange(nl, req, buf, buflen, creach_dump_msg, d);

    if (skipped != NULL)
        *skipped += d->skipped;
    if (r < 0)
        return -1;
    if (d->interrupted) {
        errno = EAGAIN;
        return -1;
    }
    return d->count;
}

/* Adapters keep the public callbacks typed while the walk is shared. */
static int creach_parse_link_any(const void *msg, size_t len, void *out)
{
    return creach_parse_link(msg, len, out);
}

static int creach_parse_addr_any(const void *msg, size_t len, void *out)
{
    return creach_parse_addr(msg, len, out);
}

typedef struct {
    creach_link_cb link_cb;
    creach_addr_cb addr_cb;
    void *ctx;
} creach_dump_user;

static int creach_link_cb_any(const void *item, void *ctx)
{
    const creach_dump_user *u = ctx;
    return u->link_cb(item, u->ctx);
}

static int creach_addr_cb_any(const void *item, void *ctx)
{
    const creach_dump_user *u = ctx;
    return u->addr_cb(item, u->ctx);
}

int creach_link_dump(creach_nl *nl, void *buf, size_t buflen, creach_link_cb cb, void *ctx, uint64_t *skipped)
{
    union {
        struct nlmsghdr h;
        uint8_t bytes[64];
    } req;
    struct ifinfomsg *ifi;
    creach_link item;
    creach_dump_user user = { .link_cb = cb, .ctx = ctx };
    creach_dump_ctx d = {
        .parse = creach_parse_link_any,
        .cb = cb != NULL ? creach_link_cb_any : NULL,
        .cb_ctx = &user,
        .item = &item,
    };

    memset(&req, 0, sizeof(req));
    req.h.nlmsg_len = NLMSG_LENGTH(sizeof(*ifi));
    req.h.nlmsg_type = RTM_GETLINK;
    req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
    ifi = NLMSG_DATA(&req.h);
    ifi->ifi_family = AF_UNSPEC;
    if (creach_nl_put_attr(&req.h, sizeof(req), IFLA_EXT_MASK, &creach_link_ext_mask,
                           sizeof(creach_link_ext_mask)) < 0)
        return -1;
    return creach_dump(nl, &req.h, buf, buflen, &d, skipped);
}

int creach_addr_dump(creach_nl *nl, uint8_t family, void *buf, size_t buflen, creach_addr_cb cb, void *ctx, uint64_t *skipped)
{
    union {
        struct nlmsghdr h;
        uint8_t bytes[64];
    } req;
    struct ifaddrmsg *ifa;
    creach_addr item;
    creach_dump_user user = { .addr_cb = cb, .ctx = ctx };
    creach_dump_ctx d = {
        .parse = creach_parse_addr_any,
        .cb = cb != NULL ? creach_addr_cb_any : NULL,
        .cb_ctx = &user,
        .item = &item,
    };

    if (family != AF_UNSPEC && family != AF_INET && family != AF_INET6) {
        errno = EINVAL;
        return -1;
    }
    memset(&req, 0, sizeof(req));
    req.h.nlmsg_len = NLMSG_LENGTH(sizeof(*ifa));
    req.h.nlmsg_type = RTM_GETADDR;
    req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
    ifa = NLMSG_DATA(&req.h);
    ifa->ifa_family = family;
    return creach_dump(nl, &req.h, buf, buflen, &d, skipped);
}

#endif /* __linux__ */
