#!/usr/bin/env python3
"""A plain RTNLGRP_LINK listener, the reference clock for the lane's latency
figures: prints `CLOCK_MONOTONIC-ns name operstate ifi_flags` for every
RTM_NEWLINK, so a scenario can subtract the kernel's message time from the
time_ns of `reach watch`'s change (both CLOCK_MONOTONIC)."""
import socket
import struct
import sys
import time

RTMGRP_LINK, RTM_NEWLINK, IFLA_IFNAME, IFLA_OPERSTATE = 1, 16, 3, 16

sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
sock.bind((0, RTMGRP_LINK))
print("ready", flush=True)
while True:
    data = sock.recv(65536)
    now = time.monotonic_ns()
    offset = 0
    while offset + 16 <= len(data):
        length, kind = struct.unpack_from("=IH", data, offset)
        if length < 16 or offset + length > len(data):
            break
        if kind == RTM_NEWLINK and length >= 32:
            flags = struct.unpack_from("=I", data, offset + 24)[0]
            name, oper = "?", -1
            attr = offset + 32
            while attr + 4 <= offset + length:
                alen, atype = struct.unpack_from("=HH", data, attr)
                if alen < 4:
                    break
                if atype == IFLA_IFNAME:
                    name = data[attr + 4:attr + alen].split(b"\0")[0].decode()
                elif atype == IFLA_OPERSTATE:
                    oper = data[attr + 4]
                attr += (alen + 3) & ~3
            print(now, name, oper, flags, flush=True)
        offset += (length + 3) & ~3
