#!/usr/bin/env python3
"""Print a captured netlink datagram as an annotated Swift [UInt8] literal.

Usage:
  python3 annotate.py FILE.bin SWIFT_NAME [--keep 3,4,16,...]
  python3 annotate.py --swift ../ReachabilityTests/Fixtures > ../ReachabilityTests/Fixtures.swift

--keep (link and address messages only) drops every top-level attribute whose
type is not listed and patches nlmsg_len to the new length, so the literal
stays self-consistent. Used to produce Tests/ReachabilityTests/Fixtures.swift;
the output was then reviewed by hand. Standard library only.
"""

import argparse
import os
import socket
import struct
import sys

NLMSG = {1: "NLMSG_NOOP", 2: "NLMSG_ERROR", 3: "NLMSG_DONE", 16: "RTM_NEWLINK", 17: "RTM_DELLINK",
         20: "RTM_NEWADDR", 21: "RTM_DELADDR", 24: "RTM_NEWROUTE", 26: "RTM_GETROUTE"}
RTA = {1: "RTA_DST", 2: "RTA_SRC", 3: "RTA_IIF", 4: "RTA_OIF", 5: "RTA_GATEWAY", 6: "RTA_PRIORITY",
       7: "RTA_PREFSRC", 8: "RTA_METRICS", 9: "RTA_MULTIPATH", 12: "RTA_CACHEINFO", 15: "RTA_TABLE",
       16: "RTA_MARK", 20: "RTA_PREF", 25: "RTA_UID", 30: "RTA_DPORT"}
RTA_ADDR = {1, 2, 5, 7}
IFLA = {1: "IFLA_ADDRESS", 2: "IFLA_BROADCAST", 3: "IFLA_IFNAME", 4: "IFLA_MTU", 5: "IFLA_LINK",
        6: "IFLA_QDISC", 7: "IFLA_STATS", 10: "IFLA_MASTER", 13: "IFLA_TXQLEN", 14: "IFLA_MAP",
        16: "IFLA_OPERSTATE", 17: "IFLA_LINKMODE", 18: "IFLA_LINKINFO", 23: "IFLA_STATS64",
        26: "IFLA_AF_SPEC", 33: "IFLA_CARRIER", 43: "IFLA_XDP"}
IFLA_INFO = {1: "IFLA_INFO_KIND", 2: "IFLA_INFO_DATA"}
IFLA_TUN = {1: "IFLA_TUN_OWNER", 2: "IFLA_TUN_GROUP", 3: "IFLA_TUN_TYPE", 4: "IFLA_TUN_PI",
            5: "IFLA_TUN_VNET_HDR", 6: "IFLA_TUN_PERSIST", 7: "IFLA_TUN_MULTI_QUEUE"}
IFA = {1: "IFA_ADDRESS", 2: "IFA_LOCAL", 3: "IFA_LABEL", 4: "IFA_BROADCAST", 6: "IFA_CACHEINFO",
       8: "IFA_FLAGS"}
OPER = {0: "IF_OPER_UNKNOWN", 2: "IF_OPER_DOWN", 6: "IF_OPER_UP"}
RTN = {1: "RTN_UNICAST", 2: "RTN_LOCAL", 6: "RTN_BLACKHOLE"}
RTPROT = {0: "RTPROT_UNSPEC", 2: "RTPROT_KERNEL", 3: "RTPROT_BOOT"}
SCOPE = {0: "RT_SCOPE_UNIVERSE", 200: "RT_SCOPE_SITE", 253: "RT_SCOPE_LINK", 254: "RT_SCOPE_HOST"}
AF = {0: "AF_UNSPEC", 2: "AF_INET", 10: "AF_INET6"}
IFF = [(0x1, "UP"), (0x2, "BROADCAST"), (0x8, "LOOPBACK"), (0x10, "POINTOPOINT"), (0x40, "RUNNING"),
       (0x80, "NOARP"), (0x1000, "MULTICAST"), (0x10000, "LOWER_UP")]
IFA_F = [(0x80, "PERMANENT"), (0x200, "NOPREFIXROUTE")]
RTM_F = [(0x200, "RTM_F_CLONED"), (0x1000, "RTM_F_LOOKUP_TABLE"), (0x80000000, "RTCF_LOCAL")]


NOT_READ = {id(RTA): {2, 6, 12, 20}, id(IFLA): {1, 2, 6, 7, 13, 14, 23, 26, 43}, id(IFA): {4, 6}}


def flags_str(value, table):
    names = [n for bit, n in table if value & bit]
    rest = value & ~sum(bit for bit, _ in table)
    if rest:
        names.append("0x%x" % rest)
    return "|".join(names)


def hexs(data):
    return ", ".join("0x%02x" % b for b in data)


class Out:
    def __init__(self):
        self.lines = []
        self.width = 44

    def row(self, data, comment, indent=4, dec=False):
        text = ", ".join(str(b) for b in data) if dec else hexs(data)
        code = " " * indent + text + ","
        self.lines.append((code.ljust(self.width) + "  // " + comment).rstrip() if comment else code)

    def bytes_block(self, data, comment, indent=4):
        for i in range(0, len(data), 8):
            self.row(data[i:i + 8], comment if i == 0 else "", indent)

    def note(self, text, indent=4):
        self.lines.append(" " * indent + "// " + text)


def attr_value(names, atype, payload, family, nested_names=None):
    name = names.get(atype & 0x3FFF, "type %d" % (atype & 0x3FFF))
    return name


def emit_attrs(out, data, names, describe, indent=4, level=0):
    off = 0
    while off + 4 <= len(data):
        alen, atype = struct.unpack_from("=HH", data, off)
        t = atype & 0x3FFF
        name = names.get(t, "attribute type %d (not read by the parser)" % t)
        payload = data[off + 4:off + alen]
        nested = " | NLA_F_NESTED" if atype & 0x8000 else ""
        desc, kind = describe(t, payload, level)
        header_comment = "rta_len = %d, rta_type = %s%s" % (alen, name, nested)
        if level == 0 and names is not None and t in NOT_READ.get(id(names), ()):
            desc = desc if kind == "nested" else desc + " - not read by the parser"
        if kind == "inline":
            out.row(data[off:off + 4] + payload, "%s %s (rta_len %d)" % (name, desc, alen), indent,
                    dec=False)
        elif kind == "dec":
            # header in hex, address in decimal
            code = " " * indent + hexs(data[off:off + 4]) + ", " + ", ".join(str(b) for b in payload) + ","
            out.lines.append(code.ljust(out.width) + "  // %s %s (rta_len %d)" % (name, desc, alen))
        elif kind == "inline" or kind == "dec":
            pass
        elif kind == "nested":
            out.row(data[off:off + 4], header_comment, indent)
            emit_attrs(out, payload, desc[0], desc[1], indent + 4, level + 1)
        else:
            out.row(data[off:off + 4], header_comment, indent)
            if payload:
                out.bytes_block(payload, desc, indent + 4)
        pad = (-alen) & 3
        if pad and off + alen + pad <= len(data):
            out.row(data[off + alen:off + alen + pad], "padding to 4 bytes", indent)
        off += alen + pad


def describe_route(family):
    def d(t, p, level):
        if t in RTA_ADDR and len(p) == 4:
            return socket.inet_ntop(socket.AF_INET, p), "dec"
        if t in RTA_ADDR and len(p) == 16:
            return socket.inet_ntop(socket.AF_INET6, p), "block"
        if len(p) == 4 and t in (4, 6, 15, 16, 25):
            return "= %d" % struct.unpack("=I", p)[0], "inline"
        if t == 20:
            return "= %d" % p[0], "inline"
        return "struct rta_cacheinfo" if t == 12 else "payload", "block"
    return d


def describe_tun(t, p, level):
    if len(p) <= 4:
        return "= %d" % int.from_bytes(p, "little"), "inline"
    return "payload", "block"


def describe_linkinfo(t, p, level):
    if t == 1:
        return '"%s\\0"' % p.rstrip(b"\0").decode(), "inline"
    if t == 2:
        return (IFLA_TUN, describe_tun), "nested"
    return "payload", "block"


def describe_link(t, p, level):
    if t == 3 or t == 6:
        return '"%s\\0"' % p.rstrip(b"\0").decode(), "inline"
    if t == 16:
        return "= %d %s" % (p[0], OPER.get(p[0], "")), "inline"
    if t in (17, 33, 39, 67):
        return "= %d" % p[0], "inline"
    if t == 18:
        return (IFLA_INFO, describe_linkinfo), "nested"
    if len(p) == 4:
        return "= %d" % struct.unpack("=I", p)[0], "inline"
    if t in (1, 2):
        return ":".join("%02x" % b for b in p), "inline"
    return "payload", "block"


def describe_addr(t, p, level):
    if t in (1, 2, 4) and len(p) == 4:
        return socket.inet_ntop(socket.AF_INET, p), "dec"
    if t == 3:
        return '"%s\\0"' % p.rstrip(b"\0").decode(), "inline"
    if t == 8:
        return "= 0x%x %s" % (struct.unpack("=I", p)[0], flags_str(struct.unpack("=I", p)[0], IFA_F)), "inline"
    if t == 6:
        return "struct ifa_cacheinfo", "block"
    return "payload", "block"


def emit_header(out, msg, note=""):
    length, mtype, flags, seq, pid = struct.unpack_from("=IHHII", msg, 0)
    out.note("struct nlmsghdr" + note)
    out.row(msg[0:4], "nlmsg_len = %d" % length)
    out.row(msg[4:6], "nlmsg_type = %s (%d)" % (NLMSG.get(mtype, "?"), mtype))
    out.row(msg[6:8], "nlmsg_flags = 0x%x %s" % (flags, flags_str(flags, [(1, "NLM_F_REQUEST"), (2, "NLM_F_MULTI")])
                                                 if flags else ""))
    out.row(msg[8:12], "nlmsg_seq = %d" % seq)
    out.row(msg[12:16], "nlmsg_pid = %d" % pid)


def emit_rtmsg(out, msg, off=16):
    fam, dl, sl, tos, table, proto, scope, rtype, flags = struct.unpack_from("=BBBBBBBBI", msg, off)
    out.note("struct rtmsg")
    out.row(msg[off:off + 1], "rtm_family = %s" % AF.get(fam, fam))
    out.row(msg[off + 1:off + 2], "rtm_dst_len = %d" % dl)
    out.row(msg[off + 2:off + 3], "rtm_src_len = %d" % sl)
    out.row(msg[off + 3:off + 4], "rtm_tos = %d" % tos)
    out.row(msg[off + 4:off + 5], "rtm_table = %d" % table)
    out.row(msg[off + 5:off + 6], "rtm_protocol = %s" % RTPROT.get(proto, proto))
    out.row(msg[off + 6:off + 7], "rtm_scope = %s" % SCOPE.get(scope, scope))
    out.row(msg[off + 7:off + 8], "rtm_type = %s" % RTN.get(rtype, rtype))
    out.row(msg[off + 8:off + 12], "rtm_flags = 0x%x %s" % (flags, flags_str(flags, RTM_F)))
    return fam


def emit_message(out, msg, keep=None):
    length, mtype, flags, seq, pid = struct.unpack_from("=IHHII", msg, 0)
    if mtype == 24:
        emit_header(out, msg)
        fam = emit_rtmsg(out, msg)
        out.note("attributes")
        emit_attrs(out, msg[28:length], RTA, describe_route(fam))
    elif mtype == 2:
        emit_header(out, msg)
        err = struct.unpack_from("=i", msg, 16)[0]
        out.note("struct nlmsgerr")
        out.row(msg[16:20], "error = %d (-EINVAL)" % err if err == -22 else "error = %d" % err)
        olen = struct.unpack_from("=I", msg, 20)[0]
        orig = msg[20:20 + olen]
        out.note("msg: the request being answered (%d bytes)" % olen)
        emit_header(out, orig, " (of the request)")
        emit_rtmsg(out, orig)
        emit_attrs(out, orig[28:], RTA, describe_route(orig[16]))
    elif mtype in (16, 17):
        body = msg[32:length]
        if keep is not None:
            body = filter_attrs(body, keep)
            msg = struct.pack("=I", 32 + len(body)) + msg[4:32] + body
        emit_header(out, msg)
        fam, _pad, itype, index, iflags, change = struct.unpack_from("=BBHiII", msg, 16)
        out.note("struct ifinfomsg")
        out.row(msg[16:17], "ifi_family = %s" % AF.get(fam, fam))
        out.row(msg[17:18], "__ifi_pad")
        out.row(msg[18:20], "ifi_type = %d %s" % (itype, {1: "ARPHRD_ETHER", 772: "ARPHRD_LOOPBACK",
                                                             65534: "ARPHRD_NONE"}.get(itype, "")))
        out.row(msg[20:24], "ifi_index = %d" % index)
        out.row(msg[24:28], "ifi_flags = 0x%x %s" % (iflags, flags_str(iflags, IFF)))
        out.row(msg[28:32], "ifi_change = 0x%x" % change)
        out.note("attributes")
        emit_attrs(out, body, IFLA, describe_link)
    elif mtype in (20, 21):
        emit_header(out, msg)
        fam, plen, iflags, scope, index = struct.unpack_from("=BBBBI", msg, 16)
        out.note("struct ifaddrmsg")
        out.row(msg[16:17], "ifa_family = %s" % AF.get(fam, fam))
        out.row(msg[17:18], "ifa_prefixlen = %d" % plen)
        out.row(msg[18:19], "ifa_flags = 0x%x %s" % (iflags, flags_str(iflags, IFA_F)))
        out.row(msg[19:20], "ifa_scope = %s" % SCOPE.get(scope, scope))
        out.row(msg[20:24], "ifa_index = %d" % index)
        out.note("attributes")
        emit_attrs(out, msg[24:length], IFA, describe_addr)
    else:
        raise SystemExit("unsupported message type %d" % mtype)


def filter_attrs(body, keep):
    out = b""
    off = 0
    while off + 4 <= len(body):
        alen, atype = struct.unpack_from("=HH", body, off)
        step = (alen + 3) & ~3
        if atype & 0x3FFF in keep:
            out += body[off:off + step]
        off += step
    return out


def literal(data, name, keep=None):
    out = Out()
    off = 0
    index = 0
    while off + 16 <= len(data):
        length = struct.unpack_from("=I", data, off)[0]
        if index:
            out.note("---- message %d ----" % (index + 1))
        emit_message(out, data[off:off + length], keep)
        off += (length + 3) & ~3
        index += 1
    return "let %s: [UInt8] = [\n%s\n]\n" % (name, "\n".join(out.lines))


# Top-level attributes kept in the trimmed link literals: everything
# creach_parse_link reads (IFNAME, MTU, LINK, MASTER, OPERSTATE, LINKMODE,
# LINKINFO, CARRIER) plus IFLA_ADDRESS and IFLA_TXQLEN, which it must skip.
LINK_KEEP = {1, 3, 4, 5, 10, 13, 16, 17, 18, 33}

FIXTURES_SWIFT = [
    ("route_v4_gateway", "fixtureRouteV4Gateway", None,
     "RTM_GETROUTE 8.8.8.8 -> unicast via 10.1.0.254 dev va (ifindex 3), src 10.1.0.1, table main."),
    ("route_v4_local", "fixtureRouteV4Local", None,
     "RTM_GETROUTE 10.1.0.1 -> local dev lo (ifindex 1), src 10.1.0.1.\n"
     "/// Table 254, not 255: with no custom rule the kernel keeps the local table\n"
     "/// merged into main, and RTM_F_LOOKUP_TABLE reports the table that answered."),
    ("route_v4_local_unmerged", "fixtureRouteV4LocalUnmerged", None,
     "The same lookup after `ip rule add from 192.0.2.0/24 table 100` (tables\n"
     "/// unmerged): local dev lo, src 10.1.0.1, table 255 (RT_TABLE_LOCAL)."),
    ("route_v6_gateway", "fixtureRouteV6Gateway", None,
     "RTM_GETROUTE 2001:4860:4860::8888 -> unicast via 2001:db8:1::fe dev va,\n"
     "/// src 2001:db8:1::1, table main."),
    ("route_v4_blackhole_einval", "fixtureBlackholeEINVAL", None,
     "RTM_GETROUTE 10.2.3.4 inside blackhole 10.2.0.0/16 -> NLMSG_ERROR -EINVAL,\n"
     "/// echoing the whole 36-byte request (no NETLINK_CAP_ACK)."),
    ("link_veth", "fixtureLinkVeth", LINK_KEEP,
     "RTM_GETLINK va -> RTM_NEWLINK of the veth.\n"
     "/// TRIMMED: of the captured 1492 bytes (link_veth.bin) only the attributes the\n"
     "/// parser reads are kept, plus IFLA_TXQLEN and IFLA_ADDRESS as attributes to\n"
     "/// skip; nlmsg_len is patched to the trimmed length (116). Dropped: stats,\n"
     "/// qdisc, AF_SPEC, XDP, GSO/GRO limits, and similar."),
    ("link_tun", "fixtureLinkTun", LINK_KEEP,
     "RTM_GETLINK tun0 -> RTM_NEWLINK of the tun (persistent, no reader: no carrier).\n"
     "/// TRIMMED like fixtureLinkVeth (link_tun.bin has 1508 bytes); IFLA_LINKINFO is\n"
     "/// kept whole, with its nested IFLA_INFO_DATA that the parser must skip."),
    ("addr_dump_v4", "fixtureAddrDumpV4", None,
     "First datagram of an RTM_GETADDR dump (AF_INET): three RTM_NEWADDR messages\n"
     "/// (lo, va, tun0); the kernel sent NLMSG_DONE in the next datagram."),
]


def swift_file(fixture_dir):
    parts = [
        "// Annotated netlink fixtures: the bytes of Fixtures/*.bin restated line by line.",
        "//",
        "// GENERATED by Tests/Fixtures-capture/annotate.py --swift from the .bin files",
        "// captured by capture.py (see Fixtures/README.md for the kernel and topology),",
        "// then reviewed. Host byte order (little-endian). Regenerate both together:",
        "// seq, pid and MAC addresses change with every capture.",
        "",
    ]
    for base, name, keep, doc in FIXTURES_SWIFT:
        with open(os.path.join(fixture_dir, base + ".bin"), "rb") as f:
            data = f.read()
        parts.append("/// %s\n/// Source: Fixtures/%s.bin" % (doc, base))
        parts.append(literal(data, name, keep))
    return "\n".join(parts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file", nargs="?")
    ap.add_argument("name", nargs="?")
    ap.add_argument("--keep", help="comma-separated top-level attribute types to keep (links)")
    ap.add_argument("--swift", metavar="FIXTURE_DIR", help="print the whole Fixtures.swift")
    args = ap.parse_args()
    if args.swift:
        sys.stdout.write(swift_file(args.swift))
        return
    keep = set(int(x) for x in args.keep.split(",")) if args.keep else None
    with open(args.file, "rb") as f:
        sys.stdout.write(literal(f.read(), args.name, keep))


if __name__ == "__main__":
    main()
