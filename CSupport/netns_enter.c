/* Setting up a thread the library owns: its namespace and its name (see the header). */
#ifdef __linux__
#include "CReachability.h"
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/mount.h>
#include <sched.h>
#include <string.h>

int creach_netns_enter_thread(int netns_fd)
{
    return setns(netns_fd, CLONE_NEWNET);
}

int creach_netns_enter_thread_config(int netns_fd, const char *name)
{
    char dir[4096], source[4096 + 256], target[4096 + 256];
    struct dirent *entry;
    DIR *d;

    if (setns(netns_fd, CLONE_NEWNET) < 0)
        return -1;
    if (name == NULL)
        return 0;
    if (strchr(name, '/') != NULL || (size_t)snprintf(dir, sizeof(dir), "/etc/netns/%s", name) >= sizeof(dir)) {
        errno = EINVAL;
        return -1;
    }
    d = opendir(dir);
    if (d == NULL)
        return errno == ENOENT ? 0 : -1;
    if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_SLAVE | MS_REC, NULL) < 0) {
        int saved = errno;
        closedir(d);
        errno = saved;
        return -1;
    }
    while ((entry = readdir(d)) != NULL) {
        if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0)
            continue;
        snprintf(source, sizeof(source), "%s/%s", dir, entry->d_name);
        snprintf(target, sizeof(target), "/etc/%s", entry->d_name);
        (void)mount(source, target, "none", MS_BIND, NULL);   /* a missing target is skipped, as ip does */
    }
    closedir(d);
    return 0;
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
