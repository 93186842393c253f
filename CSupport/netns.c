/*
 * netns.c - network namespaces: open one by name, and run a function inside
 * one on a helper thread.
 *
 * setns(2) moves only the calling thread. Doing it on a throwaway thread
 * means the caller (often a Swift concurrency thread shared with unrelated
 * work) never runs in a foreign namespace, not even briefly.
 */
#include "creach_internal.h"

#ifdef __linux__

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#ifndef NS_GET_NSTYPE
#define NS_GET_NSTYPE 0xB703    /* _IO(0xb7, 0x3), <linux/nsfs.h> */
#endif

int creach_netns_open(const char *name_or_path)
{
    char path[4096];
    int n;

    if (name_or_path == NULL || name_or_path[0] == '\0') {
        errno = EINVAL;
        return -1;
    }
    if (strchr(name_or_path, '/') != NULL)
        return open(name_or_path, O_RDONLY | O_CLOEXEC);
    /* A bare name must not climb out of /run/netns. */
    if (strcmp(name_or_path, ".") == 0 || strcmp(name_or_path, "..") == 0) {
        errno = EINVAL;
        return -1;
    }
    n = snprintf(path, sizeof(path), "/run/netns/%s", name_or_path);
    if (n < 0 || (size_t)n >= sizeof(path)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return open(path, O_RDONLY | O_CLOEXEC);
}

int creach_netns_type(int fd)
{
    return ioctl(fd, NS_GET_NSTYPE);
}

typedef struct {
    int netns_fd;
    creach_netns_fn fn;
    void *arg;
    int result;
    int error;
} creach_netns_job;

static void *creach_netns_thread(void *p)
{
    creach_netns_job *job = p;

    (void)creach_thread_set_name("reach.netns");
    if (setns(job->netns_fd, CLONE_NEWNET) < 0) {
        job->result = -1;
        job->error = errno;
        return NULL;
    }
    errno = 0;
    job->result = job->fn(job->arg);
    job->error = errno;
    return NULL;
}

int creach_netns_run(int netns_fd, creach_netns_fn fn, void *arg)
{
    creach_netns_job job = { .netns_fd = netns_fd, .fn = fn, .arg = arg, .result = -1, .error = 0 };
    sigset_t all, old;
    pthread_t t;
    int r;

    if (netns_fd < 0 || fn == NULL) {
        errno = EBADF;
        return -1;
    }
    /* The helper inherits this mask: no signal handler runs in it. */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    r = pthread_create(&t, NULL, creach_netns_thread, &job);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (r != 0) {
        errno = r;
        return -1;
    }
    r = pthread_join(t, NULL);
    if (r != 0) {           /* cannot happen for a joinable thread we own */
        errno = r;
        return -1;
    }
    if (job.result < 0)
        errno = job.error;
    return job.result;
}

#endif /* __linux__ */
