/*
 * caps.c - which of the capabilities this library cares about are
 * effective: CAP_NET_ADMIN/CAP_SYS_ADMIN decide whether another namespace
 * can be entered (setns, mounting its sysfs), CAP_NET_RAW whether probes
 * can use raw sockets.
 */
#include "creach_internal.h"

#ifdef __linux__

#include <errno.h>
#include <sys/capability.h>

int creach_caps_effective(void)
{
    static const struct {
        cap_value_t cap;
        unsigned bit;
    } wanted[] = {
        { CAP_NET_RAW, CREACH_CAP_NET_RAW },
        { CAP_NET_ADMIN, CREACH_CAP_NET_ADMIN },
        { CAP_SYS_ADMIN, CREACH_CAP_SYS_ADMIN },
    };
    unsigned bits = 0;
    size_t i;
    cap_t caps = cap_get_proc();    /* the calling thread's sets */

    if (caps == NULL)
        return -1;
    for (i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++) {
        cap_flag_value_t v = CAP_CLEAR;

        if (cap_get_flag(caps, wanted[i].cap, CAP_EFFECTIVE, &v) < 0) {
            int saved = errno;
            cap_free(caps);
            errno = saved;
            return -1;
        }
        if (v == CAP_SET)
            bits |= wanted[i].bit;
    }
    cap_free(caps);
    return (int)bits;
}

#endif /* __linux__ */
