#!/usr/bin/env python3
"""Capture real NETLINK_ROUTE reply datagrams as byte fixtures.

Usage (as root):  python3 Tests/Fixtures-capture/capture.py [--out DIR]
                  python3 Tests/Fixtures-capture/capture.py --events [--out DIR]

The outer process creates a private network namespace "fixture-<pid>", runs
itself inside it with --inner, and always deletes the namespace afterwards.
The inner process builds the topology with iproute2 and records the raw reply
datagrams of a few RTM_GETROUTE / RTM_GETLINK / RTM_GETADDR requests.

--events records NOTIFICATION datagrams instead: a socket joined to the
monitor's multicast groups (link, IPv4/IPv6 address, route, rule) watches a
few iproute2 changes, and one representative datagram per kind is written to
event_*.bin. That mode writes no other file (not the reply fixtures, not the
README); it prints the README rows for the new files on stdout.

No packet is ever sent on any interface: a route lookup (RTM_GETROUTE) is a
FIB query inside the kernel; nothing here pings or connects.

Standard library only (socket.AF_NETLINK, struct).
"""

import argparse
import errno
import os
import platform
import socket
import struct
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.normpath(os.path.join(HERE, "..", "ReachabilityTests", "Fixtures"))

NETLINK_ROUTE = 0
NLM_F_REQUEST = 0x01
NLM_F_ROOT = 0x100
NLM_F_MATCH = 0x200
NLM_F_DUMP = NLM_F_ROOT | NLM_F_MATCH

NLMSG_ERROR = 2
NLMSG_DONE = 3
RTM_NEWLINK = 16
RTM_GETLINK = 18
RTM_NEWADDR = 20
RTM_GETADDR = 22
RTM_NEWROUTE = 24
RTM_GETROUTE = 26

RTA_DST = 1
RTM_F_LOOKUP_TABLE = 0x1000
IFLA_OPERSTATE = 16
IF_OPER_UP = 6


def run(*cmd):
    print("+ " + " ".join(cmd), file=sys.stderr)
    subprocess.run(cmd, check=True)


# --------------------------------------------------------------------------
# netlink helpers

class Netlink:
    def __init__(self):
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW | socket.SOCK_CLOEXEC, NETLINK_ROUTE)
        self.sock.bind((0, 0))
        self.sock.settimeout(5.0)
        self.seq = 1000

    def close(self):
        self.sock.close()

    def request(self, msg_type, flags, payload):
        self.seq += 1
        hdr = struct.pack("=IHHII", 16 + len(payload), msg_type, flags | NLM_F_REQUEST, self.seq, 0)
        self.sock.send(hdr + payload)
        return self.seq

    def recv(self):
        data, (pid, _groups) = self.sock.recvfrom(65536)
        if pid != 0:
            raise RuntimeError("datagram from a non-kernel sender")
        return data


def attr(rta_type, data):
    length = 4 + len(data)
    pad = (-length) & 3
    return struct.pack("=HH", length, rta_type) + data + b"\0" * pad


def messages(datagram):
    """Yield (type, flags, seq, whole message bytes)."""
    off = 0
    while off + 16 <= len(datagram):
        length, mtype, flags, seq, _pid = struct.unpack_from("=IHHII", datagram, off)
        if length < 16 or off + length > len(datagram):
            raise RuntimeError("malformed datagram")
        yield mtype, flags, seq, datagram[off:off + length]
        off += (length + 3) & ~3


def route_get(nl, family, dst):
    """One RTM_GETROUTE; returns the single reply datagram."""
    addr = socket.inet_pton(family, dst)
    # struct rtmsg: family, dst_len, src_len, tos, table, protocol, scope, type, flags
    rtm = struct.pack("=BBBBBBBBI", family, len(addr) * 8, 0, 0, 0, 0, 0, 0, RTM_F_LOOKUP_TABLE)
    seq = nl.request(RTM_GETROUTE, 0, rtm + attr(RTA_DST, addr))
    data = nl.recv()
    msgs = list(messages(data))
    if len(msgs) != 1 or msgs[0][2] != seq:
        raise RuntimeError("unexpected route reply for %s: %r" % (dst, msgs))
    return data


def link_get(nl, ifindex):
    # struct ifinfomsg: family, pad, type, index, flags, change
    ifi = struct.pack("=BBHiII", socket.AF_UNSPEC, 0, 0, ifindex, 0, 0)
    seq = nl.request(RTM_GETLINK, 0, ifi)
    data = nl.recv()
    msgs = list(messages(data))
    if len(msgs) != 1 or msgs[0][0] != RTM_NEWLINK or msgs[0][2] != seq:
        raise RuntimeError("unexpected link reply for %d" % ifindex)
    return data


def link_operstate(nl, ifindex):
    data = link_get(nl, ifindex)
    msg = next(messages(data))[3]
    off = 16 + 16
    while off + 4 <= len(msg):
        alen, atype = struct.unpack_from("=HH", msg, off)
        if alen < 4:
            break
        if atype & 0x3FFF == IFLA_OPERSTATE:
            return msg[off + 4]
        off += (alen + 3) & ~3
    return None


def addr_dump_first_datagram(nl, family):
    # struct ifaddrmsg: family, prefixlen, flags, scope, index
    ifa = struct.pack("=BBBBI", family, 0, 0, 0, 0)
    seq = nl.request(RTM_GETADDR, NLM_F_DUMP, ifa)
    first = None
    while True:
        data = nl.recv()
        if first is None:
            first = data
        done = False
        for mtype, _flags, mseq, _msg in messages(data):
            if mseq != seq:
                raise RuntimeError("foreign sequence number in dump")
            if mtype in (NLMSG_DONE, NLMSG_ERROR):
                done = True
        if done:
            return first


# --------------------------------------------------------------------------

def inner(out_dir):
    run("ip", "link", "set", "lo", "up")
    run("ip", "link", "add", "va", "type", "veth", "peer", "name", "vb")
    run("ip", "addr", "add", "10.1.0.1/24", "dev", "va")
    # nodad: a tentative address would not be chosen as the IPv6 prefsrc
    run("ip", "-6", "addr", "add", "2001:db8:1::1/64", "dev", "va", "nodad")
    run("ip", "link", "set", "vb", "up")
    run("ip", "link", "set", "va", "up")
    run("ip", "route", "add", "default", "via", "10.1.0.254", "dev", "va")
    run("ip", "-6", "route", "add", "default", "via", "2001:db8:1::fe", "dev", "va")
    run("ip", "route", "add", "blackhole", "10.2.0.0/16")
    run("ip", "tuntap", "add", "mode", "tun", "name", "tun0")
    run("ip", "addr", "add", "10.8.0.1", "peer", "10.8.0.2", "dev", "tun0")
    run("ip", "link", "set", "tun0", "up")

    va = socket.if_nametoindex("va")
    tun0 = socket.if_nametoindex("tun0")

    # Wait for the veth's operstate to settle at UP (linkwatch is async). A
    # socket of its own, so the fixtures' sequence numbers do not depend on
    # how many polls this took: they are always 1001, 1002, ... in order.
    poll = Netlink()
    try:
        deadline = time.monotonic() + 10
        while link_operstate(poll, va) != IF_OPER_UP:
            if time.monotonic() > deadline:
                raise RuntimeError("va never reached operstate UP")
            time.sleep(0.1)
    finally:
        poll.close()

    nl = Netlink()
    try:
        fixtures = {
            "route_v4_gateway": route_get(nl, socket.AF_INET, "8.8.8.8"),
            "route_v4_onlink": route_get(nl, socket.AF_INET, "10.1.0.7"),
            "route_v4_local": route_get(nl, socket.AF_INET, "10.1.0.1"),
            "route_v6_gateway": route_get(nl, socket.AF_INET6, "2001:4860:4860::8888"),
            "route_v4_blackhole_einval": route_get(nl, socket.AF_INET, "10.2.3.4"),
            "link_veth": link_get(nl, va),
            "link_tun": link_get(nl, tun0),
            "addr_dump_v4": addr_dump_first_datagram(nl, socket.AF_INET),
        }
        # Without custom rules the kernel merges the local table into main
        # (fib_trie), so the lookup above reports table 254 even for a local
        # route. Any custom rule unmerges them; then the same lookup reports
        # table 255. The rule matches none of our lookups (no source given).
        run("ip", "rule", "add", "from", "192.0.2.0/24", "table", "100", "pref", "100")
        fixtures["route_v4_local_unmerged"] = route_get(nl, socket.AF_INET, "10.1.0.1")
    finally:
        nl.close()

    # Sanity checks before anything is written.
    err = next(messages(fixtures["route_v4_blackhole_einval"]))
    if err[0] != NLMSG_ERROR or struct.unpack_from("=i", err[3], 16)[0] != -errno.EINVAL:
        raise RuntimeError("blackhole lookup did not answer EINVAL")
    for name in ("route_v4_gateway", "route_v4_onlink", "route_v4_local", "route_v4_local_unmerged",
                 "route_v6_gateway"):
        if next(messages(fixtures[name]))[0] != RTM_NEWROUTE:
            raise RuntimeError(name + " is not an RTM_NEWROUTE")

    os.makedirs(out_dir, exist_ok=True)
    for name, data in sorted(fixtures.items()):
        path = os.path.join(out_dir, name + ".bin")
        with open(path, "wb") as f:
            f.write(data)
        print("%-28s %5d bytes" % (name + ".bin", len(data)), file=sys.stderr)

    indexes = {n: socket.if_nametoindex(n) for n in ("lo", "vb", "va", "tun0")}
    write_readme(out_dir, fixtures, indexes)


# --------------------------------------------------------------------------
# --events: notification datagrams

RTM_DELLINK = 17
RTM_DELADDR = 21
RTM_DELROUTE = 25
RTM_NEWRULE = 32
RTM_DELRULE = 33
IFF_UP = 0x1
FR_ACT_TO_TBL = 1
FR_ACT_PROHIBIT = 8

# The groups of the monitor (creach_monitor_groups): RTNLGRP_LINK,
# RTNLGRP_IPV4_IFADDR, RTNLGRP_IPV4_ROUTE, RTNLGRP_IPV4_RULE,
# RTNLGRP_IPV6_IFADDR, RTNLGRP_IPV6_ROUTE, RTNLGRP_IPV6_RULE.
EVENT_GROUPS = [1, 5, 7, 8, 9, 11, 19]

TYPE_NAMES = {RTM_NEWLINK: "RTM_NEWLINK", RTM_DELLINK: "RTM_DELLINK", RTM_NEWADDR: "RTM_NEWADDR",
              RTM_DELADDR: "RTM_DELADDR", RTM_NEWROUTE: "RTM_NEWROUTE", RTM_DELROUTE: "RTM_DELROUTE",
              RTM_NEWRULE: "RTM_NEWRULE", RTM_DELRULE: "RTM_DELRULE"}
ROUTE_TYPES = {1: "unicast", 2: "local", 3: "broadcast", 5: "multicast"}
RULE_ACTIONS = {6: "blackhole", 7: "unreachable", 8: "prohibit"}
FAMILY_NAMES = {socket.AF_UNSPEC: "AF_UNSPEC", socket.AF_INET: "AF_INET", socket.AF_INET6: "AF_INET6"}


class Monitor:
    """A NETLINK_ROUTE socket joined to EVENT_GROUPS; it never sends anything."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW | socket.SOCK_CLOEXEC, NETLINK_ROUTE)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
        groups = 0
        for g in EVENT_GROUPS:
            groups |= 1 << (g - 1)
        self.sock.bind((0, groups))

    def close(self):
        self.sock.close()

    def collect(self, quiet=1.5, limit=10.0):
        """Every datagram until none came for `quiet` seconds (linkwatch fires up to 1 s late)."""
        out = []
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            self.sock.settimeout(quiet)
            try:
                data, (pid, _groups) = self.sock.recvfrom(65536)
            except socket.timeout:
                break
            if pid != 0:
                raise RuntimeError("notification from a non-kernel sender")
            out.append(data)
        else:
            raise RuntimeError("notifications never went quiet")
        return out


def rtattrs(msg, off):
    """(type, payload) of the attributes of a message from offset `off`."""
    while off + 4 <= len(msg):
        alen, atype = struct.unpack_from("=HH", msg, off)
        if alen < 4 or off + alen > len(msg):
            break
        yield atype & 0x3FFF, msg[off + 4:off + alen]
        off += (alen + 3) & ~3


def decode(msg, names):
    """A dict of the facts of one notification message, plus a one-line text."""
    mtype = struct.unpack_from("=H", msg, 4)[0]
    fam = msg[16] if len(msg) > 16 else None
    d = {"type": mtype, "family": fam, "len": len(msg)}
    tname = TYPE_NAMES.get(mtype, "type %d" % mtype)
    fname = FAMILY_NAMES.get(fam, "family %s" % fam)

    def dev(index):
        return "%s(%d)" % (names.get(index, "?"), index)

    if mtype in (RTM_NEWLINK, RTM_DELLINK):
        _f, _p, _t, index, flags, _c = struct.unpack_from("=BBHiII", msg, 16)
        d.update(index=index, flags=flags)
        name = ""
        for atype, val in rtattrs(msg, 32):
            if atype == 3:  # IFLA_IFNAME
                name = val.rstrip(b"\0").decode()
        d["name"] = name
        text = "%s %s ifindex %d (%s) flags 0x%x%s" % (tname, fname, index, name, flags,
                                                       "" if flags & IFF_UP else " (not UP)")
    elif mtype in (RTM_NEWADDR, RTM_DELADDR):
        _f, plen, _fl, _sc, index = struct.unpack_from("=BBBBI", msg, 16)
        addr = None
        for atype, val in rtattrs(msg, 24):
            if atype == 2 or (atype == 1 and addr is None):  # IFA_LOCAL wins over IFA_ADDRESS
                addr = socket.inet_ntop(fam, val)
        d.update(index=index, prefixlen=plen, address=addr)
        text = "%s %s %s/%d dev %s" % (tname, fname, addr, plen, dev(index))
    elif mtype in (RTM_NEWROUTE, RTM_DELROUTE):
        _f, dlen, _sl, _tos, table, _pr, _sc, rtype, _fl = struct.unpack_from("=BBBBBBBBI", msg, 16)
        dst, oif = None, None
        for atype, val in rtattrs(msg, 28):
            if atype == 1:
                dst = socket.inet_ntop(fam, val)
            elif atype == 4:
                oif = struct.unpack("=i", val)[0]
            elif atype == 15:
                table = struct.unpack("=I", val)[0]
        if dst is None:
            dst = "0.0.0.0" if fam == socket.AF_INET else "::"
        d.update(dst=dst, dst_len=dlen, table=table, rtype=rtype, oif=oif)
        text = "%s %s %s %s/%d table %d%s" % (tname, fname, ROUTE_TYPES.get(rtype, "type %d" % rtype), dst, dlen,
                                              table, "" if oif is None else " dev " + dev(oif))
    elif mtype in (RTM_NEWRULE, RTM_DELRULE):
        _f, dlen, slen, _tos, table, _r1, _r2, action, _fl = struct.unpack_from("=BBBBBBBBI", msg, 16)
        prio, src = None, None
        for atype, val in rtattrs(msg, 28):
            if atype == 2:  # FRA_SRC
                src = "%s/%d" % (socket.inet_ntop(fam, val), slen)
            elif atype == 6:  # FRA_PRIORITY
                prio = struct.unpack("=I", val)[0]
            elif atype == 15:  # FRA_TABLE
                table = struct.unpack("=I", val)[0]
        d.update(action=action, table=table, priority=prio, src=src)
        what = "lookup %d" % table if action == FR_ACT_TO_TBL else RULE_ACTIONS.get(action, "action %d" % action)
        text = "%s %s from %s pref %s %s" % (tname, fname, src or "all", prio, what)
    else:
        text = "%s %s" % (tname, fname)
    d["text"] = text
    return d


def inner_events(out_dir):
    # No SLAAC link-local addresses and their DAD timers: nothing changes on
    # its own while a step is being recorded. Only this namespace's sysctls.
    with open("/proc/sys/net/ipv6/conf/default/addr_gen_mode", "w") as f:
        f.write("1\n")
    run("ip", "link", "set", "lo", "up")
    run("ip", "link", "add", "va", "type", "veth", "peer", "name", "vb")
    run("ip", "link", "add", "vc", "type", "veth", "peer", "name", "vd")
    run("ip", "addr", "add", "10.1.0.1/24", "dev", "va")
    run("ip", "-6", "addr", "add", "2001:db8:1::1/64", "dev", "va", "nodad")
    run("ip", "link", "set", "vb", "up")
    run("ip", "link", "set", "va", "up")

    names = {socket.if_nametoindex(n): n for n in ("lo", "vb", "va", "vd", "vc")}
    index = {n: i for i, n in names.items()}

    poll = Netlink()
    try:
        deadline = time.monotonic() + 10
        while link_operstate(poll, index["va"]) != IF_OPER_UP:
            if time.monotonic() > deadline:
                raise RuntimeError("va never reached operstate UP")
            time.sleep(0.1)
    finally:
        poll.close()

    def is_(mtype, fam):
        return lambda d: d["type"] == mtype and d["family"] == fam

    # (step name, command, [(fixture name, predicate picking its datagram)])
    steps = [
        ("addr_del_v4", ["ip", "addr", "del", "10.1.0.1/24", "dev", "va"], [
            ("event_deladdr_v4", lambda d: is_(RTM_DELADDR, socket.AF_INET)(d)
             and d["address"] == "10.1.0.1"),
            ("event_delroute_v4", lambda d: is_(RTM_DELROUTE, socket.AF_INET)(d)
             and d["dst"] == "10.1.0.0" and d["dst_len"] == 24 and d["table"] == 254),
        ]),
        ("route_add_v6", ["ip", "-6", "route", "add", "2001:db8:2::/64", "via", "2001:db8:1::fe", "dev", "va"], [
            ("event_newroute_v6", lambda d: is_(RTM_NEWROUTE, socket.AF_INET6)(d)
             and d["dst"] == "2001:db8:2::" and d["dst_len"] == 64),
        ]),
        ("rule_add_v4", ["ip", "rule", "add", "from", "192.0.2.0/24", "pref", "100", "prohibit"], [
            ("event_newrule_v4", lambda d: is_(RTM_NEWRULE, socket.AF_INET)(d)
             and d["priority"] == 100 and d["action"] == FR_ACT_PROHIBIT),
        ]),
        ("rule_add_v6", ["ip", "-6", "rule", "add", "from", "2001:db8:3::/64", "table", "100", "pref", "100"], [
            ("event_newrule_v6", lambda d: is_(RTM_NEWRULE, socket.AF_INET6)(d)
             and d["priority"] == 100 and d["action"] == FR_ACT_TO_TBL and d["table"] == 100),
        ]),
        ("link_down", ["ip", "link", "set", "va", "down"], [
            ("event_newlink_down", lambda d: d["type"] == RTM_NEWLINK and d["index"] == index["va"]
             and not d["flags"] & IFF_UP),
            ("event_deladdr_v6", lambda d: is_(RTM_DELADDR, socket.AF_INET6)(d)
             and d["address"] == "2001:db8:1::1"),
            ("event_delroute_v6", lambda d: is_(RTM_DELROUTE, socket.AF_INET6)(d)
             and d["dst"] == "2001:db8:1::" and d["dst_len"] == 64 and d["table"] == 254),
        ]),
        ("link_del", ["ip", "link", "del", "vc"], [
            ("event_dellink", lambda d: d["type"] == RTM_DELLINK and d["index"] == index["vc"]),
        ]),
    ]

    mon = Monitor()
    fixtures = {}   # name -> (datagram, step name, command, decoded message)
    log = []
    try:
        settled = mon.collect()
        print("(%d notifications of the setup drained)" % len(settled), file=sys.stderr)
        for step, cmd, wanted in steps:
            run(*cmd)
            datagrams = mon.collect()
            decoded = []
            for data in datagrams:
                msgs = list(messages(data))
                if not msgs or sum((len(m[3]) + 3) & ~3 for m in msgs) != len(data):
                    raise RuntimeError("datagram of step %s does not frame cleanly" % step)
                decoded.append([decode(m[3], names) for m in msgs])
            log.append((step, cmd, [(len(data), ds) for data, ds in zip(datagrams, decoded)]))
            for name, pick in wanted:
                # One datagram holding exactly one message that matches.
                hits = [(data, ds[0]) for data, ds in zip(datagrams, decoded) if len(ds) == 1 and pick(ds[0])]
                if not hits:
                    raise RuntimeError("step %s: no datagram for %s" % (step, name))
                fixtures[name] = (hits[0][0], step, cmd, hits[0][1])
    finally:
        mon.close()

    for step, cmd, got in log:
        print("step %s (`%s`): %d datagrams" % (step, " ".join(cmd), len(got)), file=sys.stderr)
        for length, ds in got:
            print("  %4d bytes: %s" % (length, "; ".join(d["text"] for d in ds)), file=sys.stderr)

    os.makedirs(out_dir, exist_ok=True)
    for name, (data, _step, _cmd, _d) in sorted(fixtures.items()):
        if not name.startswith("event_"):
            raise RuntimeError("events mode writes only event_*.bin")
        with open(os.path.join(out_dir, name + ".bin"), "wb") as f:
            f.write(data)
        print("%-28s %5d bytes" % (name + ".bin", len(data)), file=sys.stderr)

    # README rows (the README itself is not rewritten by this mode).
    print("Interface indexes: " + ", ".join("%s=%d" % (n, i) for i, n in sorted(names.items())) + ".")
    for name, (data, _step, cmd, d) in sorted(fixtures.items()):
        print("| `%s.bin` | %d | `%s`: %s |" % (name, len(data), " ".join(cmd), d["text"].replace("|", "\\|")))


DESCRIPTIONS = {
    "route_v4_gateway": "RTM_GETROUTE 8.8.8.8: RTM_NEWROUTE unicast via 10.1.0.254 dev va, src 10.1.0.1, table 254",
    "route_v4_onlink": "RTM_GETROUTE 10.1.0.7: RTM_NEWROUTE unicast on-link dev va (no gateway), src 10.1.0.1, table 254",
    "route_v4_local": "RTM_GETROUTE 10.1.0.1: RTM_NEWROUTE local dev lo, src 10.1.0.1; table 254 "
                      "(local and main tables merged: no custom rule yet)",
    "route_v4_local_unmerged": "RTM_GETROUTE 10.1.0.1 after `ip rule add from 192.0.2.0/24 table 100`: "
                               "RTM_NEWROUTE local dev lo, src 10.1.0.1, table 255",
    "route_v6_gateway": "RTM_GETROUTE 2001:4860:4860::8888: RTM_NEWROUTE unicast via 2001:db8:1::fe dev va, "
                        "src 2001:db8:1::1, table 254",
    "route_v4_blackhole_einval": "RTM_GETROUTE 10.2.3.4 (blackhole 10.2.0.0/16): NLMSG_ERROR -22 (EINVAL) "
                                 "echoing the 36-byte request",
    "link_veth": "RTM_GETLINK va: RTM_NEWLINK veth, ARPHRD_ETHER, UP|BROADCAST|RUNNING|MULTICAST|LOWER_UP, "
                 "operstate UP, carrier 1, mtu 1500, link = vb",
    "link_tun": "RTM_GETLINK tun0: RTM_NEWLINK tun, ARPHRD_NONE, UP|POINTOPOINT|NOARP|MULTICAST, "
                "operstate DOWN (no reader attached), carrier 0, mtu 1500",
    "addr_dump_v4": "first datagram of an RTM_GETADDR dump (AF_INET): RTM_NEWADDR for lo 127.0.0.1/8, "
                    "va 10.1.0.1/24, tun0 10.8.0.1 peer 10.8.0.2/32 (NLMSG_DONE came in a later datagram)",
}


EVENTS_SECTION = "## Notification datagrams"


def write_readme(out_dir, fixtures, indexes):
    lines = [
        "# Netlink byte fixtures",
        "",
        "Raw NETLINK_ROUTE reply datagrams, one per file, exactly as received by",
        "`Tests/Fixtures-capture/capture.py` (run it as root to recapture).",
        "",
        "Captured on kernel: `%s %s` (%s)." % (platform.system(), platform.release(), platform.machine()),
        "Byte order: host (little-endian).",
        "",
        "Topology inside a private network namespace: lo up; veth va/vb, va 10.1.0.1/24 and",
        "2001:db8:1::1/64 (nodad), default via 10.1.0.254, IPv6 default via 2001:db8:1::fe;",
        "blackhole 10.2.0.0/16; tun0 (persistent, no reader) 10.8.0.1 peer 10.8.0.2, up.",
        "Route requests carry rtm_flags RTM_F_LOOKUP_TABLE (0x1000) and RTA_DST. No packet",
        "was sent anywhere.",
        "",
        "Interface indexes: " + ", ".join("%s=%d" % kv for kv in indexes.items()) + ".",
        "",
        "| file | bytes | contents |",
        "|---|---|---|",
    ]
    for name, data in sorted(fixtures.items()):
        lines.append("| `%s.bin` | %d | %s |" % (name, len(data), DESCRIPTIONS[name].replace("|", "\\|")))
    lines += [
        "",
        "`Tests/ReachabilityTests/Fixtures.swift` restates the key ones as annotated byte",
        "literals (the two links trimmed to the attributes the parser reads); the tests",
        "check that both forms parse to the same values.",
        "",
    ]
    # The notification fixtures (--events) are described in a section of
    # their own at the end; a recapture of the replies keeps it.
    path = os.path.join(out_dir, "README.md")
    try:
        with open(path) as f:
            old = f.read()
    except FileNotFoundError:
        old = ""
    marker = old.find(EVENTS_SECTION)
    tail = old[marker:] if marker >= 0 else ""
    with open(path, "w") as f:
        f.write("\n".join(lines) + ("\n" + tail if tail else ""))


def outer(out_dir, events=False):
    if os.geteuid() != 0:
        sys.exit("capture.py must run as root (it creates a network namespace)")
    name = "fixture-%d" % os.getpid()
    run("ip", "netns", "add", name)
    try:
        subprocess.run(["ip", "netns", "exec", name, sys.executable, os.path.abspath(__file__),
                        "--inner", "--out", out_dir] + (["--events"] if events else []), check=True)
    finally:
        subprocess.run(["ip", "netns", "del", name], check=False)
    print("fixtures written to " + out_dir, file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--out", default=DEFAULT_OUT, help="output directory (default: %(default)s)")
    ap.add_argument("--events", action="store_true",
                    help="record notification datagrams (event_*.bin) instead of the replies")
    args = ap.parse_args()
    if args.inner:
        if args.events:
            inner_events(args.out)
        else:
            inner(args.out)
    else:
        outer(args.out, args.events)


if __name__ == "__main__":
    main()
