/*
 * fuzz_common.h - helpers shared by the libFuzzer harnesses in Fuzz/.
 *
 * A harness asserts the documented contract of each parser with CHECK: a
 * violation prints the condition and abort()s, so libFuzzer reports it as a
 * crash with the input that caused it, exactly like a sanitizer finding.
 */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "%s:%d: invariant violated: %s\n", __FILE__, __LINE__, #cond); \
            abort();                                                                 \
        }                                                                            \
    } while (0)

/* A malloc'd copy of exactly @len bytes (at least 1 allocated byte is never
 * read past @len): ASan reports any read beyond the input. */
static inline uint8_t *fuzz_dup(const uint8_t *data, size_t len)
{
    uint8_t *p = malloc(len > 0 ? len : 1);
    CHECK(p != NULL);
    if (len > 0)
        memcpy(p, data, len);
    return p;
}

/* A malloc'd NUL-terminated copy of @len bytes (len + 1 bytes allocated). */
static inline char *fuzz_strdup(const uint8_t *data, size_t len)
{
    char *p = malloc(len + 1);
    CHECK(p != NULL);
    if (len > 0)
        memcpy(p, data, len);
    p[len] = '\0';
    return p;
}

/* Whether @n bytes at @p are all zero. */
static inline int fuzz_all_zero(const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i] != 0)
            return 0;
    return 1;
}

/* Whether @s is NUL-terminated within @cap bytes. */
static inline int fuzz_terminated(const char *s, size_t cap)
{
    return memchr(s, '\0', cap) != NULL;
}

#endif /* FUZZ_COMMON_H */
