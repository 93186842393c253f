/* Kernel constants that Swift reads through CReachability (see the header). */
#ifndef _GNU_SOURCE
#error "CReachability needs _GNU_SOURCE (Package.swift defines it)"
#endif
#ifdef __linux__
#include "CReachability.h"
#include <linux/if.h>
#include <linux/neighbour.h>

const uint32_t creach_iff_up = IFF_UP;
const uint32_t creach_iff_loopback = IFF_LOOPBACK;
const uint32_t creach_iff_pointopoint = IFF_POINTOPOINT;
const uint32_t creach_iff_lower_up = IFF_LOWER_UP;

/* RTNLGRP_* numbers n are the bits 1 << (n - 1) of sockaddr_nl.nl_groups. */
#define CREACH_GROUP(n) (1u << ((n) - 1))
const uint32_t creach_monitor_groups =
    CREACH_GROUP(RTNLGRP_LINK) |
    CREACH_GROUP(RTNLGRP_IPV4_IFADDR) | CREACH_GROUP(RTNLGRP_IPV6_IFADDR) |
    CREACH_GROUP(RTNLGRP_IPV4_ROUTE) | CREACH_GROUP(RTNLGRP_IPV6_ROUTE) |
    CREACH_GROUP(RTNLGRP_IPV4_RULE) | CREACH_GROUP(RTNLGRP_IPV6_RULE) |
    CREACH_GROUP(RTNLGRP_NEXTHOP);   /* nexthop objects (ip nexthop, FRR): routes move with them */

const uint32_t creach_tracker_groups = CREACH_GROUP(RTNLGRP_LINK) | CREACH_GROUP(RTNLGRP_NEIGH);
const uint16_t creach_nud_failed = NUD_FAILED;
const uint16_t creach_nud_reachable = NUD_REACHABLE;

_Static_assert(RTNLGRP_IPV6_RULE <= 32 && RTNLGRP_NEXTHOP <= 32, "group outside the nl_groups bit mask");
_Static_assert(IFF_LOWER_UP == (1 << 16), "IFF_LOWER_UP moved");
#endif
