/*
 * netlink_socket.c - the NETLINK_ROUTE socket and the one request/reply
 * exchange that route.c and link.c share.
 */
#include "creach_internal.h"

#include <stdatomic.h>
#include <stdbool.h>

#ifdef __linux__

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

/* ------------------------------------------------------------------------ */
/* Open / close                                                              */

/* Only socket() has to run inside the namespace: a socket keeps the netns it
 * was created in, so bind and setsockopt can happen on the calling thread. */
static int creach_nl_socket(void *arg)
{
    (void)arg;
    return socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
}

/* Optional options: an older kernel without them is not an error. */
static int creach_nl_setopt_optional(int fd, int opt)
{
    int one = 1;

    if (setsockopt(fd, SOL_NETLINK, opt, &one, sizeof(one)) < 0 && errno != ENOPROTOOPT)
        return -1;
    return 0;
}

int creach_nl_open(creach_nl *nl, uint32_t groups, int netns_fd)
{
    struct sockaddr_nl sa;
    socklen_t salen = sizeof(sa);
    int fd, saved;

    if (nl == NULL) {
        errno = EINVAL;
        return -1;
    }
    memset(nl, 0, sizeof(*nl));
    nl->fd = -1;

    fd = netns_fd >= 0 ? creach_netns_run(netns_fd, creach_nl_socket, NULL) : creach_nl_socket(NULL);
    if (fd < 0)
        return -1;

    memset(&sa, 0, sizeof(sa));
    sa.nl_family = AF_NETLINK;
    sa.nl_groups = groups;
    if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
        goto fail;
    if (getsockname(fd, (struct sockaddr *)&sa, &salen) < 0)
        goto fail;
    if (salen != sizeof(sa) || sa.nl_family != AF_NETLINK) {
        errno = EPROTO;
        goto fail;
    }
    /* EXT_ACK lets route_get tell a rejected request from a refused lookup;
     * CAP_ACK keeps error replies from echoing the whole request. */
    if (creach_nl_setopt_optional(fd, NETLINK_EXT_ACK) < 0 ||
        creach_nl_setopt_optional(fd, NETLINK_CAP_ACK) < 0 ||
        creach_nl_setopt_optional(fd, NETLINK_GET_STRICT_CHK) < 0)
        goto fail;
    if (groups == 0) {
        struct timeval tv = { .tv_sec = 5, .tv_usec = 0 };
        if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0)
            goto fail;
    }
    nl->fd = fd;
    nl->portid = sa.nl_pid;
    return 0;

fail:
    saved = errno;
    close(fd);
    errno = saved;
    return -1;
}

void creach_nl_close(creach_nl *nl)
{
    if (nl == NULL || nl->fd < 0)
        return;
    close(nl->fd);
    nl->fd = -1;
}

/* ------------------------------------------------------------------------ */
/* Requests                                                                  */

int creach_nl_put_attr(struct nlmsghdr *req, size_t cap, uint16_t type, const void *data, size_t len)
{
    struct rtattr a;
    size_t off = creach_nl_align((size_t)req->nlmsg_len);
    size_t total = RTA_LENGTH(len);

    if (len > UINT16_MAX - sizeof(a) || off > cap || RTA_ALIGN(total) > cap - off) {
        errno = EMSGSIZE;
        return -1;
    }
    a.rta_len = (unsigned short)total;
    a.rta_type = type;
    memcpy((uint8_t *)req + off, &a, sizeof(a));
    if (len > 0)
        memcpy((uint8_t *)req + off + sizeof(a), data, len);
    memset((uint8_t *)req + off + total, 0, RTA_ALIGN(total) - total);
    req->nlmsg_len = (uint32_t)(off + RTA_ALIGN(total));
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Exchange                                                                  */

/*
 * creach_nl_recv - one datagram from the kernel into @buf.
 * Datagrams from any other sender (a process can unicast to our portid)
 * are dropped and counted, never parsed.
 */
/* The fault seam (creach_nl_inject_recv_error): which socket, what errno, how many times. */
static _Atomic uint32_t creach_fault_portid;
static _Atomic int creach_fault_errno;
static _Atomic uint32_t creach_fault_count;

void creach_nl_inject_recv_error(uint32_t portid, int err, uint32_t count)
{
    atomic_store(&creach_fault_count, 0);
    atomic_store(&creach_fault_portid, portid);
    atomic_store(&creach_fault_errno, err);
    atomic_store(&creach_fault_count, err != 0 ? count : 0);
}

/* Whether this receive on @nl is one of the injected failures (errno set). */
static bool creach_fault_fires(const creach_nl *nl)
{
    uint32_t left = atomic_load_explicit(&creach_fault_count, memory_order_relaxed);

    while (left > 0 && nl->portid == atomic_load(&creach_fault_portid)) {
        if (atomic_compare_exchange_weak(&creach_fault_count, &left, left - 1)) {
            errno = atomic_load(&creach_fault_errno);
            return true;
        }
    }
    return false;
}

/*
 * Datagrams from other senders that one receive drops before it gives up
 * with ENOMSG: a local process flooding our port id must not keep the
 * caller in this loop (the event thread could then never see a stop).
 * A notification read drops one at a time, so each counts against the
 * caller's own drain bound; a request waits through this many.
 */
#define CREACH_NL_FOREIGN_PER_EVENT 1u
#define CREACH_NL_FOREIGN_PER_REPLY 4096u

static ssize_t creach_nl_recv(creach_nl *nl, void *buf, size_t buflen, int flags, unsigned max_foreign)
{
    unsigned foreign = 0;

    if (creach_fault_fires(nl))
        return -1;
    for (;;) {
        struct sockaddr_nl from;
        struct iovec iov = { .iov_base = buf, .iov_len = buflen };
        struct msghdr mh = {
            .msg_name = &from,
            .msg_namelen = sizeof(from),
            .msg_iov = &iov,
            .msg_iovlen = 1,
        };
        ssize_t n;

        memset(&from, 0, sizeof(from));
        n = recvmsg(nl->fd, &mh, flags);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                errno = (flags & MSG_DONTWAIT) ? EAGAIN : ETIMEDOUT;
            return -1;
        }
        if (mh.msg_namelen < sizeof(from) || from.nl_family != AF_NETLINK || from.nl_pid != 0) {
            nl->dropped_foreign++;
            if (++foreign >= max_foreign) {
                errno = ENOMSG;
                return -1;
            }
            continue;
        }
        if (mh.msg_flags & MSG_TRUNC) {
            errno = ENOSPC;
            return -1;
        }
        return n;
    }
}

/*
 * creach_nl_drain - read the rest of an abandoned dump without blocking.
 * The kernel produces the next dump datagram synchronously inside recvmsg,
 * so "nothing queued" means the dump is over (or was never started); a
 * dump left running would make the next dump request fail with EBUSY.
 */
static void creach_nl_drain(creach_nl *nl, void *buf, size_t buflen, uint32_t seq)
{
    for (;;) {
        creach_msg_iter it;
        const void *msg;
        size_t mlen;
        ssize_t n = creach_nl_recv(nl, buf, buflen, MSG_DONTWAIT, CREACH_NL_FOREIGN_PER_REPLY);

        if (n < 0) {
            if (errno == ENOSPC)
                continue;       /* lost, but the dump goes on */
            return;
        }
        creach_msg_iter_init(&it, buf, (size_t)n);
        while (creach_msg_next(&it, &msg, &mlen) > 0) {
            uint16_t type = creach_msg_type(msg);
            if (creach_msg_seq(msg) == seq && (type == NLMSG_DONE || type == NLMSG_ERROR))
                return;
        }
    }
}

int creach_nl_exchange(creach_nl *nl, struct nlmsghdr *req, void *buf, size_t buflen,
                       creach_nl_msg_fn fn, void *ctx)
{
    struct sockaddr_nl kernel;
    uint32_t seq;
    ssize_t n;
    int saved;

    if (nl == NULL || nl->fd < 0) {
        errno = EBADF;
        return -1;
    }
    if (req == NULL || buf == NULL || buflen < NLMSG_HDRLEN || fn == NULL) {
        errno = EINVAL;
        return -1;
    }

    /* Sequence 0 is what notifications carry: never use it for a request. */
    seq = ++nl->seq;
    if (seq == 0)
        seq = ++nl->seq;
    req->nlmsg_seq = seq;
    req->nlmsg_pid = 0;

    memset(&kernel, 0, sizeof(kernel));
    kernel.nl_family = AF_NETLINK;
    do {
        n = sendto(nl->fd, req, req->nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof(kernel));
    } while (n < 0 && errno == EINTR);
    if (n < 0)
        return -1;
    if ((size_t)n != req->nlmsg_len) {
        errno = EIO;
        return -1;
    }

    for (;;) {
        creach_msg_iter it;
        const void *msg;
        size_t mlen;
        int r;

        n = creach_nl_recv(nl, buf, buflen, 0, CREACH_NL_FOREIGN_PER_REPLY);
        if (n < 0)
            goto fail;
        if (n == 0) {
            errno = EBADMSG;
            goto fail;
        }
        creach_msg_iter_init(&it, buf, (size_t)n);
        while ((r = creach_msg_next(&it, &msg, &mlen)) > 0) {
            if (creach_msg_seq(msg) != seq) {
                nl->dropped_seq++;
                continue;
            }
            if (creach_msg_type(msg) == NLMSG_NOOP)
                continue;
            r = fn(ctx, msg, mlen);
            if (r < 0)
                goto fail;
            if (r == CREACH_NL_DONE)
                return 0;
        }
        if (r < 0)
            goto fail;
    }

fail:
    saved = errno;
    if (req->nlmsg_flags & NLM_F_DUMP)
        creach_nl_drain(nl, buf, buflen, seq);
    errno = saved;
    return -1;
}

/* ------------------------------------------------------------------------ */
/* Notifications                                                             */

int creach_nl_set_rcvbuf(creach_nl *nl, int bytes)
{
    if (nl == NULL || nl->fd < 0) {
        errno = EBADF;
        return -1;
    }
    if (bytes <= 0) {
        errno = EINVAL;
        return -1;
    }
    /* SO_RCVBUF alone is capped at rmem_max without a word: ask for more when allowed. */
    if (setsockopt(nl->fd, SOL_SOCKET, SO_RCVBUFFORCE, &bytes, sizeof(bytes)) < 0) {
        if (errno != EPERM)
            return -1;
        if (setsockopt(nl->fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof(bytes)) < 0)
            return -1;
    }
    return creach_nl_rcvbuf(nl);
}

int creach_nl_rcvbuf(const creach_nl *nl)
{
    int effective = 0;
    socklen_t len = sizeof(effective);

    if (nl == NULL || nl->fd < 0) {
        errno = EBADF;
        return -1;
    }
    if (getsockopt(nl->fd, SOL_SOCKET, SO_RCVBUF, &effective, &len) < 0)
        return -1;
    return effective;
}

long creach_nl_recv_event(creach_nl *nl, void *buf, size_t buflen)
{
    ssize_t n;

    if (nl == NULL || nl->fd < 0) {
        errno = EBADF;
        return -1;
    }
    if (buf == NULL || buflen < NLMSG_HDRLEN) {
        errno = EINVAL;
        return -1;
    }
    n = creach_nl_recv(nl, buf, buflen, MSG_DONTWAIT, CREACH_NL_FOREIGN_PER_EVENT);
    if (n < 0)
        return errno == EAGAIN ? 0 : -1;
    if (n == 0) {
        /* An empty datagram carries nothing; report it as malformed. */
        errno = EBADMSG;
        return -1;
    }
    return (long)n;
}

#endif /* __linux__ */
