/* Setting up a thread the library owns: its namespace and its name (see the header). */
#ifdef __linux__
#include "CReachability.h"
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>

int creach_netns_enter_thread(int netns_fd)
{
    return setns(netns_fd, CLONE_NEWNET);
}

int creach_thread_set_name(const char *name)
{
    int r;

    if (name == NULL || strlen(name) > 15) {
        errno = EINVAL;
        return -1;
    }
    r = pthread_setname_np(pthread_self(), name);
    if (r != 0) {
        errno = r;
        return -1;
    }
    return 0;
}
#endif
