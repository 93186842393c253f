/*
 * CTestSupport - what the tests need from C: raw syscalls that glibc would
 * apply to every thread of the process, and the process's live threads.
 */
#ifndef CTESTSUPPORT_H
#define CTESTSUPPORT_H

#include <sys/types.h>

/**
 * test_thread_setresuid - setresuid(2) for the calling thread only (the raw
 * syscall; glibc's setresuid changes every thread of the process). With the
 * saved uid left 0 a thread can become root again. A thread whose real uid
 * is not 0 and whose effective uid dropped its capabilities is subject to
 * RLIMIT_NPROC when it creates a thread. Returns 0 or -1 with errno.
 */
int test_thread_setresuid(uid_t ruid, uid_t euid, uid_t suid);

/**
 * test_live_threads - how many threads of this process are named `name`
 * (their comm; with `prefix` non-zero, names that begin with it) and are
 * not exiting. pthread_join returns when the kernel clears the thread's id,
 * in do_exit, before the task leaves /proc/self/task; such a task already
 * has PF_EXITING in its flags (stat's ninth field), so a joined thread is
 * not counted, while a thread that still runs always is. Not so under
 * qemu-user, so tests count joinable threads with the library's
 * runningLibraryThreads(_:) (Runtime/Threads.swift says why); this is for
 * the detached ones, polled. -1 when
 * /proc/self/task cannot be read.
 */
int test_live_threads(const char *name, int prefix);

#endif
