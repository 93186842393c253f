#!/bin/bash
# The kernel lane's scenarios. Runs inside the VM (init chroots into the
# host's root with a tmpfs overlay), as root, on Debian's own kernel:
#
#   scenarios.sh REACH OUT            run every scenario (or those named in OUT/only)
#   scenarios.sh --one NAME REACH OUT run one (what the first form does for each, under a timeout)
#
# Each scenario makes its own namespaces (kl-*) and servers and checks what
# `reach` says, from its JSON. No traffic leaves the VM, which has no network
# device. Results: OUT/results.log (every reach line), OUT/summary.
set -uo pipefail
LANE=$(cd "$(dirname "$0")" && pwd)
SCENARIOS="ppp_serial pppoe wifi vrf bond wireguard gre uplinks"
SCENARIO_TIMEOUT=150
# uplinks: the 14 dirty-uplink scenarios (Tests/Uplinks/scenarios.sh, with netem).
UPLINKS_TIMEOUT=660

if [ "${1:-}" != --one ]; then
    REACH=$1 OUT=$2
    # UPLINK_* settings handed in by run.sh (the VM's environment is empty).
    [ -f "$OUT/env" ] && . "$OUT/env"
    only=$(cat "$OUT/only" 2>/dev/null || true)
    passed=0 failed=0 names=()
    echo "reach-lane: $(uname -r), reach $REACH"
    for name in $SCENARIOS; do
        [ -n "$only" ] && [[ " $only " != *" $name "* ]] && continue
        start=$(cut -d' ' -f1 /proc/uptime)
        # To a file, not a pipe: a daemon a scenario starts (pppoe-server forks)
        # must not hold the runner's output open after the scenario ends.
        limit=$SCENARIO_TIMEOUT; [ "$name" = uplinks ] && limit=$UPLINKS_TIMEOUT
        timeout -k 5 "$limit" bash "$0" --one "$name" "$REACH" "$OUT" >"$OUT/$name.log" 2>&1
        rc=$?
        cat "$OUT/$name.log" | tee -a "$OUT/results.log"
        # Whatever the scenario left: its processes, its namespaces (a Wi-Fi
        # phy goes back to the initial namespace with its namespace).
        for ns in $(ip netns list | awk '/^kl-/ { print $1 }'); do
            ip netns pids "$ns" | xargs -r kill -9 2>/dev/null
            ip netns del "$ns"
        done
        pkill -9 -x 'pppd|pppoe-server|pppoe|hostapd|wpa_supplicant' 2>/dev/null
        took=$(awk -v a="$start" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.1f", b - a }')
        if [ "$rc" = 0 ]; then
            passed=$((passed + 1)); echo "ok   $name (${took} s)" | tee -a "$OUT/results.log"
        else
            failed=$((failed + 1)); names+=("$name")
            [ "$rc" = 124 ] && echo "     $name: timed out after $limit s" | tee -a "$OUT/results.log"
            echo "FAIL $name (exit $rc, ${took} s)" | tee -a "$OUT/results.log"
        fi
    done
    echo "$passed passed, $failed failed${names:+ (${names[*]})}" >"$OUT/summary"
    echo "reach-lane: $(cat "$OUT/summary")"
    exit 0
fi

# ---------------------------------------------------------------------------
# One scenario, in a shell of its own: any failed step ends it (set -e).
NAME=$2 REACH=$3 OUT=$4
T=$(mktemp -d /tmp/kl-"$NAME".XXXXXX)
# On failure, the logs of the servers the scenario started.
trap 'rc=$?; if [ $rc != 0 ]; then for f in "$T"/*.log "$T"/*.err; do [ -s "$f" ] && { echo "  --- ${f##*/}"; tail -n 25 "$f" | sed "s/^/  | /"; }; done; fi' EXIT
set -e

say() { echo "  $*"; }
# Runs `reach ARGS` (the human line, for the log) and keeps its JSON in $J
# (the first line: one target's first address).
ask() {
    say "\$ reach $*"
    "$REACH" "$@" | sed 's/^/    /' || true
    J=$("$REACH" "$@" --json | head -n 1) || true
}
# Asserts a jq expression over $J.
expect() {
    # jq -e passes on empty input: no answer is a failure, not a pass.
    if [ -z "$J" ] || ! jq -e "$1" >/dev/null <<<"$J"; then
        say "FAILED: $2"
        say "  expected: $1"
        say "  got: $J"
        return 1
    fi
    say "ok: $2"
}
has_flag() { printf '(.flagNames | index("%s")) != null' "$1"; }
lacks_flag() { printf '(.flagNames | index("%s")) == null' "$1"; }

# `reach watch --json ARGS` through a FIFO on fd 3: next_change reads one
# line (bounded), until_change reads until a line matches.
watch_start() {
    mkfifo "$T/watch.fifo"
    "$REACH" watch --json "$@" >"$T/watch.fifo" 2>"$T/watch.err" &
    WATCH_PID=$!
    exec 3<"$T/watch.fifo"
    : >"$T/watch.log"
}
next_change() {
    if ! read -r -t "${1:-30}" -u 3 J; then
        say "FAILED: no line from reach watch within ${1:-30} s"; cat "$T/watch.err" >&2; return 1
    fi
    echo "$J" >>"$T/watch.log"
    say "watch: $(jq -c '{target, status, flagString, interface, interfaceKind, initial, time_ns}' <<<"$J")"
}
until_change() {
    local deadline=$((SECONDS + ${2:-60}))
    while ((SECONDS < deadline)); do
        next_change $((deadline - SECONDS + 1)) || return 1
        jq -e "$1" >/dev/null <<<"$J" && return 0
    done
    say "FAILED: no change matching $1"; return 1
}
# Changes of TARGET seen since line N of the watch log (not initial ones).
changes_since() {
    tail -n +"$(($2 + 1))" "$T/watch.log" | jq -s --arg t "$1" '[.[] | select(.target == $t and .initial == false)] | length'
}
watch_lines() { wc -l <"$T/watch.log"; }
# A barrier: make the watched target 10.250.0.1 reachable in namespace NS
# and read up to its change, so every change the kernel's earlier events
# caused has been printed before it.
barrier() {
    ip -n "$1" link set lo up
    ip -n "$1" route add local 10.250.0.1 dev lo
    until_change '.target == "10.250.0.1" and .reachable' 30
}
# Milliseconds from the kernel's message that put a link in the state reach
# reports to reach's change time_ns: among the reference listener's messages
# for IFNAME (linkwatch.py: ns name operstate flags) up to that time, the
# first of the last run that matches the state.
latency_ms() {  # LOG IFNAME AWK-CONDITION REACH_TIME_NS
    awk -v t="$4" -v ifname="$2" "\$1 <= t && \$2 == ifname { if ($3) { if (!start) start = \$1 } else start = 0 }
        END { if (start) printf \"%.2f\", (t - start) / 1e6; else print \"n/a\" }" "$1"
}
veth_pair() {  # NS1 IF1 ADDR1 NS2 IF2 ADDR2
    ip link add "$2" netns "$1" type veth peer name "$5" netns "$4"
    ip -n "$1" addr add "$3" dev "$2"; ip -n "$1" link set "$2" up; ip -n "$1" link set lo up
    ip -n "$4" addr add "$6" dev "$5"; ip -n "$4" link set "$5" up; ip -n "$4" link set lo up
}

echo "== $NAME"
case "$NAME" in

ppp_serial)
    # Two pppd joined by a pty pair (pppd's `pty` option): the inner one, in
    # kl-isp, is the modem's far end; the outer one, in kl-gw, is the gateway's
    # PPP link over a serial line (the pty's slave, /dev/pts/N).
    modprobe ppp_async
    ip netns add kl-isp; ip netns add kl-gw; ip -n kl-gw link set lo up
    common="noauth local nocrtscts nolock nodefaultroute noipdefault lcp-echo-interval 0 nodetach"
    ip netns exec kl-gw pppd pty "ip netns exec kl-isp pppd notty $common 10.64.0.1:10.64.0.2" \
        $common ifname ppp0 10.64.0.2:10.64.0.1 >"$T/pppd.log" 2>&1 &
    "$REACH" wait --netns kl-gw --timeout 60 10.64.0.1 || { cat "$T/pppd.log"; false; }
    say "the serial line (the pty pair's slave): $(cd /dev/pts && ls -d [0-9]* | sed 's|^|/dev/pts/|' | tr '\n' ' ')"
    # The rule (InterfaceKind, "PPP links"): no PPPoX session in kl-gw; with no
    # modem device present the serial PPP link is `other`...
    ask check --netns kl-gw 10.64.0.1
    expect '.interface == "ppp0" and .reachable' "reachable over ppp0"
    expect '.interfaceKind == "other"' "no modem present: serial PPP is other, not WWAN"
    expect "$(has_flag transientConnection)" "point-to-point: transientConnection"
    expect "$(lacks_flag isWWAN)" "not isWWAN"
    # ...and once the test declares the pty as the modem (what a modem behind
    # a driver the library does not know needs), the same link is WWAN.
    ask check --netns kl-gw --modem '/dev/pts/[0-9]*' 10.64.0.1
    expect '.interfaceKind == "wwan" and .status == "reachable.wwan"' "declared modem present, no PPPoX: WWAN"
    expect "$(has_flag isWWAN) and $(has_flag transientConnection)" "isWWAN and transientConnection (WR t)"
    expect '.isExpensive' "WWAN is expensive"
    ask check --netns kl-gw --modem '/dev/pts/[0-9]*' --no-wwan 10.64.0.1
    expect '.mask == "wwanRefused" and .unsatisfiedReason == "wwanRefused" and .pathStatus == "unsatisfied"' \
        "the WWAN switch: mask wwanRefused, unsatisfied (wwanRefused)"
    expect '.status == "notReachable" and (.reachable | not) and .flagString == "WR t-----d"' \
        "the WWAN switch: not reachable for the app, the kernel's flags kept"
    rc=0; "$REACH" check --netns kl-gw --modem '/dev/pts/[0-9]*' --no-wwan 10.64.0.1 >/dev/null || rc=$?
    [ "$rc" = 1 ] || { say "FAILED: reach check --no-wwan exited $rc, not 1"; false; }
    say "ok: reach check --no-wwan exits 1"
    # Link down: one change.
    watch_start --netns kl-gw --modem '/dev/pts/[0-9]*' 10.64.0.1 10.250.0.1
    next_change; next_change
    mark=$(watch_lines)
    ip netns pids kl-isp | xargs -r kill
    until_change '.target == "10.64.0.1" and (.reachable | not)' 60
    barrier kl-gw
    n=$(changes_since 10.64.0.1 "$mark"); say "changes of 10.64.0.1 after the modem hung up: $n"
    [ "$n" = 1 ] || { say "FAILED: expected exactly one change"; false; }
    ;;

pppoe)
    # pppoe-server (rp-pppoe) on one end of a veth pair, pppd with the kernel's
    # PPPoE (rp-pppoe.so plugin) on the other: a ppp link that is not WWAN.
    modprobe pppoe
    ip netns add kl-bras; ip netns add kl-cpe
    ip link add veth-cpe netns kl-cpe type veth peer name veth-bras netns kl-bras
    ip -n kl-cpe link set veth-cpe up; ip -n kl-cpe link set lo up; ip -n kl-bras link set veth-bras up
    printf 'noauth\nlocal\nnocrtscts\nnolock\nlcp-echo-interval 0\n' >"$T/server-options"
    ip netns exec kl-bras pppoe-server -I veth-bras -L 10.65.0.1 -R 10.65.0.2 -N 2 -O "$T/server-options"
    ip netns exec kl-cpe pppd plugin rp-pppoe.so veth-cpe noauth nodetach nodefaultroute noipdefault \
        lcp-echo-interval 0 ifname ppp0 >"$T/pppd.log" 2>&1 &
    "$REACH" wait --netns kl-cpe --timeout 60 10.65.0.1 || { cat "$T/pppd.log"; false; }
    say "/proc/net/pppoe in kl-cpe: $(ip netns exec kl-cpe cat /proc/net/pppoe | tail -n +2 | tr -s ' ')"
    ask check --netns kl-cpe 10.65.0.1
    expect '.interface == "ppp0" and .reachable' "reachable over ppp0"
    expect '.interfaceKind == "wired" and .status == "reachable.wired"' "a PPPoE session and no modem: wired, not WWAN"
    expect "$(has_flag transientConnection) and $(lacks_flag isWWAN)" "point-to-point, not isWWAN"
    # PPPoE and a modem in one namespace: the kernel does not say which PPP
    # link is which, so the rule answers other (an override decides).
    ask check --netns kl-cpe --modem /dev/console 10.65.0.1
    expect '.interfaceKind == "other"' "PPPoE session and a modem present: other"
    ask check --netns kl-cpe --modem /dev/console --kind 'ppp0=wired' 10.65.0.1
    expect '.interfaceKind == "wired"' "an override by name keeps winning"
    ;;

wifi)
    # Two mac80211_hwsim radios: hostapd (WPA2-PSK) on one, wpa_supplicant on
    # the other, each in its own namespace.
    modprobe mac80211_hwsim radios=2
    ap_phy=$(cat /sys/class/net/wlan0/phy80211/name); sta_phy=$(cat /sys/class/net/wlan1/phy80211/name)
    ip netns add kl-ap; ip netns add kl-sta
    iw phy "$ap_phy" set netns name kl-ap; iw phy "$sta_phy" set netns name kl-sta
    ip -n kl-ap addr add 10.77.0.1/24 dev wlan0
    ip -n kl-sta link set lo up; ip -n kl-sta addr add 10.77.0.2/24 dev wlan1; ip -n kl-sta link set wlan1 up
    cat >"$T/hostapd.conf" <<CONF
interface=wlan0
driver=nl80211
ssid=reach-lane
hw_mode=g
channel=1
wpa=2
wpa_key_mgmt=WPA-PSK
rsn_pairwise=CCMP
wpa_passphrase=correct-horse-battery
CONF
    for psk in wrong-passphrase correct-horse-battery; do
        printf 'network={\n ssid="reach-lane"\n key_mgmt=WPA-PSK\n proto=RSN\n pairwise=CCMP\n psk="%s"\n}\n' "$psk" >"$T/$psk.conf"
    done
    # Before association: no carrier.
    ask check --netns kl-sta 10.77.0.1
    expect '.interface == "wlan1" and .interfaceKind == "wifi"' "wlan1 is Wi-Fi (phy80211, DEVTYPE=wlan)"
    expect "$(has_flag connectionRequired) and (.reachable | not)" "no carrier before association: connectionRequired, not reachable"
    ip netns exec kl-sta python3 "$LANE/linkwatch.py" >"$T/links.log" &
    until grep -q ready "$T/links.log" 2>/dev/null; do sleep 0.05; done
    watch_start --netns kl-sta 10.77.0.1 10.250.0.1
    next_change; next_change
    ip netns exec kl-ap hostapd "$T/hostapd.conf" >"$T/hostapd.log" 2>&1 &
    # A wrong passphrase: associated, the 4-way handshake never completes, so
    # the link stays dormant (wpa_supplicant's link mode) while hostapd retries.
    ip netns exec kl-sta wpa_supplicant -i wlan1 -D nl80211 -c "$T/wrong-passphrase.conf" >"$T/wpa-wrong.log" 2>&1 &
    wrong=$!
    until_change ".target == \"10.77.0.1\" and $(has_flag interventionRequired)" 90
    say "dormant during the handshake: interventionRequired"
    kill "$wrong"; wait "$wrong" || true
    ip netns exec kl-sta wpa_supplicant -i wlan1 -D nl80211 -c "$T/correct-horse-battery.conf" >"$T/wpa.log" 2>&1 &
    until_change '.target == "10.77.0.1" and .reachable' 90
    expect '.status == "reachable.wifi" and .interfaceKind == "wifi"' "associated: reachable via wifi"
    up_ns=$(jq .time_ns <<<"$J")
    say "latency, association (operstate up → reach's change): $(latency_ms "$T/links.log" wlan1 '$3 == 6' "$up_ns") ms"
    ask check --netns kl-sta 10.77.0.1
    mark=$(watch_lines)
    pkill -x hostapd
    until_change '.target == "10.77.0.1" and (.reachable | not)' 60
    down_ns=$(jq .time_ns <<<"$J")
    say "latency, disassociation (carrier lost → reach's change): $(latency_ms "$T/links.log" wlan1 'int($4 / 65536) % 2 == 0' "$down_ns") ms"
    barrier kl-sta
    n=$(changes_since 10.77.0.1 "$mark"); say "changes of 10.77.0.1 after hostapd stopped: $n"
    [ "$n" = 1 ] || { say "FAILED: expected exactly one change"; false; }
    ;;

vrf)
    # veth-v is enslaved to vrf-blue (table 10); the main table knows nothing.
    ip netns add kl-vrf; ip netns add kl-vrfpeer
    ip -n kl-vrf link add vrf-blue type vrf table 10; ip -n kl-vrf link set vrf-blue up
    ip link add veth-v netns kl-vrf type veth peer name veth-p netns kl-vrfpeer
    ip -n kl-vrf link set veth-v master vrf-blue
    ip -n kl-vrf addr add 10.66.0.2/24 dev veth-v; ip -n kl-vrf link set veth-v up; ip -n kl-vrf link set lo up
    ip -n kl-vrfpeer addr add 10.66.0.1/24 dev veth-p; ip -n kl-vrfpeer link set veth-p up
    ip -n kl-vrf route add default via 10.66.0.1 vrf vrf-blue
    ask check --netns kl-vrf 10.66.0.1
    expect '.reachable | not' "outside the VRF: no route in the main table"
    ask check --netns kl-vrf --interface vrf-blue 10.66.0.1
    expect '.reachable and .table == 10' "through vrf-blue: the VRF's table"
    expect '.interface == "veth-v" and .interfaceKind == "wired"' "the output is the enslaved device, not the master"
    ask check --netns kl-vrf --interface vrf-blue 198.51.100.7
    expect '.reachable and .gateway == "10.66.0.1" and .interface == "veth-v" and .table == 10' "the VRF's default route"
    say "\$ reach status --netns kl-vrf (interfaces)"
    "$REACH" status --netns kl-vrf | sed 's/^/    /' || true
    J=$("$REACH" status --netns kl-vrf --json | jq -c '.interfaces[] | select(.interface == "vrf-blue")') || true
    expect '.interfaceKind == "other" and .linkKind == "vrf"' "a VRF master is a routing domain, not a wired link: other"
    ;;

bond)
    ip netns add kl-bond; ip netns add kl-bondpeer
    ip link add veth-b netns kl-bond type veth peer name veth-bp netns kl-bondpeer
    ip -n kl-bond link add bond0 type bond mode active-backup miimon 50
    ip -n kl-bond link set veth-b master bond0
    ip -n kl-bond link set veth-b up; ip -n kl-bond link set bond0 up; ip -n kl-bond link set lo up
    ip -n kl-bond addr add 10.67.0.2/24 dev bond0
    ip -n kl-bondpeer addr add 10.67.0.1/24 dev veth-bp; ip -n kl-bondpeer link set veth-bp up
    "$REACH" wait --netns kl-bond --timeout 30 10.67.0.1
    ask check --netns kl-bond 10.67.0.1
    expect '.interface == "bond0" and .linkKind == "bond" and .interfaceKind == "wired"' "bond0: wired, link kind bond"
    expect '.status == "reachable.wired" and .flagString == "-R ------d"' "reachable, direct"
    watch_start --netns kl-bond 10.67.0.1
    next_change
    ip -n kl-bondpeer link set veth-bp down
    until_change "(.reachable | not) and $(has_flag connectionRequired)" 30
    say "the bond's last port lost carrier: connectionRequired"
    ;;

wireguard)
    # Two namespaces joined by a veth underlay; a WireGuard peer in each.
    ip netns add kl-wga; ip netns add kl-wgb
    veth_pair kl-wga veth-a 10.68.0.1/24 kl-wgb veth-b 10.68.0.2/24
    umask 077
    for side in a b; do wg genkey >"$T/$side.key"; wg pubkey <"$T/$side.key" >"$T/$side.pub"; done
    ip -n kl-wga link add wg0 type wireguard; ip -n kl-wgb link add wg0 type wireguard
    ip netns exec kl-wga wg set wg0 private-key "$T/a.key" listen-port 51820 \
        peer "$(cat "$T/b.pub")" endpoint 10.68.0.2:51820 allowed-ips 10.69.0.2/32
    ip netns exec kl-wgb wg set wg0 private-key "$T/b.key" listen-port 51820 \
        peer "$(cat "$T/a.pub")" endpoint 10.68.0.1:51820 allowed-ips 10.69.0.1/32
    ip -n kl-wga addr add 10.69.0.1/24 dev wg0; ip -n kl-wga link set wg0 up
    ip -n kl-wgb addr add 10.69.0.2/24 dev wg0; ip -n kl-wgb link set wg0 up
    ask check --netns kl-wga 10.69.0.2
    expect '.interface == "wg0" and .linkKind == "wireguard" and .interfaceKind == "tunnel"' "wg0: tunnel"
    expect '.status == "reachable.tunnel"' "reachable via tunnel"
    expect "$(has_flag transientConnection)" "point-to-point: transientConnection"
    say "\$ reach probe --netns kl-wga --method icmp 10.69.0.2"
    "$REACH" probe --netns kl-wga --method icmp 10.69.0.2 | sed 's/^/    /'
    say "ok: the peer answers through the tunnel"
    ;;

gre)
    ip netns add kl-grea; ip netns add kl-greb
    veth_pair kl-grea veth-a 10.71.0.1/24 kl-greb veth-b 10.71.0.2/24
    ip -n kl-grea link add gre1 type gre local 10.71.0.1 remote 10.71.0.2
    ip -n kl-greb link add gre1 type gre local 10.71.0.2 remote 10.71.0.1
    ip -n kl-grea addr add 10.70.0.1/30 dev gre1; ip -n kl-grea link set gre1 up
    ip -n kl-greb addr add 10.70.0.2/30 dev gre1; ip -n kl-greb link set gre1 up
    ask check --netns kl-grea 10.70.0.2
    expect '.interface == "gre1" and .linkKind == "gre" and .interfaceKind == "tunnel"' "gre1: tunnel"
    expect '.status == "reachable.tunnel" and .reachable' "reachable via tunnel"
    expect "$(has_flag transientConnection)" "GRE with a remote is point-to-point: transientConnection"
    say "\$ reach probe --netns kl-grea --method icmp 10.70.0.2"
    "$REACH" probe --netns kl-grea --method icmp 10.70.0.2 | sed 's/^/    /'
    say "ok: the peer answers through the tunnel"
    ;;

uplinks)
    # Tests/Uplinks/scenarios.sh: a two-uplink gateway (ul-* namespaces) with
    # dnsmasq, nginx, nftables and netem (this kernel has sch_netem); every
    # row must pass, none may skip. Row 1 watches 10 s here, row 5 15 s, and
    # the checks run every 2 s (their verdicts, not the fast profile's 10 s:
    # make bench-uplinks measures those).
    modprobe sch_netem
    set +e
    UPLINK_CLEAN_SECONDS=${UPLINK_CLEAN_SECONDS:-10} UPLINK_DEGRADED_SECONDS=${UPLINK_DEGRADED_SECONDS:-15} \
        UPLINK_CHECK_INTERVAL=${UPLINK_CHECK_INTERVAL:-2} \
        UPLINK_LOGDIR="$OUT/uplinks" bash "$LANE/../Uplinks/scenarios.sh" "$REACH" | tee "$T/uplinks.out"
    rc=${PIPESTATUS[0]}
    set -e
    grep -q ' SKIP' "$T/uplinks.out" && { say "FAILED: a row skipped in the lane"; exit 1; }
    exit "$rc"
    ;;

*) echo "unknown scenario $NAME"; exit 2 ;;
esac
