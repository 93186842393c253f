#!/usr/bin/env bash
# reach-exporter under load (issue 15): one exporter watching 1,000 targets in
# a namespace of its own, scraped 100 times a second for 30 s from a loopback
# client (scrape.py: a fixed rate on one keep-alive connection, as Prometheus
# scrapes), then as fast as wrk can for 10 s. Prints a markdown report:
# scrape latency percentiles, the size of a scrape, RSS before, during and
# after. Root (it makes the namespace).
#
#   Benchmarks/Exporter/load.sh PATH-TO-reach-exporter [TARGETS] [SECONDS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
exporter=${1:?usage: load.sh PATH-TO-reach-exporter [TARGETS] [SECONDS]}
targets=${2:-1000}
seconds=${3:-30}
ns=reach-load-$$
work=$(mktemp -d)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null || true; ip netns del "$ns" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

ip netns add "$ns"
ip -n "$ns" link set lo up
ip -n "$ns" link add va type veth peer name vb
ip -n "$ns" addr add 10.1.0.1/16 dev va
ip -n "$ns" link set va up
ip -n "$ns" link set vb up
ip -n "$ns" route add default via 10.1.0.254 2>/dev/null || { sleep 0.5; ip -n "$ns" route add default via 10.1.0.254; }
python3 - "$targets" "$port" > "$work/config.yml" <<'PY'
import sys
count, port = int(sys.argv[1]), sys.argv[2]
print(f"listen: 127.0.0.1:{port}")
print("targets:")
for i in range(count):
    print(f"  - 10.1.{1 + i // 250}.{1 + i % 250}")
PY

rss() { awk '/^VmRSS/ {print $2}' "/proc/$pid/status"; }
"$exporter" --config "$work/config.yml" --netns "$ns" > "$work/exporter.log" 2>&1 &
pid=$!
for _ in $(seq 200); do curl -sf "http://127.0.0.1:$port/-/ready" >/dev/null && break; sleep 0.05; done
curl -sf "http://127.0.0.1:$port/-/ready" >/dev/null || { echo "exporter not ready" >&2; cat "$work/exporter.log" >&2; exit 1; }
ready_rss=$(rss)
curl -s "http://127.0.0.1:$port/metrics" > "$work/scrape.txt"
lines=$(grep -vc '^#' "$work/scrape.txt")
bytes=$(stat -c %s "$work/scrape.txt")

python3 "$here/scrape.py" "http://127.0.0.1:$port/metrics" 100 "$seconds" "$pid" > "$work/rate.txt"
after_rss=$(rss)
wrk -t1 -c4 -d10s --latency "http://127.0.0.1:$port/metrics" > "$work/wrk.txt"
final_rss=$(rss)

echo "# reach-exporter under load"
echo
echo "Made by \`make bench-exporter\` on $(uname -srm), $(nproc) CPUs, $(date -u +%F): one exporter"
echo "(release build) watching $targets targets in a namespace; a scrape is $lines series, $bytes bytes."
echo
echo "## $seconds s at 100 scrapes/s (one keep-alive connection, as Prometheus scrapes)"
echo
cat "$work/rate.txt"
echo
echo "| RSS | kB |"
echo "|---|---|"
echo "| ready, before any scrape | $ready_rss |"
echo "| after $seconds s at 100 scrapes/s | $after_rss |"
echo "| after 10 s of wrk as fast as it can | $final_rss |"
echo
echo "## As fast as wrk can, 10 s (4 connections)"
echo
echo '```'
sed -n '/Latency Distribution/,/Requests\/sec/p' "$work/wrk.txt"
echo '```'
