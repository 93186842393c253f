#!/usr/bin/env bash
# A fleet past one machine, simulated (make fleet-sim; not run by CI): N
# gateways, each a network namespace with two uplinks (wan0 and lte0: veths,
# point to point into a centre namespace, as a PPP or LTE link is: no
# broadcast domain shared with other gateways) and its own reach-exporter, push to
# one Prometheus (Debian's, --web.enable-remote-write-receiver) in the centre.
# After every gateway has pushed twice, it measures a steady window of
# DURATION seconds: per gateway the uplink's bytes (the veths' counters, and
# the push connection alone from an nftables counter, on the wire: IP, TCP,
# HTTP), the exporter's own compressed bytes and samples, its active series
# in Prometheus, its exporter's CPU and RSS; the receiver's CPU and RSS per
# gateway. Meanwhile lte0 flaps (30 s down, 30 s up) in FLAPS gateways, so
# that states change. Prints a Markdown report (Benchmarks/Fleet/report.py).
#
# Push is plain http inside the simulation (no TLS: the numbers are the
# samples' and HTTP's; a real fleet uses https, whose records add about 30
# bytes per request and a handshake per connection).
#
# An exporter without remote_write (before the push product) is scraped by
# the centre's Prometheus every 15 s instead (PUSH=no forces that): the same
# report, pull instead of push.
#
#   Benchmarks/Fleet/simulate.sh PATH-TO-reach-exporter [N] [DURATION]   (root)
#   environment: FLAPS (3), PUSH (auto | yes | no), PUSH_INTERVAL (15s)
#
# Everything is in namespaces named rfs-<pid>-…, removed on exit or interrupt
# with the processes (killed by pid) and the temporary directory.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
exporter=${1:?usage: simulate.sh PATH-TO-reach-exporter [N] [DURATION]}
n=${2:-120}
duration=${3:-300}
flaps=${FLAPS:-3}
push=${PUSH:-auto}
push_interval=${PUSH_INTERVAL:-15s}
log() { printf '[fleet-sim %s] %s\n' "$(date -u +%T)" "$*" >&2; }
die() { log "$*"; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (network namespaces)"
[ -x "$exporter" ] || die "$exporter is not an executable"
[[ $n =~ ^[0-9]+$ ]] && (( n >= 1 && n <= 999 )) || die "N must be 1 … 999"
[[ $duration =~ ^[0-9]+$ ]] && (( duration >= 30 )) || die "DURATION must be 30 s or more"
for tool in prometheus curl python3 ip nft; do
    command -v "$tool" >/dev/null || die "$tool is not installed (make setup-fleet; nftables)"
done

prefix=rfs-$$
centre=$prefix-c
work=$(mktemp -d /tmp/rfs-fleet.XXXXXX)
pids=()
namespaces=()
# SIGTERM first; whatever still runs 20 s later is killed (by pid), and said.
cleanup() {
    local status=$? pid left=() waited=0
    trap - EXIT INT TERM
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    while (( waited < 200 )); do
        left=()
        for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && left+=("$pid"); done
        (( ${#left[@]} )) || break
        sleep 0.1; waited=$(( waited + 1 ))
    done
    if (( ${#left[@]} )); then
        log "${#left[@]} processes still running 20 s after SIGTERM (pids ${left[*]:0:5} …): SIGKILL"
        for pid in "${left[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
    fi
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    for ns in "${namespaces[@]}"; do ip netns del "$ns" 2>/dev/null || true; done
    rm -rf "$work"
    exit "$status"
}
trap cleanup EXIT
trap 'log interrupted; exit 130' INT TERM

gateway() { printf 'gw%03d' "$1"; }
# wan0 10.200.X.Y/16 and lte0 10.201.X.Y/16; the centre is .0.1 on both.
address() { echo "10.$1.$(( $2 / 200 )).$(( $2 % 200 + 10 ))"; }
in_centre() { ip netns exec "$centre" "$@"; }
prom_query() {   # an instant query's JSON answer, from inside the centre
    in_centre curl -s --max-time 20 http://127.0.0.1:9090/api/v1/query --data-urlencode "query=$1"
}
prom_value() {   # the first value of a query's answer, or "none"
    prom_query "$1" | python3 -c 'import json,sys
try: r = json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "none")
except Exception: print("none")'
}
rss_kb() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }
# Polls a condition every second until it holds, at most $1 seconds.
wait_for() {
    local limit=$1 what=$2; shift 2
    local start=$SECONDS
    until "$@"; do
        (( SECONDS - start < limit )) || die "timed out after $limit s waiting for $what${last_seen:+ (last: $last_seen)}"
        sleep 1
    done
    log "$what (after $(( SECONDS - start )) s)"
}

# Push or scrape: does this exporter know remote_write?
cat > "$work/check.yml" <<YAML
listen: 127.0.0.1:9789
modemmanager: false
external_labels: {gateway: gw000}
remote_write: [{url: 'http://10.200.0.1:9090/api/v1/write', name: centre}]
YAML
if [ "$push" = auto ]; then
    if "$exporter" --check-config --config "$work/check.yml" > "$work/check.out" 2>&1; then push=yes; else push=no; fi
fi
case $push in
    yes) log "mode: push (remote_write every $push_interval)";;
    no) log "mode: scrape ($(head -1 "$work/check.out" 2>/dev/null || echo "PUSH=no")): Prometheus scrapes every 15 s";;
    *) die "PUSH must be auto, yes or no";;
esac

# The kernel's neighbour tables are shared by all namespaces (gc_thresh3, 1024
# by default, counts every namespace's entries), so that a few hundred
# gateways would fill them for everyone on the machine: every link has fixed
# MAC addresses and permanent neighbour entries at both ends (which do not
# count), and no IPv6.
mac() { printf '02:52:%02x:%02x:%02x:%02x' "$1" $(( $2 / 256 )) $(( $2 % 256 )) "$3"; }   # uplink (0 wan, 1 lte), gateway, end (1 gateway, 2 centre)
no_ipv6() { ip netns exec "$1" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1; }
log "centre: namespace $centre, 10.200.0.1 (the wan side) and 10.201.0.1 (the lte side) on every link"
ip netns add "$centre"; namespaces+=("$centre")
no_ipv6 "$centre"
ip -n "$centre" link set lo up

log "$n gateways: namespaces $prefix-gw001 …, wan0 (metric 100) and lte0 (metric 200), point to point; nftables counters on the push (to port 9090) or scrape (of port 9789) connections"
for i in $(seq "$n"); do
    gw=$(gateway "$i"); ns=$prefix-$gw
    ip netns add "$ns"; namespaces+=("$ns")
    no_ipv6 "$ns"
    {
        echo "link set lo up"
        echo "link add wan0 address $(mac 0 "$i" 1) type veth peer name w$i address $(mac 0 "$i" 2) netns $centre"
        echo "link add lte0 address $(mac 1 "$i" 1) type veth peer name l$i address $(mac 1 "$i" 2) netns $centre"
        echo "neigh add 10.200.0.1 lladdr $(mac 0 "$i" 2) dev wan0 nud permanent"
        echo "neigh add 10.201.0.1 lladdr $(mac 1 "$i" 2) dev lte0 nud permanent"
        echo "addr add $(address 200 "$i")/32 peer 10.200.0.1/32 dev wan0"
        echo "addr add $(address 201 "$i")/32 peer 10.201.0.1/32 dev lte0"
        echo "link set wan0 up"
        echo "link set lte0 up"
        echo "route add default via 10.200.0.1 dev wan0 metric 100 onlink"
        echo "route add default via 10.201.0.1 dev lte0 metric 200 onlink"
    } > "$work/ip.batch"
    ip -n "$ns" -batch "$work/ip.batch"
    {
        echo "addr add 10.200.0.1/32 peer $(address 200 "$i")/32 dev w$i"
        echo "addr add 10.201.0.1/32 peer $(address 201 "$i")/32 dev l$i"
        echo "link set w$i up"
        echo "link set l$i up"
        echo "neigh add $(address 200 "$i") lladdr $(mac 0 "$i" 1) dev w$i nud permanent"
        echo "neigh add $(address 201 "$i") lladdr $(mac 1 "$i" 1) dev l$i nud permanent"
    } > "$work/ip.batch"
    ip -n "$centre" -batch "$work/ip.batch"
    ip netns exec "$ns" nft -f - <<'NFT'
table inet rfs {
    counter push_out { }
    counter push_in { }
    chain out {
        type filter hook output priority 0; policy accept;
        tcp dport 9090 counter name "push_out"
        tcp sport 9789 ip saddr != 127.0.0.0/8 counter name "push_out"
    }
    chain in {
        type filter hook input priority 0; policy accept;
        tcp sport 9090 counter name "push_in"
        tcp dport 9789 ip saddr != 127.0.0.0/8 counter name "push_in"
    }
}
NFT
done

log "Prometheus $(prometheus --version 2>&1 | awk 'NR==1 {print $3}') in the centre, 10.200.0.1:9090, storage in $work/data"
{
    echo "global: {scrape_interval: 15s, evaluation_interval: 15s}"
    if [ "$push" = no ]; then
        echo "scrape_configs:"
        echo "  - job_name: reach"
        echo "    static_configs:"
        for i in $(seq "$n"); do
            echo "      - {targets: ['$(address 200 "$i"):9789'], labels: {gateway: $(gateway "$i")}}"
        done
    fi
} > "$work/prometheus.yml"
ip netns exec "$centre" prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/data" \
    --web.listen-address=0.0.0.0:9090 --web.enable-remote-write-receiver --log.level=warn \
    > "$work/prometheus.log" 2>&1 &
prometheus_pid=$!; pids+=("$prometheus_pid")
prometheus_ready() { in_centre curl -sf http://127.0.0.1:9090/-/ready >/dev/null; }
wait_for 60 "Prometheus ready" prometheus_ready
sleep 5   # its start-up allocations settle before the baseline
prometheus_rss_before=$(rss_kb "$prometheus_pid")
log "Prometheus RSS before any gateway: $prometheus_rss_before kB"

log "$n exporters, each in its gateway's namespace"
declare -a exporter_pid
for i in $(seq "$n"); do
    gw=$(gateway "$i"); ns=$prefix-$gw
    {
        echo "# $gw: a simulated gateway"
        echo "listen: 0.0.0.0:9789"
        echo "modemmanager: false"
        echo "targets: [internet, 10.200.0.1]"
        echo "uplinks:"
        echo "  - {interface: wan0, hosts: [10.200.0.1], method: icmp, interval: 5s}"
        echo "  - {interface: lte0, hosts: [10.201.0.1], method: icmp, interval: 5s}"
        if [ "$push" = yes ]; then
            echo "external_labels: {gateway: $gw}"
            echo "push_interval: $push_interval"
            echo "remote_write:"
            echo "  - url: http://10.200.0.1:9090/api/v1/write   # plain http in the simulation"
            echo "    name: centre"
        fi
    } > "$work/$gw.yml"
    ip netns exec "$ns" "$exporter" --config "$work/$gw.yml" > "$work/$gw.log" 2>&1 &
    exporter_pid[$i]=$!; pids+=("$!")
done
cp "$work/$(gateway 1).yml" "$work/example.yml"
all_ready() {
    local i
    for i in $(seq "$n"); do
        kill -0 "${exporter_pid[$i]}" 2>/dev/null || die "$(gateway "$i")'s exporter exited: $(tail -3 "$work/$(gateway "$i").log")"
        ip netns exec "$prefix-$(gateway "$i")" curl -sf --max-time 2 http://127.0.0.1:9789/-/ready >/dev/null || return 1
    done
}
wait_for 180 "all $n exporters ready" all_ready
last_seen=
all_in_prometheus() {
    last_seen=$(prom_value 'count(count by (gateway) (reach_build_info{gateway=~".+"}))')
    [ "$last_seen" = "$n" ]
}
wait_for 180 "all $n gateways in Prometheus" all_in_prometheus
if [ "$push" = yes ]; then
    # The second push carries a non-zero sent counter: every gateway has pushed twice.
    pushed_twice() {
        last_seen=$(prom_value 'count(reach_remote_write_samples_sent_total{gateway=~".+"} > 0)')
        [ "$last_seen" = "$n" ]
    }
    wait_for 180 "every gateway pushed twice" pushed_twice
else
    scraped_twice() {
        last_seen=$(prom_value 'count(count_over_time(up{job="reach"}[1m]) >= 2)')
        [ "$last_seen" = "$n" ]
    }
    wait_for 180 "every gateway scraped twice" scraped_twice
fi

# One snapshot: per gateway its counters (in its namespace), then the receiver's.
cat > "$work/snap-gateway.sh" <<'SH'
pid=$1
echo "time $(date +%s.%N)"
for dev in wan0 lte0; do
    s=/sys/class/net/$dev/statistics
    echo "dev $dev $(cat $s/tx_bytes) $(cat $s/rx_bytes) $(cat $s/tx_packets) $(cat $s/rx_packets)"
done
for c in push_out push_in; do echo "nft $c $(nft list counter inet rfs $c | awk '/packets/ {print $2, $4}')"; done
echo "proc $(awk '{print $14 + $15}' /proc/$pid/stat) $(awk '/^VmRSS/ {print $2}' /proc/$pid/status)"
metrics=$(curl -s --max-time 5 http://127.0.0.1:9789/metrics)
echo "exposed $(printf '%s\n' "$metrics" | grep -vc '^#')"
printf '%s\n' "$metrics" | grep '^reach_remote_write_' | sed 's/^/m /'
SH
snapshot() {
    local out=$1 i
    : > "$out"
    for i in $(seq "$n"); do
        echo "gateway $(gateway "$i")" >> "$out"
        ip netns exec "$prefix-$(gateway "$i")" sh "$work/snap-gateway.sh" "${exporter_pid[$i]}" >> "$out"
    done
    {
        echo "receiver"
        echo "time $(date +%s.%N)"
        echo "proc $(awk '{print $14 + $15}' "/proc/$prometheus_pid/stat") $(rss_kb "$prometheus_pid")"
        in_centre curl -s http://127.0.0.1:9090/metrics |
            grep -E '^(prometheus_tsdb_head_series|prometheus_tsdb_head_samples_appended_total|prometheus_http_requests_total\{code="[0-9]+",handler="/api/v1/write"\}|process_resident_memory_bytes|go_memstats_heap_inuse_bytes)' |
            sed 's/^/m /'
    } >> "$out"
}

# lte0 flaps in the first FLAPS gateways throughout the window.
if (( flaps > 0 )); then
    (
        trap 'exit 0' TERM
        pause() { sleep "$1" & wait $!; }
        while :; do
            for i in $(seq "$(( flaps < n ? flaps : n ))"); do ip -n "$prefix-$(gateway "$i")" link set lte0 down; done
            pause 30
            for i in $(seq "$(( flaps < n ? flaps : n ))"); do
                ip -n "$prefix-$(gateway "$i")" link set lte0 up
                ip -n "$prefix-$(gateway "$i")" route replace default via 10.201.0.1 dev lte0 metric 200 onlink
                ip -n "$prefix-$(gateway "$i")" neigh replace 10.201.0.1 lladdr "$(mac 1 "$i" 2)" dev lte0 nud permanent
            done
            pause 30
        done
    ) &
    pids+=("$!")
    log "lte0 flaps (30 s down, 30 s up) in $flaps gateways"
fi

log "measuring: $duration s"
snapshot "$work/before.txt"
start=$SECONDS
: > "$work/receiver-rss.txt"
while (( SECONDS - start < duration )); do
    rss_kb "$prometheus_pid" >> "$work/receiver-rss.txt"
    sleep 5
done
snapshot "$work/after.txt"
log "window done; querying Prometheus"
prom_query 'count by (gateway) ({gateway=~".+"})' > "$work/series.json"
prom_query 'sum by (gateway) (changes(reach_uplink_score[10m]))' > "$work/changes.json"
unknown=$(prom_value 'count({__name__=~".+", gateway!~"gw[0-9]+"})')
# An orderly stop: SIGTERM to every exporter (the receiver still up); how many are gone 10 s later.
for i in $(seq "$n"); do kill "${exporter_pid[$i]}" 2>/dev/null || true; done
for _ in $(seq 100); do
    running=0
    for i in $(seq "$n"); do kill -0 "${exporter_pid[$i]}" 2>/dev/null && running=$(( running + 1 )); done
    (( running == 0 )) && break
    sleep 0.1
done
log "SIGTERM: $(( n - running )) of $n exporters exited within 10 s"

python3 "$here/report.py" --work "$work" --n "$n" --duration "$duration" --mode "$push" \
    --flaps "$flaps" --push-interval "$push_interval" --rss-before "$prometheus_rss_before" \
    --exporter "$exporter" --command "${FLEET_SIM_COMMAND:-Benchmarks/Fleet/simulate.sh $*}" \
    --series-without-gateway "$unknown" --sigterm "$(( n - running )) of $n"
log "done; removing namespaces"
