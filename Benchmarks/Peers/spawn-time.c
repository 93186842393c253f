/*
 * spawn-time.c - exec → exit of a command, RUNS times, in one process:
 * prints the median and p90 in microseconds. Output of the command is
 * discarded; its exit status is not judged (reach exits 1 when offline).
 *
 *   spawn-time RUNS COMMAND [ARGS...]
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    int runs = argc > 2 ? atoi(argv[1]) : 0;
    double *us;
    posix_spawn_file_actions_t fa;

    if (runs <= 0) {
        fprintf(stderr, "usage: spawn-time RUNS COMMAND [ARGS...]\n");
        return 2;
    }
    us = calloc((size_t)runs, sizeof(*us));
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    for (int i = 0; i < runs; i++) {
        struct timespec a, b;
        pid_t pid;
        int status;

        clock_gettime(CLOCK_MONOTONIC, &a);
        if (posix_spawn(&pid, argv[2], &fa, NULL, &argv[2], environ) != 0) {
            perror(argv[2]);
            return 2;
        }
        waitpid(pid, &status, 0);
        clock_gettime(CLOCK_MONOTONIC, &b);
        us[i] = (double)(b.tv_sec - a.tv_sec) * 1e6 + (double)(b.tv_nsec - a.tv_nsec) / 1e3;
    }
    qsort(us, (size_t)runs, sizeof(*us), cmp);
    printf("median %.0f us  p90 %.0f us\n", us[runs / 2], us[runs * 9 / 10]);
    return 0;
}
