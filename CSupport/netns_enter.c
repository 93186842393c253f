/* Entering a namespace on a thread the library owns (see the header). */
#ifdef __linux__
#include "CReachability.h"
#include <sched.h>

int creach_netns_enter_thread(int netns_fd)
{
    return setns(netns_fd, CLONE_NEWNET);
}
#endif
