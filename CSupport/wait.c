/*
 * wait.c - the monitor thread's wait: a netlink socket and an eventfd that
 * other threads signal (to stop the monitor or hand it work), in one ppoll.
 */
#include "creach_internal.h"

#ifdef __linux__

#include <errno.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

int creach_wakeup_open(void)
{
    return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}

int creach_wakeup_signal(int fd)
{
    uint64_t one = 1;
    ssize_t n;

    do {
        n = write(fd, &one, sizeof(one));
    } while (n < 0 && errno == EINTR);
    /* EAGAIN: the counter is saturated, so the fd is readable anyway. */
    if (n < 0 && errno != EAGAIN)
        return -1;
    return 0;
}

void creach_wakeup_clear(int fd)
{
    uint64_t value;
    ssize_t n;

    do {
        n = read(fd, &value, sizeof(value));
    } while (n < 0 && errno == EINTR);
}

int creach_wait(int nl_fd, int wake_fd, int64_t timeout_ns)
{
    struct pollfd fds[2];
    struct timespec ts, *tsp = NULL;
    nfds_t count = 0;
    int nl_slot = -1, wake_slot = -1, r, result = 0;

    if (nl_fd >= 0) {
        nl_slot = (int)count;
        fds[count].fd = nl_fd;
        fds[count].events = POLLIN;
        fds[count].revents = 0;
        count++;
    }
    if (wake_fd >= 0) {
        wake_slot = (int)count;
        fds[count].fd = wake_fd;
        fds[count].events = POLLIN;
        fds[count].revents = 0;
        count++;
    }
    if (timeout_ns >= 0) {
        ts = creach_timespec_ns((uint64_t)timeout_ns);
        tsp = &ts;
    }
    r = ppoll(fds, count, tsp, NULL);
    if (r < 0)
        return errno == EINTR ? 0 : -1;
    /* POLLERR on a netlink socket is a pending ENOBUFS: recvmsg reports it. */
    if (nl_slot >= 0 && (fds[nl_slot].revents & (POLLIN | POLLERR)))
        result |= CREACH_WAIT_NETLINK;
    if (wake_slot >= 0 && (fds[wake_slot].revents & (POLLIN | POLLERR)))
        result |= CREACH_WAIT_WAKEUP;
    if (nl_slot >= 0 && (fds[nl_slot].revents & POLLNVAL)) {
        errno = EBADF;
        return -1;
    }
    return result;
}

uint64_t creach_monotonic_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif /* __linux__ */
