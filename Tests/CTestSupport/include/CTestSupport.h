/*
 * CTestSupport - what the integration tests need from C and Swift cannot
 * call: raw syscalls that glibc would apply to every thread of the process.
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

#endif
