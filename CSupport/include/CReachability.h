/*
 * CReachability - the C core of swift-reachability.
 *
 * Syscalls and byte parsing only; no policy. Every read path writes into
 * caller-owned buffers and fixed-size structs and allocates nothing. Pure
 * parsers (creach_parse_*, creach_msg_next, creach_uevent_*) touch no file
 * descriptor, so they are unit-tested on committed bytes and fuzzed.
 *
 * Error contract (libmnl style): a function returns -1 and sets errno, or
 * returns >= 0. A route lookup that the kernel refuses is NOT a failure of
 * the call: it returns 0 and reports the kernel's errno in the result
 * (creach_route.error), because "no route" is an answer, not an error.
 */
#ifndef CREACHABILITY_H
#define CREACHABILITY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __linux__

#include <linux/if_arp.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/fib_rules.h>

/* ------------------------------------------------------------------------ */
/* Fixed sizes                                                               */

/** Interface names are at most 15 bytes plus NUL (IFNAMSIZ). */
#define CREACH_IFNAMSIZ 16
/** Link kinds (IFLA_INFO_KIND: "veth", "wireguard", ...) kept up to 31 bytes. */
#define CREACH_KINDSIZ 32
/** A uevent value or driver name kept up to 31 bytes. */
#define CREACH_SYSFS_VALUESIZ 32
/** Receive buffer for one request/reply exchange (a route or link reply). */
#define CREACH_REPLY_BUFSIZ 8192
/** Receive buffer for a dump (the kernel fills up to 32 KiB per datagram). */
#define CREACH_DUMP_BUFSIZ 32768

/* ------------------------------------------------------------------------ */
/* Kernel facts as fixed structs                                             */

/**
 * creach_route - one answer of RTM_GETROUTE.
 * When error != 0 the kernel refused the lookup and only family and error
 * are meaningful: ENETUNREACH (no route or throw), EHOSTUNREACH
 * (unreachable), EACCES (prohibit), EINVAL (blackhole).
 */
typedef struct {
    int32_t error;          /* positive errno of a refused lookup, 0 on success */
    uint8_t family;         /* AF_INET or AF_INET6 */
    uint8_t dst_len;        /* rtm_dst_len */
    uint8_t type;           /* rtm_type: RTN_UNICAST, RTN_LOCAL, ... */
    uint8_t scope;          /* rtm_scope */
    uint8_t protocol;       /* rtm_protocol */
    uint8_t has_gateway;    /* RTA_GATEWAY or RTA_VIA present */
    uint8_t gateway_family; /* AF_INET / AF_INET6 (RTA_VIA may differ from family) */
    uint8_t has_prefsrc;    /* RTA_PREFSRC present */
    uint8_t tos;            /* rtm_tos: a route for one TOS only matches lookups of that TOS */
    uint8_t reserved[3];
    uint32_t flags;         /* rtm_flags (RTM_F_*, RTNH_F_*) */
    uint32_t table;         /* RTA_TABLE when present, else rtm_table */
    int32_t oif;            /* RTA_OIF, 0 when absent */
    uint32_t uid;           /* RTA_UID, 0 when absent */
    uint32_t mark;          /* RTA_MARK, 0 when absent */
    uint8_t dst[16];        /* RTA_DST (4 or 16 bytes used) */
    uint8_t gateway[16];
    uint8_t prefsrc[16];
} creach_route;

/**
 * creach_rule - one routing policy rule (RTM_NEWRULE, `ip rule`): the
 * selectors a plain route lookup is matched against, and what the rule does.
 */
typedef struct {
    uint8_t family;         /* AF_INET or AF_INET6 */
    uint8_t action;         /* FR_ACT_TO_TBL, FR_ACT_GOTO, FR_ACT_NOP, FR_ACT_BLACKHOLE, FR_ACT_UNREACHABLE, FR_ACT_PROHIBIT */
    uint8_t dst_len;        /* `to PREFIX/dst_len` (0: all) */
    uint8_t src_len;        /* `from PREFIX/src_len` (0: all) */
    uint8_t tos;            /* `tos` / `dsfield` (0: any) */
    uint8_t has_suppress;   /* FRA_SUPPRESS_PREFIXLEN or FRA_SUPPRESS_IFGROUP: a found route may be refused */
    uint8_t has_uid_range;  /* FRA_UID_RANGE */
    uint8_t other_selectors; /* a selector this parser does not decode: tunnel id, l3mdev,
                               IP protocol, port range, DSCP, flow label, or an attribute
                               newer than FRA_DPORT_RANGE */
    uint32_t flags;         /* FIB_RULE_INVERT, FIB_RULE_IIF_DETACHED, ... */
    uint32_t table;         /* FRA_TABLE when present, else the header's table */
    uint32_t priority;      /* FRA_PRIORITY, 0 when absent */
    uint32_t goto_target;   /* FRA_GOTO: the priority a goto rule jumps to */
    uint32_t fwmark;        /* FRA_FWMARK, 0 when absent */
    uint32_t fwmask;        /* FRA_FWMASK, 0 when absent (the kernel sends it with every mark) */
    uint32_t uid_start;     /* FRA_UID_RANGE */
    uint32_t uid_end;
    uint8_t src[16];        /* FRA_SRC (4 or 16 bytes used) */
    uint8_t dst[16];        /* FRA_DST */
    char iifname[CREACH_IFNAMSIZ];  /* FRA_IIFNAME, "" when absent */
    char oifname[CREACH_IFNAMSIZ];  /* FRA_OIFNAME, "" when absent */
} creach_rule;

/** creach_route_query - what to look up, with the optional selectors. */
typedef struct {
    uint8_t family;         /* AF_INET or AF_INET6 */
    uint8_t has_src;        /* look up as if sent from src (RTA_SRC) */
    uint8_t has_mark;       /* RTA_MARK */
    uint8_t has_uid;        /* RTA_UID */
    int32_t oif;            /* RTA_OIF when > 0 */
    uint32_t mark;
    uint32_t uid;
    uint8_t dst[16];
    uint8_t src[16];
} creach_route_query;

/** creach_link - one RTM_NEWLINK (answer to RTM_GETLINK or an event). */
typedef struct {
    int32_t index;          /* ifi_index */
    uint16_t type;          /* ifi_type: ARPHRD_* */
    uint8_t operstate;      /* IFLA_OPERSTATE: IF_OPER_* (0 = unknown/absent) */
    uint8_t linkmode;       /* IFLA_LINKMODE: 1 = dormant mode */
    int8_t carrier;         /* IFLA_CARRIER: 1, 0, or -1 when absent */
    uint8_t reserved[3];
    uint32_t flags;         /* ifi_flags: IFF_UP, IFF_LOWER_UP, IFF_POINTOPOINT, ... */
    uint32_t mtu;           /* IFLA_MTU, 0 when absent */
    int32_t link;           /* IFLA_LINK (parent ifindex), 0 when absent */
    int32_t master;         /* IFLA_MASTER, 0 when absent */
    char name[CREACH_IFNAMSIZ];   /* IFLA_IFNAME, NUL-terminated ("" when absent) */
    char kind[CREACH_KINDSIZ];    /* IFLA_LINKINFO/IFLA_INFO_KIND, "" when absent */
} creach_link;

/** creach_addr - one RTM_NEWADDR. */
typedef struct {
    int32_t index;          /* ifa_index */
    uint8_t family;         /* AF_INET or AF_INET6 */
    uint8_t prefixlen;
    uint8_t scope;          /* RT_SCOPE_* */
    uint8_t has_peer;       /* IFA_ADDRESS differs from IFA_LOCAL (point-to-point) */
    uint32_t flags;         /* IFA_FLAGS when present, else ifa_flags */
    uint8_t address[16];    /* IFA_LOCAL when present, else IFA_ADDRESS */
    uint8_t peer[16];       /* IFA_ADDRESS when has_peer */
    char label[CREACH_IFNAMSIZ];  /* IFA_LABEL, "" when absent */
} creach_addr;

/** creach_sysfs - classification facts from /sys/class/net/NAME. */
typedef struct {
    int32_t ifindex;        /* /sys/class/net/NAME/ifindex, -1 when unreadable */
    uint8_t wireless;       /* NAME/wireless or NAME/phy80211 exists */
    uint8_t has_device;     /* NAME/device exists (a physical device) */
    uint8_t reserved[2];
    char devtype[CREACH_SYSFS_VALUESIZ]; /* DEVTYPE= from NAME/uevent, "" when absent */
    char driver[CREACH_SYSFS_VALUESIZ];  /* basename of NAME/device/driver, "" when absent */
} creach_sysfs;

/* ------------------------------------------------------------------------ */
/* Pure parsers: bytes in, fixed structs out. No I/O, no allocation.         */

/**
 * creach_msg_iter - walks the netlink messages of one datagram.
 * Initialise with creach_msg_iter_init; then call creach_msg_next until it
 * returns 0 (end) or -1 (malformed: errno EBADMSG).
 */
typedef struct {
    const uint8_t *pos;
    size_t remaining;
} creach_msg_iter;

void creach_msg_iter_init(creach_msg_iter *it, const void *buf, size_t len);

/**
 * creach_msg_next - the next message of the datagram.
 * @it: the iterator
 * @msg: set to the message's first byte (its struct nlmsghdr)
 * @msg_len: set to nlmsg_len, already checked to lie within the datagram
 * Returns 1 with a message, 0 at the end, -1 with errno EBADMSG when a header
 * is truncated or its length is below NLMSG_HDRLEN or past the datagram.
 */
int creach_msg_next(creach_msg_iter *it, const void **msg, size_t *msg_len);

/** creach_msg_type - nlmsg_type of a message already returned by creach_msg_next. */
uint16_t creach_msg_type(const void *msg);
/** creach_msg_seq - nlmsg_seq of a message already returned by creach_msg_next. */
uint32_t creach_msg_seq(const void *msg);
/** creach_msg_flags - nlmsg_flags of a message already returned by creach_msg_next. */
uint16_t creach_msg_flags(const void *msg);

/**
 * creach_parse_error - the errno carried by an NLMSG_ERROR message.
 * Sets *error to the positive errno (0 for an ACK).
 * Returns 0, or -1 with errno EBADMSG (too short) or EPROTO (not NLMSG_ERROR).
 */
int creach_parse_error(const void *msg, size_t len, int32_t *error);

/**
 * creach_parse_route - RTM_NEWROUTE message to creach_route (error = 0).
 * Returns 0, or -1 with errno EPROTO (another type or family) or EBADMSG
 * (truncated header, attribute length out of bounds, address attribute of
 * the wrong size). Unknown attributes are skipped.
 */
int creach_parse_route(const void *msg, size_t len, creach_route *out);

/**
 * creach_parse_rule - RTM_NEWRULE / RTM_DELRULE message to creach_rule.
 * Interface names longer than the field are rejected, never truncated.
 * Returns 0, or -1 with errno EPROTO or EBADMSG as creach_parse_route.
 */
int creach_parse_rule(const void *msg, size_t len, creach_rule *out);

/**
 * creach_parse_link - RTM_NEWLINK / RTM_DELLINK message to creach_link.
 * Names longer than the field are rejected (EBADMSG), never truncated.
 * Returns 0, or -1 with errno EPROTO or EBADMSG as creach_parse_route.
 */
int creach_parse_link(const void *msg, size_t len, creach_link *out);

/**
 * creach_parse_addr - RTM_NEWADDR / RTM_DELADDR message to creach_addr.
 * Returns 0, or -1 with errno EPROTO or EBADMSG as creach_parse_route.
 */
int creach_parse_addr(const void *msg, size_t len, creach_addr *out);

/** creach_neigh - a neighbour entry (RTM_NEWNEIGH / RTM_DELNEIGH, AF_INET / AF_INET6). */
typedef struct {
    int32_t index;          /* the interface */
    uint8_t family;
    uint8_t has_address;    /* NDA_DST was present */
    uint16_t state;         /* NUD_* bits (NUD_FAILED 0x20, NUD_REACHABLE 0x02 ...) */
    uint8_t deleted;        /* RTM_DELNEIGH */
    uint8_t reserved[3];
    uint8_t address[16];    /* NDA_DST, the neighbour's address */
} creach_neigh;

/**
 * creach_parse_neigh - RTM_NEWNEIGH / RTM_DELNEIGH message to creach_neigh.
 * Returns 0, or -1 with errno EPROTO (another message type or family, such
 * as AF_BRIDGE's forwarding entries) or EBADMSG (truncated header,
 * attribute out of bounds, NDA_DST of the wrong size).
 */
int creach_parse_neigh(const void *msg, size_t len, creach_neigh *out);

/** NUD_FAILED and NUD_REACHABLE, the neighbour states an uplink tracker reads. */
extern const uint16_t creach_nud_failed;
extern const uint16_t creach_nud_reachable;

/** The groups an uplink tracker joins: link (carrier) and neighbours (next hop failed). */
extern const uint32_t creach_tracker_groups;

/**
 * creach_uevent_value - the value of KEY= in uevent text ("KEY=VALUE\n"...).
 * @text, @len: the file's bytes (need not be NUL-terminated)
 * @key: e.g. "DEVTYPE"
 * @out, @outlen: destination, always NUL-terminated when outlen > 0
 * Returns the value's length, 0 when the key is absent, -1 with errno
 * ENAMETOOLONG when the value does not fit (out is then "").
 */
int creach_uevent_value(const char *text, size_t len, const char *key, char *out, size_t outlen);

/**
 * creach_events - what a run of notification datagrams was about, enough to
 * decide what to re-evaluate. The monitor keeps no copy of the tables: it
 * only needs to know which address families (and which deleted links) a
 * burst touched. Zero it, then feed every datagram of the burst to
 * creach_events_classify, which adds to the counts. A field added here is
 * also added to the fuzz harness's reference model (ref_classify in
 * Fuzz/netlink.c), which must agree with the classifier byte for byte, and
 * gets a seed in Fuzz/seeds.py that produces it.
 */
#define CREACH_EVENTS_MAX_DELETED 8
typedef struct {
    uint32_t messages;      /* netlink messages seen */
    uint32_t link;          /* RTM_NEWLINK / RTM_DELLINK (AF_BRIDGE per-port messages count as other) */
    uint32_t addr4;         /* RTM_NEWADDR / RTM_DELADDR, AF_INET */
    uint32_t addr6;         /*   ... AF_INET6 */
    uint32_t route4;        /* RTM_NEWROUTE / RTM_DELROUTE, AF_INET */
    uint32_t route6;        /*   ... AF_INET6 */
    uint32_t rule4;         /* RTM_NEWRULE / RTM_DELRULE, AF_INET */
    uint32_t rule6;         /*   ... AF_INET6 */
    uint32_t nexthop;       /* RTM_NEWNEXTHOP / RTM_DELNEXTHOP (any family: a route of one may use a nexthop of the other) */
    uint32_t throw_added;   /* RTM_NEWROUTE of type RTN_THROW, either family (also counted in route4 / route6) */
    uint32_t other;         /* other types or families (neighbours, MPLS, ...) */
    uint32_t malformed;     /* messages shorter than their family header (ifinfomsg, ifaddrmsg, rtmsg, fib_rule_hdr), or broken framing */
    uint32_t deleted_count; /* RTM_DELLINK seen; more than CREACH_EVENTS_MAX_DELETED = list incomplete */
    int32_t deleted[CREACH_EVENTS_MAX_DELETED]; /* ifindex of deleted links, first ones */
} creach_events;

/**
 * creach_events_classify - add the messages of one datagram to @ev.
 * Returns the number of messages read, or -1 with errno EBADMSG when the
 * framing is broken (the messages before the break are counted, and the
 * break adds one to ev->malformed).
 */
int creach_events_classify(const void *buf, size_t len, creach_events *ev);

/* ------------------------------------------------------------------------ */
/* Probe packets: pure builders and parsers (probe_parse.c). No I/O.         */

/** The ICMP / ICMPv6 echo header: type, code, checksum, identifier, sequence. */
#define CREACH_ICMP_ECHO_HDRLEN 8

/**
 * creach_icmp_echo_build - an echo request for @family (AF_INET: ICMP type 8;
 * AF_INET6: ICMPv6 type 128) with identifier @id and sequence @seq (network
 * byte order on the wire), followed by @payload_len bytes of @payload.
 * For AF_INET the checksum is computed; for AF_INET6 it is left 0 (the
 * kernel fills in the ICMPv6 checksum, which covers a pseudo-header).
 * Returns the packet's length, or -1 with errno EINVAL (bad family, NULL
 * buffer with a length) or EMSGSIZE (@buflen too small).
 */
int creach_icmp_echo_build(uint8_t family, uint16_t id, uint16_t seq, const void *payload, size_t payload_len,
                           void *buf, size_t buflen);

/** What creach_icmp_parse found in one received datagram. */
typedef struct {
    uint8_t type;           /* ICMP(v6) type of the datagram */
    uint8_t code;
    uint8_t is_echo_reply;  /* an echo reply (type 0 / 129): id and seq are its own */
    uint8_t is_error;       /* destination unreachable, time exceeded, packet too big (v6),
                               parameter problem, quoting an echo request: id and seq
                               are those of the quoted request */
    uint16_t id;            /* host byte order */
    uint16_t seq;           /* host byte order */
} creach_icmp_info;

/**
 * creach_icmp_parse - read one datagram of an ICMP socket.
 * @family: AF_INET or AF_INET6
 * @has_ip_header: 1 when the datagram starts with the IPv4 header (a raw
 *   IPv4 socket); its IHL is checked to lie within the datagram. ICMPv6 and
 *   datagram sockets deliver the ICMP message alone (0).
 * An error message must quote the original IP header (IPv4: its IHL is
 * checked; IPv6: the fixed 40 bytes) and at least the 8-byte echo header of
 * an echo request; otherwise is_error stays 0.
 * Returns 1 when the datagram is an echo reply or an error quoting an echo
 * request (see the out fields), 0 for any other ICMP message (an echo
 * request, a router advertisement, an error about something else), or -1
 * with errno EBADMSG when it is too short for what its headers announce.
 */
int creach_icmp_parse(uint8_t family, int has_ip_header, const void *buf, size_t len, creach_icmp_info *out);

/**
 * creach_http_build_request - "GET @path HTTP/1.1" with Host: @host, a
 * User-Agent, an Accept of any type and "Connection: close", ending in the blank line.
 * @host: host[:port] as sent (1..255 bytes of visible ASCII, no space or '/')
 * @path: starts with '/', visible ASCII only (no space, CR, LF or control)
 * Returns the request's length (not NUL-terminated), or -1 with errno
 * EINVAL (bad host or path) or EMSGSIZE (@buflen too small).
 */
int creach_http_build_request(const char *host, const char *path, void *buf, size_t buflen);

/**
 * creach_http_parse_head - the status of an HTTP/1.x response head.
 * Strict: the status line is exactly "HTTP/1.0 " or "HTTP/1.1 ", three
 * digits 100..599, then SP and a reason of visible ASCII, SP or HTAB (may be
 * empty), then CRLF; every header line is a token (RFC 9110 tchar), ':',
 * a value of visible ASCII, SP, HTAB or bytes >= 0x80, CRLF; no obsolete line
 * folding, no bare LF or CR, no NUL; the head ends at the first empty line.
 * The framing headers are checked as creach_http_parse_response does (a
 * Content-Length that is not digits, or two that differ, is EBADMSG); the
 * bytes after the head are not looked at.
 * @status: out, the status code
 * @head_len: out, bytes of the head including the final CRLF CRLF
 * Returns 1 with a complete, valid head; 0 when the bytes so far are a valid
 * prefix of a head (read more); -1 with errno EBADMSG when they can never
 * become a valid head. The out parameters are written only when 1 is returned.
 */
int creach_http_parse_head(const void *buf, size_t len, int *status, size_t *head_len);

/** Bytes kept of a Location value, its terminating NUL included: values of
 * up to CREACH_HTTP_LOCATION_SIZE - 1 bytes are kept whole, longer ones not
 * at all (never truncated: location_too_long is set and location is ""). */
#define CREACH_HTTP_LOCATION_SIZE 1024

/** What the bytes say about a response's body (creach_http_head.body). */
#define CREACH_HTTP_BODY_UNKNOWN   0   /* not yet known: more bytes (or their end) decide */
#define CREACH_HTTP_BODY_EMPTY     1   /* no content */
#define CREACH_HTTP_BODY_PRESENT   2   /* at least one byte of content (announced or received) */
#define CREACH_HTTP_BODY_MALFORMED 3   /* a chunked body whose first chunk-size line is not one */

/** A response head and the facts about its body, from creach_http_parse_response. */
typedef struct {
    int32_t status;             /* 100..599 */
    uint8_t body;               /* CREACH_HTTP_BODY_* */
    uint8_t has_content_length; /* content_length is set */
    uint8_t has_transfer_encoding;
    uint8_t chunked;            /* the final transfer coding (of the last Transfer-Encoding) is "chunked" */
    uint8_t has_location;       /* a Location header was present (the first one is kept) */
    uint8_t location_too_long;  /* its value did not fit: location is "" */
    uint8_t reserved[2];
    uint64_t content_length;    /* at most INT64_MAX */
    size_t head_len;            /* bytes of the head, its final CRLF CRLF included */
    size_t body_bytes;          /* bytes after the head in the buffer parsed */
    size_t location_len;        /* length of the Location value (OWS trimmed), even when too long */
    char location[CREACH_HTTP_LOCATION_SIZE]; /* that value, NUL-terminated; "" when absent or too long */
} creach_http_head;

/**
 * creach_http_parse_response - the head of an HTTP/1.x response (the
 * grammar of creach_http_parse_head) with its Location and the facts that
 * decide whether a body follows. Header names match case-insensitively.
 * - Location: the first one's value without leading and trailing SP/HTAB,
 *   copied whole into the fixed field or, when it does not fit, not at all.
 * - Content-Length: 1*DIGIT between optional SP/HTAB, at most INT64_MAX;
 *   anything else (empty, a sign, a list "5, 5", a larger value) is EBADMSG,
 *   and so are two Content-Length headers with different values (RFC 9112
 *   6.3: a response whose framing is ambiguous is unrecoverable).
 * - Transfer-Encoding: chunked when the last non-empty element of the last
 *   such header is "chunked" (any case). Transfer-Encoding overrides
 *   Content-Length (RFC 9112 6.3); any other coding means the body runs
 *   until the connection closes.
 * body (RFC 9112 6.3, in order): EMPTY for 1xx, 204 and 304; chunked: from
 * the first chunk-size line after the head (a non-zero size is PRESENT, a
 * size of zero ended by ';', SP, HTAB or CR is EMPTY, anything else
 * MALFORMED, too few bytes UNKNOWN); else Content-Length (0 EMPTY, more
 * PRESENT); else (the body runs until close) PRESENT when a byte follows the
 * head, UNKNOWN when none does.
 * @at_end: 1 when no more bytes will come (the peer closed, the wait or the
 *   buffer ended): an UNKNOWN body is then EMPTY when no byte followed the
 *   head, MALFORMED when some did (a chunk-size line cut short).
 * Returns 1 with a complete head (*out filled); 0 when more bytes are
 * needed for the head; -1 with errno EBADMSG when the bytes can never be a
 * valid head, or EINVAL for NULL pointers. *out is cleared first (when not
 * NULL) and is meaningful only when 1 is returned. No allocation.
 */
int creach_http_parse_response(const void *buf, size_t len, int at_end, creach_http_head *out);

/** DNS types the probe asks for. */
#define CREACH_DNS_TYPE_A    1
#define CREACH_DNS_TYPE_AAAA 28

/**
 * creach_dns_build_query - a standard query (RD set, one question, class IN)
 * for @name (dotted; one trailing dot allowed; labels 1..63 bytes of
 * letters, digits, '-' or '_'; at most 253 bytes) and @qtype, with @id.
 * Returns the query's length, or -1 with errno EINVAL (bad name) or EMSGSIZE.
 */
int creach_dns_build_query(uint16_t id, const char *name, uint16_t qtype, void *buf, size_t buflen);

/** What creach_dns_parse_response found. */
typedef struct {
    uint8_t rcode;          /* 0 NOERROR, 2 SERVFAIL, 3 NXDOMAIN, ... */
    uint8_t truncated;      /* TC bit */
    uint16_t answers;       /* answer records of the asked type and class IN with the right length (4 or 16) */
    uint8_t first[16];      /* the first such address (4 or 16 bytes used) */
} creach_dns_result;

/**
 * creach_dns_parse_response - check a response against the query it answers.
 * It must carry @id, QR set, opcode 0, exactly one question equal to @name
 * (case-insensitive, trailing dot ignored) with @qtype and class IN. Names in
 * answers may use compression pointers, which must point backwards into the
 * message (no loops). Records of other types (a CNAME chain) are skipped.
 * Returns 1 when it is the response to this query (see @out; rcode may be an
 * error), 0 when it is a well-formed message for another query (other id,
 * name or type: ignore it), -1 with errno EBADMSG when it is malformed, or
 * EINVAL for arguments the query could not have had (a bad name, a type
 * other than A or AAAA, NULL pointers).
 */
int creach_dns_parse_response(const void *buf, size_t len, uint16_t id, const char *name, uint16_t qtype,
                              creach_dns_result *out);

/**
 * creach_parse_id_range - the two numbers of a "LOW\tHIGH\n" proc file such
 * as net.ipv4.ping_group_range (decimal, separated by blanks, optional
 * trailing newline, each at most 4294967295).
 * Returns 0, or -1 with errno EINVAL.
 */
int creach_parse_id_range(const char *text, size_t len, uint32_t *low, uint32_t *high);

/* ------------------------------------------------------------------------ */
/* NETLINK_ROUTE socket                                                      */

/**
 * creach_nl - an open NETLINK_ROUTE socket and its counters.
 * The caller owns the struct; creach_nl_open fills it.
 */
typedef struct {
    int fd;
    uint32_t portid;            /* our nl_pid, from getsockname */
    uint32_t seq;               /* last sequence number sent */
    uint64_t dropped_foreign;   /* datagrams whose sender nl_pid != 0 */
    uint64_t dropped_seq;       /* replies with another sequence number */
} creach_nl;

/**
 * creach_nl_open - open a NETLINK_ROUTE socket (SOCK_CLOEXEC).
 * @groups: RTMGRP_* multicast groups to join (0 for request/reply only)
 * @netns_fd: -1 for this thread's network namespace, else an fd of
 *   /run/netns/NAME: the socket is then created by a short-lived helper
 *   thread that enters the namespace, so the calling thread never moves.
 * Also sets NETLINK_EXT_ACK and NETLINK_GET_STRICT_CHK where the kernel has
 * them, and a receive timeout of 5 s for request/reply sockets (groups 0).
 * Returns 0, or -1 with errno (EPERM when setns is not allowed, ...).
 */
int creach_nl_open(creach_nl *nl, uint32_t groups, int netns_fd);

/** creach_nl_close - close the socket; safe to call twice. */
void creach_nl_close(creach_nl *nl);

/**
 * creach_nl_inject_recv_error - the fault seam: every datagram the C core
 * reads from a netlink socket (replies, dumps, events) goes through one
 * receive function; the next @count receives on the socket whose portid is
 * @portid fail there with @err before recvmsg is called. @err 0 clears it.
 * For tests: it shows what an unexpected errno from the kernel does.
 */
void creach_nl_inject_recv_error(uint32_t portid, int err, uint32_t count);

/**
 * creach_route_get - RTM_GETROUTE for one address.
 * @buf, @buflen: caller's receive buffer (CREACH_REPLY_BUFSIZ is enough)
 * Returns 0 with *out filled (out->error != 0 when the kernel refused the
 * lookup), or -1 with errno for a failure of the exchange itself: EINVAL
 * (bad query), ETIMEDOUT, ENOSPC (reply truncated), EBADMSG, ENOMSG (the
 * reply was behind more than 4096 datagrams of other senders, all dropped), ...
 */
int creach_route_get(creach_nl *nl, const creach_route_query *q, void *buf, size_t buflen, creach_route *out);

/**
 * creach_link_get - RTM_GETLINK for one ifindex (ifindex > 0) or name
 * (ifindex == 0, name non-NULL).
 * Returns 0, or -1 with errno ENODEV when there is no such link, or another
 * errno as creach_route_get.
 */
int creach_link_get(creach_nl *nl, int32_t ifindex, const char *name, void *buf, size_t buflen, creach_link *out);

/** Dump callbacks: return 0 to go on, anything else to stop the walk early. */
typedef int (*creach_link_cb)(const creach_link *link, void *ctx);
typedef int (*creach_addr_cb)(const creach_addr *addr, void *ctx);
typedef int (*creach_route_cb)(const creach_route *route, void *ctx);
typedef int (*creach_rule_cb)(const creach_rule *rule, void *ctx);

/**
 * creach_link_dump - RTM_GETLINK dump; calls @cb for every link.
 * @buf, @buflen: caller's receive buffer (CREACH_DUMP_BUFSIZ recommended)
 * Returns the number of links reported, or -1 with errno. Messages that do
 * not parse are skipped; their count is added to *skipped when non-NULL.
 */
int creach_link_dump(creach_nl *nl, void *buf, size_t buflen, creach_link_cb cb, void *ctx, uint64_t *skipped);

/**
 * creach_addr_dump - RTM_GETADDR dump for @family (AF_UNSPEC for both).
 * Contract as creach_link_dump.
 */
int creach_addr_dump(creach_nl *nl, uint8_t family, void *buf, size_t buflen, creach_addr_cb cb, void *ctx, uint64_t *skipped);

/**
 * creach_route_dump - RTM_GETROUTE dump of @family's routes of route type
 * @type (RTN_THROW, ...; 0 for all) in table @table (0 for all). The kernel
 * filters when the socket has strict checking (NETLINK_GET_STRICT_CHK);
 * older kernels send everything, so @cb only sees routes that match both.
 * Route cache entries (RTM_F_CLONED) are never reported.
 * Contract as creach_link_dump (the count is of routes reported).
 */
int creach_route_dump(creach_nl *nl, uint8_t family, uint32_t table, uint8_t type, void *buf, size_t buflen,
                      creach_route_cb cb, void *ctx, uint64_t *skipped);

/**
 * creach_rule_dump - RTM_GETRULE dump of @family's policy rules, in the
 * kernel's order (by priority, as they are evaluated).
 * Contract as creach_link_dump.
 */
int creach_rule_dump(creach_nl *nl, uint8_t family, void *buf, size_t buflen, creach_rule_cb cb, void *ctx, uint64_t *skipped);

/* ------------------------------------------------------------------------ */
/* Change notifications (the monitor's socket)                               */

/** The rtnetlink multicast groups a monitor joins: link, IPv4/IPv6 address, route and rule, nexthop. */
extern const uint32_t creach_monitor_groups;

/**
 * creach_nl_set_rcvbuf - the socket's receive buffer: SO_RCVBUFFORCE when the
 * process holds CAP_NET_ADMIN (past net.core.rmem_max), else SO_RCVBUF,
 * which the kernel silently caps at rmem_max (it doubles the value and
 * enforces its minimum either way). Returns the effective size read back,
 * or -1 with errno.
 */
int creach_nl_set_rcvbuf(creach_nl *nl, int bytes);

/** creach_nl_rcvbuf - the effective receive buffer size (SO_RCVBUF read back), or -1 with errno. */
int creach_nl_rcvbuf(const creach_nl *nl);

/**
 * creach_nl_recv_event - one notification datagram, without blocking.
 * Datagrams not sent by the kernel are dropped and counted in
 * nl->dropped_foreign, never returned: each such drop ends the call with
 * ENOMSG, so that a caller reading in a bounded loop counts it against
 * its bound (a local process flooding our port id cannot keep it reading).
 * Returns its length (> 0), 0 when nothing is queued, or -1 with errno:
 * ENOBUFS when the socket overflowed and notifications were lost (the
 * socket stays usable), ENOSPC when a datagram was larger than @buflen (it
 * is lost), ENOMSG when a foreign datagram was dropped, or another errno
 * of recvmsg.
 */
long creach_nl_recv_event(creach_nl *nl, void *buf, size_t buflen);

/**
 * creach_wakeup_open - an eventfd (non-blocking, close-on-exec) that another
 * thread signals to interrupt creach_wait. Returns the fd, or -1 with errno.
 */
int creach_wakeup_open(void);
/** creach_wakeup_signal - make @fd readable. Returns 0, or -1 with errno. */
int creach_wakeup_signal(int fd);
/** creach_wakeup_clear - consume the signals of @fd (no-op when none). */
void creach_wakeup_clear(int fd);

/** Bits of creach_wait's result. */
#define CREACH_WAIT_NETLINK 1
#define CREACH_WAIT_WAKEUP  2

/**
 * creach_wait - wait until @nl_fd has a datagram (or a pending error such
 * as ENOBUFS) or @wake_fd was signalled, at most @timeout_ns nanoseconds
 * (< 0: no limit). Either fd may be -1 to leave it out.
 * Returns the CREACH_WAIT_* bits (0 on timeout or EINTR), or -1 with errno.
 */
int creach_wait(int nl_fd, int wake_fd, int64_t timeout_ns);

/** creach_monotonic_ns - CLOCK_MONOTONIC in nanoseconds (the clock of change time stamps). */
uint64_t creach_monotonic_ns(void);

/* ------------------------------------------------------------------------ */
/* Probe sockets (probe_socket.c): one exchange each, bounded by a deadline  */

/** Socket kinds for creach_probe_socket. */
#define CREACH_PROBE_ICMP_RAW   1   /* SOCK_RAW, IPPROTO_ICMP / IPPROTO_ICMPV6: needs CAP_NET_RAW */
#define CREACH_PROBE_ICMP_DGRAM 2   /* SOCK_DGRAM ICMP ("ping socket"): needs the gid in ping_group_range */
#define CREACH_PROBE_TCP        3   /* SOCK_STREAM: TCP connect, HTTP */
#define CREACH_PROBE_UDP        4   /* SOCK_DGRAM UDP: DNS */

/** creach_probe_target - where a probe goes and how it leaves. */
typedef struct {
    uint8_t family;         /* AF_INET or AF_INET6 */
    uint8_t has_src;        /* bind to src before sending */
    uint8_t has_mark;       /* SO_MARK (needs CAP_NET_ADMIN) */
    uint8_t dont_fragment;  /* ICMP: set DF and ignore the cached path MTU (IP_PMTUDISC_PROBE),
                               as ping -M probe: a path-MTU probe */
    uint16_t port;          /* destination port, host byte order (TCP, HTTP, DNS) */
    uint16_t reserved2;
    uint32_t mark;
    uint32_t scope_id;      /* IPv6 link-local destinations: the interface index */
    uint8_t dst[16];
    uint8_t src[16];
    char ifname[CREACH_IFNAMSIZ]; /* SO_BINDTODEVICE when not "" */
} creach_probe_target;

/**
 * creach_probe_result - the outcome of one probe. As with route lookups, an
 * unanswered probe is an answer, not a failure of the call.
 */
typedef struct {
    int32_t error;          /* 0: answered as the method expects; else the positive errno of the
                               outcome: ETIMEDOUT (no answer), ECONNREFUSED (TCP reset, UDP port
                               unreachable), EHOSTUNREACH / ENETUNREACH (an ICMP error or no route),
                               EACCES (prohibit route), EBADMSG (an answer that does not parse),
                               ECANCELED (@wake_fd signalled) */
    uint8_t icmp_type;      /* an ICMP error's type and code (raw and ping sockets), else 0 */
    uint8_t icmp_code;
    uint8_t reserved[2];
    int32_t http_status;    /* HTTP: the response's status code, 0 when none was read */
    uint32_t ignored;       /* datagrams received that were not the answer */
    uint64_t rtt_ns;        /* from sending to the answer (or to the error), 0 on timeout */
} creach_probe_result;

/**
 * creach_probe_socket - a non-blocking, close-on-exec socket of @kind for
 * @t's family, created inside the namespace @netns_fd (-1: this thread's),
 * bound to @t's interface (SO_BINDTODEVICE), mark (SO_MARK) and source.
 * Returns the fd, or -1 with errno: EPERM / EACCES (a raw socket without
 * CAP_NET_RAW, a ping socket outside ping_group_range, SO_MARK without
 * CAP_NET_ADMIN), ENODEV (no such interface), EADDRNOTAVAIL (source not
 * local), EINVAL (bad kind or family).
 */
int creach_probe_socket(int netns_fd, const creach_probe_target *t, int kind);

/**
 * creach_probe_icmp - send one echo request (@id, @seq, @payload_len bytes
 * of pattern) on @fd, a CREACH_PROBE_ICMP_RAW or _DGRAM socket of @kind, and
 * wait until @timeout_ns for its reply. On a raw socket replies are matched
 * by id and seq (every ICMP message of the namespace arrives there) and an
 * ICMP error quoting the request ends the wait with EHOSTUNREACH or
 * ENETUNREACH; a datagram socket gets only its own replies (the kernel sets
 * the id), matched by seq, and its ICMP errors on its error queue
 * (creach_probe_socket sets IP_RECVERR / IPV6_RECVERR): one of origin
 * ICMP / ICMP6 quoting our echo request (seq, destination) ends the wait
 * with the errno the kernel derived from it (EHOSTUNREACH, ENETUNREACH,
 * EACCES for an ICMPv6 administratively prohibited, ...); others are
 * counted in ignored. @buf (at least 256 bytes) receives datagrams.
 * @wake_fd: an eventfd (creach_wakeup_open) that cancels the wait, or -1.
 * Returns 0 with *out filled, or -1 with errno EINVAL for bad arguments.
 */
int creach_probe_icmp(int fd, int kind, const creach_probe_target *t, uint16_t id, uint16_t seq,
                      size_t payload_len, int64_t timeout_ns, int wake_fd, void *buf, size_t buflen,
                      creach_probe_result *out);

/**
 * creach_probe_tcp - connect @fd (CREACH_PROBE_TCP) to @t and wait until
 * @timeout_ns. error 0: connected; ECONNREFUSED: the host answered with a
 * reset. The socket is left connected for the caller (HTTP) or to close.
 * Returns 0 with *out filled, or -1 with errno EINVAL.
 */
int creach_probe_tcp(int fd, const creach_probe_target *t, int64_t timeout_ns, int wake_fd,
                     creach_probe_result *out);

/**
 * creach_probe_http - connect @fd (CREACH_PROBE_TCP) to @t, send @request
 * (creach_http_build_request) and read the response into @buf until its
 * head is complete (creach_http_parse_response), the peer closes, or
 * @timeout_ns (for the whole exchange) passes. For a 2xx status other than
 * 204 it reads on, within the same deadline and @buf, until the body is
 * known to be empty or not (Content-Length, the first chunk-size line, or a
 * first byte of a body that runs until close); the end of the stream, the
 * deadline or a full @buf then settle it (the head's at_end). error 0 with
 * http_status set and *head filled: a valid head; EBADMSG: an answer that is
 * not a valid HTTP/1.x head, one longer than @buflen, or one cut short by the
 * peer; ECONNRESET: the peer closed without a byte; ETIMEDOUT, ECONNREFUSED,
 * ... as creach_probe_tcp; ECANCELED: @wake_fd, also while reading a body.
 * rtt_ns is the time to the complete head.
 * Returns 0 with *out (and *head) filled, or -1 with errno EINVAL.
 */
int creach_probe_http(int fd, const creach_probe_target *t, const void *request, size_t request_len,
                      int64_t timeout_ns, int wake_fd, void *buf, size_t buflen, creach_probe_result *out,
                      creach_http_head *head);

/**
 * creach_probe_dns - send @query (creach_dns_build_query with @id, @name,
 * @qtype) on @fd (CREACH_PROBE_UDP) to the server @t and wait until
 * @timeout_ns for its response; responses to other queries are ignored.
 * error 0: a response (its rcode, answers and first address in *dns);
 * ECONNREFUSED: no server listens there; EBADMSG: a malformed response.
 * Returns 0 with *out filled, or -1 with errno EINVAL.
 */
int creach_probe_dns(int fd, const creach_probe_target *t, const void *query, size_t query_len, uint16_t id,
                     const char *name, uint16_t qtype, int64_t timeout_ns, int wake_fd, void *buf, size_t buflen,
                     creach_probe_result *out, creach_dns_result *dns);

/**
 * creach_ping_group_range - net.ipv4.ping_group_range of the namespace
 * @netns_fd (-1: this thread's; the file is per namespace and applies to
 * ICMPv6 ping sockets too). Returns 0, or -1 with errno.
 */
int creach_ping_group_range(int netns_fd, uint32_t *low, uint32_t *high);

/* ------------------------------------------------------------------------ */
/* Namespaces, sysfs, capabilities                                           */

/**
 * creach_netns_open - open a network namespace by name (/run/netns/NAME) or,
 * when @name_or_path contains '/', by path. O_RDONLY | O_CLOEXEC.
 * Returns the fd, or -1 with errno (ENOENT, ENAMETOOLONG, ...).
 */
int creach_netns_open(const char *name_or_path);

/**
 * creach_netns_type - the kind of namespace @fd refers to (ioctl
 * NS_GET_NSTYPE, Linux 4.11): CLONE_NEWNET for a network namespace.
 * Returns the CLONE_NEW* value, or -1 with errno (ENOTTY: not a namespace
 * file, or a kernel without NS_GET_NSTYPE).
 */
int creach_netns_type(int fd);

/**
 * creach_sysfs_open - open the /sys/class/net directory that describes the
 * namespace of @netns_fd (-1: this process's namespace). For another
 * namespace a helper thread enters it and mounts a private sysfs, whose
 * directory fd outlives the thread; the caller's thread and mounts never
 * change. With a @root (tests: a captured or synthesized tree) it opens
 * @root/sys/class/net and @netns_fd is ignored; NULL is the real /.
 * Returns the directory fd, or -1 with errno.
 */
int creach_sysfs_open(const char *root, int netns_fd);

/* ------------------------------------------------------------------------ */
/* What carries a PPP link (carriers.c)                                      */

/** creach_sessions_counter - streaming state of the PPPoX session counters. */
typedef struct {
    uint32_t lines;         /* complete non-empty lines */
    uint32_t prefixed;      /* complete lines beginning "  SESSION" */
    size_t column;          /* bytes of the current line so far */
    uint8_t prefix_ok;      /* the current line still matches "  SESSION" */
} creach_sessions_counter;

/**
 * creach_sessions_feed - feed @len bytes of /proc/net/pppoe or
 * /proc/net/pppol2tp (any chunking; a zeroed counter to start). Pure.
 */
void creach_sessions_feed(creach_sessions_counter *c, const char *text, size_t len);
/** creach_sessions_pppoe - sessions of /proc/net/pppoe: non-empty lines after the first one (the header). */
uint32_t creach_sessions_pppoe(const creach_sessions_counter *c);
/** creach_sessions_l2tp - sessions of /proc/net/pppol2tp: "  SESSION" lines less the header's. */
uint32_t creach_sessions_l2tp(const creach_sessions_counter *c);

/** creach_pppox - the PPP-over-X sessions of one network namespace. */
typedef struct {
    uint32_t pppoe;         /* sessions in /proc/net/pppoe */
    uint32_t l2tp;          /* sessions in /proc/net/pppol2tp */
} creach_pppox;

/**
 * creach_pppox_sessions - count the PPPoE and L2TP sessions of the namespace
 * @netns_fd (-1: this thread's), read on a helper thread inside it; with a
 * @root, of @root/proc/net instead. A missing file (module not loaded) counts
 * zero. Stack buffers only. Returns 0, or -1 with errno.
 */
int creach_pppox_sessions(const char *root, int netns_fd, creach_pppox *out);

/** creach_device_fn - one device: its name and driver ("" if none); non-zero stops. */
typedef int (*creach_device_fn)(const char *name, const char *driver, void *ctx);

/**
 * creach_modem_devices - call @fn for every tty (@root/sys/class/tty/NAME,
 * with the basename of NAME/device/driver) and every WWAN port
 * (@root/sys/class/wwan/NAME, driver "wwan"). Which drivers are modems is
 * the caller's rule. Returns how many were listed, or -1 with errno.
 */
int creach_modem_devices(const char *root, creach_device_fn fn, void *ctx);

/**
 * creach_sysfs_read - classification facts of interface @ifname under the
 * directory @dirfd (from creach_sysfs_open). Bounded reads, no allocation.
 * Returns 0 (absent files leave their fields empty), or -1 with errno
 * ENOENT when the interface has no sysfs directory, EINVAL for a bad name.
 */
int creach_sysfs_read(int dirfd, const char *ifname, creach_sysfs *out);

/** Bits of creach_caps_effective's result. */
#define CREACH_CAP_NET_RAW   (1u << 0)
#define CREACH_CAP_NET_ADMIN (1u << 1)
#define CREACH_CAP_SYS_ADMIN (1u << 2)

/**
 * creach_caps_effective - the capabilities of interest in this thread's
 * effective set (libcap). Returns the CREACH_CAP_* bits, or -1 with errno.
 */
int creach_caps_effective(void);

/**
 * creach_netns_enter_thread - move the calling thread into the network
 * namespace @netns_fd (setns CLONE_NEWNET). Only for threads the library
 * starts itself (the host-name resolver); never called on a user's thread.
 * Returns 0, or -1 with errno (EPERM without CAP_SYS_ADMIN, EINVAL).
 */
int creach_netns_enter_thread(int netns_fd);

/**
 * creach_netns_enter_thread_config - creach_netns_enter_thread, then, for a
 * namespace named @name (NULL: none), what `ip netns exec` arranges: when
 * /etc/netns/NAME exists, the thread takes a private mount namespace
 * (MS_SLAVE, so nothing propagates back) and each file there is bound over
 * /etc/FILE (resolv.conf, hosts, nsswitch.conf ...), so getaddrinfo reads the
 * namespace's own configuration. A file whose /etc counterpart is missing is
 * skipped, as ip does. Only for threads the library starts and ends itself.
 * Returns 0, or -1 with errno.
 */
int creach_netns_enter_thread_config(int netns_fd, const char *name);

/**
 * creach_thread_set_name - name the calling thread (/proc/self/task/N/comm)
 * @name: at most 15 bytes. Returns 0, or -1 with errno (EINVAL when longer).
 */
int creach_thread_set_name(const char *name);

/* ------------------------------------------------------------------------ */
/* Constants Swift cannot import without the glibc/kernel header clash       */

/** ifi_flags bits of <linux/if.h>, exported so Swift needs neither net/if.h nor linux/if.h. */
extern const uint32_t creach_iff_up;          /* IFF_UP */
extern const uint32_t creach_iff_loopback;    /* IFF_LOOPBACK */
extern const uint32_t creach_iff_pointopoint; /* IFF_POINTOPOINT */
extern const uint32_t creach_iff_lower_up;    /* IFF_LOWER_UP */

#endif /* __linux__ */
#endif /* CREACHABILITY_H */
