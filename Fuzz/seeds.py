#!/usr/bin/env python3
"""Regenerate the fuzz seed corpora in Fuzz/corpus/<harness>/.

Usage (as root):  python3 Fuzz/seeds.py [--out DIR]

The outer process creates a throw-away network namespace "fuzzseed-<pid>",
runs itself inside it (ip netns exec ... --inner) and always deletes the
namespace afterwards. Inside, it builds a small topology (lo, a veth pair, a
bridge, a macvlan, a tun device; IPv4 and IPv6 addresses; gateway, multipath,
blackhole, unreachable, prohibit, throw, RTA_VIA and policy routes; a rule) and
records, byte for byte as received:

  netlink/  every datagram of RTM_GETLINK, RTM_GETADDR, RTM_GETROUTE (v4, v6)
            and RTM_GETRULE dumps (the last one holds NLMSG_DONE), single
            RTM_GETROUTE / RTM_GETLINK replies, NLMSG_ERROR replies (EINVAL
            of a blackhole, EHOSTUNREACH, ENODEV, an ACK, and a strict-check
            rejection carrying extended-ACK attributes), and the notification
            datagrams the topology changes produced (one per message type and
            family). The committed fixtures Tests/ReachabilityTests/Fixtures/*.bin
            are copied in as fixture_*.bin.
  uevent/   /sys/class/net/*/uevent and */ifindex of the namespace (ip netns
            exec mounts a sysfs of its own), plus a few interface names and
            hand-written /proc/net/pppoe and /proc/net/pppol2tp texts.
  idrange/  the namespace's /proc/sys/net/ipv4/ping_group_range, and variants.
  icmp/     real echo replies to 127.0.0.1 (raw IPv4 socket: with the IP header)
            and ::1 (raw ICMPv6: without), real port-unreachable errors (v4 and
            v6) quoting a UDP datagram, and hand-built errors quoting an echo
            request (the kernel only makes those on a forwarding path).
  http/     response heads (hand-written, and one from Python's http.server
            on 127.0.0.1 inside the namespace).
  dns/      responses built like Tests/IntegrationTests/Responders.swift
            does (A, AAAA, NXDOMAIN, empty NOERROR), plus a CNAME chain with
            compression pointers, TC and SERVFAIL. Each file starts with the
            harness's control byte (see Fuzz/dns.c), then the message.

No packet leaves the namespace: netlink dumps are kernel queries, the pings,
UDP datagrams and HTTP exchange go over the namespace's own loopback. The
files of each directory that this script writes are replaced; other files
(e.g. committed crash reproducers, named regress_*) are left alone.

Standard library only.
"""

import argparse
import glob
import os
import socket
import struct
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEFAULT_OUT = os.path.join(HERE, "corpus")
FIXTURES = os.path.join(ROOT, "Tests", "ReachabilityTests", "Fixtures")

NETLINK_ROUTE = 0
SOL_NETLINK = 270
NETLINK_EXT_ACK = 11
NETLINK_GET_STRICT_CHK = 12

NLM_F_REQUEST = 0x01
NLM_F_ACK = 0x04
NLM_F_DUMP = 0x300

NLMSG_ERROR = 2
NLMSG_DONE = 3
RTM_NEWLINK, RTM_DELLINK, RTM_GETLINK = 16, 17, 18
RTM_NEWADDR, RTM_DELADDR, RTM_GETADDR = 20, 21, 22
RTM_NEWNEIGH, RTM_DELNEIGH = 28, 29
NDA_DST, NDA_LLADDR = 1, 2
RTM_NEWROUTE, RTM_DELROUTE, RTM_GETROUTE = 24, 25, 26
RTM_NEWRULE, RTM_DELRULE, RTM_GETRULE = 32, 33, 34
RTN_THROW = 9

RTA_DST = 1
RTM_F_LOOKUP_TABLE = 0x1000
IFLA_OPERSTATE = 16
IFLA_EXT_MASK = 29
RTEXT_FILTER_SKIP_STATS = 1 << 3
IF_OPER_UP = 6

# The monitor's groups: link, IPv4/IPv6 address, route, rule.
EVENT_GROUPS = [1, 5, 7, 8, 9, 11, 19]

TYPE_NAMES = {
    NLMSG_ERROR: "error", NLMSG_DONE: "done",
    RTM_NEWLINK: "newlink", RTM_DELLINK: "dellink", RTM_NEWADDR: "newaddr", RTM_DELADDR: "deladdr",
    RTM_NEWROUTE: "newroute", RTM_DELROUTE: "delroute", RTM_NEWRULE: "newrule", RTM_DELRULE: "delrule",
}
FAMILY_NAMES = {0: "unspec", socket.AF_INET: "v4", socket.AF_INET6: "v6", 7: "bridge"}


def log(*a):
    print(*a, file=sys.stderr)


def run(*cmd, check=True):
    log("+ " + " ".join(cmd))
    r = subprocess.run(cmd)
    if check and r.returncode != 0:
        raise RuntimeError("failed: " + " ".join(cmd))
    return r.returncode == 0


# --------------------------------------------------------------------------
# netlink

class Netlink:
    def __init__(self, groups=0):
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW | socket.SOCK_CLOEXEC, NETLINK_ROUTE)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
        self.sock.bind((0, groups))
        self.sock.settimeout(5.0)
        self.seq = 5000

    def close(self):
        self.sock.close()

    def request(self, msg_type, flags, payload):
        self.seq += 1
        hdr = struct.pack("=IHHII", 16 + len(payload), msg_type, flags | NLM_F_REQUEST, self.seq, 0)
        self.sock.send(hdr + payload)
        return self.seq

    def recv(self, timeout=5.0):
        self.sock.settimeout(timeout)
        data, (pid, _groups) = self.sock.recvfrom(65536)
        if pid != 0:
            raise RuntimeError("datagram from a non-kernel sender")
        return data

    def until_done(self, seq):
        """Datagrams until one holds NLMSG_DONE or NLMSG_ERROR for seq."""
        out = []
        while True:
            data = self.recv()
            out.append(data)
            if any(m[2] == seq and m[0] in (NLMSG_DONE, NLMSG_ERROR) for m in messages(data)):
                return out

    def dump(self, msg_type, payload):
        return self.until_done(self.request(msg_type, NLM_F_DUMP, payload))

    def single(self, msg_type, payload, flags=0):
        self.request(msg_type, flags, payload)
        return self.recv()


def attr(rta_type, data):
    length = 4 + len(data)
    return struct.pack("=HH", length, rta_type) + data + b"\0" * ((-length) & 3)


def messages(datagram):
    """(type, flags, seq, bytes) of each message; stops at broken framing."""
    off = 0
    while off + 16 <= len(datagram):
        length, mtype, flags, seq, _pid = struct.unpack_from("=IHHII", datagram, off)
        if length < 16 or off + length > len(datagram):
            return
        yield mtype, flags, seq, datagram[off:off + length]
        off += (length + 3) & ~3


def ifinfomsg(index=0):
    return struct.pack("=BBHiII", socket.AF_UNSPEC, 0, 0, index, 0, 0)


def rtmsg(family, dst_len=0, src_len=0, flags=0):
    return struct.pack("=BBBBBBBBI", family, dst_len, src_len, 0, 0, 0, 0, 0, flags)


def route_get(nl, family, dst):
    addr = socket.inet_pton(family, dst)
    return nl.single(RTM_GETROUTE, rtmsg(family, len(addr) * 8, flags=RTM_F_LOOKUP_TABLE) + attr(RTA_DST, addr))


def operstate(nl, index):
    data = nl.single(RTM_GETLINK, ifinfomsg(index) + attr(IFLA_EXT_MASK, struct.pack("=I", RTEXT_FILTER_SKIP_STATS)))
    for mtype, _f, _s, msg in messages(data):
        if mtype != RTM_NEWLINK:
            continue
        off = 32
        while off + 4 <= len(msg):
            alen, atype = struct.unpack_from("=HH", msg, off)
            if alen < 4:
                break
            if atype & 0x3FFF == IFLA_OPERSTATE:
                return msg[off + 4]
            off += (alen + 3) & ~3
    return None


# --------------------------------------------------------------------------
# Hand-built seeds (deterministic)

def http_seeds():
    crlf = "\r\n"

    def head(*lines):
        return (crlf.join(lines) + crlf + crlf).encode()

    return {
        "204": head("HTTP/1.1 204 No Content", "Date: Mon, 01 Jan 2024 00:00:00 GMT",
                    "Server: gws", "Content-Length: 0", "Connection: close"),
        "204_generate": head("HTTP/1.1 204 No Content", "Content-Length: 0",
                             "Date: Mon, 01 Jan 2024 00:00:00 GMT"),
        "302_location": head("HTTP/1.1 302 Found", "Location: http://captive.example/login?next=%2F",
                             "Cache-Control: no-cache", "Content-Type: text/html; charset=UTF-8",
                             "Content-Length: 0"),
        "200_body": head("HTTP/1.1 200 OK", "Content-Type: text/plain", "Content-Length: 8",
                         "X-NetworkManager-Status: online") + b"NetworkManager is online\n",
        "http10_200": head("HTTP/1.0 200 OK", "Server: SimpleHTTP/0.6", "Content-type: text/html"),
        "chunked": head("HTTP/1.1 200 OK", "Transfer-Encoding: chunked", "Connection: close")
                   + b"5\r\nhello\r\n0\r\n\r\n",
        "empty_reason": head("HTTP/1.1 204 ", "x-tab:\tv\t", "obs-text: caf\u00e9"),
        "511": head("HTTP/1.1 511 Network Authentication Required", "Content-Type: text/html"),
        "partial_status": b"HTTP/1.1 20",
        "partial_header": b"HTTP/1.1 204 No Content\r\nContent-Len",
        "partial_end": b"HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r",
        "bad_bare_lf": b"HTTP/1.1 200 OK\nServer: x\n\n",
        "bad_fold": b"HTTP/1.1 200 OK\r\nX: a\r\n  b\r\n\r\n",
        "bad_version": b"HTTP/2.0 200 OK\r\n\r\n",
    }


def dns_name(name):
    out = b""
    for label in name.rstrip(".").split("."):
        out += bytes([len(label)]) + label.encode()
    return out + b"\0"


def be16(v):
    return struct.pack(">H", v)


def dns_seeds():
    """Control byte (Fuzz/dns.c: bit 0 AAAA, bits 1-2 = 3: name of the question) + message."""
    A, AAAA, CNAME, IN = 1, 28, 5, 1
    ctl_a, ctl_aaaa = b"\x06", b"\x07"

    def question(name, qtype):
        return dns_name(name) + be16(qtype) + be16(IN)

    def response(qid, flags, name, qtype, answers=(), authority=0):
        out = be16(qid) + be16(flags) + be16(1) + be16(len(answers)) + be16(authority) + be16(0)
        out += question(name, qtype)
        for owner, rtype, rdata in answers:
            out += owner + be16(rtype) + be16(IN) + struct.pack(">I", 60) + be16(len(rdata)) + rdata
        return out

    ptr_q = b"\xc0\x0c"   # the question's name
    v4 = socket.inet_pton(socket.AF_INET, "93.184.216.34")
    v4b = socket.inet_pton(socket.AF_INET, "192.0.2.7")
    v6 = socket.inet_pton(socket.AF_INET6, "2606:2800:220:1:248:1893:25c8:1946")
    seeds = {
        # As DNSResponder.reply builds them: answers point at the question (0xc00c).
        "a_one": ctl_a + response(0x1234, 0x8180, "example.com", A, [(ptr_q, A, v4)]),
        "a_two": ctl_a + response(0xbeef, 0x8180, "connectivity-check.ubuntu.com", A,
                                  [(ptr_q, A, v4), (ptr_q, A, v4b)]),
        "aaaa_one": ctl_aaaa + response(0x4321, 0x8180, "example.com", AAAA, [(ptr_q, AAAA, v6)]),
        "nxdomain": ctl_a + response(0x0001, 0x8183, "nonexistent.example", A),
        "noerror_empty": ctl_aaaa + response(0x0002, 0x8180, "v4only.example", AAAA),
        "servfail": ctl_a + response(0x0003, 0x8182, "example.com", A),
        "truncated": ctl_a + response(0x0004, 0x8380, "example.com", A),
    }
    # www.example.com CNAME example.com (a pointer into the CNAME's rdata), then the A record.
    q = question("www.example.com", A)
    hdr = be16(0x5555) + be16(0x8180) + be16(1) + be16(2) + be16(0) + be16(0)
    cname_rdata_at = 12 + len(q) + 2 + 10   # owner pointer, fixed part
    cname = ptr_q + be16(CNAME) + be16(IN) + struct.pack(">I", 300) + be16(2) + b"\xc0\x10"   # -> "example.com" in the question
    a = struct.pack(">H", 0xc000 | cname_rdata_at) + be16(A) + be16(IN) + struct.pack(">I", 60) + be16(4) + v4
    seeds["cname_chain"] = ctl_a + hdr + q + cname + a
    # Mixed case and a trailing-dot-free question matched case-insensitively.
    seeds["mixed_case"] = ctl_a + response(0x7777, 0x8180, "ExAmPlE.CoM", A, [(ptr_q, A, v4)])
    return seeds


NLM_F_MULTI = 0x02
NLM_F_DUMP_INTR = 0x10
NLM_F_CAPPED = 0x100
NLM_F_ACK_TLVS = 0x200
RTA_OIF, RTA_GATEWAY, RTA_VIA = 4, 5, 18
IFLA_IFNAME, IFLA_LINKINFO, IFLA_INFO_KIND = 3, 18, 1
NLMSGERR_ATTR_MSG = 1


def nlmsg(mtype, flags, payload, seq=7, pid=0):
    return struct.pack("=IHHII", 16 + len(payload), mtype, flags, seq, pid) + payload


def pad4(b):
    return b + b"\0" * ((-len(b)) & 3)


def netlink_synth_seeds():
    """Edge cases of the documented formats that a real dump rarely holds
    (host byte order, like the captures)."""
    v4 = socket.inet_pton(socket.AF_INET, "10.1.0.254")
    route_hdr = rtmsg(socket.AF_INET, 0)
    link_hdr = struct.pack("=BBHiII", socket.AF_UNSPEC, 0, 1, 7, 0x1043, 0)
    seeds = {
        # IFLA_INFO_KIND at the size limit (31 + NUL) and without its NUL.
        "synth_link_kind_31": nlmsg(RTM_NEWLINK, 0, link_hdr + attr(IFLA_IFNAME, b"wg0\0") +
                                    attr(IFLA_LINKINFO, attr(IFLA_INFO_KIND, b"k" * 31 + b"\0"))),
        "synth_link_kind_nonul": nlmsg(RTM_NEWLINK, 0, link_hdr + attr(IFLA_IFNAME, b"wg0\0") +
                                       attr(IFLA_LINKINFO, attr(IFLA_INFO_KIND, b"wireguard"))),
        # RTA_VIA: too short for its family, and a family without an address size.
        "synth_route_via_short": nlmsg(RTM_NEWROUTE, 0, route_hdr + attr(RTA_VIA, b"\x02")),
        "synth_route_via_af_packet": nlmsg(RTM_NEWROUTE, 0, route_hdr + attr(RTA_VIA, struct.pack("=H", 17) + v4)),
        "synth_route_gateway_v6_size": nlmsg(RTM_NEWROUTE, 0, route_hdr + attr(RTA_GATEWAY, b"\0" * 16)),
        # A dump that raced with a change and ended in an error (NLMSG_DONE carries -EBUSY).
        "synth_done_intr_ebusy": nlmsg(NLMSG_DONE, NLM_F_MULTI | NLM_F_DUMP_INTR, struct.pack("=i", -16)),
        # Extended ACK with the request capped to its header.
        "synth_error_capped_extack": nlmsg(NLMSG_ERROR, NLM_F_CAPPED | NLM_F_ACK_TLVS,
                                           struct.pack("=i", -22) + struct.pack("=IHHII", 36, RTM_GETROUTE, 1, 7, 0)
                                           + attr(NLMSGERR_ATTR_MSG, b"Invalid header\0")),
        # Three stray bytes after a message: broken framing.
        "synth_trailing_bytes": nlmsg(RTM_NEWROUTE, 0, route_hdr + attr(RTA_OIF, struct.pack("=i", 3))) + b"\x01\x02\x03",
    }
    # Neighbour entries (an uplink tracker's next hop): NUD_FAILED with its
    # address, and an IPv6 entry whose NDA_DST has an IPv4 address's size.
    nd_v4 = struct.pack("=BBHiHBB", socket.AF_INET, 0, 0, 3, 0x20, 0, 1)
    nd_v6 = struct.pack("=BBHiHBB", socket.AF_INET6, 0, 0, 3, 0x02, 0, 1)
    seeds["synth_neigh_failed_v4"] = nlmsg(RTM_NEWNEIGH, 0, nd_v4 + attr(NDA_DST, v4) + attr(NDA_LLADDR, pad4(b"\x02\0\0\0\0\x01")))
    seeds["synth_neigh_v6_short_dst"] = nlmsg(RTM_NEWNEIGH, 0, nd_v6 + attr(NDA_DST, v4))
    # Ten RTM_DELLINK in one datagram: more than CREACH_EVENTS_MAX_DELETED (8).
    seeds["synth_dellink_x10"] = b"".join(
        nlmsg(RTM_DELLINK, 0, struct.pack("=BBHiII", 0, 0, 1, 10 + i, 0x1002, 0) +
              attr(IFLA_IFNAME, pad4(b"v%d\0" % i)[:4])) for i in range(10))
    return seeds


def inet_checksum(data):
    if len(data) & 1:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def ipv4_header(src, dst, proto, payload_len, ttl=64, ident=0x1234):
    h = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + payload_len, ident, 0x4000, ttl, proto, 0,
                    socket.inet_aton(src), socket.inet_aton(dst))
    return h[:10] + struct.pack("!H", inet_checksum(h)) + h[12:]


def icmp_hand_seeds():
    echo4 = struct.pack("!BBHHH", 8, 0, 0, 0xabcd, 7) + b"reach-probe"
    echo4 = echo4[:2] + struct.pack("!H", inet_checksum(echo4)) + echo4[4:]
    quoted4 = ipv4_header("10.1.0.1", "198.51.100.9", 1, len(echo4)) + echo4[:8]
    unreach4 = struct.pack("!BBHI", 3, 1, 0, 0) + quoted4
    unreach4 = unreach4[:2] + struct.pack("!H", inet_checksum(unreach4)) + unreach4[4:]
    ttl4 = struct.pack("!BBHI", 11, 0, 0, 0) + quoted4
    outer = ipv4_header("10.1.0.254", "10.1.0.1", 1, len(unreach4), ident=0)

    echo6 = struct.pack("!BBHHH", 128, 0, 0, 0xabcd, 9) + b"reach-probe"
    ip6 = struct.pack("!IHBB16s16s", 0x60000000, len(echo6), 58, 64,
                      socket.inet_pton(socket.AF_INET6, "2001:db8:1::1"),
                      socket.inet_pton(socket.AF_INET6, "2001:db8:ffff::9"))
    unreach6 = struct.pack("!BBHI", 1, 3, 0, 0) + ip6 + echo6
    toobig6 = struct.pack("!BBHI", 2, 0, 0, 1280) + ip6 + echo6
    return {
        "v4_hdr_unreach_quoting_echo": outer + unreach4,
        "v4_unreach_quoting_echo": unreach4,
        "v4_ttl_exceeded_quoting_echo": ttl4,
        "v6_unreach_quoting_echo": unreach6,
        "v6_packet_too_big_quoting_echo": toobig6,
        "v6_router_advert": struct.pack("!BBHBBHII", 134, 0, 0, 64, 0, 1800, 0, 0),
    }


def idrange_seeds():
    return {
        "default_off": b"1\t0\n",
        "all_groups": b"0\t2147483647\n",
        "max": b"4294967295 4294967295\n",
        "spaces": b"100  200",
        "overflow": b"4294967296\t1\n",
        "junk": b"1\t2\nx",
    }


# --------------------------------------------------------------------------
# Inside the namespace

def capture_icmp():
    """Real ICMP datagrams on the namespace's loopback."""
    out = {}
    # IPv4 raw socket: the datagram starts with the IP header.
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
    s.settimeout(2)
    req = struct.pack("!BBHHH", 8, 0, 0, 0x4242, 1) + b"fuzz-seed"
    req = req[:2] + struct.pack("!H", inet_checksum(req)) + req[4:]
    s.sendto(req, ("127.0.0.1", 0))
    deadline = time.monotonic() + 2
    while time.monotonic() < deadline:
        data = s.recv(2048)
        ihl = (data[0] & 0x0f) * 4
        if data[ihl] == 0:
            out["v4_hdr_echo_reply"] = data
            out["v4_echo_reply"] = data[ihl:]
        elif data[ihl] == 8:
            out["v4_hdr_echo_request"] = data
        if "v4_hdr_echo_reply" in out:
            break
    # A UDP datagram to a closed port: ICMP port unreachable quoting UDP.
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    u.sendto(b"x", ("127.0.0.1", 9))
    deadline = time.monotonic() + 2
    while time.monotonic() < deadline:
        data = s.recv(2048)
        ihl = (data[0] & 0x0f) * 4
        if data[ihl] == 3:
            out["v4_hdr_port_unreach_udp"] = data
            break
    u.close()
    s.close()

    # ICMPv6 raw socket: no IPv6 header.
    s6 = socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_ICMPV6)
    s6.settimeout(2)
    s6.sendto(struct.pack("!BBHHH", 128, 0, 0, 0x4242, 1) + b"fuzz-seed", ("::1", 0))
    u6 = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    u6.sendto(b"x", ("::1", 9))
    deadline = time.monotonic() + 2
    while time.monotonic() < deadline and not ("v6_echo_reply" in out and "v6_port_unreach_udp" in out):
        try:
            data = s6.recv(2048)
        except socket.timeout:
            break
        if data[0] == 129:
            out["v6_echo_reply"] = data
        elif data[0] == 1:
            out["v6_port_unreach_udp"] = data
    u6.close()
    s6.close()
    return out


def capture_http():
    """One real response head from Python's http.server on the namespace's 127.0.0.1."""
    import http.server

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(204)
            self.end_headers()

        def log_message(self, *a):
            pass

    srv = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    t = threading.Thread(target=srv.handle_request, daemon=True)
    t.start()
    c = socket.create_connection(("127.0.0.1", srv.server_address[1]), timeout=5)
    c.sendall(b"GET /generate_204 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
    data = b""
    while True:
        chunk = c.recv(4096)
        if not chunk:
            break
        data += chunk
    c.close()
    t.join(5)
    srv.server_close()
    return {"real_python_http_server_204": data}


def name_of(datagram):
    kinds = []
    for mtype, _f, _s, msg in messages(datagram):
        k = TYPE_NAMES.get(mtype, "t%d" % mtype)
        if mtype >= 16 and len(msg) > 16:
            k += "_" + FAMILY_NAMES.get(msg[16], "f%d" % msg[16])
        # A route's rtm_type (the last byte of the 12-byte rtmsg): a throw
        # route's notification is a kind of its own (creach_events.throw_added).
        if mtype in (RTM_NEWROUTE, RTM_DELROUTE) and len(msg) >= 28 and msg[23] == RTN_THROW:
            k += "_throw"
        if k not in kinds:
            kinds.append(k)
    return "_".join(kinds[:3]) or "empty"


def inner(out_dir):
    monitor = Netlink(groups=sum(1 << (g - 1) for g in EVENT_GROUPS))

    run("ip", "link", "set", "lo", "up")
    run("ip", "link", "add", "va", "type", "veth", "peer", "name", "vb")
    run("ip", "link", "add", "br0", "type", "bridge")
    run("ip", "link", "set", "vb", "master", "br0")
    run("ip", "addr", "add", "10.1.0.1/24", "dev", "va")
    run("ip", "-6", "addr", "add", "2001:db8:1::1/64", "dev", "va", "nodad")
    run("ip", "addr", "add", "192.168.50.1/24", "dev", "br0", "label", "br0:lan")
    run("ip", "-6", "addr", "add", "fd00:50::1/64", "dev", "br0", "nodad")
    for dev in ("vb", "va", "br0"):
        run("ip", "link", "set", dev, "up")
    run("ip", "link", "add", "mv0", "link", "va", "type", "macvlan", "mode", "bridge", check=False)
    run("ip", "addr", "add", "10.1.0.5/24", "dev", "mv0", check=False)
    run("ip", "link", "set", "mv0", "up", check=False)
    run("ip", "tuntap", "add", "mode", "tun", "name", "tun0")
    run("ip", "addr", "add", "10.8.0.1", "peer", "10.8.0.2", "dev", "tun0")
    run("ip", "link", "set", "tun0", "mtu", "1400", "up")
    run("ip", "route", "add", "default", "via", "10.1.0.254", "dev", "va")
    run("ip", "-6", "route", "add", "default", "via", "2001:db8:1::fe", "dev", "va")
    run("ip", "route", "add", "blackhole", "10.2.0.0/16")
    run("ip", "route", "add", "unreachable", "10.3.0.0/16")
    run("ip", "route", "add", "prohibit", "10.4.0.0/16")
    run("ip", "route", "add", "throw", "10.5.0.0/16")
    run("ip", "-6", "route", "add", "throw", "2001:db8:5::/48")
    run("ip", "route", "add", "10.9.0.0/16", "nexthop", "via", "10.1.0.253", "dev", "va",
        "nexthop", "via", "192.168.50.254", "dev", "br0")
    run("ip", "route", "add", "10.10.0.0/16", "via", "inet6", "2001:db8:1::fe", "dev", "va", check=False)
    run("ip", "route", "add", "10.11.0.0/16", "dev", "tun0", "src", "10.8.0.1", "mtu", "1300")
    run("ip", "route", "add", "default", "via", "192.168.50.254", "table", "100")
    run("ip", "-6", "route", "add", "2001:db8:99::/48", "via", "fe80::1", "dev", "br0", "metric", "50")
    run("ip", "rule", "add", "from", "192.0.2.0/24", "table", "100", "pref", "100")
    run("ip", "-6", "rule", "add", "fwmark", "0x1", "table", "100", "pref", "110")

    poll = Netlink()
    va = socket.if_nametoindex("va")
    deadline = time.monotonic() + 10
    while operstate(poll, va) != IF_OPER_UP:
        if time.monotonic() > deadline:
            raise RuntimeError("va never reached operstate UP")
        time.sleep(0.1)
    poll.close()

    # sysfs of this namespace (ip netns exec mounted it).
    uevent = {}
    for dev in ("lo", "va", "br0", "mv0", "tun0"):
        base = "/sys/class/net/" + dev
        if not os.path.isdir(base):
            continue
        with open(base + "/uevent", "rb") as f:
            uevent[dev + ".uevent"] = f.read()
        with open(base + "/ifindex", "rb") as f:
            uevent[dev + ".ifindex"] = f.read()
    uevent["name_valid"] = b"wlp0s20f3"
    uevent["name_toolong"] = b"abcdefghijklmnop"
    uevent["name_dotdot"] = b".."
    uevent["ifindex_big"] = b"2147483648\n"
    # /proc/net/pppoe and /proc/net/pppol2tp in the kernel's formats (the
    # session counter of carriers.c): two sessions each.
    uevent["pppoe_sessions"] = (b"Id       Address              Device\n"
                                b"00000101 00:11:22:33:44:00     eth0\n"
                                b"00000102 00:11:22:33:44:01     eth0\n")
    uevent["pppol2tp_sessions"] = (
        b"PPPoL2TP driver info, 1.0\n"
        b"TUNNEL name, user-data-ok session-count\n"
        b" debug tx-pkts/bytes/errs rx-pkts/bytes/errs\n"
        b"  SESSION name, addr/port src-tid/sid dest-tid/sid state user-data-ok\n"
        b"   mtu/mru/rcvseq/sendseq/lns debug reorderto\n"
        b"   nr/ns tx-pkts/bytes/errs rx-pkts/bytes/errs\n"
        b"\nTUNNEL 'tunl 1', Y 2\n"
        b" 00000000 120/9800/0 118/9240/0\n"
        b"  SESSION 'sess 1/1' C0A80001/1701 0001/0001 -> 0007/001E 1 Y\n"
        b"   0/0/-/-/LAC 00000000 0\n"
        b"   0/0 60/4900/0 59/4620/0\n"
        b"   interface ppp0\n"
        b"  SESSION 'sess 1/2' C0A80001/1701 0001/0002 -> 0007/001F 1 Y\n"
        b"   0/0/-/-/LAC 00000000 0\n"
        b"   0/0 60/4900/0 59/4620/0\n"
        b"   interface ppp1\n")

    netlink = {}
    nl = Netlink()
    nl.sock.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)

    def add_all(prefix, datagrams):
        for i, d in enumerate(datagrams):
            netlink["%s_%02d_%s" % (prefix, i, name_of(d))] = d

    add_all("dump_link", nl.dump(RTM_GETLINK, ifinfomsg()))
    add_all("dump_link_nostats", nl.dump(RTM_GETLINK, ifinfomsg() + attr(IFLA_EXT_MASK, struct.pack(
        "=I", RTEXT_FILTER_SKIP_STATS))))
    add_all("dump_addr", nl.dump(RTM_GETADDR, struct.pack("=BBBBI", socket.AF_UNSPEC, 0, 0, 0, 0)))
    add_all("dump_route_v4", nl.dump(RTM_GETROUTE, rtmsg(socket.AF_INET)))
    add_all("dump_route_v6", nl.dump(RTM_GETROUTE, rtmsg(socket.AF_INET6)))
    add_all("dump_rule", nl.dump(RTM_GETRULE, rtmsg(socket.AF_UNSPEC)))
    netlink["get_route_v4_gateway"] = route_get(nl, socket.AF_INET, "8.8.8.8")
    netlink["get_route_v4_multipath"] = route_get(nl, socket.AF_INET, "10.9.1.1")
    netlink["get_route_v4_via_inet6"] = route_get(nl, socket.AF_INET, "10.10.1.1")
    netlink["get_route_v4_tun"] = route_get(nl, socket.AF_INET, "10.11.0.1")
    netlink["get_route_v6_gateway"] = route_get(nl, socket.AF_INET6, "2001:4860:4860::8888")
    netlink["get_route_v6_linklocal_gw"] = route_get(nl, socket.AF_INET6, "2001:db8:99::1")
    netlink["err_route_blackhole_einval"] = route_get(nl, socket.AF_INET, "10.2.3.4")
    netlink["err_route_unreachable"] = route_get(nl, socket.AF_INET, "10.3.3.4")
    netlink["err_route_prohibit"] = route_get(nl, socket.AF_INET, "10.4.3.4")
    netlink["get_link_tun"] = nl.single(RTM_GETLINK, ifinfomsg(socket.if_nametoindex("tun0")))
    netlink["err_link_enodev"] = nl.single(RTM_GETLINK, ifinfomsg(9999))
    # An ACK (error 0) after a reply: a GET with NLM_F_ACK.
    seq = nl.request(RTM_GETLINK, NLM_F_ACK, ifinfomsg(1) + attr(IFLA_EXT_MASK, struct.pack(
        "=I", RTEXT_FILTER_SKIP_STATS)))
    for i, d in enumerate(nl.until_done(seq)):
        netlink["get_link_lo_ack_%02d_%s" % (i, name_of(d))] = d
    # Strict checking rejects a header the kernel does not accept, with an
    # extended-ACK message (NLM_F_ACK_TLVS): the "request fault" case.
    nl.sock.setsockopt(SOL_NETLINK, NETLINK_GET_STRICT_CHK, 1)
    addr = socket.inet_pton(socket.AF_INET, "8.8.8.8")
    netlink["err_route_strict_extack"] = nl.single(
        RTM_GETROUTE, rtmsg(socket.AF_INET, 32, src_len=7, flags=RTM_F_LOOKUP_TABLE) + attr(RTA_DST, addr))
    nl.close()

    # Some deletions, for their notifications.
    run("ip", "route", "del", "10.11.0.0/16")
    run("ip", "-6", "route", "del", "2001:db8:99::/48")
    run("ip", "addr", "del", "192.168.50.1/24", "dev", "br0")
    run("ip", "-6", "addr", "del", "fd00:50::1/64", "dev", "br0")
    run("ip", "rule", "del", "pref", "100")
    run("ip", "-6", "rule", "del", "pref", "110")
    run("ip", "link", "del", "mv0", check=False)

    # Notifications the set-up and the deletions produced: the first
    # datagram of each kind.
    monitor.sock.settimeout(1.5)
    seen = set()
    while True:
        try:
            data, (pid, _g) = monitor.sock.recvfrom(65536)
        except socket.timeout:
            break
        except OSError:   # ENOBUFS: fine, these are seeds
            continue
        if pid != 0:
            continue
        k = name_of(data)
        if k not in seen:
            seen.add(k)
            netlink["event_%s" % k] = data
    monitor.close()

    with open("/proc/sys/net/ipv4/ping_group_range", "rb") as f:
        idrange = {"netns_ping_group_range": f.read()}

    icmp = capture_icmp()
    http = capture_http()

    write(out_dir, "netlink", netlink)
    write(out_dir, "uevent", uevent)
    write(out_dir, "idrange", idrange)
    write(out_dir, "icmp", icmp)
    write(out_dir, "http", http)


# --------------------------------------------------------------------------

def write(out_dir, harness, files):
    d = os.path.join(out_dir, harness)
    os.makedirs(d, exist_ok=True)
    for name, data in sorted(files.items()):
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)
    log("%-8s %3d files" % (harness, len(files)))


def clear(out_dir):
    """Remove what this script wrote before (everything but regress_* files)."""
    for path in glob.glob(os.path.join(out_dir, "*", "*")):
        if not os.path.basename(path).startswith("regress_"):
            os.unlink(path)


def outer(out_dir):
    if os.geteuid() != 0:
        sys.exit("seeds.py: needs root (it creates a network namespace)")
    out_dir = os.path.abspath(out_dir)
    clear(out_dir)
    write(out_dir, "http", http_seeds())
    write(out_dir, "dns", dns_seeds())
    write(out_dir, "icmp", icmp_hand_seeds())
    write(out_dir, "idrange", idrange_seeds())
    fixtures = {"fixture_" + os.path.basename(p)[:-4]: open(p, "rb").read()
                for p in sorted(glob.glob(os.path.join(FIXTURES, "*.bin")))}
    fixtures.update(netlink_synth_seeds())
    write(out_dir, "netlink", fixtures)

    ns = "fuzzseed-%d" % os.getpid()
    run("ip", "netns", "add", ns)
    try:
        run("ip", "netns", "exec", ns, sys.executable, os.path.abspath(__file__), "--inner", "--out", out_dir)
    finally:
        run("ip", "netns", "del", ns, check=False)
    total = sum(os.path.getsize(p) for p in glob.glob(os.path.join(out_dir, "*", "*")))
    log("corpus: %d files, %d bytes" % (len(glob.glob(os.path.join(out_dir, "*", "*"))), total))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--out", default=DEFAULT_OUT, help="corpus directory (default: %(default)s)")
    args = ap.parse_args()
    if args.inner:
        inner(args.out)
    else:
        outer(args.out)


if __name__ == "__main__":
    main()
