/* The C limits of the benchmarks (see the header). */
#include "CBenchLimits.h"

#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

/* Index: bits 1..5 of the flags (reachable .. onDemand), bit 18 (isWWAN) as bit 5. */
static uint8_t status_table[64];

__attribute__((constructor)) static void build_table(void)
{
    for (unsigned i = 0; i < 64; i++) {
        int reachable = i & 1, required = i & 2, traffic = i & 4, intervention = i & 8, demand = i & 16,
            wwan = i & 32;
        int ok = reachable && (!required || ((traffic || demand) && !intervention));
        status_table[i] = (uint8_t)(!ok ? 0 : (wwan ? 2 : 1));
    }
}

uint64_t bench_status_sum(const uint32_t *flags, size_t count)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < count; i++) {
        uint32_t f = flags[i];
        sum += status_table[((f >> 1) & 0x1F) | ((f >> 13) & 0x20)];
    }
    return sum;
}

int bench_nl_open(void)
{
    struct timeval tv = { .tv_sec = 5, .tv_usec = 0 };
    struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
    int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);

    if (fd < 0)
        return -1;
    if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Send @req and receive one reply datagram whose first message carries @seq. */
static ssize_t exchange(int fd, struct nlmsghdr *req, uint32_t seq, void *buf, size_t buflen)
{
    struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };

    if (sendto(fd, req, req->nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0)
        return -1;
    for (;;) {
        ssize_t n = recv(fd, buf, buflen, 0);
        if (n < (ssize_t)sizeof(struct nlmsghdr))
            return -1;
        if (((struct nlmsghdr *)buf)->nlmsg_seq == seq)
            return n;
    }
}

int64_t bench_route_link(int fd, const uint8_t dst[4], uint32_t *seq, void *buf, size_t buflen)
{
    struct {
        struct nlmsghdr h;
        struct rtmsg r;
        struct rtattr a;
        uint8_t addr[4];
    } route = { 0 };
    struct {
        struct nlmsghdr h;
        struct ifinfomsg i;
    } link = { 0 };
    struct nlmsghdr *reply = buf;
    int32_t oif = 0;
    ssize_t n;

    route.h.nlmsg_len = sizeof(route);
    route.h.nlmsg_type = RTM_GETROUTE;
    route.h.nlmsg_flags = NLM_F_REQUEST;
    route.h.nlmsg_seq = ++*seq;
    route.r.rtm_family = AF_INET;
    route.r.rtm_dst_len = 32;
    route.a.rta_len = RTA_LENGTH(4);
    route.a.rta_type = RTA_DST;
    memcpy(route.addr, dst, 4);
    n = exchange(fd, &route.h, route.h.nlmsg_seq, buf, buflen);
    if (n < 0 || reply->nlmsg_type != RTM_NEWROUTE)
        return -1;
    {
        struct rtmsg *r = NLMSG_DATA(reply);
        int len = (int)reply->nlmsg_len - (int)NLMSG_LENGTH(sizeof(*r));
        for (struct rtattr *a = RTM_RTA(r); RTA_OK(a, len); a = RTA_NEXT(a, len))
            if (a->rta_type == RTA_OIF && RTA_PAYLOAD(a) == 4)
                memcpy(&oif, RTA_DATA(a), 4);
    }
    if (oif <= 0)
        return -1;

    link.h.nlmsg_len = sizeof(link);
    link.h.nlmsg_type = RTM_GETLINK;
    link.h.nlmsg_flags = NLM_F_REQUEST;
    link.h.nlmsg_seq = ++*seq;
    link.i.ifi_family = AF_UNSPEC;
    link.i.ifi_index = oif;
    n = exchange(fd, &link.h, link.h.nlmsg_seq, buf, buflen);
    if (n < 0 || reply->nlmsg_type != RTM_NEWLINK)
        return -1;
    return ((struct ifinfomsg *)NLMSG_DATA(reply))->ifi_flags;
}

int bench_link_listener(void)
{
    int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    if (fd < 0)
        return -1;
    struct sockaddr_nl addr = { .nl_family = AF_NETLINK, .nl_groups = RTMGRP_LINK };
    struct timeval timeout = { .tv_sec = 0, .tv_usec = 100000 };
    int size = 1 << 20;
    if (bind(fd, (struct sockaddr *)&addr, sizeof addr) < 0 ||
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout) < 0 ||
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

uint64_t bench_link_wait(int fd, void *buf, size_t buflen)
{
    for (;;) {
        ssize_t n = recv(fd, buf, buflen, 0);
        if (n > 0) {
            struct timespec now;
            clock_gettime(CLOCK_MONOTONIC, &now);
            return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 0;
        if (n < 0 && (errno == EINTR || errno == ENOBUFS))
            continue;
        return (uint64_t)-1;
    }
}

int bench_realtime_self(void)
{
    struct sched_param param = { .sched_priority = 50 };
    int error = pthread_setschedparam(pthread_self(), SCHED_FIFO, &param);
    if (error != 0) {
        errno = error;
        return -1;
    }
    return 0;
}

int bench_route_toggle(int fd, int add, uint32_t ifindex, uint32_t *seq, void *buf, size_t buflen)
{
    struct {
        struct nlmsghdr h;
        struct rtmsg r;
        struct rtattr dst;
        uint8_t addr[4];
        struct rtattr oif;
        uint32_t index;
    } route = { 0 };
    struct nlmsghdr *reply = buf;
    ssize_t n;

    route.h.nlmsg_len = sizeof(route);
    route.h.nlmsg_type = add ? RTM_NEWROUTE : RTM_DELROUTE;
    route.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | (add ? NLM_F_CREATE | NLM_F_EXCL : 0);
    route.h.nlmsg_seq = ++*seq;
    route.r.rtm_family = AF_INET;
    route.r.rtm_dst_len = 24;
    route.r.rtm_table = RT_TABLE_MAIN;
    route.r.rtm_protocol = RTPROT_BOOT;
    route.r.rtm_scope = RT_SCOPE_LINK;
    route.r.rtm_type = RTN_UNICAST;
    route.dst.rta_len = RTA_LENGTH(4);
    route.dst.rta_type = RTA_DST;
    route.addr[0] = 203; route.addr[1] = 0; route.addr[2] = 113; route.addr[3] = 0;
    route.oif.rta_len = RTA_LENGTH(4);
    route.oif.rta_type = RTA_OIF;
    route.index = ifindex;
    n = exchange(fd, &route.h, route.h.nlmsg_seq, buf, buflen);
    if (n < (ssize_t)NLMSG_LENGTH(sizeof(struct nlmsgerr)) || reply->nlmsg_type != NLMSG_ERROR)
        return -EPROTO;
    return ((struct nlmsgerr *)NLMSG_DATA(reply))->error;
}
