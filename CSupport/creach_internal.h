/*
 * creach_internal.h - helpers shared between the CReachability sources.
 * Not part of the module's public interface (it lives outside include/).
 */
#ifndef CREACH_INTERNAL_H
#define CREACH_INTERNAL_H

#include "CReachability.h"

#ifdef __linux__

#include <stdbool.h>
#include <time.h>

/* Internal symbols stay out of the library's dynamic symbol table. */
#define CREACH_INTERNAL __attribute__((visibility("hidden")))

/* Older uapi headers: values are ABI, so defining them is safe. */
#ifndef NETLINK_CAP_ACK
#define NETLINK_CAP_ACK 10
#endif
#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK 11
#endif
#ifndef NETLINK_GET_STRICT_CHK
#define NETLINK_GET_STRICT_CHK 12
#endif
#ifndef RTEXT_FILTER_SKIP_STATS
#define RTEXT_FILTER_SKIP_STATS (1 << 3)
#endif

/* ------------------------------------------------------------------------ */
/* netlink_parse.c                                                           */

/**
 * creach_error_is_request_fault - whether an NLMSG_ERROR carries extended
 * ACK attributes (a message, a bad-attribute offset, a missing attribute).
 * The kernel attaches them when it rejects the request itself (strict
 * header/attribute validation), never when a route lookup merely fails, so
 * this separates "bad query" EINVAL from "blackhole" EINVAL.
 * Returns true or false; a malformed message is false.
 */
CREACH_INTERNAL bool creach_error_is_request_fault(const void *msg, size_t len);

/* ------------------------------------------------------------------------ */
/* sysfs.c                                                                   */

/**
 * creach_parse_ifindex - the NUL-terminated text of a sysfs ifindex file:
 * decimal digits, optionally one '\n', nothing else.
 * Returns the index (0..INT32_MAX), or -1 for anything else (empty, a sign,
 * junk, a value above INT32_MAX). Pure; exported for the fuzz harness.
 */
CREACH_INTERNAL int32_t creach_parse_ifindex(const char *s);

/* ------------------------------------------------------------------------ */
/* netlink_socket.c                                                          */

/** What a creach_nl_msg_fn tells the exchange. */
enum {
    CREACH_NL_MORE = 0,   /* keep receiving */
    CREACH_NL_DONE = 1,   /* the exchange is complete */
};

/**
 * creach_nl_msg_fn - handles one reply message that carries the request's
 * sequence number. Returns CREACH_NL_MORE, CREACH_NL_DONE, or -1 with errno
 * to abort the exchange.
 */
typedef int (*creach_nl_msg_fn)(void *ctx, const void *msg, size_t len);

/**
 * creach_nl_exchange - send @req (its nlmsg_seq is assigned here, ++seq) and
 * feed every reply message with that sequence number to @fn until @fn
 * returns CREACH_NL_DONE. Datagrams from senders other than the kernel and
 * messages with another sequence number are dropped and counted in @nl.
 * On failure of a dump request (NLM_F_DUMP) the rest of the dump is drained
 * without blocking so the socket stays usable.
 * Returns 0, or -1 with errno: EBADF, EINVAL, ETIMEDOUT, ENOSPC (datagram
 * larger than @buflen), EBADMSG, or @fn's errno.
 */
CREACH_INTERNAL int creach_nl_exchange(creach_nl *nl, struct nlmsghdr *req, void *buf, size_t buflen,
                       creach_nl_msg_fn fn, void *ctx);

/**
 * creach_nl_put_attr - append one attribute to the request @req, which lives
 * in a buffer of @cap bytes. Returns 0, or -1 with errno EMSGSIZE.
 */
CREACH_INTERNAL int creach_nl_put_attr(struct nlmsghdr *req, size_t cap, uint16_t type, const void *data, size_t len);

/**
 * creach_nl_align - NLMSG_ALIGN for any size_t. The header's macro masks with
 * ~(NLMSG_ALIGNTO - 1), an unsigned int, which cuts a size_t to 32 bits: an
 * echoed length near UINT32_MAX would wrap to a small offset.
 */
static inline size_t creach_nl_align(size_t len)
{
    const size_t to = NLMSG_ALIGNTO;
    return len > SIZE_MAX - (to - 1) ? SIZE_MAX & ~(to - 1) : (len + to - 1) & ~(to - 1);
}

/**
 * creach_dump_ctx - one dump walk (link.c): each message is parsed into
 * @item; a message that does not parse is counted in @skipped; one that
 * @keep (when set) refuses is passed over; the rest are counted and given
 * to @cb, until @cb asks to stop (the dump is still read to its end).
 */
typedef struct {
    int (*parse)(const void *msg, size_t len, void *out);
    int (*keep)(const void *item, void *ctx);
    void *keep_ctx;
    int (*cb)(const void *item, void *ctx);
    void *cb_ctx;
    void *item;             /* caller's stack slot: creach_link, creach_addr, ... */
    int count;
    uint64_t skipped;
    uint8_t stopped;
    uint8_t interrupted;
} creach_dump_ctx;

/**
 * creach_dump - send the dump request @req and walk its replies with @d.
 * Returns the number of items kept, or -1 with errno (EAGAIN when the
 * kernel marked the dump as interrupted by a change: run it again).
 * @d->skipped is added to *skipped when non-NULL.
 */
CREACH_INTERNAL int creach_dump(creach_nl *nl, struct nlmsghdr *req, void *buf, size_t buflen, creach_dump_ctx *d,
                                uint64_t *skipped);

/**
 * creach_timespec_ns - @ns nanoseconds as the relative timeout of ppoll.
 * A 32-bit time_t holds 68 years of seconds: a longer timeout is cut to that
 * (the wait is "at most" the time, and callers wait again), never converted
 * to a negative tv_sec, which ppoll refuses with EINVAL, or to a short one.
 */
static inline struct timespec creach_timespec_ns(uint64_t ns)
{
    const uint64_t max_sec = sizeof(time_t) >= sizeof(int64_t) ? (uint64_t)INT64_MAX : (uint64_t)INT32_MAX;
    const uint64_t sec = ns / 1000000000u;
    struct timespec ts;

    ts.tv_sec = (time_t)(sec > max_sec ? max_sec : sec);
    ts.tv_nsec = (long)(ns % 1000000000u);
    return ts;
}

/** creach_read_chunk - read(2), retried on EINTR (sysfs.c). */
CREACH_INTERNAL ssize_t creach_read_chunk(int fd, void *buf, size_t len);

/* ------------------------------------------------------------------------ */
/* netns.c                                                                   */

/** creach_netns_fn - work to do inside a namespace: >= 0, or -1 with errno. */
typedef int (*creach_netns_fn)(void *arg);

/**
 * creach_netns_run - run @fn(@arg) on a short-lived helper thread that first
 * enters the network namespace @netns_fd; the calling thread never moves.
 * The helper runs with all signals blocked, so no handler runs in the
 * foreign namespace. Returns @fn's result, or -1 with errno (setns's, or
 * pthread_create's, or @fn's).
 */
CREACH_INTERNAL int creach_netns_run(int netns_fd, creach_netns_fn fn, void *arg);

#endif /* __linux__ */
#endif /* CREACH_INTERNAL_H */
