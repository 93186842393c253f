/*
 * Tests/CCore/ccore_tests.c - the C core's own tests of byte order,
 * alignment and 32-bit sizes, run on every architecture we ship for.
 *
 * It lives in Tests/CCore but is no SwiftPM target (Package.swift does not
 * name this folder): Tools/ccore-cross.sh (`make test-ccore-cross`) compiles
 * it with the CSupport sources it tests, with gcc for the host and Debian's
 * cross compilers for s390x (64-bit big-endian), armhf (32-bit size_t, with
 * 32-bit and with 64-bit time_t) and arm64, and runs it under qemu-user.
 *
 * Netlink is host byte order: every message here is BUILT at run time in the
 * host's order, with the kernel's structs and macros (NLMSG_*, RTA_*), so the
 * same source checks the parsers on little- and big-endian machines alike;
 * addresses inside are network order, as the kernel sends them. Each parse
 * is repeated from an odd address and from a copy that ends at an
 * inaccessible page (a read past the message faults). Probe packets (DNS,
 * ICMP, HTTP) are network order on the wire: they are written byte by byte
 * and must parse to the same values on every machine.
 *
 * The real API is tested (CReachability.h, creach_internal.h), never a copy
 * of it. One line per check group; the last line is
 *   ccore-tests: N checks passed on ARCH (ENDIANNESS, size_t N bytes, time_t N bytes)
 * and the exit status is 1 when any check failed.
 */
#include "creach_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/if.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/fib_rules.h>
#include <linux/neighbour.h>

#ifndef CCORE_ARCH
#if defined(__x86_64__)
#define CCORE_ARCH "x86_64"
#elif defined(__s390x__)
#define CCORE_ARCH "s390x"
#elif defined(__aarch64__)
#define CCORE_ARCH "arm64"
#elif defined(__arm__)
#define CCORE_ARCH "armhf"
#else
#define CCORE_ARCH "unknown"
#endif
#endif

/* ------------------------------------------------------------------------ */
/* The kernel ABI the parsers rely on: the same on every architecture.       */

_Static_assert(sizeof(struct nlmsghdr) == 16 && NLMSG_HDRLEN == 16, "nlmsghdr");
_Static_assert(sizeof(struct rtattr) == 4 && RTA_LENGTH(0) == 4 && RTA_ALIGNTO == 4, "rtattr");
_Static_assert(sizeof(struct rtmsg) == 12 && offsetof(struct rtmsg, rtm_type) == 7, "rtmsg");
_Static_assert(sizeof(struct ifinfomsg) == 16 && offsetof(struct ifinfomsg, ifi_index) == 4, "ifinfomsg");
_Static_assert(sizeof(struct ifaddrmsg) == 8, "ifaddrmsg");
_Static_assert(sizeof(struct fib_rule_hdr) == 12, "fib_rule_hdr");
_Static_assert(sizeof(struct nlmsgerr) == 20, "nlmsgerr");
_Static_assert(sizeof(struct rtvia) == 2, "rtvia (its address follows)");
_Static_assert(sizeof(size_t) == sizeof(void *), "size_t is pointer-sized on Linux");
_Static_assert(sizeof(uint64_t) == 8 && sizeof(int) == 4, "int sizes");

/* ------------------------------------------------------------------------ */
/* Checks                                                                    */

static unsigned total_checks, total_failed, group_checks, group_failed;
static const char *group_name = "(start)";

static void group(const char *name)
{
    group_name = name;
    group_checks = 0;
    group_failed = 0;
}

static void group_end(void)
{
    if (group_failed == 0)
        printf("  %-28s %3u checks ok\n", group_name, group_checks);
    else
        printf("  %-28s %3u of %u checks FAILED\n", group_name, group_failed, group_checks);
    fflush(stdout);
}

static int expect(int ok, const char *file, int line, const char *fmt, ...)
{
    total_checks++;
    group_checks++;
    if (!ok) {
        va_list ap;
        total_failed++;
        group_failed++;
        fprintf(stderr, "%s:%d: [%s] check failed: ", file, line, group_name);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
    }
    return ok;
}

#define EXPECT(c) expect(!!(c), __FILE__, __LINE__, "%s", #c)
#define EXPECT_EQ(a, b)                                                                              \
    do {                                                                                             \
        unsigned long long a_ = (unsigned long long)(a), b_ = (unsigned long long)(b);               \
        expect(a_ == b_, __FILE__, __LINE__, "%s == %s (0x%llx, expected 0x%llx)", #a, #b, a_, b_); \
    } while (0)
#define EXPECT_MEM(a, b, n) expect(memcmp((a), (b), (n)) == 0, __FILE__, __LINE__, "%s == %s (%zu bytes)", #a, #b, (size_t)(n))
#define EXPECT_STR(a, b) expect(strcmp((a), (b)) == 0, __FILE__, __LINE__, "%s == \"%s\" (got \"%s\")", #a, (b), (a))
/* A call that must fail with -1 and @e. */
#define EXPECT_FAIL(call, e)                                                                          \
    do {                                                                                              \
        errno = 0;                                                                                    \
        long r_ = (long)(call);                                                                       \
        int e_ = errno;                                                                               \
        expect(r_ == -1 && e_ == (e), __FILE__, __LINE__, "%s fails with %s (got %ld, errno %d)", #call, #e, r_, e_); \
    } while (0)

static void on_fatal(int sig)
{
    static const char msg[] = "ccore-tests: fatal signal (a read past a message's end hits the guard page) in group: ";
    ssize_t w = write(STDERR_FILENO, msg, sizeof(msg) - 1);
    w = write(STDERR_FILENO, group_name, strlen(group_name));
    w = write(STDERR_FILENO, "\n", 1);
    (void)w;
    signal(sig, SIG_DFL);
    raise(sig);
}

/* ------------------------------------------------------------------------ */
/* Guard page: a copy of @len bytes whose last byte is the last readable one */

static uint8_t *guard_base;
static size_t guard_page, guard_span;

static void guard_init(void)
{
    guard_page = (size_t)sysconf(_SC_PAGESIZE);
    guard_span = 4 * guard_page;
    guard_base = mmap(NULL, guard_span + guard_page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (guard_base == MAP_FAILED || mprotect(guard_base + guard_span, guard_page, PROT_NONE) != 0) {
        perror("ccore-tests: guard page");
        exit(1);
    }
}

static const uint8_t *guarded(const void *p, size_t len)
{
    uint8_t *dst = guard_base + guard_span - len;
    if (len > guard_span)
        abort();
    memcpy(dst, p, len);
    return dst;
}

static void guard_hit(int sig)
{
    (void)sig;
    _exit(42);
}

/* Whether reading the guard page faults here (it must, for the checks that
 * use it to mean anything): a child reads it, and its handler exits 42 (no
 * core file, no message from qemu). */
static int guard_faults(void)
{
    pid_t pid = fork();
    int status = 0;

    if (pid == 0) {
        volatile const uint8_t *g = guard_base + guard_span;
        signal(SIGSEGV, guard_hit);
        signal(SIGBUS, guard_hit);
        (void)*g;
        _exit(0);
    }
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
        return 0;
    return WIFEXITED(status) && WEXITSTATUS(status) == 42;
}

/* ------------------------------------------------------------------------ */
/* Building netlink messages in host order (the kernel's structs and macros) */

typedef union {
    struct nlmsghdr h;
    uint8_t b[2048];
} msgbuf;

static struct nlmsghdr *nl_start(msgbuf *m, uint16_t type, uint16_t flags, uint32_t seq, const void *fam,
                                 size_t famlen)
{
    memset(m, 0, sizeof(*m));
    m->h.nlmsg_len = NLMSG_LENGTH(famlen);
    m->h.nlmsg_type = type;
    m->h.nlmsg_flags = flags;
    m->h.nlmsg_seq = seq;
    m->h.nlmsg_pid = 0;
    if (famlen > 0)
        memcpy(NLMSG_DATA(&m->h), fam, famlen);
    m->h.nlmsg_len = NLMSG_ALIGN(m->h.nlmsg_len);
    return &m->h;
}

static struct rtattr *nl_tail(struct nlmsghdr *h)
{
    return (struct rtattr *)((uint8_t *)h + NLMSG_ALIGN(h->nlmsg_len));
}

/* One attribute at the message's 4-byte aligned tail, zero padding after it. */
static struct rtattr *nl_attr(struct nlmsghdr *h, uint16_t type, const void *data, size_t len)
{
    struct rtattr *a = nl_tail(h);

    a->rta_type = type;
    a->rta_len = (unsigned short)RTA_LENGTH(len);
    if (len > 0)
        memcpy(RTA_DATA(a), data, len);
    memset((uint8_t *)RTA_DATA(a) + len, 0, RTA_SPACE(len) - RTA_LENGTH(len));
    h->nlmsg_len = NLMSG_ALIGN(h->nlmsg_len) + RTA_SPACE(len);
    return a;
}

static void nl_u32(struct nlmsghdr *h, uint16_t type, uint32_t v)
{
    nl_attr(h, type, &v, sizeof(v));
}

static void nl_u8(struct nlmsghdr *h, uint16_t type, uint8_t v)
{
    nl_attr(h, type, &v, sizeof(v));
}

static void nl_str(struct nlmsghdr *h, uint16_t type, const char *s)
{
    nl_attr(h, type, s, strlen(s) + 1);
}

static struct rtattr *nl_nest_start(struct nlmsghdr *h, uint16_t type)
{
    return nl_attr(h, type | NLA_F_NESTED, NULL, 0);
}

static void nl_nest_end(struct nlmsghdr *h, struct rtattr *nest)
{
    nest->rta_len = (unsigned short)((uint8_t *)nl_tail(h) - (uint8_t *)nest);
}

/* ------------------------------------------------------------------------ */
/* One parse, four ways: aligned, from odd and even-unaligned addresses, and  */
/* from a copy that ends at the guard page. All must agree.                  */

typedef int (*parse_fn)(const void *msg, size_t len, void *out);

static int p_route(const void *m, size_t l, void *o) { return creach_parse_route(m, l, o); }
static int p_link(const void *m, size_t l, void *o) { return creach_parse_link(m, l, o); }
static int p_addr(const void *m, size_t l, void *o) { return creach_parse_addr(m, l, o); }
static int p_rule(const void *m, size_t l, void *o) { return creach_parse_rule(m, l, o); }
static int p_error(const void *m, size_t l, void *o) { return creach_parse_error(m, l, o); }
static int p_neigh(const void *m, size_t l, void *o) { return creach_parse_neigh(m, l, o); }

/* Returns the parser's result with errno as it left it and *@out filled
 * from the aligned run; checks that the other runs agree byte for byte. */
static int parse_all(parse_fn fn, const void *msg, size_t len, void *out, size_t outsz)
{
    static _Alignas(16) uint8_t shifted[4096 + 16];
    uint8_t other[2048];
    int r, e;

    if (len > 4096 || outsz > sizeof(other))
        abort();
    memset(out, 0xa5, outsz);
    errno = 0;
    r = fn(msg, len, out);
    e = errno;
    for (size_t off = 1; off <= 4; off++) {
        const void *at = off < 4 ? (const void *)(shifted + off) : (const void *)guarded(msg, len);
        int r2, e2;

        if (off < 4)
            memcpy(shifted + off, msg, len);
        memset(other, 0x5a, outsz);
        errno = 0;
        r2 = fn(at, len, other);
        e2 = errno;
        expect(r2 == r && (r == 0 || e2 == e), __FILE__, __LINE__, "same result at %s (%d/%d, errno %d/%d)",
               off < 4 ? "an unaligned address" : "the guard page", r2, r, e2, e);
        /* parse_error leaves *error alone on failure; the others clear *out. */
        if (r == 0 || fn != p_error)
            expect(memcmp(out, other, outsz) == 0, __FILE__, __LINE__, "same output at %s",
                   off < 4 ? "an unaligned address" : "the guard page");
    }
    errno = e;
    return r;
}

#define PARSE_OK(fn, m, len, out) EXPECT_EQ(parse_all(fn, m, len, &(out), sizeof(out)), 0)
#define PARSE_FAIL(fn, m, len, out, e)                                                                   \
    do {                                                                                                 \
        int r_ = parse_all(fn, m, len, &(out), sizeof(out));                                             \
        int e_ = errno;                                                                                  \
        expect(r_ == -1 && e_ == (e), __FILE__, __LINE__, "%s refused with %s (got %d, errno %d)", #fn, #e, r_, e_); \
    } while (0)

/* ------------------------------------------------------------------------ */
/* Addresses, in network order as the kernel sends them                      */

static const uint8_t v4_gw[4] = { 192, 0, 2, 1 };
static const uint8_t v4_src[4] = { 192, 0, 2, 77 };
static const uint8_t v4_dst[4] = { 203, 0, 113, 9 };
static const uint8_t v6_gw[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01 };
static const uint8_t v6_src[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x05 };
static const uint8_t v6_dst[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
static const uint8_t zero16[16];

/* ------------------------------------------------------------------------ */
/* netlink: framing                                                          */

static void test_framing(void)
{
    msgbuf a, b, c;
    static _Alignas(8) uint8_t dgram[1024];
    struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC, .ifi_index = 7 };
    struct ifaddrmsg ifa = { .ifa_family = AF_INET, .ifa_index = 7 };
    int32_t done_error = 0;
    size_t la, lb, lc, len, mlen;
    creach_msg_iter it;
    const void *msg;

    group("netlink framing");
    /* Values whose bytes differ, so that a swapped read shows. */
    nl_start(&a, RTM_NEWLINK, NLM_F_MULTI | NLM_F_DUMP_INTR, 0x01020304, &ifi, sizeof(ifi));
    nl_str(&a.h, IFLA_IFNAME, "eth0");
    nl_start(&b, RTM_NEWADDR, NLM_F_MULTI, 0x01020304, &ifa, sizeof(ifa));
    nl_attr(&b.h, IFA_LOCAL, v4_src, 4);
    nl_start(&c, NLMSG_DONE, NLM_F_MULTI, 0x01020304, &done_error, sizeof(done_error));
    la = a.h.nlmsg_len;
    lb = b.h.nlmsg_len;
    lc = c.h.nlmsg_len;
    memcpy(dgram, &a, la);
    memcpy(dgram + la, &b, lb);
    memcpy(dgram + la + lb, &c, lc);
    len = la + lb + lc;

    creach_msg_iter_init(&it, dgram, len);
    EXPECT_EQ(creach_msg_next(&it, &msg, &mlen), 1);
    EXPECT(msg == dgram && mlen == la);
    EXPECT_EQ(creach_msg_type(msg), RTM_NEWLINK);
    EXPECT_EQ(creach_msg_seq(msg), 0x01020304);
    EXPECT_EQ(creach_msg_flags(msg), NLM_F_MULTI | NLM_F_DUMP_INTR);
    EXPECT_EQ(creach_msg_next(&it, &msg, &mlen), 1);
    EXPECT(msg == dgram + la && mlen == lb);
    EXPECT_EQ(creach_msg_type(msg), RTM_NEWADDR);
    EXPECT_EQ(creach_msg_next(&it, &msg, &mlen), 1);
    EXPECT_EQ(creach_msg_type(msg), NLMSG_DONE);
    EXPECT_EQ(creach_msg_next(&it, &msg, &mlen), 0);
    EXPECT_EQ(creach_msg_next(&it, &msg, &mlen), 0);

    /* The same datagram at an odd address and ending at the guard page. */
    {
        static _Alignas(8) uint8_t odd[1025];
        const uint8_t *g = guarded(dgram, len);
        const uint8_t *bufs[2] = { odd + 1, g };
        memcpy(odd + 1, dgram, len);
        for (int k = 0; k < 2; k++) {
            int n = 0;
            creach_msg_iter_init(&it, bufs[k], len);
            while (creach_msg_next(&it, &msg, &mlen) == 1) {
                EXPECT_EQ(creach_msg_seq(msg), 0x01020304);
                n++;
            }
            EXPECT_EQ(n, 3);
        }
    }

    /* The last message may omit its alignment padding: "eth0\0" leaves 3. */
    {
        creach_link link;
        size_t unpadded = la - 3;
        struct nlmsghdr h;

        EXPECT_EQ(la % 4, 0);
        memcpy(dgram, &a, la);
        memcpy(&h, dgram, sizeof(h));
        h.nlmsg_len = (uint32_t)unpadded;
        memcpy(dgram, &h, sizeof(h));
        creach_msg_iter_init(&it, guarded(dgram, unpadded), unpadded);
        EXPECT_EQ(creach_msg_next(&it, &msg, &mlen), 1);
        EXPECT_EQ(mlen, unpadded);
        EXPECT_EQ(creach_msg_next(&it, &msg, &mlen), 0);
        PARSE_OK(p_link, dgram, unpadded, link);
        EXPECT_STR(link.name, "eth0");
    }

    /* Framing the kernel never sends: each refused, nothing read past. */
    {
        struct nlmsghdr h = { .nlmsg_len = 40, .nlmsg_type = RTM_NEWLINK };

        memcpy(dgram, &h, sizeof(h));
        memset(dgram + sizeof(h), 0, 24);
        /* nlmsg_len past the datagram (by one byte, and by a lot). */
        creach_msg_iter_init(&it, guarded(dgram, 39), 39);
        EXPECT_FAIL(creach_msg_next(&it, &msg, &mlen), EBADMSG);
        h.nlmsg_len = UINT32_MAX;
        memcpy(dgram, &h, sizeof(h));
        creach_msg_iter_init(&it, guarded(dgram, 40), 40);
        EXPECT_FAIL(creach_msg_next(&it, &msg, &mlen), EBADMSG);
        /* nlmsg_len below the header's own size. */
        h.nlmsg_len = NLMSG_HDRLEN - 1;
        memcpy(dgram, &h, sizeof(h));
        creach_msg_iter_init(&it, guarded(dgram, 40), 40);
        EXPECT_FAIL(creach_msg_next(&it, &msg, &mlen), EBADMSG);
        /* A header cut short at the end of the datagram. */
        h.nlmsg_len = 16;
        memcpy(dgram, &h, sizeof(h));
        creach_msg_iter_init(&it, guarded(dgram, 10), 10);
        EXPECT_FAIL(creach_msg_next(&it, &msg, &mlen), EBADMSG);
        /* One good message, then 3 stray bytes. */
        memcpy(dgram, &c, lc);
        memset(dgram + lc, 0, 3);
        creach_msg_iter_init(&it, guarded(dgram, lc + 3), lc + 3);
        EXPECT_EQ(creach_msg_next(&it, &msg, &mlen), 1);
        EXPECT_FAIL(creach_msg_next(&it, &msg, &mlen), EBADMSG);
        /* Empty and NULL. */
        creach_msg_iter_init(&it, NULL, 100);
        EXPECT_EQ(creach_msg_next(&it, &msg, &mlen), 0);
    }
    group_end();
}

/* ------------------------------------------------------------------------ */
/* netlink: routes                                                           */

static void test_route(void)
{
    msgbuf m;
    creach_route r;
    struct rtmsg rtm = {
        .rtm_family = AF_INET, .rtm_dst_len = 32, .rtm_table = RT_TABLE_MAIN, .rtm_protocol = RTPROT_BOOT,
        .rtm_scope = RT_SCOPE_UNIVERSE, .rtm_type = RTN_UNICAST, .rtm_flags = RTM_F_CLONED | RTNH_F_ONLINK,
    };
    struct rta_cacheinfo ci = { .rta_clntref = 1, .rta_expires = 2 };

    group("netlink route");
    /* A reply to RTM_GETROUTE 203.0.113.9: every field the parser reads. */
    nl_start(&m, RTM_NEWROUTE, 0, 42, &rtm, sizeof(rtm));
    nl_u32(&m.h, RTA_TABLE, 1000000);           /* 0x000f4240: beyond the header's 8 bits */
    nl_attr(&m.h, RTA_DST, v4_dst, 4);
    nl_u32(&m.h, RTA_OIF, 258);                 /* 0x00000102 */
    nl_attr(&m.h, RTA_PREFSRC, v4_src, 4);
    nl_attr(&m.h, RTA_GATEWAY, v4_gw, 4);
    nl_u32(&m.h, RTA_UID, 1000);
    nl_u32(&m.h, RTA_MARK, 0x00c0ffee);
    nl_attr(&m.h, RTA_CACHEINFO, &ci, sizeof(ci));   /* skipped */
    nl_u32(&m.h, RTA_MAX + 20, 0xdeadbeef);          /* newer than this header: skipped */
    PARSE_OK(p_route, &m, m.h.nlmsg_len, r);
    EXPECT_EQ(r.error, 0);
    EXPECT_EQ(r.family, AF_INET);
    EXPECT_EQ(r.dst_len, 32);
    EXPECT_EQ(r.type, RTN_UNICAST);
    EXPECT_EQ(r.scope, RT_SCOPE_UNIVERSE);
    EXPECT_EQ(r.protocol, RTPROT_BOOT);
    EXPECT_EQ(r.flags, RTM_F_CLONED | RTNH_F_ONLINK);
    EXPECT_EQ(r.table, 1000000);
    EXPECT_EQ(r.oif, 258);
    EXPECT_EQ(r.uid, 1000);
    EXPECT_EQ(r.mark, 0x00c0ffee);
    EXPECT(r.has_gateway == 1 && r.gateway_family == AF_INET && r.has_prefsrc == 1);
    EXPECT_MEM(r.dst, v4_dst, 4);
    EXPECT_MEM(r.gateway, v4_gw, 4);
    EXPECT_MEM(r.prefsrc, v4_src, 4);
    EXPECT_MEM(r.gateway + 4, zero16, 12);
    /* The gateway's bytes are the address's, whatever the host's order. */
    EXPECT(r.gateway[0] == 192 && r.gateway[3] == 1);

    /* Without RTA_TABLE the header's table counts. */
    nl_start(&m, RTM_NEWROUTE, 0, 1, &rtm, sizeof(rtm));
    nl_u32(&m.h, RTA_OIF, 3);
    PARSE_OK(p_route, &m, m.h.nlmsg_len, r);
    EXPECT_EQ(r.table, RT_TABLE_MAIN);
    EXPECT(r.oif == 3 && !r.has_gateway && !r.has_prefsrc && r.gateway_family == 0);

    /* IPv6, a link-local gateway. */
    rtm.rtm_family = AF_INET6;
    rtm.rtm_dst_len = 48;
    rtm.rtm_flags = 0;
    nl_start(&m, RTM_NEWROUTE, 0, 2, &rtm, sizeof(rtm));
    nl_attr(&m.h, RTA_DST, v6_dst, 16);
    nl_attr(&m.h, RTA_GATEWAY, v6_gw, 16);
    nl_attr(&m.h, RTA_PREFSRC, v6_src, 16);
    nl_u32(&m.h, RTA_OIF, 70000);               /* 0x00011170 */
    nl_u32(&m.h, RTA_TABLE, RT_TABLE_MAIN);
    PARSE_OK(p_route, &m, m.h.nlmsg_len, r);
    EXPECT(r.family == AF_INET6 && r.dst_len == 48 && r.oif == 70000 && r.table == RT_TABLE_MAIN);
    EXPECT(r.has_gateway && r.gateway_family == AF_INET6);
    EXPECT_MEM(r.dst, v6_dst, 16);
    EXPECT_MEM(r.gateway, v6_gw, 16);
    EXPECT_MEM(r.prefsrc, v6_src, 16);

    /* RTA_VIA: an IPv4 route through an IPv6 next hop (struct rtvia, whose
     * family is host order). */
    {
        uint8_t via[sizeof(struct rtvia) + 16];
        struct rtvia v = { .rtvia_family = AF_INET6 };

        memcpy(via, &v, sizeof(v));
        memcpy(via + sizeof(v), v6_gw, 16);
        rtm.rtm_family = AF_INET;
        rtm.rtm_dst_len = 0;
        nl_start(&m, RTM_NEWROUTE, 0, 3, &rtm, sizeof(rtm));
        nl_attr(&m.h, RTA_VIA, via, sizeof(via));
        nl_u32(&m.h, RTA_OIF, 2);
        PARSE_OK(p_route, &m, m.h.nlmsg_len, r);
        EXPECT(r.has_gateway && r.gateway_family == AF_INET6 && r.family == AF_INET);
        EXPECT_MEM(r.gateway, v6_gw, 16);

        /* A via family that carries no IP address: EPROTO. */
        v.rtvia_family = AF_PACKET;
        memcpy(via, &v, sizeof(v));
        nl_start(&m, RTM_NEWROUTE, 0, 3, &rtm, sizeof(rtm));
        nl_attr(&m.h, RTA_VIA, via, sizeof(struct rtvia) + 6);
        PARSE_FAIL(p_route, &m, m.h.nlmsg_len, r, EPROTO);
        /* IPv4 via family with 16 bytes of address: EBADMSG. */
        v.rtvia_family = AF_INET;
        memcpy(via, &v, sizeof(v));
        nl_start(&m, RTM_NEWROUTE, 0, 3, &rtm, sizeof(rtm));
        nl_attr(&m.h, RTA_VIA, via, sizeof(via));
        PARSE_FAIL(p_route, &m, m.h.nlmsg_len, r, EBADMSG);
    }

    /* Refused: a wrong-size payload, the wrong family or type; the struct
     * is left cleared. */
    rtm.rtm_family = AF_INET;
    nl_start(&m, RTM_NEWROUTE, 0, 4, &rtm, sizeof(rtm));
    nl_attr(&m.h, RTA_OIF, "\x01\x02", 2);
    PARSE_FAIL(p_route, &m, m.h.nlmsg_len, r, EBADMSG);
    {
        static const creach_route cleared;
        EXPECT_MEM(&r, &cleared, sizeof(r));
    }
    nl_start(&m, RTM_NEWROUTE, 0, 4, &rtm, sizeof(rtm));
    nl_attr(&m.h, RTA_GATEWAY, v6_gw, 16);       /* an IPv6 address in an IPv4 route */
    PARSE_FAIL(p_route, &m, m.h.nlmsg_len, r, EBADMSG);
    rtm.rtm_family = AF_UNSPEC;
    nl_start(&m, RTM_NEWROUTE, 0, 4, &rtm, sizeof(rtm));
    PARSE_FAIL(p_route, &m, m.h.nlmsg_len, r, EPROTO);
    rtm.rtm_family = AF_INET;
    nl_start(&m, RTM_NEWLINK, 0, 4, &rtm, sizeof(rtm));
    PARSE_FAIL(p_route, &m, m.h.nlmsg_len, r, EPROTO);
    group_end();
}

/* ------------------------------------------------------------------------ */
/* netlink: lengths from the kernel, every one bounds-checked                */

static void test_bounds(void)
{
    msgbuf m;
    creach_route r;
    creach_link l;
    struct rtmsg rtm = { .rtm_family = AF_INET, .rtm_table = RT_TABLE_MAIN, .rtm_type = RTN_UNICAST };
    struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC, .ifi_index = 2 };
    struct rtattr *a;
    size_t len;

    group("netlink bounds");
    EXPECT(guard_faults());

    /* nlmsg_len says more than the bytes given (the message ends at the
     * guard page): refused, never read. */
    nl_start(&m, RTM_NEWROUTE, 0, 1, &rtm, sizeof(rtm));
    nl_u32(&m.h, RTA_OIF, 2);
    len = m.h.nlmsg_len;
    PARSE_FAIL(p_route, &m, len - 1, r, EBADMSG);
    PARSE_FAIL(p_route, &m, len - 8, r, EBADMSG);
    m.h.nlmsg_len = UINT32_MAX;
    PARSE_FAIL(p_route, &m, len, r, EBADMSG);
    m.h.nlmsg_len = 0x80000000u;
    PARSE_FAIL(p_route, &m, len, r, EBADMSG);
    /* ... or less than its own header, or than its family header. */
    m.h.nlmsg_len = NLMSG_HDRLEN - 4;
    PARSE_FAIL(p_route, &m, len, r, EBADMSG);
    m.h.nlmsg_len = NLMSG_LENGTH(sizeof(rtm) - 1);
    PARSE_FAIL(p_route, &m, len, r, EBADMSG);
    PARSE_FAIL(p_route, &m, 10, r, EBADMSG);

    /* rta_len past the message, by one byte or by the most it can say. */
    nl_start(&m, RTM_NEWROUTE, 0, 1, &rtm, sizeof(rtm));
    a = nl_attr(&m.h, RTA_OIF, "\x02\0\0\0", 4);
    a->rta_len = RTA_LENGTH(5);
    PARSE_FAIL(p_route, &m, m.h.nlmsg_len, r, EBADMSG);
    a->rta_len = UINT16_MAX;
    PARSE_FAIL(p_route, &m, m.h.nlmsg_len, r, EBADMSG);
    /* rta_len below the attribute header's size (a walk that would not move). */
    a->rta_len = 3;
    PARSE_FAIL(p_route, &m, m.h.nlmsg_len, r, EBADMSG);
    a->rta_len = 0;
    PARSE_FAIL(p_route, &m, m.h.nlmsg_len, r, EBADMSG);
    /* 1..3 stray bytes after the last attribute: a truncated rtattr. */
    for (uint32_t extra = 1; extra <= 3; extra++) {
        nl_start(&m, RTM_NEWROUTE, 0, 1, &rtm, sizeof(rtm));
        nl_u32(&m.h, RTA_OIF, 2);
        m.h.nlmsg_len += extra;
        PARSE_FAIL(p_route, &m, m.h.nlmsg_len, r, EBADMSG);
    }
    /* nlmsg_len past the bytes given, which end inside an attribute. */
    nl_start(&m, RTM_NEWLINK, 0, 1, &ifi, sizeof(ifi));
    nl_str(&m.h, IFLA_IFNAME, "a-long-name-0");
    PARSE_FAIL(p_link, &m, m.h.nlmsg_len - 4, l, EBADMSG);
    /* A nested attribute overrunning its parent. */
    {
        struct rtattr *nest;

        nl_start(&m, RTM_NEWLINK, 0, 1, &ifi, sizeof(ifi));
        nest = nl_nest_start(&m.h, IFLA_LINKINFO);
        a = nl_attr(&m.h, IFLA_INFO_KIND, "veth", 5);
        nl_nest_end(&m.h, nest);
        a->rta_len = RTA_LENGTH(12);
        PARSE_FAIL(p_link, &m, m.h.nlmsg_len, l, EBADMSG);
        EXPECT_EQ(l.carrier, -1);
    }
    /* The message parsed with the datagram's remaining length: the same
     * answer as with its own (the bytes after nlmsg_len are not read). */
    {
        static _Alignas(8) uint8_t two[512];
        creach_route r2;

        nl_start(&m, RTM_NEWROUTE, 0, 1, &rtm, sizeof(rtm));
        nl_u32(&m.h, RTA_OIF, 9);
        memcpy(two, &m, m.h.nlmsg_len);
        memset(two + m.h.nlmsg_len, 0xff, 64);
        PARSE_OK(p_route, two, m.h.nlmsg_len, r);
        PARSE_OK(p_route, two, m.h.nlmsg_len + 64, r2);
        EXPECT_MEM(&r, &r2, sizeof(r));
        EXPECT_EQ(r.oif, 9);
    }
    group_end();
}

/* ------------------------------------------------------------------------ */
/* netlink: links                                                            */

static void test_link(void)
{
    msgbuf m;
    creach_link l;
    struct rtattr *nest, *data;
    struct ifinfomsg ifi = {
        .ifi_family = AF_UNSPEC, .ifi_type = ARPHRD_PPP, .ifi_index = 70000,
        .ifi_flags = IFF_UP | IFF_RUNNING | IFF_LOWER_UP | IFF_POINTOPOINT | IFF_NOARP | IFF_MULTICAST,
        .ifi_change = 0xffffffff,
    };

    group("netlink link");
    nl_start(&m, RTM_NEWLINK, 0, 0, &ifi, sizeof(ifi));
    nl_str(&m.h, IFLA_IFNAME, "ppp0");
    nl_u32(&m.h, IFLA_TXQLEN, 3);                 /* skipped */
    nl_u8(&m.h, IFLA_OPERSTATE, IF_OPER_UP);
    nl_u8(&m.h, IFLA_LINKMODE, 1);
    nl_u32(&m.h, IFLA_MTU, 1492);                 /* 0x5d4 */
    nl_u32(&m.h, IFLA_LINK, 70001);
    nl_u32(&m.h, IFLA_MASTER, 513);
    nl_u8(&m.h, IFLA_CARRIER, 1);
    nest = nl_nest_start(&m.h, IFLA_LINKINFO);
    nl_str(&m.h, IFLA_INFO_KIND, "wireguard");
    data = nl_nest_start(&m.h, IFLA_INFO_DATA);
    nl_u32(&m.h, 1, 0x11223344);
    nl_nest_end(&m.h, data);
    nl_nest_end(&m.h, nest);
    nl_u32(&m.h, IFLA_MAX + 5, 1);                /* newer than this header */
    PARSE_OK(p_link, &m, m.h.nlmsg_len, l);
    EXPECT_EQ(l.index, 70000);
    EXPECT_EQ(l.type, ARPHRD_PPP);                /* 0x0200: a swapped read is 2 */
    EXPECT_EQ(l.flags, IFF_UP | IFF_RUNNING | IFF_LOWER_UP | IFF_POINTOPOINT | IFF_NOARP | IFF_MULTICAST);
    EXPECT_EQ(l.flags & creach_iff_lower_up, creach_iff_lower_up);
    EXPECT_EQ(l.flags & creach_iff_pointopoint, creach_iff_pointopoint);
    EXPECT_EQ(l.mtu, 1492);
    EXPECT_EQ(l.operstate, IF_OPER_UP);
    EXPECT_EQ(l.linkmode, 1);
    EXPECT_EQ(l.carrier, 1);
    EXPECT_EQ(l.link, 70001);
    EXPECT_EQ(l.master, 513);
    EXPECT_STR(l.name, "ppp0");
    EXPECT_STR(l.kind, "wireguard");

    /* Absent attributes: carrier -1, the rest zero; a kind without its NUL. */
    ifi.ifi_type = ARPHRD_ETHER;
    ifi.ifi_flags = 0;
    nl_start(&m, RTM_DELLINK, 0, 0, &ifi, sizeof(ifi));
    nl_str(&m.h, IFLA_IFNAME, "0123456789abcde");   /* 15 bytes: the longest name */
    nest = nl_nest_start(&m.h, IFLA_LINKINFO);
    nl_attr(&m.h, IFLA_INFO_KIND, "vrf", 3);
    nl_nest_end(&m.h, nest);
    PARSE_OK(p_link, &m, m.h.nlmsg_len, l);
    EXPECT(l.carrier == -1 && l.mtu == 0 && l.operstate == 0 && l.link == 0 && l.master == 0);
    EXPECT_EQ(l.type, ARPHRD_ETHER);
    EXPECT_STR(l.name, "0123456789abcde");
    EXPECT_STR(l.kind, "vrf");

    /* Refused, never truncated: a 16-byte name, a name without NUL, an MTU
     * of two bytes, an operstate of four. */
    nl_start(&m, RTM_NEWLINK, 0, 0, &ifi, sizeof(ifi));
    nl_str(&m.h, IFLA_IFNAME, "0123456789abcdef");
    PARSE_FAIL(p_link, &m, m.h.nlmsg_len, l, EBADMSG);
    nl_start(&m, RTM_NEWLINK, 0, 0, &ifi, sizeof(ifi));
    nl_attr(&m.h, IFLA_IFNAME, "eth0", 4);
    PARSE_FAIL(p_link, &m, m.h.nlmsg_len, l, EBADMSG);
    nl_start(&m, RTM_NEWLINK, 0, 0, &ifi, sizeof(ifi));
    nl_attr(&m.h, IFLA_MTU, "\x05\xdc", 2);
    PARSE_FAIL(p_link, &m, m.h.nlmsg_len, l, EBADMSG);
    nl_start(&m, RTM_NEWLINK, 0, 0, &ifi, sizeof(ifi));
    nl_u32(&m.h, IFLA_OPERSTATE, IF_OPER_UP);
    PARSE_FAIL(p_link, &m, m.h.nlmsg_len, l, EBADMSG);
    nl_start(&m, RTM_NEWROUTE, 0, 0, &ifi, sizeof(ifi));
    PARSE_FAIL(p_link, &m, m.h.nlmsg_len, l, EPROTO);
    group_end();
}

/* ------------------------------------------------------------------------ */
/* netlink: addresses                                                        */

static void test_addr(void)
{
    msgbuf m;
    creach_addr ad;
    struct ifa_cacheinfo ci = { .ifa_prefered = 100, .ifa_valid = 200 };
    struct ifaddrmsg ifa = {
        .ifa_family = AF_INET, .ifa_prefixlen = 32, .ifa_flags = IFA_F_PERMANENT,
        .ifa_scope = RT_SCOPE_UNIVERSE, .ifa_index = 70000,
    };
    static const uint8_t local[4] = { 10, 64, 0, 2 }, peer[4] = { 10, 64, 0, 1 };

    group("netlink address");
    /* A point-to-point IPv4 address with a label and the extended flags. */
    nl_start(&m, RTM_NEWADDR, 0, 0, &ifa, sizeof(ifa));
    nl_attr(&m.h, IFA_ADDRESS, peer, 4);
    nl_attr(&m.h, IFA_LOCAL, local, 4);
    nl_str(&m.h, IFA_LABEL, "ppp0");
    nl_u32(&m.h, IFA_FLAGS, IFA_F_PERMANENT | IFA_F_NOPREFIXROUTE);   /* 0x280: past 8 bits */
    nl_attr(&m.h, IFA_CACHEINFO, &ci, sizeof(ci));
    PARSE_OK(p_addr, &m, m.h.nlmsg_len, ad);
    EXPECT_EQ(ad.index, 70000);
    EXPECT(ad.family == AF_INET && ad.prefixlen == 32 && ad.scope == RT_SCOPE_UNIVERSE);
    EXPECT_EQ(ad.flags, IFA_F_PERMANENT | IFA_F_NOPREFIXROUTE);
    EXPECT_EQ(ad.has_peer, 1);
    EXPECT_MEM(ad.address, local, 4);
    EXPECT_MEM(ad.peer, peer, 4);
    EXPECT_STR(ad.label, "ppp0");

    /* IPv6: IFA_ADDRESS alone; the header's flags. */
    ifa.ifa_family = AF_INET6;
    ifa.ifa_prefixlen = 64;
    ifa.ifa_flags = IFA_F_NODAD | IFA_F_TENTATIVE;
    ifa.ifa_scope = RT_SCOPE_LINK;
    ifa.ifa_index = 3;
    nl_start(&m, RTM_DELADDR, 0, 0, &ifa, sizeof(ifa));
    nl_attr(&m.h, IFA_ADDRESS, v6_gw, 16);
    PARSE_OK(p_addr, &m, m.h.nlmsg_len, ad);
    EXPECT(ad.family == AF_INET6 && ad.prefixlen == 64 && ad.scope == RT_SCOPE_LINK && ad.index == 3);
    EXPECT_EQ(ad.flags, IFA_F_NODAD | IFA_F_TENTATIVE);
    EXPECT_EQ(ad.has_peer, 0);
    EXPECT_MEM(ad.address, v6_gw, 16);
    EXPECT_MEM(ad.peer, zero16, 16);

    /* A 4-byte address in an IPv6 message; a 2-byte IFA_FLAGS. */
    nl_start(&m, RTM_NEWADDR, 0, 0, &ifa, sizeof(ifa));
    nl_attr(&m.h, IFA_LOCAL, local, 4);
    PARSE_FAIL(p_addr, &m, m.h.nlmsg_len, ad, EBADMSG);
    nl_start(&m, RTM_NEWADDR, 0, 0, &ifa, sizeof(ifa));
    nl_attr(&m.h, IFA_FLAGS, "\x80\x02", 2);
    PARSE_FAIL(p_addr, &m, m.h.nlmsg_len, ad, EBADMSG);
    ifa.ifa_family = AF_BRIDGE;
    nl_start(&m, RTM_NEWADDR, 0, 0, &ifa, sizeof(ifa));
    PARSE_FAIL(p_addr, &m, m.h.nlmsg_len, ad, EPROTO);
    group_end();
}

/* ------------------------------------------------------------------------ */
/* netlink: neighbours (an uplink tracker's next hop)                        */

static void test_neigh(void)
{
    msgbuf m;
    creach_neigh nb;
    struct ndmsg nd = { .ndm_family = AF_INET, .ndm_ifindex = 70000, .ndm_state = NUD_FAILED };
    static const uint8_t lladdr[6] = { 2, 0, 0, 0, 0, 1 };

    group("netlink neighbour");
    nl_start(&m, RTM_NEWNEIGH, 0, 0, &nd, sizeof(nd));
    nl_attr(&m.h, NDA_DST, v4_gw, 4);
    nl_attr(&m.h, NDA_LLADDR, lladdr, 6);
    PARSE_OK(p_neigh, &m, m.h.nlmsg_len, nb);
    EXPECT_EQ(nb.index, 70000);
    EXPECT(nb.family == AF_INET && nb.has_address == 1 && nb.deleted == 0);
    EXPECT_EQ(nb.state, NUD_FAILED);
    EXPECT_EQ(creach_nud_failed, NUD_FAILED);
    EXPECT_MEM(nb.address, v4_gw, 4);

    nd.ndm_family = AF_INET6;
    nd.ndm_state = NUD_REACHABLE;
    nl_start(&m, RTM_DELNEIGH, 0, 0, &nd, sizeof(nd));
    nl_attr(&m.h, NDA_DST, v6_gw, 16);
    PARSE_OK(p_neigh, &m, m.h.nlmsg_len, nb);
    EXPECT(nb.family == AF_INET6 && nb.deleted == 1 && nb.state == NUD_REACHABLE);
    EXPECT_MEM(nb.address, v6_gw, 16);

    /* No NDA_DST; a 4-byte NDA_DST in an IPv6 message; a short header; a bridge's entry; another type. */
    nl_start(&m, RTM_NEWNEIGH, 0, 0, &nd, sizeof(nd));
    PARSE_OK(p_neigh, &m, m.h.nlmsg_len, nb);
    EXPECT_EQ(nb.has_address, 0);
    nl_attr(&m.h, NDA_DST, v4_gw, 4);
    PARSE_FAIL(p_neigh, &m, m.h.nlmsg_len, nb, EBADMSG);
    nl_start(&m, RTM_NEWNEIGH, 0, 0, &nd, 4);
    PARSE_FAIL(p_neigh, &m, m.h.nlmsg_len, nb, EBADMSG);
    nd.ndm_family = AF_BRIDGE;
    nl_start(&m, RTM_NEWNEIGH, 0, 0, &nd, sizeof(nd));
    PARSE_FAIL(p_neigh, &m, m.h.nlmsg_len, nb, EPROTO);
    nl_start(&m, RTM_NEWLINK, 0, 0, &nd, sizeof(nd));
    PARSE_FAIL(p_neigh, &m, m.h.nlmsg_len, nb, EPROTO);
    group_end();
}

/* ------------------------------------------------------------------------ */
/* netlink: policy rules                                                     */

static void test_rule(void)
{
    msgbuf m;
    creach_rule ru;
    struct fib_rule_hdr frh = {
        .family = AF_INET, .dst_len = 24, .src_len = 16, .tos = 0, .table = RT_TABLE_UNSPEC,
        .action = FR_ACT_TO_TBL, .flags = FIB_RULE_INVERT,
    };
    struct fib_rule_uid_range uids = { .start = 1000, .end = 1999 };
    static const uint8_t from[4] = { 10, 1, 0, 0 }, to[4] = { 198, 51, 100, 0 };

    group("netlink rule");
    nl_start(&m, RTM_NEWRULE, 0, 0, &frh, sizeof(frh));
    nl_u32(&m.h, FRA_TABLE, 1000000);
    nl_u32(&m.h, FRA_PRIORITY, 32765);
    nl_attr(&m.h, FRA_SRC, from, 4);
    nl_attr(&m.h, FRA_DST, to, 4);
    nl_str(&m.h, FRA_IIFNAME, "eth0");
    nl_str(&m.h, FRA_OIFNAME, "wg0");
    nl_u32(&m.h, FRA_FWMARK, 0x1234);
    nl_u32(&m.h, FRA_FWMASK, 0xffff);
    nl_attr(&m.h, FRA_UID_RANGE, &uids, sizeof(uids));
    nl_u32(&m.h, FRA_SUPPRESS_PREFIXLEN, UINT32_MAX);   /* "not set", as kernels send it */
    nl_u32(&m.h, FRA_SUPPRESS_IFGROUP, UINT32_MAX);
    nl_u8(&m.h, FRA_PROTOCOL, 4);
    PARSE_OK(p_rule, &m, m.h.nlmsg_len, ru);
    EXPECT(ru.family == AF_INET && ru.action == FR_ACT_TO_TBL && ru.dst_len == 24 && ru.src_len == 16);
    EXPECT_EQ(ru.flags, FIB_RULE_INVERT);
    EXPECT_EQ(ru.table, 1000000);
    EXPECT_EQ(ru.priority, 32765);
    EXPECT_EQ(ru.fwmark, 0x1234);
    EXPECT_EQ(ru.fwmask, 0xffff);
    EXPECT(ru.has_uid_range && ru.uid_start == 1000 && ru.uid_end == 1999);
    EXPECT(!ru.has_suppress && !ru.other_selectors);
    EXPECT_MEM(ru.src, from, 4);
    EXPECT_MEM(ru.dst, to, 4);
    EXPECT_STR(ru.iifname, "eth0");
    EXPECT_STR(ru.oifname, "wg0");

    /* IPv6: a goto, a suppressor set, a selector the parser does not decode. */
    frh.family = AF_INET6;
    frh.dst_len = 0;
    frh.src_len = 64;
    frh.table = RT_TABLE_MAIN;
    frh.action = FR_ACT_GOTO;
    frh.flags = 0;
    nl_start(&m, RTM_DELRULE, 0, 0, &frh, sizeof(frh));
    nl_u32(&m.h, FRA_GOTO, 32000);
    nl_u32(&m.h, FRA_SUPPRESS_PREFIXLEN, 0);
    nl_u8(&m.h, FRA_L3MDEV, 1);
    nl_attr(&m.h, FRA_SRC, v6_dst, 16);
    PARSE_OK(p_rule, &m, m.h.nlmsg_len, ru);
    EXPECT(ru.family == AF_INET6 && ru.action == FR_ACT_GOTO && ru.src_len == 64 && ru.table == RT_TABLE_MAIN);
    EXPECT_EQ(ru.goto_target, 32000);
    EXPECT(ru.has_suppress && ru.other_selectors && !ru.has_uid_range && ru.priority == 0);
    EXPECT_MEM(ru.src, v6_dst, 16);

    /* A prefix longer than the family's, a short uid range. */
    frh.family = AF_INET;
    frh.dst_len = 33;
    nl_start(&m, RTM_NEWRULE, 0, 0, &frh, sizeof(frh));
    PARSE_FAIL(p_rule, &m, m.h.nlmsg_len, ru, EBADMSG);
    frh.dst_len = 0;
    nl_start(&m, RTM_NEWRULE, 0, 0, &frh, sizeof(frh));
    nl_attr(&m.h, FRA_UID_RANGE, &uids, 4);
    PARSE_FAIL(p_rule, &m, m.h.nlmsg_len, ru, EBADMSG);
    group_end();
}

/* ------------------------------------------------------------------------ */
/* netlink: NLMSG_ERROR                                                      */

/* An error message: @err, the echoed header @echo, then @extra bytes. */
static void nl_error(msgbuf *m, uint16_t flags, int32_t err, const struct nlmsghdr *echo, const void *extra,
                     size_t extra_len)
{
    struct nlmsgerr e;

    memset(&e, 0, sizeof(e));
    e.error = err;
    e.msg = *echo;
    nl_start(m, NLMSG_ERROR, flags, echo->nlmsg_seq, &e, sizeof(e));
    if (extra_len > 0) {
        memcpy(m->b + m->h.nlmsg_len, extra, extra_len);
        m->h.nlmsg_len += (uint32_t)NLMSG_ALIGN(extra_len);
    }
}

static void test_error(void)
{
    msgbuf m, req;
    int32_t err;
    struct rtmsg rtm = { .rtm_family = AF_INET };
    struct nlmsghdr echo = { .nlmsg_len = 36, .nlmsg_type = RTM_GETROUTE, .nlmsg_flags = NLM_F_REQUEST, .nlmsg_seq = 0x01020304 };

    group("netlink error");
    nl_error(&m, 0, -ENETUNREACH, &echo, NULL, 0);
    PARSE_OK(p_error, &m, m.h.nlmsg_len, err);
    EXPECT_EQ(err, ENETUNREACH);
    EXPECT_EQ(creach_msg_seq(&m), 0x01020304);
    nl_error(&m, NLM_F_CAPPED, 0, &echo, NULL, 0);     /* an ACK */
    PARSE_OK(p_error, &m, m.h.nlmsg_len, err);
    EXPECT_EQ(err, 0);
    nl_error(&m, 0, -EHOSTUNREACH, &echo, NULL, 0);
    PARSE_OK(p_error, &m, m.h.nlmsg_len, err);
    EXPECT_EQ(err, EHOSTUNREACH);
    nl_error(&m, 0, INT32_MIN, &echo, NULL, 0);        /* no positive errno for it */
    PARSE_FAIL(p_error, &m, m.h.nlmsg_len, err, EBADMSG);
    EXPECT_EQ((uint32_t)err, 0xa5a5a5a5u);              /* untouched on failure (parse_all's fill) */
    nl_error(&m, 0, -EINVAL, &echo, NULL, 0);
    m.h.nlmsg_len = NLMSG_LENGTH(sizeof(int32_t));      /* error but no echoed header */
    PARSE_FAIL(p_error, &m, m.h.nlmsg_len, err, EBADMSG);
    nl_start(&req, RTM_NEWROUTE, 0, 0, &rtm, sizeof(rtm));
    PARSE_FAIL(p_error, &req, req.h.nlmsg_len, err, EPROTO);

    /* Extended ACKs: the TLVs after the echoed header (capped) or after the
     * whole echoed request. */
    {
        msgbuf tlv;
        size_t tlv_len;
        uint8_t echoed[256];

        nl_start(&tlv, 0, 0, 0, NULL, 0);
        nl_str(&tlv.h, NLMSGERR_ATTR_MSG, "Invalid table");
        nl_u32(&tlv.h, NLMSGERR_ATTR_OFFS, 28);
        tlv_len = tlv.h.nlmsg_len - NLMSG_HDRLEN;

        nl_error(&m, NLM_F_CAPPED | NLM_F_ACK_TLVS, -EINVAL, &echo, tlv.b + NLMSG_HDRLEN, tlv_len);
        EXPECT(creach_error_is_request_fault(&m, m.h.nlmsg_len));
        EXPECT(creach_error_is_request_fault(guarded(&m, m.h.nlmsg_len), m.h.nlmsg_len));
        nl_error(&m, NLM_F_CAPPED, -EINVAL, &echo, tlv.b + NLMSG_HDRLEN, tlv_len);
        EXPECT(!creach_error_is_request_fault(&m, m.h.nlmsg_len));    /* no ACK_TLVS flag */
        nl_error(&m, NLM_F_CAPPED | NLM_F_ACK_TLVS, -EINVAL, &echo, NULL, 0);
        EXPECT(!creach_error_is_request_fault(&m, m.h.nlmsg_len));    /* no TLV */

        /* Uncapped: the request's 36 bytes are echoed, its first 16 in
         * nlmsgerr, the other 20 before the TLVs. */
        nl_start(&req, RTM_GETROUTE, NLM_F_REQUEST, 0x01020304, &rtm, sizeof(rtm));
        nl_u32(&req.h, RTA_TABLE, 1000000);
        nl_u32(&req.h, RTA_OIF, 2);
        echo = req.h;
        EXPECT_EQ(req.h.nlmsg_len, 44);
        memcpy(echoed, req.b + NLMSG_HDRLEN, req.h.nlmsg_len - NLMSG_HDRLEN);
        memcpy(echoed + req.h.nlmsg_len - NLMSG_HDRLEN, tlv.b + NLMSG_HDRLEN, tlv_len);
        nl_error(&m, NLM_F_ACK_TLVS, -EINVAL, &echo, echoed, req.h.nlmsg_len - NLMSG_HDRLEN + tlv_len);
        EXPECT(creach_error_is_request_fault(&m, m.h.nlmsg_len));
        EXPECT(creach_error_is_request_fault(guarded(&m, m.h.nlmsg_len), m.h.nlmsg_len));
        /* The echoed request is longer than the message: no room for TLVs. */
        echo.nlmsg_len = 4096;
        nl_error(&m, NLM_F_ACK_TLVS, -EINVAL, &echo, echoed, req.h.nlmsg_len - NLMSG_HDRLEN + tlv_len);
        EXPECT(!creach_error_is_request_fault(&m, m.h.nlmsg_len));
    }

    /* An echoed nlmsg_len near UINT32_MAX (it can only overrun the message)
     * must not wrap the TLVs' offset back into the message: with a 32-bit
     * size_t, 4 + 0xfffffffc is 0, and the walk started at the nlmsgerr,
     * whose bytes are laid out here as TLVs (a NLMSGERR_ATTR_MSG first), in
     * host order (Fuzz/corpus/netlink/extack_echo_len_wraps, little-endian). */
    {
        static _Alignas(8) uint8_t b[64];
        struct nlmsghdr h = { .nlmsg_len = 36, .nlmsg_type = NLMSG_ERROR, .nlmsg_flags = NLM_F_ACK_TLVS, .nlmsg_seq = 1 };
        struct rtattr msg_attr = { .rta_len = 8, .rta_type = NLMSGERR_ATTR_MSG };
        struct rtattr pad = { .rta_len = 4, .rta_type = 0 };
        uint32_t echoed_len;

        for (echoed_len = 0xfffffffcu; echoed_len != 0; echoed_len++) {
            memset(b, 0, sizeof(b));
            memcpy(b, &h, sizeof(h));
            memcpy(b + 16, &msg_attr, sizeof(msg_attr));     /* nlmsgerr.error */
            memcpy(b + 20, &echoed_len, sizeof(echoed_len)); /* nlmsgerr.msg.nlmsg_len */
            memcpy(b + 24, &pad, sizeof(pad));               /* ... nlmsg_type, nlmsg_flags */
            memcpy(b + 28, &pad, sizeof(pad));               /* ... nlmsg_seq */
            memcpy(b + 32, &pad, sizeof(pad));               /* ... nlmsg_pid */
            expect(!creach_error_is_request_fault(b, 36), __FILE__, __LINE__,
                   "an echoed nlmsg_len of 0x%" PRIx32 " overruns the message: not a request fault", echoed_len);
            expect(!creach_error_is_request_fault(guarded(b, 36), 36), __FILE__, __LINE__,
                   "(guarded) echoed nlmsg_len 0x%" PRIx32, echoed_len);
        }
    }
    group_end();
}

/* ------------------------------------------------------------------------ */
/* netlink: the notification classifier                                      */

static void test_events(void)
{
    static _Alignas(8) uint8_t dgram[2048];
    size_t len = 0;
    msgbuf m;
    creach_events ev;
    struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC, .ifi_index = 70000 };
    struct ifaddrmsg ifa = { .ifa_family = AF_INET6 };
    struct rtmsg rtm = { .rtm_family = AF_INET, .rtm_type = RTN_THROW };
    struct fib_rule_hdr frh = { .family = AF_INET6 };
    uint8_t nh[8] = { AF_INET };

#define APPEND() (memcpy(dgram + len, &m, m.h.nlmsg_len), len += m.h.nlmsg_len)
    group("netlink events");
    nl_start(&m, RTM_NEWLINK, 0, 0, &ifi, sizeof(ifi));
    APPEND();
    nl_start(&m, RTM_DELLINK, 0, 0, &ifi, sizeof(ifi));
    APPEND();
    ifi.ifi_index = 258;
    nl_start(&m, RTM_DELLINK, 0, 0, &ifi, sizeof(ifi));
    APPEND();
    ifi.ifi_family = AF_BRIDGE;                  /* a port left a bridge: not a deletion */
    nl_start(&m, RTM_DELLINK, 0, 0, &ifi, sizeof(ifi));
    APPEND();
    nl_start(&m, RTM_NEWADDR, 0, 0, &ifa, sizeof(ifa));
    APPEND();
    nl_start(&m, RTM_NEWROUTE, 0, 0, &rtm, sizeof(rtm));
    APPEND();
    nl_start(&m, RTM_DELRULE, 0, 0, &frh, sizeof(frh));
    APPEND();
    nl_start(&m, RTM_NEWNEXTHOP, 0, 0, nh, sizeof(nh));
    APPEND();
    nl_start(&m, RTM_NEWROUTE, 0, 0, &rtm, 4);   /* shorter than rtmsg */
    APPEND();
    nl_start(&m, RTM_NEWNEIGH, 0, 0, &ifa, sizeof(ifa));
    APPEND();
#undef APPEND

    memset(&ev, 0, sizeof(ev));
    EXPECT_EQ(creach_events_classify(guarded(dgram, len), len, &ev), 10);
    EXPECT_EQ(ev.messages, 10);
    EXPECT_EQ(ev.link, 3);
    EXPECT_EQ(ev.deleted_count, 2);
    EXPECT(ev.deleted[0] == 70000 && ev.deleted[1] == 258);
    EXPECT(ev.addr6 == 1 && ev.addr4 == 0);
    EXPECT(ev.route4 == 1 && ev.route6 == 0 && ev.throw_added == 1);
    EXPECT(ev.rule6 == 1 && ev.rule4 == 0);
    EXPECT_EQ(ev.nexthop, 1);
    EXPECT_EQ(ev.malformed, 1);
    EXPECT_EQ(ev.other, 2);
    /* Counts add up; a break in the framing is counted, the rest kept. */
    {
        static _Alignas(8) uint8_t odd[2049];
        creach_events ev2 = ev;

        memcpy(odd + 1, dgram, len);
        EXPECT_EQ(creach_events_classify(odd + 1, len, &ev2), 10);
        EXPECT(ev2.messages == 20 && ev2.deleted_count == 4 && ev2.deleted[2] == 70000 && ev2.deleted[3] == 258);
        memset(&ev, 0, sizeof(ev));
        EXPECT_FAIL(creach_events_classify(guarded(dgram, len - 1), len - 1, &ev), EBADMSG);
        EXPECT(ev.messages == 9 && ev.malformed == 2);
    }
    group_end();
}

/* ------------------------------------------------------------------------ */
/* netlink: the request builder (creach_nl_put_attr), read back              */

static void test_request(void)
{
    msgbuf m;
    creach_route r;
    struct rtmsg rtm = { .rtm_family = AF_INET6, .rtm_dst_len = 128 };
    uint32_t oif = 70000, mark = 0x00c0ffee;
    struct rtattr a;

    group("netlink request builder");
    nl_start(&m, RTM_GETROUTE, NLM_F_REQUEST, 9, &rtm, sizeof(rtm));
    EXPECT_EQ(creach_nl_put_attr(&m.h, sizeof(m), RTA_DST, v6_dst, 16), 0);
    EXPECT_EQ(creach_nl_put_attr(&m.h, sizeof(m), RTA_OIF, &oif, 4), 0);
    EXPECT_EQ(creach_nl_put_attr(&m.h, sizeof(m), RTA_MARK, &mark, 4), 0);
    EXPECT_EQ(creach_nl_put_attr(&m.h, sizeof(m), RTA_UNSPEC, "abc", 3), 0);   /* padded to 8 */
    EXPECT_EQ(m.h.nlmsg_len, NLMSG_SPACE(sizeof(rtm)) + RTA_SPACE(16) + 2 * RTA_SPACE(4) + RTA_SPACE(3));
    /* The first attribute's header, read as the kernel reads it. */
    memcpy(&a, m.b + NLMSG_SPACE(sizeof(rtm)), sizeof(a));
    EXPECT(a.rta_len == RTA_LENGTH(16) && a.rta_type == RTA_DST);
    EXPECT_EQ(m.b[m.h.nlmsg_len - 1], 0);
    /* No room: EMSGSIZE, the message unchanged. */
    {
        uint32_t before = m.h.nlmsg_len;
        EXPECT_FAIL(creach_nl_put_attr(&m.h, before + 7, RTA_OIF, &oif, 4), EMSGSIZE);
        EXPECT_EQ(m.h.nlmsg_len, before);
        EXPECT_FAIL(creach_nl_put_attr(&m.h, sizeof(m), RTA_OIF, NULL, 70000), EMSGSIZE);
    }
    /* Read back by the route parser. */
    m.h.nlmsg_type = RTM_NEWROUTE;
    PARSE_OK(p_route, &m, m.h.nlmsg_len, r);
    EXPECT(r.family == AF_INET6 && r.dst_len == 128 && r.oif == 70000 && r.mark == 0x00c0ffee);
    EXPECT_MEM(r.dst, v6_dst, 16);
    group_end();
}

/* ------------------------------------------------------------------------ */
/* ICMP (network order on the wire)                                          */

static void test_icmp(void)
{
    uint8_t buf[64];
    creach_icmp_info info;

    group("icmp");
    /* Echo requests, byte for byte: id 0x1234, seq 0xabcd, RFC 1071 checksum. */
    {
        static const uint8_t want4[] = { 8, 0, 0x75, 0x9b, 0x12, 0x34, 0xab, 0xcd, 'a', 'b', 'c' };
        static const uint8_t want4_empty[] = { 8, 0, 0x39, 0xfe, 0x12, 0x34, 0xab, 0xcd };
        static const uint8_t want6[] = { 128, 0, 0, 0, 0x12, 0x34, 0xab, 0xcd, 'a', 'b', 'c' };

        EXPECT_EQ(creach_icmp_echo_build(AF_INET, 0x1234, 0xabcd, "abc", 3, buf, sizeof(buf)), sizeof(want4));
        EXPECT_MEM(buf, want4, sizeof(want4));
        EXPECT_EQ(creach_icmp_echo_build(AF_INET, 0x1234, 0xabcd, NULL, 0, buf, sizeof(buf)), 8);
        EXPECT_MEM(buf, want4_empty, sizeof(want4_empty));
        EXPECT_EQ(creach_icmp_echo_build(AF_INET6, 0x1234, 0xabcd, "abc", 3, buf, sizeof(buf)), sizeof(want6));
        EXPECT_MEM(buf, want6, sizeof(want6));
        EXPECT_FAIL(creach_icmp_echo_build(AF_INET, 1, 2, "abc", 3, buf, 10), EMSGSIZE);
        EXPECT_FAIL(creach_icmp_echo_build(AF_UNIX, 1, 2, NULL, 0, buf, sizeof(buf)), EINVAL);
    }
    /* Echo replies: v4 (ping socket, no IP header), v4 raw (with IHL 6:
     * one option word), v6. */
    {
        static const uint8_t reply4[] = { 0, 0, 0x7d, 0x9b, 0xbe, 0xef, 0x00, 0x01 };
        static const uint8_t raw4[] = {
            0x46, 0, 0, 32, 0, 0, 0x40, 0, 64, 1, 0, 0, 192, 0, 2, 1, 192, 0, 2, 77, 1, 1, 1, 0,
            0, 0, 0, 0, 0x80, 0x01, 0xff, 0xfe,
        };
        static const uint8_t reply6[] = { 129, 0, 0, 0, 0x01, 0x02, 0x03, 0x04, 'x' };

        EXPECT_EQ(creach_icmp_parse(AF_INET, 0, guarded(reply4, sizeof(reply4)), sizeof(reply4), &info), 1);
        EXPECT(info.is_echo_reply && !info.is_error && info.type == 0);
        EXPECT_EQ(info.id, 0xbeef);
        EXPECT_EQ(info.seq, 0x0001);
        EXPECT_EQ(creach_icmp_parse(AF_INET, 1, guarded(raw4, sizeof(raw4)), sizeof(raw4), &info), 1);
        EXPECT(info.is_echo_reply && info.id == 0x8001 && info.seq == 0xfffe);
        EXPECT_EQ(creach_icmp_parse(AF_INET6, 0, guarded(reply6, sizeof(reply6)), sizeof(reply6), &info), 1);
        EXPECT(info.is_echo_reply && info.type == 129 && info.id == 0x0102 && info.seq == 0x0304);
        /* Our own request is not a reply; a cut header is refused. */
        EXPECT_EQ(creach_icmp_echo_build(AF_INET6, 0x0102, 0x0304, NULL, 0, buf, sizeof(buf)), 8);
        EXPECT_EQ(creach_icmp_parse(AF_INET6, 0, guarded(buf, 8), 8, &info), 0);
        EXPECT(info.type == 128 && !info.is_echo_reply && info.id == 0 && info.seq == 0);
        EXPECT_FAIL(creach_icmp_parse(AF_INET, 0, guarded(reply4, 7), 7, &info), EBADMSG);
        EXPECT_FAIL(creach_icmp_parse(AF_INET, 1, guarded(raw4, 24), 24, &info), EBADMSG);
        EXPECT_FAIL(creach_icmp_parse(AF_INET6, 1, reply6, sizeof(reply6), &info), EINVAL);
    }
    /* Errors quoting our echo request: v4 port unreachable, v6 packet too big. */
    {
        static const uint8_t err4[] = {
            3, 3, 0, 0, 0, 0, 0, 0,
            0x45, 0, 0, 28, 0, 0, 0x40, 0, 64, 1, 0, 0, 192, 0, 2, 77, 203, 0, 113, 9,
            8, 0, 0, 0, 0x12, 0x34, 0x00, 0x2a,
        };
        static const uint8_t err6[] = {
            2, 0, 0, 0, 0, 0, 0x05, 0x00,
            0x60, 0, 0, 0, 0, 8, 58, 64,
            0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x05,
            0x20, 0x01, 0x0d, 0xb8, 0, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x09,
            128, 0, 0, 0, 0xab, 0xcd, 0x80, 0x00,
        };
        uint8_t frag[sizeof(err4)];

        EXPECT_EQ(creach_icmp_parse(AF_INET, 0, guarded(err4, sizeof(err4)), sizeof(err4), &info), 1);
        EXPECT(info.is_error && !info.is_echo_reply && info.type == 3 && info.code == 3);
        EXPECT(info.id == 0x1234 && info.seq == 0x002a);
        EXPECT_EQ(creach_icmp_parse(AF_INET6, 0, guarded(err6, sizeof(err6)), sizeof(err6), &info), 1);
        EXPECT(info.is_error && info.type == 2 && info.id == 0xabcd && info.seq == 0x8000);
        /* A non-first fragment's quote is payload, not our header. */
        memcpy(frag, err4, sizeof(err4));
        frag[8 + 6] = 0x00;
        frag[8 + 7] = 0x10;                         /* fragment offset 16 (network order) */
        EXPECT_EQ(creach_icmp_parse(AF_INET, 0, frag, sizeof(frag), &info), 0);
        EXPECT(!info.is_error && info.id == 0 && info.seq == 0 && info.type == 3);
        /* The quote cut one byte short of the echo header. */
        EXPECT_EQ(creach_icmp_parse(AF_INET, 0, guarded(err4, sizeof(err4) - 1), sizeof(err4) - 1, &info), 0);
    }
    group_end();
}

/* ------------------------------------------------------------------------ */
/* DNS (network order on the wire)                                           */

static void test_dns(void)
{
    uint8_t q[512];
    creach_dns_result res;

    group("dns");
    {
        static const uint8_t want[] = {
            0xbe, 0xef, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0,
            7, 'e', 'x', 'a', 'm', 'p', 'l', 'e', 3, 'c', 'o', 'm', 0, 0x00, 0x1c, 0x00, 0x01,
        };
        EXPECT_EQ(creach_dns_build_query(0xbeef, "example.com.", CREACH_DNS_TYPE_AAAA, q, sizeof(q)), sizeof(want));
        EXPECT_MEM(q, want, sizeof(want));
        EXPECT_FAIL(creach_dns_build_query(0xbeef, "example.com", CREACH_DNS_TYPE_AAAA, q, sizeof(want) - 1), EMSGSIZE);
        EXPECT_FAIL(creach_dns_build_query(1, "bad..name", CREACH_DNS_TYPE_A, q, sizeof(q)), EINVAL);
    }
    /* A response: a CNAME (compressed, pointing at the question), then two
     * A records; id 0xa55a, flags 0x8180 (QR, RD, RA). */
    {
        static const uint8_t resp[] = {
            0xa5, 0x5a, 0x81, 0x80, 0, 1, 0, 3, 0, 0, 0, 0,
            /* 12 */ 3, 'w', 'w', 'w', 7, 'e', 'x', 'a', 'm', 'p', 'l', 'e', 3, 'c', 'o', 'm', 0, 0, 1, 0, 1,
            /* CNAME */ 0xc0, 0x0c, 0, 5, 0, 1, 0, 0, 0x0e, 0x10, 0, 2, 0xc0, 0x10,
            /* A */ 0xc0, 0x10, 0, 1, 0, 1, 0x00, 0x01, 0x51, 0x80, 0, 4, 192, 0, 2, 7,
            /* A */ 0xc0, 0x10, 0, 1, 0, 1, 0x00, 0x01, 0x51, 0x80, 0, 4, 198, 51, 100, 8,
        };
        static const uint8_t first[4] = { 192, 0, 2, 7 };
        uint8_t bad[sizeof(resp)];

        EXPECT_EQ(creach_dns_parse_response(guarded(resp, sizeof(resp)), sizeof(resp), 0xa55a, "WWW.example.com",
                                            CREACH_DNS_TYPE_A, &res), 1);
        EXPECT(res.answers == 2 && res.rcode == 0 && !res.truncated);
        EXPECT_MEM(res.first, first, 4);
        /* Another id (the bytes swapped), another type: not this query's. */
        EXPECT_EQ(creach_dns_parse_response(resp, sizeof(resp), 0x5aa5, "www.example.com", CREACH_DNS_TYPE_A, &res), 0);
        EXPECT_EQ(creach_dns_parse_response(resp, sizeof(resp), 0xa55a, "www.example.com", CREACH_DNS_TYPE_AAAA, &res), 0);
        EXPECT_EQ(res.answers, 0);
        /* rdlength past the message; a forward compression pointer. */
        memcpy(bad, resp, sizeof(resp));
        bad[sizeof(resp) - 5] = 5;
        EXPECT_FAIL(creach_dns_parse_response(guarded(bad, sizeof(bad)), sizeof(bad), 0xa55a, "www.example.com",
                                              CREACH_DNS_TYPE_A, &res), EBADMSG);
        memcpy(bad, resp, sizeof(resp));
        bad[34] = 0x40;                               /* the CNAME's owner points at offset 64 */
        EXPECT_FAIL(creach_dns_parse_response(bad, sizeof(bad), 0xa55a, "www.example.com", CREACH_DNS_TYPE_A, &res),
                    EBADMSG);
        /* Cut in the last record. */
        EXPECT_FAIL(creach_dns_parse_response(guarded(resp, sizeof(resp) - 2), sizeof(resp) - 2, 0xa55a,
                                              "www.example.com", CREACH_DNS_TYPE_A, &res), EBADMSG);
    }
    /* NXDOMAIN with TC; an AAAA answer. */
    {
        static const uint8_t nx[] = {
            0x00, 0x07, 0x83, 0x83, 0, 1, 0, 0, 0, 0, 0, 0,
            1, 'a', 4, 't', 'e', 's', 't', 0, 0, 28, 0, 1,
        };
        static const uint8_t aaaa[] = {
            0xff, 0x00, 0x80, 0x00, 0, 1, 0, 1, 0, 0, 0, 0,
            1, 'a', 4, 't', 'e', 's', 't', 0, 0, 28, 0, 1,
            0xc0, 0x0c, 0, 28, 0, 1, 0, 0, 0, 60, 0, 16,
            0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x05,
        };
        EXPECT_EQ(creach_dns_parse_response(nx, sizeof(nx), 7, "a.test", CREACH_DNS_TYPE_AAAA, &res), 1);
        EXPECT(res.rcode == 3 && res.truncated == 1 && res.answers == 0);
        EXPECT_EQ(creach_dns_parse_response(guarded(aaaa, sizeof(aaaa)), sizeof(aaaa), 0xff00, "a.test.",
                                            CREACH_DNS_TYPE_AAAA, &res), 1);
        EXPECT(res.answers == 1 && res.rcode == 0);
        EXPECT_MEM(res.first, v6_src, 16);
    }
    group_end();
}

/* ------------------------------------------------------------------------ */
/* HTTP                                                                      */

static void test_http(void)
{
    static const char ok204[] = "HTTP/1.1 204 No Content\r\nContent-Length: 0\r\nX-A: b\r\n\r\n";
    static const char big[] = "HTTP/1.0 200 OK\r\nContent-Length: 9223372036854775807\r\n\r\n";
    static const char bigger[] = "HTTP/1.1 200 OK\r\nContent-Length: 9223372036854775808\r\n\r\n";
    static const char redirect[] =
        "HTTP/1.1 302 Found\r\nLocation:  http://192.0.2.1/portal?x=1 \r\nTransfer-Encoding: gzip, chunked\r\n\r\n5\r\nhello";
    static creach_http_head head;
    char req[256];
    size_t head_len = 0;
    int status = 0;

    group("http");
    EXPECT_EQ(creach_http_parse_head(guarded(ok204, sizeof(ok204) - 1), sizeof(ok204) - 1, &status, &head_len), 1);
    EXPECT_EQ(status, 204);
    EXPECT_EQ(head_len, sizeof(ok204) - 1);
    EXPECT_EQ(creach_http_parse_head(ok204, sizeof(ok204) - 2, &status, &head_len), 0);
    EXPECT_EQ(creach_http_parse_head("HTTP/1.1 6", 10, &status, &head_len), -1);
    EXPECT_FAIL(creach_http_parse_head("HTTP/1.1 200 OK\n\n", 17, &status, &head_len), EBADMSG);

    /* Content-Length at INT64_MAX (64-bit arithmetic with a 32-bit size_t), and one more. */
    EXPECT_EQ(creach_http_parse_response(big, sizeof(big) - 1, 0, &head), 1);
    EXPECT(head.has_content_length && head.content_length == (uint64_t)INT64_MAX);
    EXPECT_EQ(head.body, CREACH_HTTP_BODY_PRESENT);
    EXPECT_FAIL(creach_http_parse_response(bigger, sizeof(bigger) - 1, 0, &head), EBADMSG);

    EXPECT_EQ(creach_http_parse_response(guarded(redirect, sizeof(redirect) - 1), sizeof(redirect) - 1, 0, &head), 1);
    EXPECT_EQ(head.status, 302);
    EXPECT_STR(head.location, "http://192.0.2.1/portal?x=1");
    EXPECT_EQ(head.location_len, 27);
    EXPECT(head.chunked && head.has_transfer_encoding && !head.has_content_length);
    EXPECT_EQ(head.body, CREACH_HTTP_BODY_PRESENT);
    EXPECT_EQ(head.body_bytes, 8);
    EXPECT_EQ(head.head_len, sizeof(redirect) - 1 - 8);

    {
        static const char want[] = "GET /generate_204 HTTP/1.1\r\nHost: example.com:8080\r\nUser-Agent: swift-reachability\r\n"
                                   "Accept: */*\r\nConnection: close\r\n\r\n";
        EXPECT_EQ(creach_http_build_request("example.com:8080", "/generate_204", req, sizeof(req)), sizeof(want) - 1);
        EXPECT_MEM(req, want, sizeof(want) - 1);
        EXPECT_FAIL(creach_http_build_request("example.com:8080", "/generate_204", req, sizeof(want) - 2), EMSGSIZE);
        EXPECT_FAIL(creach_http_build_request("a b", "/", req, sizeof(req)), EINVAL);
    }
    group_end();
}

/* ------------------------------------------------------------------------ */
/* Text: ping_group_range, sysfs, /proc/net/pppoe                            */

static void test_text(void)
{
    uint32_t lo = 1, hi = 1;
    char out[CREACH_SYSFS_VALUESIZ];
    static const char uevent[] = "DEVTYPE=wlan\nINTERFACE=wlan0\nIFINDEX=3\n";
    static const char pppoe[] = "Id       Address              Device\n00000001 02:00:00:00:00:01 eth0\n"
                                "00000002 02:00:00:00:00:02 eth0\n";
    creach_sessions_counter c;

    group("text parsers");
    EXPECT_EQ(creach_parse_id_range("100\t4294967295\n", 15, &lo, &hi), 0);
    EXPECT(lo == 100 && hi == UINT32_MAX);
    EXPECT_EQ(creach_parse_id_range("0 2147483648", 12, &lo, &hi), 0);
    EXPECT(lo == 0 && hi == 2147483648u);
    EXPECT_FAIL(creach_parse_id_range("1 4294967296", 12, &lo, &hi), EINVAL);
    EXPECT_FAIL(creach_parse_id_range("1 18446744073709551617", 22, &lo, &hi), EINVAL);
    EXPECT(lo == 0 && hi == 2147483648u);

    EXPECT_EQ(creach_parse_ifindex("2147483647\n"), INT32_MAX);
    EXPECT_EQ(creach_parse_ifindex("2147483648"), -1);
    EXPECT_EQ(creach_parse_ifindex("4294967297"), -1);           /* 2^32 + 1: not 1 */
    EXPECT_EQ(creach_parse_ifindex("18446744073709551618"), -1); /* 2^64 + 2: not 2 */
    EXPECT_EQ(creach_parse_ifindex("70000"), 70000);

    EXPECT_EQ(creach_uevent_value(uevent, sizeof(uevent) - 1, "INTERFACE", out, sizeof(out)), 5);
    EXPECT_STR(out, "wlan0");
    EXPECT_EQ(creach_uevent_value(uevent, sizeof(uevent) - 1, "DEVTYPE", out, 5), 4);
    EXPECT_FAIL(creach_uevent_value(uevent, sizeof(uevent) - 1, "DEVTYPE", out, 4), ENAMETOOLONG);

    memset(&c, 0, sizeof(c));
    creach_sessions_feed(&c, pppoe, 40);
    creach_sessions_feed(&c, pppoe + 40, sizeof(pppoe) - 1 - 40);
    EXPECT_EQ(creach_sessions_pppoe(&c), 2);
    EXPECT_EQ(creach_sessions_l2tp(&c), 0);
    group_end();
}

/* ------------------------------------------------------------------------ */
/* Time: the monitor's wait with every timeout an int64_t can say            */

static void test_time(void)
{
    struct timespec ts;
    uint64_t t0, t1, now;
    int fd = creach_wakeup_open();
    static const int64_t timeouts[] = {
        0, 1, 999999999, 1000000000, (int64_t)INT32_MAX * 1000000000, ((int64_t)INT32_MAX + 1) * 1000000000,
        3000000000LL * 1000000000LL, INT64_MAX,
    };

    group("time and waits");
    EXPECT(fd >= 0);
    t0 = creach_monotonic_ns();
    clock_gettime(CLOCK_MONOTONIC, &ts);
    now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    t1 = creach_monotonic_ns();
    EXPECT(t0 <= now && now <= t1 && t1 - t0 < 1000000000u);

    /* The conversion every ppoll of the core uses: whole seconds, cut at
     * the largest time_t (68 years with 32 bits), never wrapped. */
    {
        const int64_t tmax = sizeof(time_t) >= 8 ? INT64_MAX : INT32_MAX;
        struct timespec t = creach_timespec_ns(1500000001u);

        EXPECT(t.tv_sec == 1 && t.tv_nsec == 500000001);
        t = creach_timespec_ns((uint64_t)INT32_MAX * 1000000000u + 999999999u);
        EXPECT(t.tv_sec == INT32_MAX && t.tv_nsec == 999999999);
        t = creach_timespec_ns(3000000000ULL * 1000000000ULL);
        EXPECT_EQ((int64_t)t.tv_sec, tmax < 3000000000LL ? tmax : 3000000000LL);
        t = creach_timespec_ns(UINT64_MAX);
        EXPECT_EQ((int64_t)t.tv_sec, tmax < 18446744073LL ? tmax : 18446744073LL);
        EXPECT_EQ(t.tv_nsec, 709551615);
    }

    /* A signalled wake-up ends the wait at once, whatever the timeout: a
     * timeout past a 32-bit time_t's range must not become a negative
     * tv_sec (ppoll's EINVAL). */
    for (size_t i = 0; i < sizeof(timeouts) / sizeof(timeouts[0]); i++) {
        int r;

        EXPECT_EQ(creach_wakeup_signal(fd), 0);
        errno = 0;
        r = creach_wait(-1, fd, timeouts[i]);
        expect(r == CREACH_WAIT_WAKEUP, __FILE__, __LINE__,
               "creach_wait(timeout %" PRId64 " ns) with a signalled wake-up = %d (errno %d), expected %d",
               timeouts[i], r, errno, CREACH_WAIT_WAKEUP);
        creach_wakeup_clear(fd);
    }
    EXPECT_EQ(creach_wakeup_signal(fd), 0);
    EXPECT_EQ(creach_wait(-1, fd, -1), CREACH_WAIT_WAKEUP);     /* no limit */
    creach_wakeup_clear(fd);
    /* Not signalled: a 2 ms timeout passes. */
    t0 = creach_monotonic_ns();
    EXPECT_EQ(creach_wait(-1, fd, 2000000), 0);
    EXPECT(creach_monotonic_ns() - t0 >= 2000000);
    close(fd);
    group_end();
}

/* ------------------------------------------------------------------------ */

int main(void)
{
    const uint16_t probe = 1;
    const int little = *(const uint8_t *)&probe == 1;
    const char *endian = little ? "little-endian" : "big-endian";

    signal(SIGSEGV, on_fatal);
    signal(SIGBUS, on_fatal);
    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("ccore-tests: %s, %s, size_t %zu, long %zu, time_t %zu, off_t %zu, pointer %zu bytes; page %ld\n",
           CCORE_ARCH, endian, sizeof(size_t), sizeof(long), sizeof(time_t), sizeof(off_t), sizeof(void *),
           sysconf(_SC_PAGESIZE));
    guard_init();

    group("abi");
    EXPECT_EQ(little, __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__);
    EXPECT_EQ(creach_iff_up, IFF_UP);
    EXPECT_EQ(creach_iff_lower_up, IFF_LOWER_UP);
    group_end();

    test_framing();
    test_route();
    test_bounds();
    test_link();
    test_addr();
    test_neigh();
    test_rule();
    test_error();
    test_events();
    test_request();
    test_icmp();
    test_dns();
    test_http();
    test_text();
    test_time();

    if (total_failed > 0) {
        printf("ccore-tests: %u of %u checks FAILED on %s (%s, size_t %zu bytes, time_t %zu bytes)\n", total_failed,
               total_checks, CCORE_ARCH, endian, sizeof(size_t), sizeof(time_t));
        return 1;
    }
    printf("ccore-tests: %u checks passed on %s (%s, size_t %zu bytes, time_t %zu bytes)\n", total_checks, CCORE_ARCH,
           endian, sizeof(size_t), sizeof(time_t));
    return 0;
}
