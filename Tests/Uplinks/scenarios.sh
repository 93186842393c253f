#!/usr/bin/env bash
# The dirty-uplink scenarios: `reach track` on one uplink of a two-uplink
# gateway built from network namespaces, against real servers (dnsmasq,
# nginx), faults injected with nftables, `ip link` and (where the kernel has
# sch_netem) tc netem. Each row checks the verdict reach reports and measures
# the detection time: time_ns of the first JSON line with the expected verdict
# minus CLOCK_MONOTONIC at the injection.
#
#   Tests/Uplinks/scenarios.sh REACH            run every row (root)
#   Tests/Uplinks/scenarios.sh --row ID REACH   one row (what the first form runs per row)
#
# Topology (prefix ul-, nothing leaves these namespaces):
#
#   ul-gw  wan0 10.81.0.2/24 fd00:81::2 ── isp0 10.81.0.1 fd00:81::1  ul-isp0 ── up0 10.83.0.1 ═ net0 10.83.0.2  ul-net
#          wan1 10.82.0.2/24            ── isp1 10.82.0.1             ul-isp1       (hosts on ul-net's lo: 10.90.0.1,
#                                                                                    10.90.0.2 probes, .53 dnsmasq,
#                                                                                    .80 nginx :80/:443, fd00:90::1)
#
# wan1 stays clean (the same hosts on ul-isp1's lo); after each row the script
# checks that wan1 still reaches 10.90.0.1.
#
# Environment:
#   UPLINK_ONLY="3 7"        rows to run (a number selects its sub-rows: 6 → 6a 6b 6c)
#   UPLINK_PROFILE           reach's --profile (default fast)
#   UPLINK_CHECK_INTERVAL    --check-interval for the check rows (default: the profile's)
#   UPLINK_CLEAN_SECONDS     how long row 1 watches (default 20)
#   UPLINK_DEGRADED_SECONDS  how long row 5 watches after degraded (default 30)
#   UPLINK_FLAP_SECONDS      how long row 13 flaps (default 60)
#   UPLINK_SOAK_MINUTES      row soak (only when named): row 5's fault for this long, a
#                            standard and a fast tracker side by side (default 30)
#   UPLINK_BYTES_SECONDS     row bytes (only when named): the ISP side's nft counters over
#                            this long per profile, standard then fast (default 600)
#   UPLINK_NM=1              NetworkManager beside reach: NetworkManager in ul-gw (devices
#                            unmanaged, a private system bus), its connectivity check
#                            (uri=http://check.test/generate_204, response= : a 204) forced with
#                            `nmcli networking connectivity check` when each row ends; its answer
#                            (full, limited, portal, none) is the RESULT line's 9th field
#   UPLINK_RESULTS           a file to append the RESULT lines to
#   UPLINK_LOGDIR            keep each row's log and JSON lines there
#   REACH_REQUIRE_NETNS=1    not root / no ip / no nft: fail instead of skipping
#
# Output: one line per row: id, name, expected, got, detection ms, PASS/FAIL/SKIP.
# Exit status non-zero on any FAIL.
set -uo pipefail
SELF=$(realpath "$0")
ROWS="1 2 3 4 5 6a 6c 7 8 9a 9b 10 11 12 13 14"   # 6a runs on into 6b
PATH=$PATH:/usr/sbin:/sbin

row_name() {
    case $1 in
    1) echo "clean" ;; 2) echo "carrier lost" ;; 3) echo "upstream dead" ;; 4) echo "one-way reply loss" ;;
    5) echo "5% loss, 300±150 ms" ;; 6a) echo "30% loss" ;; 6b) echo "30% loss removed" ;; 6c) echo "1 s latency" ;;
    7) echo "DNS dead" ;; 8) echo "DNS hijacked" ;; 9a) echo "captive 302" ;; 9b) echo "captive 200 page" ;;
    10) echo "TCP 443 reset" ;; 11) echo "IPv6 black hole" ;; 12) echo "path-MTU black hole" ;;
    13) echo "link flapping 2 s" ;; 14) echo "neighbour failing" ;;
    soak) echo "soak: 5% loss, 300±150 ms" ;; bytes) echo "probe bytes per day" ;;
    esac
}

# ===========================================================================
# The runner: each row in a bash of its own under a timeout; whatever it left
# is removed after it.
if [ "${1:-}" != --row ]; then
    REACH=$(realpath "${1:?usage: scenarios.sh REACH}")
    require=${REACH_REQUIRE_NETNS:-0}
    skip_all=
    if [ "$(id -u)" != 0 ]; then skip_all="needs root (network namespaces)"
    else
        for c in ip nft nginx dnsmasq jq python3 timeout; do
            command -v "$c" >/dev/null || { skip_all="$c is not installed"; break; }
        done
    fi
    [ -x "$REACH" ] || { echo "uplinks: no reach binary at $REACH" >&2; exit 2; }
    if [ -n "$skip_all" ]; then
        if [ "$require" = 1 ]; then echo "uplinks: FAIL: $skip_all (REACH_REQUIRE_NETNS=1)" >&2; exit 1; fi
        echo "uplinks: SKIP: $skip_all"; exit 0
    fi
    only=" ${UPLINK_ONLY:-} "
    printf '%-4s %-22s %-34s %-34s %10s  %s\n' row scenario expected got detect_ms result
    fails=0 passes=0 skips=0
    extra=
    for x in soak bytes; do [[ "$only" == *" $x "* ]] && extra="$extra $x"; done
    for id in $ROWS $extra; do
        if [ "$only" != "  " ] && [[ "$only" != *" $id "* ]] && [[ "$only" != *" ${id%[abc]} "* ]] &&
           ! { [ "$id" = 6a ] && [[ "$only" == *" 6b "* ]]; }; then continue; fi
        log=$(mktemp /tmp/ul-row.XXXXXX)
        case $id in 13) limit=$(( ${UPLINK_FLAP_SECONDS:-60} + 60 )) ;; 1) limit=$(( ${UPLINK_CLEAN_SECONDS:-20} + 60 )) ;;
                    5) limit=$(( ${UPLINK_DEGRADED_SECONDS:-30} + 90 )) ;;
                    soak) limit=$(( ${UPLINK_SOAK_MINUTES:-30} * 60 + 120 )) ;;
                    bytes) limit=$(( ${UPLINK_BYTES_SECONDS:-600} * 2 + 120 )) ;; *) limit=120 ;; esac
        [ "${UPLINK_NM:-0}" = 1 ] && limit=$((limit + 90))
        timeout -k 5 "$limit" bash "$SELF" --row "$id" "$REACH" >"$log" 2>&1
        rc=$?
        for ns in $(ip netns list 2>/dev/null | awk '/^ul-/ { print $1 }'); do
            ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null
            ip netns del "$ns" 2>/dev/null
        done
        lines=$(grep '^RESULT|' "$log")
        if [ -z "$lines" ] || { [ "$id" = 6a ] && ! grep -q '^RESULT|6b|' "$log" && ! grep -q '^RESULT|6a|.*|FAIL|' "$log"; }; then
            why="no result (exit $rc$([ $rc = 124 ] && echo ", timed out after $limit s"))"
            lines="$lines${lines:+$'\n'}RESULT|$id|$(row_name "$id")|?|-|-|FAIL|$why"
        fi
        shown=0
        while IFS= read -r line; do
            IFS='|' read -r _ rid rname rexp rgot rms rstat rwhy rnm <<<"$line"
            [ "$only" != "  " ] && [[ "$only" != *" $rid "* ]] && [[ "$only" != *" ${rid%[abc]} "* ]] && continue
            printf '%-4s %-22s %-34s %-34s %10s  %s\n' "$rid" "$rname" "$rexp" "$rgot" "$rms" "$rstat${rwhy:+ ($rwhy)}${rnm:+ [NetworkManager: $rnm]}"
            [ -n "${UPLINK_RESULTS:-}" ] && echo "$line" >>"$UPLINK_RESULTS"
            case $rstat in
            PASS) passes=$((passes + 1)) ;;
            SKIP) skips=$((skips + 1)) ;;
            *) fails=$((fails + 1)); [ $shown = 0 ] && sed 's/^/    | /' "$log" | grep -v '^    | RESULT|' | tail -n 40; shown=1 ;;
            esac
        done <<<"$lines"
        if [ -n "${UPLINK_LOGDIR:-}" ]; then mkdir -p "$UPLINK_LOGDIR"; cp "$log" "$UPLINK_LOGDIR/row-$id.log"; fi
        rm -f "$log"
    done
    echo "uplinks: $passes passed, $fails failed, $skips skipped"
    [ "$fails" = 0 ]
    exit
fi

# ===========================================================================
# One row.
ID=$2 REACH=$3
NAME=$(row_name "$ID")
[ -n "$NAME" ] || { echo "unknown row $ID"; exit 2; }
T=$(mktemp -d /tmp/ul-"$ID".XXXXXX)
PROFILE=${UPLINK_PROFILE:-fast}
PIDS=()
cleanup() {
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
    [ -n "${NM_PID:-}" ] && { kill "$NM_PID" 2>/dev/null; wait "$NM_PID" 2>/dev/null; }
    [ -s "$T/dbus.pid" ] && kill "$(cat "$T/dbus.pid")" 2>/dev/null
    [ "${NM:-0}" = 1 ] && rm -rf /etc/netns/ul-gw
    for f in "$T"/*.pid; do [ -s "$f" ] && kill "$(cat "$f")" 2>/dev/null; done
    for ns in ul-gw ul-isp0 ul-isp1 ul-net; do
        ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null
        ip netns del "$ns" 2>/dev/null
    done
    if [ -n "${UPLINK_LOGDIR:-}" ]; then mkdir -p "$UPLINK_LOGDIR"; cp "$T/track.jsonl" "$UPLINK_LOGDIR/row-$ID.jsonl" 2>/dev/null; fi
    rm -rf "$T"
}
trap cleanup EXIT
say() { echo "  $*"; }
result() {  # EXPECTED GOT MS STATUS [REASON]
    note "$@"
    exit 0
}
note() {  # the same, and the row goes on (6a, then 6b)
    local nm=
    [ "$NM" = 1 ] && [ -n "${NM_PID:-}" ] && [ "$4" != SKIP ] && nm=$(nm_check)
    echo "RESULT|$ID|$NAME|$1|$2|$3|$4|${5:-}|$nm"
    [ "$4" = FAIL ] && { say "JSON lines:"; sed 's/^/    /' "$T/track.jsonl" 2>/dev/null; say "reach stderr:"; sed 's/^/    /' "$T/track.err" 2>/dev/null; }
}
die() { say "setup failed: $*"; result "?" "setup failed" - FAIL "$*"; }

# CLOCK_MONOTONIC now, in ns, without a fork at the instant itself: bash's
# $EPOCHREALTIME plus the realtime→monotonic offset python3 read once
# (time.monotonic_ns is CLOCK_MONOTONIC; the clocks do not step in a row).
# (A command substitution, not <(...): the lane's VM has no /dev/fd.)
OFF_NS=$(python3 -c 'import time; r=time.time_ns(); m=time.monotonic_ns(); r2=time.time_ns(); print(m - (r + r2)//2)')
[ -n "$OFF_NS" ] || { echo "RESULT|$ID|$NAME|?|no monotonic clock (python3)|-|FAIL|python3 failed"; exit 0; }
mono_ns() { local t=${EPOCHREALTIME/./}; echo $(( 10#$t * 1000 + OFF_NS )); }

nsx() { ip netns exec "$@"; }
# For `nsxbg NS CMD... &`: the background subshell execs ip, which execs CMD,
# so $! is CMD's pid and `kill $!` reaches it (with nsx the subshell would be
# killed and CMD left running).
nsxbg() { exec ip netns exec "$@"; }
NM=${UPLINK_NM:-0}
# One ICMP echo from the gateway through IF (reach probe: no ping needed).
pingif() { "$REACH" probe --netns ul-gw --interface "$1" --method icmp --timeout 2 "$2" >/dev/null 2>&1; }
build() {
    for ns in ul-gw ul-isp0 ul-isp1 ul-net; do ip netns add "$ns" || die "ip netns add $ns"; ip -n "$ns" link set lo up; done
    for ns in ul-gw ul-isp0 ul-isp1 ul-net; do
        nsx "$ns" sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0 >/dev/null
    done
    ip -n ul-gw link add wan0 type veth peer name isp0 netns ul-isp0 || die "veth wan0"
    ip -n ul-gw link add wan1 type veth peer name isp1 netns ul-isp1 || die "veth wan1"
    ip -n ul-isp0 link add up0 type veth peer name net0 netns ul-net || die "veth up0"
    ip -n ul-gw addr add 10.81.0.2/24 dev wan0; ip -n ul-gw addr add fd00:81::2/64 dev wan0 nodad
    ip -n ul-gw addr add 10.82.0.2/24 dev wan1
    ip -n ul-isp0 addr add 10.81.0.1/24 dev isp0; ip -n ul-isp0 addr add fd00:81::1/64 dev isp0 nodad
    ip -n ul-isp0 addr add 10.83.0.1/30 dev up0; ip -n ul-isp0 addr add fd00:83::1/64 dev up0 nodad
    ip -n ul-isp1 addr add 10.82.0.1/24 dev isp1
    ip -n ul-net addr add 10.83.0.2/30 dev net0; ip -n ul-net addr add fd00:83::2/64 dev net0 nodad
    for a in 10.90.0.1 10.90.0.2 10.90.0.53 10.90.0.80; do
        ip -n ul-net addr add "$a/32" dev lo; ip -n ul-isp1 addr add "$a/32" dev lo
    done
    ip -n ul-net addr add fd00:90::1/128 dev lo
    for l in "ul-gw wan0" "ul-gw wan1" "ul-isp0 isp0" "ul-isp0 up0" "ul-isp1 isp1" "ul-net net0"; do
        set -- $l; ip -n "$1" link set "$2" up
    done
    nsx ul-isp0 sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1
    ip -n ul-isp0 route add 10.90.0.0/24 via 10.83.0.2
    ip -n ul-isp0 -6 route add fd00:90::/64 via fd00:83::2
    ip -n ul-net route add default via 10.83.0.1
    ip -n ul-net -6 route add default via fd00:83::1
    ip -n ul-gw route add default via 10.81.0.1 dev wan0 metric 10
    ip -n ul-gw route add default via 10.82.0.1 dev wan1 metric 20
    ip -n ul-gw -6 route add default via fd00:81::1 dev wan0 metric 10
    # Counters on the ISP side (what the uplink costs, and a signal that the
    # tracker's probes flow) and a table for the faults.
    nsx ul-isp0 nft -f - <<'NFT' || die "nft counters"
table inet ulc {
    counter to_isp { }
    counter from_isp { }
    counter echo_fwd { }
    counter checks { }
    chain pre { type filter hook prerouting priority -300; iifname "isp0" counter name to_isp; iifname "isp0" icmp type echo-request ip daddr 10.90.0.0/24 counter name echo_fwd;
                iifname "isp0" meta l4proto { tcp, udp } counter name checks; iifname "isp0" ip length > 1000 counter name checks; }
    chain post { type filter hook postrouting priority 300; oifname "isp0" counter name from_isp;
                 oifname "isp0" meta l4proto { tcp, udp } counter name checks; oifname "isp0" ip length > 1000 counter name checks; }
}
table inet ulf {
    chain forward_f { type filter hook forward priority 0; }
    chain input_f { type filter hook input priority 0; }
}
NFT
    # Both ends answer before anything starts.
    pingif wan0 10.90.0.1 || die "wan0 cannot reach 10.90.0.1"
    pingif wan1 10.90.0.1 || die "wan1 cannot reach 10.90.0.1"
    pingif wan0 fd00:90::1 || die "wan0 cannot reach fd00:90::1"
}
counter_ge() { local v; v=$(counter "$1"); [ "${v:-0}" -ge "$2" ]; }
counter() { nsx ul-isp0 nft -j list counter inet ulc "$1" | jq '[.nftables[] | select(.counter) | .counter.'"${2:-packets}"'] | first'; }

# Real servers in ul-net: dnsmasq (check.test → 10.90.0.80, .invalid NXDOMAIN;
# or a hijacker answering every name), nginx on 10.90.0.80 :80 and :443.
start_dnsmasq() {  # normal|hijack
    [ "$1" = normal ] && [ -s "$T/dnsmasq.pid" ] && kill -0 "$(cat "$T/dnsmasq.pid")" 2>/dev/null && return 0
    local extra=(--local=/test/ --local=/invalid/ --address=/check.test/10.90.0.80)
    [ "$1" = hijack ] && extra=(--address=/#/10.90.0.99)
    nsx ul-net dnsmasq --conf-file=/dev/null --no-resolv --no-hosts --no-poll --bind-interfaces \
        --listen-address=10.90.0.53 --user=root --group= --pid-file="$T/dnsmasq.pid" \
        --log-queries --log-facility="$T/dnsmasq.log" "${extra[@]}" || die "dnsmasq"
    until_ok 5 "dnsmasq answers" dig_ok
}
dig_ok() { nsx ul-net python3 - <<'PY' >/dev/null 2>&1
import socket, struct
q = struct.pack(">HHHHHH", 0x1234, 0x0100, 1, 0, 0, 0) + b"\x05check\x04test\x00" + struct.pack(">HH", 1, 1)
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(0.3); s.sendto(q, ("10.90.0.53", 53)); s.recv(512)
PY
}
stop_pidfile() {
    local f=$T/$1.pid p
    [ -s "$f" ] || return 0
    p=$(cat "$f"); kill "$p" 2>/dev/null
    for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$p" 2>/dev/null; rm -f "$f"
}
start_nginx() {  # normal|302|200
    [ "$1" = normal ] && [ -s "$T/nginx.pid" ] && kill -0 "$(cat "$T/nginx.pid")" 2>/dev/null && return 0
    local loc='return 204;'
    case $1 in 302) loc='return 302 http://portal.invalid/login;' ;;
               200) loc='default_type text/html; return 200 "<html><body>Sign in to continue</body></html>";' ;; esac
    mkdir -p "$T/nginx"
    cat >"$T/nginx/nginx.conf" <<CONF
user root root;
master_process off;
daemon on;
pid $T/nginx.pid;
error_log $T/nginx/error.log info;
events { worker_connections 64; }
http {
    access_log $T/nginx/access.log;
    default_type text/plain;
    client_body_temp_path $T/nginx/cb; proxy_temp_path $T/nginx/px; fastcgi_temp_path $T/nginx/fc;
    uwsgi_temp_path $T/nginx/uw; scgi_temp_path $T/nginx/sc;
    server {
        listen 10.90.0.80:80; listen 10.90.0.80:443;
        server_name _; root $T/nginx/www;
        location = /generate_204 { $loc }
        location = /login { default_type text/html; return 200 "<html>login</html>"; }
    }
}
CONF
    nsx ul-net nginx -e "$T/nginx/error.log" -p "$T/nginx/" -c "$T/nginx/nginx.conf" || die "nginx"
    until_ok 5 "nginx listens" nsx ul-net bash -c 'exec 3<>/dev/tcp/10.90.0.80/80'
}
until_ok() {  # SECONDS WHAT CMD...
    local limit=$1 what=$2; shift 2
    local end=$((SECONDS + limit))
    until "$@"; do ((SECONDS < end)) || die "$what: not within $limit s"; sleep 0.05; done
}

# reach track on wan0, its JSON lines in $T/track.jsonl.
TRACK_ARGS=()
start_track() {
    : >"$T/track.jsonl"
    nsxbg ul-gw "$REACH" track --interface wan0 --host 10.90.0.1 --host 10.90.0.2 --profile "$PROFILE" --json \
        "${TRACK_ARGS[@]}" "$@" >"$T/track.jsonl" 2>"$T/track.err" &
    TRACK_PID=$!; PIDS+=("$TRACK_PID")
    say "\$ reach track --interface wan0 --host 10.90.0.1 --host 10.90.0.2 --profile $PROFILE --json ${TRACK_ARGS[*]} $*"
    until_ok 10 "reach track's initial line" grep -q . "$T/track.jsonl"
    say "initial: $(head -n 1 "$T/track.jsonl")"
}
with_checks() {
    local ci=()
    [ -n "${UPLINK_CHECK_INTERVAL:-}" ] && ci=(--check-interval "$UPLINK_CHECK_INTERVAL")
    TRACK_ARGS+=("$@" "${ci[@]}")
}
# Settled: the probes flow (N echo requests forwarded) and, when the checks
# run, the first check run reached nginx and dnsmasq.
settle() {
    # Three rounds of the fast profile; the first round (its two probes) of a slower one.
    local n=${1:-6}
    [ "$PROFILE" = fast ] || n=${1:-2}
    until_ok 20 "$n probes forwarded" counter_ge echo_fwd "$n"
    if [[ " ${TRACK_ARGS[*]} " == *" --check-host "* ]]; then
        until_ok 20 "the first HTTP check" grep -q generate_204 "$T/nginx/access.log"
    fi
    if [[ " ${TRACK_ARGS[*]} " == *" --dns-name "* ]]; then
        until_ok 20 "the first DNS check" grep -q 'query\[A\] check.test' "$T/dnsmasq.log"
    fi
    local bad
    bad=$(jq -c 'select(.initial | not)' "$T/track.jsonl")
    [ -z "$bad" ] || { say "changes before the fault: $bad"; result "healthy before the fault" "$(jq -r .verdict <<<"${bad%%$'\n'*}")" - FAIL "not healthy before the fault"; }
}
# Waits (polling the JSON file) for the first non-initial line matching the jq
# condition; LINE and DETECT_MS are set from it and INJECT_NS.
wait_line() {  # CONDITION TIMEOUT
    local end=$((SECONDS + $2))
    LINE=
    while ((SECONDS < end)); do
        LINE=$(jq -c "select((.initial | not) and ($1))" "$T/track.jsonl" 2>/dev/null | head -n 1)
        [ -n "$LINE" ] && break
        kill -0 "$TRACK_PID" 2>/dev/null || { say "reach track exited"; break; }
        sleep 0.1
    done
    [ -n "$LINE" ] || return 1
    # From the moment the injecting command returned (the fault is in effect
    # then: nft commits before it exits); a line that came while it still
    # ran (carrier loss, seen before ip returned) counts from its start.
    DETECT_MS=$(jq -r --argjson t "$INJECT_NS" --argjson s "$INJECT_START_NS" \
        '(if .time_ns >= $t then .time_ns - $t else .time_ns - $s end) / 1e6 | . * 10 | round / 10' <<<"$LINE")
    say "line: $LINE"
}
# The injecting command's start and end (CLOCK_MONOTONIC): under the VM's TCG
# an nft command runs for a few hundred ms, which is not detection time.
inject() {
    INJECT_START_NS=$(mono_ns); [ -n "$INJECT_START_NS" ] || die "no monotonic time"
    "$@" || die "injecting: $*"
    INJECT_NS=$(mono_ns)
    say "injected at $INJECT_NS ($(( (INJECT_NS - INJECT_START_NS) / 1000000 )) ms to inject): $*"
}
last_verdict() { tail -n 1 "$T/track.jsonl" | jq -r '.verdict + (if .detail then " (" + .detail + ")" else "" end)'; }
verdicts() { jq -r '.verdict' "$T/track.jsonl" | uniq | paste -sd '>' -; }
expect_verdict() {  # CONDITION TIMEOUT EXPECTED-TEXT
    if wait_line "$1" "$2"; then
        GOT=$(jq -r '.verdict + (if .detail then " (" + .detail + ")" else "" end)' <<<"$LINE")
        return 0
    fi
    result "$3" "$(last_verdict) [$(verdicts)]" - FAIL "no line matching within $2 s"
}
fault() { nsx ul-isp0 nft add rule inet ulf "$@"; }
has_netem() {
    modprobe sch_netem 2>/dev/null
    nsx ul-isp0 tc qdisc add dev isp0 root netem delay 1ms 2>/dev/null || return 1
    nsx ul-isp0 tc qdisc del dev isp0 root 2>/dev/null; return 0
}
wan1_clean() {
    pingif wan1 10.90.0.1 || result "$1" "wan1 broken" - FAIL "wan1 (clean) stopped answering"
}

# NetworkManager beside reach (UPLINK_NM=1): in ul-gw, every device unmanaged
# (managed, it would reconfigure them), so its check is the global one: it
# follows ul-gw's main table (wan0 metric 10, wan1 metric 20) and resolves
# check.test through /etc/netns/ul-gw/resolv.conf (the ISP's dnsmasq). A
# private system bus; its state in tmpfs mounts of ip netns exec's mount
# namespace.
nm_check() { DBUS_SYSTEM_BUS_ADDRESS=unix:path=$T/bus.sock timeout 45 nmcli networking connectivity check 2>&1 | head -n 1; }
nm_start() {
    command -v NetworkManager >/dev/null && command -v nmcli >/dev/null && command -v dbus-daemon >/dev/null ||
        { say "UPLINK_NM=1 but NetworkManager, nmcli or dbus-daemon is missing"; NM=0; return 0; }
    start_dnsmasq normal; start_nginx normal
    mkdir -p /etc/netns/ul-gw /run/NetworkManager /var/lib/NetworkManager "$T/nmconns"
    echo "nameserver 10.90.0.53" >/etc/netns/ul-gw/resolv.conf
    cat >"$T/bus.conf" <<CONF
<busconfig><type>system</type><listen>unix:path=$T/bus.sock</listen><auth>EXTERNAL</auth>
<policy context="default"><allow user="*"/><allow own="*"/><allow send_destination="*"/><allow receive_sender="*"/></policy></busconfig>
CONF
    printf '[main]\nplugins=keyfile\nno-auto-default=*\ndns=none\nrc-manager=unmanaged\n[keyfile]\npath=%s\nunmanaged-devices=*\n[connectivity]\nenabled=true\nuri=http://check.test/generate_204\nresponse=\ninterval=%s\n' \
        "$T/nmconns" "${UPLINK_NM_INTERVAL:-300}" >"$T/nm.conf"
    dbus-daemon --config-file="$T/bus.conf" --fork --print-pid >"$T/dbus.pid" || die "dbus-daemon"
    nsxbg ul-gw bash -c "mount -t tmpfs tmpfs /run/NetworkManager && mount -t tmpfs tmpfs /var/lib/NetworkManager &&
        DBUS_SYSTEM_BUS_ADDRESS=unix:path=$T/bus.sock exec NetworkManager --no-daemon --config=$T/nm.conf" >"$T/nm.log" 2>&1 &
    NM_PID=$!
    local end=$((SECONDS + 40)) got=
    while ((SECONDS < end)); do
        got=$(nm_check); [ "$got" = full ] && break; sleep 0.5
    done
    say "NetworkManager before the fault: $got"
    [ "$got" = full ] || { say "NetworkManager's log:"; tail -n 20 "$T/nm.log"; die "NetworkManager not full before the fault ($got)"; }
}

echo "== row $ID: $NAME (profile $PROFILE)"
build
[ "$NM" = 1 ] && [ "$ID" != soak ] && [ "$ID" != bytes ] && nm_start
case $ID in

1)  # Nothing happens: only the initial line, with every check running.
    start_dnsmasq normal; start_nginx normal
    with_checks --check-host 10.90.0.80 --dns-name check.test --dns-server 10.90.0.53 --check-other-family fd00:90::1
    start_track
    settle
    secs=${UPLINK_CLEAN_SECONDS:-20}
    sleep "$secs"
    n=$(wc -l <"$T/track.jsonl")
    wan1_clean "healthy, 1 line"
    [ "$n" = 1 ] && [ "$(jq -r .verdict "$T/track.jsonl")" = healthy ] || result "healthy, 1 line" "$n lines [$(verdicts)]" - FAIL "changed while clean"
    result "healthy, 1 line in ${secs} s" "healthy, 1 line" - PASS
    ;;

2)  start_track; settle
    inject ip -n ul-isp0 link set isp0 down
    expect_verdict '.verdict == "down"' 20 'down (carrier lost)'
    [ "$(jq -r .detail <<<"$LINE")" = "carrier lost" ] || result "down (carrier lost)" "$GOT" "$DETECT_MS" FAIL "wrong detail"
    wan1_clean "down (carrier lost)"
    result "down (carrier lost)" "$GOT" "$DETECT_MS" PASS
    ;;

3)  # The ISP router answers (its link and neighbour stay up); nothing it forwards does.
    # The bound is the profile's documented one (UplinksThatFailDirty.md): fast
    # 3 s (the issue's goal; 0.5 + 3 x 0.7 = 2.6 s), standard 50 + 2 x 5 + 4 = 64 s,
    # mwan3 10 + 4 x 10 + 4 = 54 s.
    case $PROFILE in standard) bound=64000 ;; mwan3) bound=54000 ;; *) bound=3000 ;; esac
    start_track; settle
    inject fault forward_f drop
    expect_verdict '.verdict == "down"' $((bound / 1000 + 20)) "down (probes unanswered) < $bound ms"
    wan1_clean "down"
    pingif wan0 10.81.0.1 || result "down" "$GOT" "$DETECT_MS" FAIL "the next hop stopped answering"
    awk -v ms="$DETECT_MS" -v b="$bound" 'BEGIN { exit !(ms != "" && ms <= b) }' || result "down within $bound ms" "$GOT" "$DETECT_MS" FAIL "slower than the bound"
    result "down (probes unanswered) < $bound ms" "$GOT" "$DETECT_MS" PASS
    ;;

4)  # The requests reach the hosts; their echo replies are dropped on the way back.
    start_track; settle
    inject fault forward_f oifname isp0 icmp type echo-reply drop
    expect_verdict '.verdict == "down"' 20 'down'
    wan1_clean "down"
    result "down" "$GOT" "$DETECT_MS" PASS
    ;;

5)  # netem on the ISP's egress toward the gateway: 300 ± 150 ms, 5 % loss.
    has_netem || result "degraded, 0 failovers" "-" - SKIP "no sch_netem in this kernel ($(uname -r)); runs in the kernel lane"
    start_track; settle
    inject nsx ul-isp0 tc qdisc add dev isp0 root netem delay 300ms 150ms loss 5%
    expect_verdict '.verdict == "degraded"' 40 'degraded, 0 failovers'
    secs=${UPLINK_DEGRADED_SECONDS:-30}
    sleep "$secs"
    bad=$(jq -c 'select(.verdict == "unusable" or .verdict == "down" or .verdict == "flapping" or .failovers > 0 or (.usable | not))' "$T/track.jsonl" | head -n 1)
    wan1_clean "degraded"
    [ -z "$bad" ] || result "degraded, 0 failovers" "$(jq -r .verdict <<<"$bad") [$(verdicts)]" "$DETECT_MS" FAIL "a failover under 5 % loss: $bad"
    q=$(tail -n 1 "$T/track.jsonl" | jq -c .quality)
    say "after $secs s more: $(verdicts), last quality $q"
    result "degraded, 0 failovers" "$GOT, 0 failovers in ${secs} s" "$DETECT_MS" PASS
    ;;

6a|6b)  # 30 % of the echo replies dropped (nft numgen); 6b: the fault removed again.
    start_track; settle
    inject fault forward_f oifname isp0 icmp type echo-reply numgen random mod 100 '<' 30 drop
    expect_verdict '.usable | not' 60 'unusable (or down)'
    wan1_clean unusable
    note "unusable (or down)" "$GOT" "$DETECT_MS" PASS
    ID=6b NAME=$(row_name 6b)
    inject nsx ul-isp0 nft flush chain inet ulf forward_f
    expect_verdict ".usable and .time_ns > $INJECT_NS" 90 'usable again'
    wan1_clean "usable again"
    result "usable again (recovery <= 10 %)" "$GOT" "$DETECT_MS" PASS
    ;;

6c) has_netem || result "unusable or down" "-" - SKIP "no sch_netem in this kernel ($(uname -r)); runs in the kernel lane"
    start_track; settle
    inject nsx ul-isp0 tc qdisc add dev isp0 root netem delay 1000ms
    expect_verdict '.usable | not' 30 'unusable or down'
    wan1_clean "unusable or down"
    result "unusable or down" "$GOT" "$DETECT_MS" PASS
    ;;

7)  start_dnsmasq normal
    with_checks --dns-name check.test --dns-server 10.90.0.53
    start_track; settle
    inject fault forward_f udp dport 53 drop
    expect_verdict '.verdict == "dns-failing"' 60 'dns-failing'
    wan1_clean dns-failing
    result "dns-failing" "$GOT" "$DETECT_MS" PASS
    ;;

8)  start_dnsmasq normal
    with_checks --dns-name check.test --dns-server 10.90.0.53
    start_track; settle
    stop_pidfile dnsmasq
    inject start_dnsmasq hijack
    expect_verdict '.verdict == "dns-hijacked"' 60 'dns-hijacked'
    wan1_clean dns-hijacked
    result "dns-hijacked" "$GOT" "$DETECT_MS" PASS
    ;;

9a|9b)
    start_nginx normal
    with_checks --check-host 10.90.0.80
    start_track; settle
    stop_pidfile nginx
    inject start_nginx "$([ "$ID" = 9a ] && echo 302 || echo 200)"
    expect_verdict '.verdict == "captive"' 60 'captive'
    wan1_clean captive
    result "captive" "$GOT" "$DETECT_MS" PASS
    ;;

10) start_nginx normal
    with_checks --check-host 10.90.0.80
    start_track; settle
    inject fault forward_f tcp dport 443 reject with tcp reset
    expect_verdict '.verdict == "partial"' 60 'partial'
    wan1_clean partial
    result "partial" "$GOT" "$DETECT_MS" PASS
    ;;

11) with_checks --check-other-family fd00:90::1
    start_track; settle
    pingif wan0 fd00:90::1 || die "IPv6 does not work before the fault"
    inject fault forward_f meta nfproto ipv6 drop
    expect_verdict '.verdict == "partial"' 60 'partial'
    wan1_clean partial
    result "partial" "$GOT" "$DETECT_MS" PASS
    ;;

12) start_nginx normal
    with_checks --check-host 10.90.0.80
    start_track; settle
    inject fault forward_f ip length '>' 1280 drop
    expect_verdict '.verdict == "pmtu-black-hole"' 60 'pmtu-black-hole'
    wan1_clean pmtu-black-hole
    result "pmtu-black-hole" "$GOT" "$DETECT_MS" PASS
    ;;

13) # The ISP side of the veth down and up every 2 s.
    start_track; settle
    secs=${UPLINK_FLAP_SECONDS:-60}
    INJECT_NS=$(mono_ns); INJECT_START_NS=$INJECT_NS; start=$SECONDS; state=up
    while ((SECONDS - start < secs)); do
        sleep 2
        if [ $state = up ]; then ip -n ul-isp0 link set isp0 down; state=down; else ip -n ul-isp0 link set isp0 up; state=up; fi
    done
    ip -n ul-isp0 link set isp0 up
    first_minute=$((INJECT_NS + 60000000000))
    fo=$(jq -s --argjson t "$first_minute" '[.[] | select(.time_ns <= $t) | .failovers] | max' "$T/track.jsonl")
    if wait_line '.verdict == "flapping"' 1; then
        GOT="flapping, $fo failovers in the first minute"
        wan1_clean flapping
        ((fo <= 3)) || result "flapping, failovers <= 3" "$GOT" "$DETECT_MS" FAIL "too many failovers"
        result "flapping, failovers <= 3" "$GOT" "$DETECT_MS" PASS
    fi
    result "flapping, failovers <= 3" "$(last_verdict), $fo failovers [$(verdicts)]" - FAIL "never flapping"
    ;;

14) # The ISP drops ARP; the gateway's entry for the next hop must re-resolve.
    start_track; settle
    nsx ul-isp0 nft -f - <<'NFT' || die "arp table"
table arp ularp { chain input_a { type filter hook input priority 0; }; }
NFT
    inject bash -c 'ip netns exec ul-isp0 nft add rule arp ularp input_a drop && ip -n ul-gw neigh flush dev wan0'
    expect_verdict '.verdict == "down"' 30 "down (next hop's neighbour entry failed)"
    wan1_clean down
    carrier=$(cat /sys/class/net/wan0/carrier 2>/dev/null || nsx ul-gw cat /sys/class/net/wan0/carrier)
    [ "$carrier" = 1 ] || result "down, carrier up" "$GOT" "$DETECT_MS" FAIL "the carrier went away"
    case $GOT in
    *"neighbour entry failed"*) result "down (next hop's neighbour entry failed)" "$GOT" "$DETECT_MS" PASS ;;
    *) result "down (next hop's neighbour entry failed)" "$GOT" "$DETECT_MS" PASS "probes lost first" ;;
    esac
    ;;
soak)  # Row 5's fault for UPLINK_SOAK_MINUTES, a standard and a fast tracker on wan0 side by side.
    has_netem || result "0 false failovers" "-" - SKIP "no sch_netem in this kernel ($(uname -r)); runs in the kernel lane"
    start_track; settle
    kill "$TRACK_PID"; wait "$TRACK_PID" 2>/dev/null
    nsx ul-isp0 tc qdisc add dev isp0 root netem delay 300ms 150ms loss 5% || die netem
    mins=${UPLINK_SOAK_MINUTES:-30}
    for prof in standard fast; do
        nsxbg ul-gw "$REACH" track --interface wan0 --host 10.90.0.1 --host 10.90.0.2 --profile "$prof" --json \
            >"$T/soak-$prof.jsonl" 2>"$T/soak-$prof.err" &
        PIDS+=($!)
    done
    say "netem delay 300ms 150ms loss 5% for $mins min, a standard and a fast tracker"
    sleep $((mins * 60))
    got= status=PASS
    for prof in standard fast; do
        fo=$(jq -s '[.[].failovers] | max' "$T/soak-$prof.jsonl")
        bad=$(jq -s '[.[] | select(.usable | not)] | length' "$T/soak-$prof.jsonl")
        seq=$(jq -r .verdict "$T/soak-$prof.jsonl" | uniq -c | awk '{ printf "%s%s×%s", sep, $2, $1; sep=">" }')
        say "$prof: $(wc -l <"$T/soak-$prof.jsonl") lines, verdicts $seq, last quality $(tail -n 1 "$T/soak-$prof.jsonl" | jq -c .quality)"
        got="$got${got:+; }$prof: $fo failovers, $bad unusable lines"
        [ "$fo" = 0 ] || status=FAIL
        cp "$T/soak-$prof.jsonl" "${UPLINK_LOGDIR:-$T}/" 2>/dev/null
    done
    result "0 false failovers in $mins min" "$got" - "$status"
    ;;

bytes)  # What the probes cost: the ISP side's counters (both directions on isp0).
    start_dnsmasq normal; start_nginx normal
    secs=${UPLINK_BYTES_SECONDS:-600}
    got=
    for prof in standard fast; do
        ci=3600; [ "$prof" = fast ] && ci=10
        nsx ul-isp0 nft reset counters table inet ulc >/dev/null
        PROFILE=$prof; TRACK_ARGS=(--check-host 10.90.0.80 --dns-name check.test --dns-server 10.90.0.53)
        start_track
        sleep "$secs"
        kill "$TRACK_PID"; wait "$TRACK_PID" 2>/dev/null
        total=$(( $(counter to_isp bytes) + $(counter from_isp bytes) ))
        chk=$(counter checks bytes)
        if ((secs >= ci)); then day=$(( total * 86400 / secs ))
        else day=$(( (total - chk) * 86400 / secs + chk * 86400 / ci )); fi
        say "$prof: $total bytes in $secs s (checks $chk bytes, one run every $ci s) → $day bytes/day"
        got="$got${got:+; }$prof: $(awk -v b="$day" 'BEGIN { printf "%.2f MB/day", b / 1e6 }') ($total B in $secs s, checks $chk B)"
    done
    result "bytes per day (2 hosts, --check-host, --dns-name)" "$got" - PASS
    ;;
esac
