/*
 * probe_socket.c - the sockets of active probes: ICMP echo (raw or ping
 * socket), TCP connect, an HTTP captive-portal check and a DNS query, each one
 * exchange bounded by a deadline on CLOCK_MONOTONIC.
 *
 * Sockets are created inside the caller's network namespace by a helper
 * thread (creach_netns_run), then bound to the interface, mark and source
 * from the calling thread: a socket keeps the namespace it was made in.
 * Packets are built and read by the pure functions of probe_parse.c into
 * caller-owned buffers; nothing here allocates.
 *
 * Contract as for route lookups: what happened to the probe (no answer, a
 * reset, an ICMP error, no route) is reported in creach_probe_result.error;
 * -1 is returned only for arguments the call cannot work with.
 */
#include "creach_internal.h"

#ifdef __linux__

#include <errno.h>
#include <fcntl.h>
#include <linux/errqueue.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------------------ */
/* Addresses and sockets                                                     */

typedef union {
    struct sockaddr sa;
    struct sockaddr_in in4;
    struct sockaddr_in6 in6;
    struct sockaddr_storage storage;
} creach_sockaddr;

static int creach_target_valid(const creach_probe_target *t)
{
    return t != NULL && (t->family == AF_INET || t->family == AF_INET6) &&
           memchr(t->ifname, '\0', sizeof(t->ifname)) != NULL;
}

static socklen_t creach_sockaddr_make(creach_sockaddr *sa, uint8_t family, const uint8_t *addr, uint16_t port,
                                      uint32_t scope_id)
{
    memset(sa, 0, sizeof(*sa));
    if (family == AF_INET) {
        sa->in4.sin_family = AF_INET;
        sa->in4.sin_port = htons(port);
        memcpy(&sa->in4.sin_addr, addr, 4);
        return sizeof(sa->in4);
    }
    sa->in6.sin6_family = AF_INET6;
    sa->in6.sin6_port = htons(port);
    sa->in6.sin6_scope_id = scope_id;
    memcpy(&sa->in6.sin6_addr, addr, 16);
    return sizeof(sa->in6);
}

/* Whether @sa (from recvfrom) is the address @addr of @family. */
static int creach_sockaddr_is(const creach_sockaddr *sa, socklen_t len, uint8_t family, const uint8_t *addr)
{
    if (family == AF_INET)
        return len >= sizeof(sa->in4) && sa->sa.sa_family == AF_INET && memcmp(&sa->in4.sin_addr, addr, 4) == 0;
    return len >= sizeof(sa->in6) && sa->sa.sa_family == AF_INET6 && memcmp(&sa->in6.sin6_addr, addr, 16) == 0;
}

typedef struct {
    int domain;
    int type;
    int protocol;
} creach_socket_spec;

static int creach_socket_create(void *arg)
{
    const creach_socket_spec *spec = arg;
    return socket(spec->domain, spec->type | SOCK_NONBLOCK | SOCK_CLOEXEC, spec->protocol);
}

/* An unconnected ping socket drops the ICMP errors about its echoes unless
 * asked for them: with IP_RECVERR / IPV6_RECVERR the kernel queues each on
 * the socket's error queue (read by creach_ping_error) and poll reports
 * POLLERR. */
static int creach_ping_recverr(int fd, uint8_t family)
{
    int on = 1;

    if (family == AF_INET)
        return setsockopt(fd, IPPROTO_IP, IP_RECVERR, &on, sizeof(on));
    return setsockopt(fd, IPPROTO_IPV6, IPV6_RECVERR, &on, sizeof(on));
}

/* DF on every packet, whatever path MTU the kernel has cached (ping -M probe):
 * a path-MTU probe must reach the wire at its size, not be cut down locally. */
static int creach_set_dont_fragment(int fd, uint8_t family)
{
    int value;

    if (family == AF_INET) {
        value = IP_PMTUDISC_PROBE;
        return setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &value, sizeof(value));
    }
    value = IPV6_PMTUDISC_PROBE;
    return setsockopt(fd, IPPROTO_IPV6, IPV6_MTU_DISCOVER, &value, sizeof(value));
}

int creach_probe_socket(int netns_fd, const creach_probe_target *t, int kind)
{
    creach_socket_spec spec;
    int fd, saved;

    if (!creach_target_valid(t)) {
        errno = EINVAL;
        return -1;
    }
    spec.domain = t->family == AF_INET ? AF_INET : AF_INET6;
    switch (kind) {
    case CREACH_PROBE_ICMP_RAW:
        spec.type = SOCK_RAW;
        spec.protocol = t->family == AF_INET ? IPPROTO_ICMP : IPPROTO_ICMPV6;
        break;
    case CREACH_PROBE_ICMP_DGRAM:
        spec.type = SOCK_DGRAM;
        spec.protocol = t->family == AF_INET ? IPPROTO_ICMP : IPPROTO_ICMPV6;
        break;
    case CREACH_PROBE_TCP:
        spec.type = SOCK_STREAM;
        spec.protocol = IPPROTO_TCP;
        break;
    case CREACH_PROBE_UDP:
        spec.type = SOCK_DGRAM;
        spec.protocol = IPPROTO_UDP;
        break;
    default:
        errno = EINVAL;
        return -1;
    }
    fd = netns_fd >= 0 ? creach_netns_run(netns_fd, creach_socket_create, &spec) : creach_socket_create(&spec);
    if (fd < 0)
        return -1;
    if (kind == CREACH_PROBE_ICMP_DGRAM && creach_ping_recverr(fd, t->family) < 0)
        goto fail;
    if (t->ifname[0] != '\0' &&
        setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, t->ifname, (socklen_t)strlen(t->ifname)) < 0)
        goto fail;
    if (t->has_mark && setsockopt(fd, SOL_SOCKET, SO_MARK, &t->mark, sizeof(t->mark)) < 0)
        goto fail;
    if (t->dont_fragment && creach_set_dont_fragment(fd, t->family) < 0)
        goto fail;
    if (t->has_src) {
        creach_sockaddr src;
        socklen_t len = creach_sockaddr_make(&src, t->family, t->src, 0, t->scope_id);

        if (bind(fd, &src.sa, len) < 0)
            goto fail;
    }
    return fd;

fail:
    saved = errno;
    close(fd);
    errno = saved;
    return -1;
}

/* ------------------------------------------------------------------------ */
/* Waiting                                                                   */

enum {
    CREACH_IO_TIMEOUT = 0,
    CREACH_IO_CANCELED = -2,
};

/* Wait for @events on @fd until @deadline (CLOCK_MONOTONIC ns) or @wake_fd.
 * Returns the revents of @fd (> 0), CREACH_IO_TIMEOUT, CREACH_IO_CANCELED,
 * or -1 with errno. */
static int creach_wait_io(int fd, short events, int wake_fd, uint64_t deadline)
{
    for (;;) {
        struct pollfd fds[2] = {
            { .fd = fd, .events = events, .revents = 0 },
            { .fd = wake_fd, .events = POLLIN, .revents = 0 },
        };
        uint64_t now = creach_monotonic_ns();
        struct timespec ts;
        int r;

        if (now >= deadline)
            return CREACH_IO_TIMEOUT;
        ts = creach_timespec_ns(deadline - now);
        r = ppoll(fds, wake_fd >= 0 ? 2 : 1, &ts, NULL);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (wake_fd >= 0 && (fds[1].revents & POLLIN))
            return CREACH_IO_CANCELED;
        if (fds[0].revents & POLLNVAL) {
            errno = EBADF;
            return -1;
        }
        if (fds[0].revents != 0)
            return fds[0].revents;
    }
}

static uint64_t creach_deadline(int64_t timeout_ns)
{
    uint64_t now = creach_monotonic_ns();
    return timeout_ns <= 0 ? now : now + (uint64_t)timeout_ns;
}

/* The pending error of a socket (SO_ERROR), or @fallback when none is set. */
static int creach_socket_error(int fd, int fallback)
{
    int err = 0;
    socklen_t len = sizeof(err);

    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0 || err == 0)
        return fallback;
    return err;
}

/* Finish *out for a wait that did not end in an answer. */
static int creach_io_outcome(creach_probe_result *out, int waited, int error_if_timeout)
{
    if (waited == CREACH_IO_CANCELED)
        out->error = ECANCELED;
    else if (waited == CREACH_IO_TIMEOUT)
        out->error = error_if_timeout;
    else
        out->error = errno;
    return 0;
}

static void creach_result_init(creach_probe_result *out)
{
    memset(out, 0, sizeof(*out));
}

/* ------------------------------------------------------------------------ */
/* ICMP echo                                                                 */

/* The ICMP error of a raw socket, as the errno a connected socket would get. */
static int32_t creach_icmp_error_errno(uint8_t family, const creach_icmp_info *info)
{
    if (family == AF_INET && info->type == 3 && info->code == 0)
        return ENETUNREACH;             /* net unreachable */
    if (family == AF_INET6 && info->type == 1 && info->code == 0)
        return ENETUNREACH;             /* no route to destination */
    if ((family == AF_INET && info->type == 3 && info->code == 4) || (family == AF_INET6 && info->type == 2))
        return EMSGSIZE;                /* fragmentation needed / packet too big: path MTU discovery works */
    return EHOSTUNREACH;
}

/* What creach_ping_error found on a ping socket's error queue. */
enum {
    CREACH_PING_ERR_NONE = 0,   /* the queue was empty */
    CREACH_PING_ERR_OTHERS = 1, /* it held only errors about other packets (counted in out->ignored) */
    CREACH_PING_ERR_OURS = 2,   /* an ICMP error about our echo: *ee */
};

/* Whether one error-queue entry of a ping socket (@msg, @n bytes of data
 * read) is an ICMP error about our echo request, and then its extended
 * error in *ee. The data is the offending packet from its ICMP header (the
 * kernel pulls the error to the quoted echo; it routes errors to the socket
 * whose identifier the quote carries), msg_name its destination, and the
 * IP_RECVERR / IPV6_RECVERR control message the error: origin ICMP / ICMP6
 * and a nonzero errno. A quote too short to check is not ours. */
static int creach_ping_error_is_ours(const struct msghdr *msg, size_t n, const creach_probe_target *t, uint16_t seq,
                                     struct sock_extended_err *ee)
{
    const uint8_t *quote = msg->msg_iov[0].iov_base;
    const uint8_t *control = msg->msg_control;
    int level = t->family == AF_INET ? IPPROTO_IP : IPPROTO_IPV6;
    int type = t->family == AF_INET ? IP_RECVERR : IPV6_RECVERR;
    uint8_t origin = t->family == AF_INET ? SO_EE_ORIGIN_ICMP : SO_EE_ORIGIN_ICMP6;
    uint8_t echo_request = t->family == AF_INET ? 8 : 128;
    struct cmsghdr *cm;

    if (n < CREACH_ICMP_ECHO_HDRLEN || n > msg->msg_iov[0].iov_len || quote[0] != echo_request || quote[1] != 0 ||
        (uint16_t)(quote[6] << 8 | quote[7]) != seq)
        return 0;
    if (!creach_sockaddr_is(msg->msg_name, msg->msg_namelen, t->family, t->dst))
        return 0;
    /* CMSG_NXTHDR stops at msg_controllen (as the kernel set it, cut with
     * MSG_CTRUNC when the buffer was short); each header's own length is
     * checked against what is left before its data is read. */
    for (cm = CMSG_FIRSTHDR((struct msghdr *)msg); cm != NULL; cm = CMSG_NXTHDR((struct msghdr *)msg, cm)) {
        size_t left = msg->msg_controllen - (size_t)((const uint8_t *)cm - control);

        if (cm->cmsg_len < sizeof(*cm) || cm->cmsg_len > left)
            return 0;
        if (cm->cmsg_level != level || cm->cmsg_type != type)
            continue;
        if (cm->cmsg_len < CMSG_LEN(sizeof(*ee)))
            return 0;
        memcpy(ee, CMSG_DATA(cm), sizeof(*ee));
        return ee->ee_origin == origin && ee->ee_errno != 0;
    }
    return 0;
}

/* Entries creach_ping_error reads at most before the caller waits again
 * (and checks its deadline): a flood of errors about other packets cannot
 * hold the probe past its timeout; the rest keep POLLERR up. */
#define CREACH_PING_ERR_BATCH 16

/* Read the error queue of the ping socket @fd (IP_RECVERR) until it holds an
 * ICMP error about our echo @seq to @t, is empty, or CREACH_PING_ERR_BATCH
 * entries were read; @buf receives the quoted packets. Returns a
 * CREACH_PING_ERR_* value, or -1 with errno. Reading an ICMP error clears
 * the socket's pending error (SO_ERROR) with it. */
static int creach_ping_error(int fd, const creach_probe_target *t, uint16_t seq, void *buf, size_t buflen,
                             creach_probe_result *out, struct sock_extended_err *ee)
{
    int found = CREACH_PING_ERR_NONE, entries = 0;

    while (entries < CREACH_PING_ERR_BATCH) {
        union {
            struct cmsghdr align;
            uint8_t bytes[CMSG_SPACE(sizeof(struct sock_extended_err) + sizeof(struct sockaddr_in6)) + 128];
        } control;
        creach_sockaddr name;
        struct iovec iov = { .iov_base = buf, .iov_len = buflen };
        struct msghdr msg;
        ssize_t n;

        memset(&msg, 0, sizeof(msg));
        msg.msg_name = &name;
        msg.msg_namelen = sizeof(name);
        msg.msg_iov = &iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.bytes;
        msg.msg_controllen = sizeof(control.bytes);
        n = recvmsg(fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN)
                return found;
            return -1;
        }
        entries++;
        if (creach_ping_error_is_ours(&msg, (size_t)n, t, seq, ee))
            return CREACH_PING_ERR_OURS;
        out->ignored++;
        found = CREACH_PING_ERR_OTHERS;
    }
    return found;
}

/* Finish *out with an ICMP error about our echo read from the error queue:
 * the errno the kernel derived from it (EHOSTUNREACH, ENETUNREACH, EACCES
 * for an ICMPv6 administratively prohibited, ...), its type and code. */
static int creach_ping_error_outcome(creach_probe_result *out, const struct sock_extended_err *ee, uint64_t start)
{
    out->rtt_ns = creach_monotonic_ns() - start;
    out->error = (int32_t)ee->ee_errno;
    out->icmp_type = ee->ee_type;
    out->icmp_code = ee->ee_code;
    return 0;
}

#define CREACH_ICMP_MAX_PAYLOAD 1472   /* a 1500-byte IPv4 packet */

int creach_probe_icmp(int fd, int kind, const creach_probe_target *t, uint16_t id, uint16_t seq,
                      size_t payload_len, int64_t timeout_ns, int wake_fd, void *buf, size_t buflen,
                      creach_probe_result *out)
{
    uint8_t packet[CREACH_ICMP_ECHO_HDRLEN + CREACH_ICMP_MAX_PAYLOAD];
    uint8_t payload[CREACH_ICMP_MAX_PAYLOAD];
    creach_sockaddr dst;
    socklen_t dstlen;
    uint64_t start, deadline;
    int has_ip_header, saw_malformed = 0, len;
    size_t i;

    if (fd < 0 || out == NULL || buf == NULL || buflen < 256 || !creach_target_valid(t) ||
        (kind != CREACH_PROBE_ICMP_RAW && kind != CREACH_PROBE_ICMP_DGRAM) || payload_len > sizeof(payload)) {
        errno = EINVAL;
        return -1;
    }
    creach_result_init(out);
    for (i = 0; i < payload_len; i++)
        payload[i] = (uint8_t)(0x20 + i % 64);
    len = creach_icmp_echo_build(t->family, id, seq, payload, payload_len, packet, sizeof(packet));
    if (len < 0)
        return -1;
    has_ip_header = kind == CREACH_PROBE_ICMP_RAW && t->family == AF_INET;
    dstlen = creach_sockaddr_make(&dst, t->family, t->dst, 0, t->scope_id);

    start = creach_monotonic_ns();
    deadline = creach_deadline(timeout_ns);
    if (sendto(fd, packet, (size_t)len, MSG_NOSIGNAL, &dst.sa, dstlen) < 0) {
        out->error = errno;         /* ENETUNREACH, EACCES (prohibit), EINVAL (blackhole), ... */
        out->rtt_ns = creach_monotonic_ns() - start;
        return 0;
    }
    for (;;) {
        creach_sockaddr from;
        socklen_t fromlen = sizeof(from);
        creach_icmp_info info;
        struct sock_extended_err ee;
        ssize_t n;
        int waited = creach_wait_io(fd, POLLIN, wake_fd, deadline), parsed, queued, err;

        if (waited <= 0)
            return creach_io_outcome(out, waited, saw_malformed ? EBADMSG : ETIMEDOUT);
        /* A ping socket's ICMP errors wait on its error queue (POLLERR). */
        if (kind == CREACH_PROBE_ICMP_DGRAM && (waited & POLLERR)) {
            queued = creach_ping_error(fd, t, seq, buf, buflen, out, &ee);
            if (queued == CREACH_PING_ERR_OURS)
                return creach_ping_error_outcome(out, &ee, start);
            /* A pending error with no ICMP error queued for it (reading one
             * clears it): not attributable to a packet, but it is the
             * socket's, and left pending it would make poll spin. */
            err = queued < 0 ? errno : queued == CREACH_PING_ERR_NONE ? creach_socket_error(fd, 0) : 0;
            if (err != 0) {
                out->error = err;
                out->rtt_ns = creach_monotonic_ns() - start;
                return 0;
            }
            if (!(waited & POLLIN))
                continue;
        }
        n = recvfrom(fd, buf, buflen, MSG_TRUNC, &from.sa, &fromlen);
        if (n < 0) {
            if (errno == EAGAIN || errno == EINTR)
                continue;
            err = errno;            /* the pending error of an ICMP error (ping socket) */
            if (kind == CREACH_PROBE_ICMP_DGRAM) {
                /* It arrived after the wait: its entry is still queued. */
                queued = creach_ping_error(fd, t, seq, buf, buflen, out, &ee);
                if (queued == CREACH_PING_ERR_OURS)
                    return creach_ping_error_outcome(out, &ee, start);
                if (queued == CREACH_PING_ERR_OTHERS)
                    continue;
            }
            out->error = err;
            out->rtt_ns = creach_monotonic_ns() - start;
            return 0;
        }
        if ((size_t)n > buflen) {   /* longer than the buffer: not our echo */
            out->ignored++;
            continue;
        }
        parsed = creach_icmp_parse(t->family, has_ip_header, buf, (size_t)n, &info);
        if (parsed < 0)
            saw_malformed = 1;
        if (parsed != 1 || info.seq != seq || (kind == CREACH_PROBE_ICMP_RAW && info.id != id) ||
            (info.is_echo_reply && !creach_sockaddr_is(&from, fromlen, t->family, t->dst))) {
            out->ignored++;
            continue;
        }
        out->rtt_ns = creach_monotonic_ns() - start;
        if (info.is_error) {
            out->error = creach_icmp_error_errno(t->family, &info);
            out->icmp_type = info.type;
            out->icmp_code = info.code;
        }
        return 0;
    }
}

/* ------------------------------------------------------------------------ */
/* TCP connect and HTTP                                                      */

/* Connect @fd, waiting until @deadline. Fills out->error (0 when connected)
 * and out->rtt_ns. */
static void creach_connect(int fd, const creach_probe_target *t, uint64_t start, uint64_t deadline, int wake_fd,
                           creach_probe_result *out)
{
    creach_sockaddr dst;
    socklen_t dstlen = creach_sockaddr_make(&dst, t->family, t->dst, t->port, t->scope_id);
    int waited;

    if (connect(fd, &dst.sa, dstlen) == 0) {
        out->rtt_ns = creach_monotonic_ns() - start;
        return;
    }
    if (errno != EINPROGRESS) {
        out->error = errno;
        out->rtt_ns = creach_monotonic_ns() - start;
        return;
    }
    waited = creach_wait_io(fd, POLLOUT, wake_fd, deadline);
    if (waited <= 0) {
        creach_io_outcome(out, waited, ETIMEDOUT);
        return;
    }
    out->error = creach_socket_error(fd, 0);
    out->rtt_ns = creach_monotonic_ns() - start;
}

int creach_probe_tcp(int fd, const creach_probe_target *t, int64_t timeout_ns, int wake_fd, creach_probe_result *out)
{
    uint64_t start;

    if (fd < 0 || out == NULL || !creach_target_valid(t)) {
        errno = EINVAL;
        return -1;
    }
    creach_result_init(out);
    start = creach_monotonic_ns();
    creach_connect(fd, t, start, creach_deadline(timeout_ns), wake_fd, out);
    return 0;
}

/* Whether the verdict on @h still waits for body bytes: only a 2xx other
 * than 204 is decided by its body (an empty one answers, a page is a portal). */
static int creach_http_wants_body(const creach_http_head *h)
{
    return h->status >= 200 && h->status <= 299 && h->status != 204 && h->body == CREACH_HTTP_BODY_UNKNOWN;
}

int creach_probe_http(int fd, const creach_probe_target *t, const void *request, size_t request_len,
                      int64_t timeout_ns, int wake_fd, void *buf, size_t buflen, creach_probe_result *out,
                      creach_http_head *head)
{
    const uint8_t *req = request;
    size_t sent = 0, used = 0;
    uint64_t start, deadline;
    int have_head = 0;

    if (fd < 0 || out == NULL || head == NULL || !creach_target_valid(t) || request == NULL || request_len == 0 ||
        buf == NULL || buflen == 0) {
        errno = EINVAL;
        return -1;
    }
    creach_result_init(out);
    memset(head, 0, sizeof(*head));
    start = creach_monotonic_ns();
    deadline = creach_deadline(timeout_ns);
    creach_connect(fd, t, start, deadline, wake_fd, out);
    if (out->error != 0)
        return 0;

    while (sent < request_len) {
        ssize_t n = send(fd, req + sent, request_len - sent, MSG_NOSIGNAL);
        int waited;

        if (n >= 0) {
            sent += (size_t)n;
            continue;
        }
        if (errno != EAGAIN && errno != EINTR) {
            out->error = errno;
            return 0;
        }
        waited = creach_wait_io(fd, POLLOUT, wake_fd, deadline);
        if (waited <= 0)
            return creach_io_outcome(out, waited, ETIMEDOUT);
    }

    /* The head, then (creach_http_wants_body) as much of the body as decides
     * whether there is one. Once the head is complete, the end of the stream,
     * of the wait or of @buf settles the body (at_end) instead of failing. */
    for (;;) {
        int parsed, waited;
        ssize_t n;

        if (used == buflen) {
            if (!have_head) {           /* a head longer than the caller allows */
                out->error = EBADMSG;
                return 0;
            }
            break;
        }
        n = recv(fd, (uint8_t *)buf + used, buflen - used, 0);
        if (n == 0) {
            if (have_head)
                break;
            out->error = used == 0 ? ECONNRESET : EBADMSG;   /* closed before a complete head */
            return 0;
        }
        if (n < 0) {
            if (errno != EAGAIN && errno != EINTR) {
                if (have_head)
                    break;              /* a reset after the head: the bytes so far decide */
                out->error = errno;
                return 0;
            }
            waited = creach_wait_io(fd, POLLIN, wake_fd, deadline);
            if (waited <= 0) {
                if (have_head && waited == CREACH_IO_TIMEOUT)
                    break;
                return creach_io_outcome(out, waited, ETIMEDOUT);
            }
            continue;
        }
        used += (size_t)n;
        parsed = creach_http_parse_response(buf, used, 0, head);
        if (parsed < 0) {
            out->error = EBADMSG;
            return 0;
        }
        if (parsed == 1 && !have_head) {
            have_head = 1;
            out->http_status = head->status;
            out->rtt_ns = creach_monotonic_ns() - start;
        }
        if (parsed == 1 && !creach_http_wants_body(head))
            return 0;
    }
    /* No more bytes will come: settle the body with what arrived. */
    if (creach_http_parse_response(buf, used, 1, head) != 1)
        out->error = EBADMSG;           /* cannot happen: the same bytes parsed before */
    return 0;
}

/* ------------------------------------------------------------------------ */
/* DNS                                                                       */

int creach_probe_dns(int fd, const creach_probe_target *t, const void *query, size_t query_len, uint16_t id,
                     const char *name, uint16_t qtype, int64_t timeout_ns, int wake_fd, void *buf, size_t buflen,
                     creach_probe_result *out, creach_dns_result *dns)
{
    creach_sockaddr dst;
    socklen_t dstlen;
    uint64_t start, deadline;
    int saw_malformed = 0;

    if (fd < 0 || out == NULL || dns == NULL || !creach_target_valid(t) || query == NULL || query_len == 0 ||
        name == NULL || buf == NULL || buflen == 0) {
        errno = EINVAL;
        return -1;
    }
    creach_result_init(out);
    memset(dns, 0, sizeof(*dns));
    dstlen = creach_sockaddr_make(&dst, t->family, t->dst, t->port, t->scope_id);
    start = creach_monotonic_ns();
    deadline = creach_deadline(timeout_ns);
    /* Connected, so that datagrams from elsewhere are not delivered and an
     * ICMP port unreachable comes back as ECONNREFUSED. */
    if (connect(fd, &dst.sa, dstlen) < 0 || send(fd, query, query_len, MSG_NOSIGNAL) < 0) {
        out->error = errno;
        out->rtt_ns = creach_monotonic_ns() - start;
        return 0;
    }
    for (;;) {
        int waited = creach_wait_io(fd, POLLIN, wake_fd, deadline), parsed;
        ssize_t n;

        if (waited <= 0)
            return creach_io_outcome(out, waited, saw_malformed ? EBADMSG : ETIMEDOUT);
        n = recv(fd, buf, buflen, MSG_TRUNC);
        if (n < 0) {
            if (errno == EAGAIN || errno == EINTR)
                continue;
            out->error = errno;
            out->rtt_ns = creach_monotonic_ns() - start;
            return 0;
        }
        if ((size_t)n > buflen) {       /* truncated by our buffer: cannot be checked */
            saw_malformed = 1;
            out->ignored++;
            continue;
        }
        parsed = creach_dns_parse_response(buf, (size_t)n, id, name, qtype, dns);
        if (parsed != 1) {
            saw_malformed |= parsed < 0;
            out->ignored++;
            continue;
        }
        out->rtt_ns = creach_monotonic_ns() - start;
        return 0;
    }
}

/* ------------------------------------------------------------------------ */
/* ping_group_range                                                          */

typedef struct {
    uint32_t low;
    uint32_t high;
} creach_id_range;

static int creach_ping_group_read(void *arg)
{
    creach_id_range *range = arg;
    char text[64];
    ssize_t n;
    int fd = open("/proc/sys/net/ipv4/ping_group_range", O_RDONLY | O_CLOEXEC), saved;

    if (fd < 0)
        return -1;
    do {
        n = read(fd, text, sizeof(text));
    } while (n < 0 && errno == EINTR);
    saved = errno;
    close(fd);
    if (n < 0) {
        errno = saved;
        return -1;
    }
    return creach_parse_id_range(text, (size_t)n, &range->low, &range->high);
}

int creach_ping_group_range(int netns_fd, uint32_t *low, uint32_t *high)
{
    creach_id_range range = { 0, 0 };
    int r;

    if (low == NULL || high == NULL) {
        errno = EINVAL;
        return -1;
    }
    r = netns_fd >= 0 ? creach_netns_run(netns_fd, creach_ping_group_read, &range) : creach_ping_group_read(&range);
    if (r < 0)
        return -1;
    *low = range.low;
    *high = range.high;
    return 0;
}

#endif /* __linux__ */
