#!/usr/bin/env bash
# Start-up and memory beside GLib's GNetworkMonitor (the peer a Linux user
# would pick), in one run, in namespaces with 0 and 100,000 routes:
#   exec → exit of `reach check internet` against glib-monitor (start the
#   default monitor, take its first answer, exit), median of RUNS;
#   RSS of a watching `reach watch internet` against a waiting glib-monitor
#   (medians of 7, alternating).
#
#   Benchmarks/Peers/startup.sh [REACH] [RUNS]     (root; installs libglib2.0-dev when missing)
#
# With EMBED=path (make bench-startup sets it: Tools/Footprint's
# embed-watch, static), the library alone is timed too: start, first
# answer of a monitor of `internet`, exit. With HELLO and PARSE_HELLO (the
# same package's hello world, and the hello world that parses its arguments
# with swift-argument-parser, built the same way), what a static Swift program
# and the parser cost before any work.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
reach=${1:-$here/../../.build-static/reach}
runs=${2:-200}
if ! pkg-config --exists gio-2.0 2>/dev/null; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends libglib2.0-dev >/dev/null
fi
work=$(mktemp -d)
gcc -O2 -o "$work/glib-monitor" "$here/glib-monitor.c" $(pkg-config --cflags --libs gio-2.0)
gcc -O2 -o "$work/spawn-time" "$here/spawn-time.c"
namespaces=()
cleanup() { for ns in "${namespaces[@]}"; do ip netns del "$ns" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

make_namespace() {   # NAME ROUTES
    ip netns add "$1"; namespaces+=("$1")
    ip -n "$1" link set lo up
    ip -n "$1" link add va type veth peer name vb
    ip -n "$1" link set va up; ip -n "$1" link set vb up
    ip -n "$1" addr add 10.50.0.1/16 dev va
    ip -n "$1" route add default via 10.50.0.254
    if [ "$2" -gt 0 ]; then
        python3 -c "
for i in range($2):
    print('route add 100.%d.%d.%d/32 via 10.50.0.2' % (64 + (i >> 16), (i >> 8) & 255, i & 255))" > "$work/routes"
        ip -n "$1" -batch "$work/routes"
    fi
}

median() { sort -n "$1" | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }   # of a file of numbers
median_us() { ip netns exec "$1" "$work/spawn-time" "$runs" "${@:2}" | awk '{print $2}'; }

rss_kb() {   # NS COMMAND...: RSS once the command printed its first line and its threads sleep
    local ns=$1 log="$work/rss.log" pid rss
    shift
    : > "$log"
    ip netns exec "$ns" "$@" > "$log" 2>/dev/null &
    pid=$!
    for _ in $(seq 500); do [ -s "$log" ] && break; sleep 0.01; done
    # `ip netns exec` execs the command: the pid is the command's. What
    # follows its first answer (threads settling) is done once they sleep.
    "$here/../../Tools/Footprint/wait-idle.sh" "$pid" || true
    rss=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status")
    kill "$pid"; wait "$pid" 2>/dev/null || true
    echo "$rss"
}

printf '%-44s %14s %14s %8s\n' "" "GLib 2.$(pkg-config --modversion gio-2.0 | cut -d. -f2)" "reach" "ratio"
for routes in 0 100000; do
    ns=reach-startup-$routes-$$
    make_namespace "$ns" "$routes"
    g=$(median_us "$ns" "$work/glib-monitor")
    row() { printf '%-44s %11s us %11s us %7.2fx\n' "$1" "$g" "$2" "$(awk -v r="$2" -v g="$g" 'BEGIN { print r / g }')"; }
    row "start → first answer, $routes routes" "$(median_us "$ns" "$reach" check internet)"
    # Any option takes the argument parser and the async runtime (QuickCheck does not).
    row "  reach through its argument parser" "$(median_us "$ns" "$reach" check internet --resolve-timeout 5)"
    [ -n "${EMBED:-}" ] && row "  the library alone (embed-watch)" "$(median_us "$ns" "$EMBED")"
    if [ "$routes" -eq 0 ] && [ -n "${HELLO:-}" ] && [ -n "${PARSE_HELLO:-}" ]; then
        row "  a static Swift hello world" "$(median_us "$ns" "$HELLO")"
        row "  hello world + swift-argument-parser" "$(median_us "$ns" "$PARSE_HELLO" internet)"
    fi
    # RSS: medians of 7 runs, alternating (its file-backed part varies from
    # run to run: the kernel maps cached pages around each fault).
    : > "$work/g.rss"; : > "$work/r.rss"; : > "$work/h.rss"
    # Read from disk as an installed program's first start (GLib's libraries
    # are, by whatever used them first).
    "$here/../../Tools/Footprint/evict.sh" "$reach" ${HELLO:+"$HELLO"}
    for _ in 1 2 3 4 5 6 7; do
        rss_kb "$ns" "$work/glib-monitor" wait >> "$work/g.rss"
        rss_kb "$ns" "$reach" watch internet >> "$work/r.rss"
        if [ "$routes" -eq 0 ] && [ -n "${HELLO:-}" ]; then rss_kb "$ns" "$HELLO" wait >> "$work/h.rss"; fi
    done
    g=$(median "$work/g.rss")
    r=$(median "$work/r.rss")
    printf '%-44s %11s kB %11s kB %7.2fx\n' "RSS while watching, $routes routes" "$g" "$r" "$(awk -v r="$r" -v g="$g" 'BEGIN { print r / g }')"
    if [ "$routes" -eq 0 ] && [ -n "${HELLO:-}" ]; then
        r=$(median "$work/h.rss")
        printf '%-44s %11s kB %11s kB %7.2fx\n' "  a static Swift hello world, waiting" "$g" "$r" "$(awk -v r="$r" -v g="$g" 'BEGIN { print r / g }')"
    fi
done
