#!/usr/bin/env bash
# The monitor's steady state: notifications that change no answer (an
# unrelated route added and deleted, N times, one `ip` command apart so each
# is a round of its own). Prints mallocs per round (all threads, counted by
# mcount.c through LD_PRELOAD) and the CPU the watching process used.
#
#   [TARGET=ADDRESS] Benchmarks/SteadyState/steady-state.sh [--check] [REACH] [N]     (root: it makes a namespace)
#
# TARGET (default 127.0.0.1) is what `reach watch` watches; 198.51.100.1 has
# no route there, so each round also looks for a throw route.
#
# --check (CI) fails when the rounds allocate: more than 100 mallocs in all
# (what a process does outside the rounds, whatever N), or a change printed.
set -euo pipefail
check=false
if [ "${1:-}" = "--check" ]; then check=true; shift; fi
here=$(cd "$(dirname "$0")" && pwd)
reach=${1:-$here/../../.build/release/reach}
n=${2:-500}
work=$(mktemp -d)
gcc -O2 -shared -fPIC -o "$work/mcount.so" "$here/mcount.c" -ldl
ns=reach-steady-$$
ip netns add "$ns"
cleanup() { ip netns del "$ns" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
ip -n "$ns" link set lo up
for i in 1 2 3 4; do
    ip -n "$ns" link add "va$i" type veth peer name "vb$i"
    ip -n "$ns" link set "va$i" up
    ip -n "$ns" link set "vb$i" up
    ip -n "$ns" addr add "10.$i.0.1/24" dev "va$i"
done
LD_PRELOAD="$work/mcount.so" "$reach" watch "${TARGET:-127.0.0.1}" --netns "$ns" > "$work/out" 2> "$work/err" &
pid=$!
for _ in $(seq 500); do [ -s "$work/out" ] && break; sleep 0.01; done
sleep 0.3
kill -USR2 "$pid"; sleep 0.1
cpu0=$(awk '{print $14 + $15}' "/proc/$pid/stat")
for _ in $(seq "$n"); do
    ip -n "$ns" route add 192.0.2.0/24 dev va1
    ip -n "$ns" route del 192.0.2.0/24 dev va1
done
sleep 0.3
kill -USR2 "$pid"; sleep 0.1
cpu1=$(awk '{print $14 + $15}' "/proc/$pid/stat")
kill "$pid"; wait "$pid" 2>/dev/null || true
before=$(sed -n 1p "$work/err" | awk '{print $2}')
after=$(sed -n 2p "$work/err" | awk '{print $2}')
rounds=$((2 * n))
echo "steady state: $rounds rounds, $((after - before)) mallocs ($(( (after - before) / rounds )) per round)," \
     "CPU $(( (cpu1 - cpu0) * 10 )) ms ($(( (cpu1 - cpu0) * 10000 / rounds )) µs per round), changes printed $(($(wc -l < "$work/out") - 1))"
if $check; then
    # The tests run debug builds: one check of addresses with no route (the
    # throw scan, the evaluator going away) on this release build must end
    # with exit 1, not a signal. (An incremental release build once left a
    # client module reading a stored property at a stale offset: abort.)
    status=0
    "$reach" check 198.51.100.1 2001:db8::1 --netns "$ns" > /dev/null 2>&1 || status=$?
    if [ "$status" -ne 1 ]; then
        echo "steady state: reach check of unrouted addresses exited $status (1 expected)" >&2
        exit 1
    fi
    if [ $((after - before)) -gt 100 ] || [ "$(wc -l < "$work/out")" -ne 1 ]; then
        echo "steady state: the monitor allocates in rounds that change nothing (or reported a change)" >&2
        exit 1
    fi
fi
