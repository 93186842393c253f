#include "CTestSupport.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TEST_PF_EXITING 0x4UL /* include/linux/sched.h */

/* Reads /proc/self/task/<task>/<file> into buffer, NUL-terminated; its length or -1. */
static ssize_t read_task_file(const char *task, const char *file, char *buffer, size_t size)
{
    char path[64];
    if (snprintf(path, sizeof path, "/proc/self/task/%s/%s", task, file) >= (int)sizeof path)
        return -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t length = read(fd, buffer, size - 1);
    close(fd);
    if (length < 0)
        return -1;
    buffer[length] = '\0';
    return length;
}

/* Whether the task's flags (the ninth field of stat, after the name in parentheses) have PF_EXITING. */
static int task_is_exiting(const char *task)
{
    char stat[512];
    if (read_task_file(task, "stat", stat, sizeof stat) < 0)
        return 1; /* gone meanwhile */
    const char *field = strrchr(stat, ')');
    if (field == NULL)
        return 1;
    unsigned long flags; /* after the name: state ppid pgrp session tty_nr tpgid flags */
    if (sscanf(field + 1, " %*c %*d %*d %*d %*d %*d %lu", &flags) != 1)
        return 1;
    return (flags & TEST_PF_EXITING) != 0;
}

int test_live_threads(const char *name, int prefix)
{
    DIR *tasks = opendir("/proc/self/task");
    if (tasks == NULL)
        return -1;
    size_t name_length = strlen(name);
    int count = 0;
    struct dirent *entry;
    while ((entry = readdir(tasks)) != NULL) {
        if (entry->d_name[0] == '.')
            continue;
        char comm[32];
        ssize_t length = read_task_file(entry->d_name, "comm", comm, sizeof comm);
        if (length <= 0)
            continue;
        if (comm[length - 1] == '\n')
            comm[--length] = '\0';
        int named = prefix ? strncmp(comm, name, name_length) == 0 : strcmp(comm, name) == 0;
        if (named && !task_is_exiting(entry->d_name))
            count++;
    }
    closedir(tasks);
    return count;
}
