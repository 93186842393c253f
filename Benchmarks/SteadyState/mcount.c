/*
 * mcount.c - an LD_PRELOAD malloc counter for steady-state.sh: counts every
 * malloc, calloc, realloc, posix_memalign and aligned_alloc of the process
 * (all threads) and writes "mallocs N" to stderr on SIGUSR2. dlsym's own
 * early calloc is served from a static buffer. It also writes "own M": the
 * calls made from neither the C library (strdup, stdio) nor libsystemd
 * (sd-bus), which are the Swift runtime's and the program's own
 * (modem-steady-state.sh: what the library adds to sd-bus's reading).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <unistd.h>
static atomic_ulong n_malloc, n_own;
static __thread int classifying;
/* Whether the caller at `ra` is the program's or the Swift runtime's (not libc's or libsystemd's). */
static void count_own(void *ra) {
    Dl_info info;
    if (classifying) return;
    classifying = 1;
    if (!dladdr(ra, &info) || !info.dli_fname ||
        (!strstr(info.dli_fname, "libc.so") && !strstr(info.dli_fname, "libsystemd.so")))
        atomic_fetch_add(&n_own, 1);
    classifying = 0;
}
static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static int (*real_posix_memalign)(void **, size_t, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);
static char boot[4096]; static size_t boot_used;
static void init(void) {
    real_malloc = dlsym(RTLD_NEXT, "malloc"); real_calloc = dlsym(RTLD_NEXT, "calloc");
    real_realloc = dlsym(RTLD_NEXT, "realloc"); real_posix_memalign = dlsym(RTLD_NEXT, "posix_memalign");
    real_aligned_alloc = dlsym(RTLD_NEXT, "aligned_alloc");
}
void *malloc(size_t n) { if (!real_malloc) init(); atomic_fetch_add(&n_malloc, 1); count_own(__builtin_return_address(0)); return real_malloc(n); }
void *calloc(size_t a, size_t b) {
    if (!real_calloc) { void *p = boot + boot_used; boot_used += (a * b + 15) & ~15UL; return p; }
    atomic_fetch_add(&n_malloc, 1); count_own(__builtin_return_address(0)); return real_calloc(a, b);
}
void *realloc(void *p, size_t n) { if (!real_realloc) init(); atomic_fetch_add(&n_malloc, 1); count_own(__builtin_return_address(0)); return real_realloc(p, n); }
int posix_memalign(void **p, size_t a, size_t n) { if (!real_posix_memalign) init(); atomic_fetch_add(&n_malloc, 1); count_own(__builtin_return_address(0)); return real_posix_memalign(p, a, n); }
void *aligned_alloc(size_t a, size_t n) { if (!real_aligned_alloc) init(); atomic_fetch_add(&n_malloc, 1); count_own(__builtin_return_address(0)); return real_aligned_alloc(a, n); }
void free(void *p) { static void (*real_free)(void *); if (p >= (void *)boot && p < (void *)(boot + sizeof boot)) return; if (!real_free) real_free = dlsym(RTLD_NEXT, "free"); real_free(p); }
static void report(int sig) { char b[64]; int k = snprintf(b, sizeof b, "mallocs %lu own %lu\n", (unsigned long)atomic_load(&n_malloc), (unsigned long)atomic_load(&n_own)); write(2, b, k); (void)sig; }
__attribute__((constructor)) static void setup(void) { signal(SIGUSR2, report); }
