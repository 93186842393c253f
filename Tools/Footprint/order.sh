#!/usr/bin/env bash
# Writes firmware.order, the firmware build's symbol ordering file (make
# firmware-order; root: it makes a network namespace). It holds the functions
# that the hello world, hello-collections, the embedding program and `reach
# watch internet` run under callgrind (pages.py --order): up to their first
# answer, and then through a link flap, an address and a route added and
# deleted, which is the event path a watching program runs from then on. Each
# program's functions follow those of the programs before it, so that each
# program's lie in one run (the hello world's in the shortest): each is
# measured as if the file had been written for it.
#
#   Tools/Footprint/order.sh BIN REACH
#
# BIN is the firmware build's bin directory (hello, hello-collections and
# embed-watch, unstripped);
# REACH is an unstripped static `reach`.
set -euo pipefail
cd "$(dirname "$0")"
bin=${1:?usage: order.sh BIN REACH} reach=${2:?usage: order.sh BIN REACH}
ns=reach-order-$$
ip netns add "$ns"
trap 'ip netns del "$ns"' EXIT
ip -n "$ns" link set lo up
ip -n "$ns" link add va type veth peer name vb
ip -n "$ns" link set va up
ip -n "$ns" link set vb up
ip -n "$ns" addr add 10.90.0.1/24 dev va
ip -n "$ns" route add default via 10.90.0.254
# Under valgrind the monitor is slow: each step gets a second to be seen
# (a profile, not a test: it only needs the code to have run).
events="ip link set va down; sleep 1; ip link set va up; ip route replace default via 10.90.0.254; sleep 1
ip addr add 10.90.0.5/24 dev va; ip route add 10.77.0.0/16 via 10.90.0.254; sleep 1
ip route del 10.77.0.0/16; ip addr del 10.90.0.5/24 dev va; sleep 1"
ip netns exec "$ns" python3 pages.py --order firmware.order --events "$events" \
    "$bin/hello wait" "$bin/hello-collections wait" "$bin/embed-watch wait" "$reach watch internet"
