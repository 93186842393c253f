/* Kernel constants that Swift reads through CReachability (see the header). */
#ifndef _GNU_SOURCE
#error "CReachability needs _GNU_SOURCE (Package.swift defines it)"
#endif
#ifdef __linux__
#include "CReachability.h"
#include <linux/if.h>

const uint32_t creach_iff_up = IFF_UP;
const uint32_t creach_iff_loopback = IFF_LOOPBACK;
const uint32_t creach_iff_pointopoint = IFF_POINTOPOINT;
const uint32_t creach_iff_lower_up = IFF_LOWER_UP;

_Static_assert(IFF_LOWER_UP == (1 << 16), "IFF_LOWER_UP moved");
#endif
