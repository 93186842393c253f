/*
 * CBenchLimits - what the Swift code is measured against: the fastest plain C
 * that answers the same question. Benchmarks only; not part of the library.
 */
#ifndef CBENCHLIMITS_H
#define CBENCHLIMITS_H

#include <stddef.h>
#include <stdint.h>

/**
 * bench_status_sum - the status of each flags value by a 64-entry table over
 * the six bits the rule reads (reachable, connectionRequired, onTraffic,
 * interventionRequired, onDemand, isWWAN): 0 not reachable, 1 reachable,
 * 2 reachable via WWAN. Returns the sum, so nothing is optimised away.
 */
uint64_t bench_status_sum(const uint32_t *flags, size_t count);

/** bench_nl_open - a NETLINK_ROUTE socket with a 5 s receive timeout; -1 on error. */
int bench_nl_open(void);

/**
 * bench_route_link - one RTM_GETROUTE for the IPv4 address @dst (network
 * order), then RTM_GETLINK for the route's output interface: the same two
 * kernel round trips one evaluation makes, with no validation beyond what
 * finding RTA_OIF needs. Returns the link's ifi_flags, or -1.
 */
int64_t bench_route_link(int fd, const uint8_t dst[4], uint32_t *seq, void *buf, size_t buflen);

/**
 * bench_link_listener - the kernel's own first message: a NETLINK_ROUTE
 * socket subscribed to RTNLGRP_LINK, in the calling thread's namespace, with
 * a 100 ms receive timeout (so a reader can stop); -1 on error.
 */
int bench_link_listener(void);

/**
 * bench_link_wait - blocks until a datagram arrives on @fd and returns
 * CLOCK_MONOTONIC (ns) at the moment recv returned; 0 on timeout, and
 * (uint64_t)-1 when the socket failed for good.
 */
uint64_t bench_link_wait(int fd, void *buf, size_t buflen);

/**
 * bench_realtime_self - puts the calling thread in SCHED_FIFO (priority 50),
 * so a listener wakes first when a message arrives; 0, or -1 (errno) when
 * not allowed.
 */
int bench_realtime_self(void);

/**
 * bench_route_toggle - adds (@add != 0) or deletes the route 203.0.113.0/24
 * dev @ifindex (scope link, main table) in @fd's namespace, waiting for the
 * kernel's ack: one route notification for a monitor there, with no
 * allocation on this side. 0, or -errno.
 */
int bench_route_toggle(int fd, int add, uint32_t ifindex, uint32_t *seq, void *buf, size_t buflen);

#endif
