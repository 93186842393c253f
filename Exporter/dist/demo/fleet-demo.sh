#!/usr/bin/env bash
# README's "Fleet" walk-through, for real, on one machine: two gateways (gw1,
# gw2: network namespaces with an uplink each), one reach-exporter per
# gateway, a Prometheus scraping both with docs/prometheus/reach.rules.yml,
# then gw1's cable is pulled and we wait for the ReachTargetDown alert to
# fire (its `for: 1m`, so about 80 s). Everything stays on loopback and in
# the demo's namespaces; all of it is removed at the end.
#
#   dist/demo/fleet-demo.sh PATH-TO-reach-exporter      (root; make fleet-demo)
set -euo pipefail
cd "$(dirname "$0")/../.."
exporter=${1:?usage: fleet-demo.sh PATH-TO-reach-exporter}
for tool in prometheus curl python3 ip; do
    command -v "$tool" >/dev/null || { echo "fleet-demo: $tool is not installed (make setup-fleet)" >&2; exit 1; }
done
work=$(mktemp -d)
pids=()
namespaces=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    for ns in "${namespaces[@]}"; do ip netns del "$ns" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
say() { printf '\n== %s\n' "$*"; }

say "two gateways, each a namespace with an uplink (va, 10.1.0.1/24, default via 10.1.0.254)"
for gw in gw1 gw2; do
    ns=reach-demo-$gw-$$
    ip netns add "$ns"; namespaces+=("$ns")
    ip -n "$ns" link set lo up
    ip -n "$ns" link add va type veth peer name vb
    ip -n "$ns" addr add 10.1.0.1/24 dev va
    ip -n "$ns" link set va up; ip -n "$ns" link set vb up
    for _ in $(seq 50); do ip -n "$ns" route add default via 10.1.0.254 2>/dev/null && break; sleep 0.1; done
done

say "a 5-line configuration per gateway, and its exporter"
declare -A port
for gw in gw1 gw2; do
    port[$gw]=$(free_port)
    cat > "$work/$gw.yml" <<YAML
# reach-exporter for $gw
listen: 127.0.0.1:${port[$gw]}
netns: reach-demo-$gw-$$
targets: [internet, 10.1.0.254]
YAML
    cat "$work/$gw.yml"
    "$exporter" --config "$work/$gw.yml" > "$work/$gw.log" 2>&1 &
    pids+=($!)
done
for gw in gw1 gw2; do
    for _ in $(seq 100); do curl -sf "http://127.0.0.1:${port[$gw]}/-/ready" >/dev/null && break; sleep 0.1; done
done
echo; curl -s "http://127.0.0.1:${port[gw1]}/metrics" | grep '^reach_target_reachable'

say "Prometheus scraping both every 5 s, with the alert rules"
web=$(free_port)
cp docs/prometheus/reach.rules.yml "$work/"
cat > "$work/prometheus.yml" <<YAML
global: {scrape_interval: 5s, evaluation_interval: 5s}
rule_files: [reach.rules.yml]
scrape_configs:
  - job_name: reach
    static_configs:
      - {targets: ['127.0.0.1:${port[gw1]}'], labels: {instance: gw1}}
      - {targets: ['127.0.0.1:${port[gw2]}'], labels: {instance: gw2}}
YAML
prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/data" \
    --web.listen-address="127.0.0.1:$web" --log.level=warn > "$work/prometheus.log" 2>&1 &
pids+=($!)
cat > "$work/query.py" <<'PY'
import json, sys
try:
    results = json.load(sys.stdin)["data"]["result"]
except (ValueError, KeyError):   # Prometheus not answering yet
    sys.exit(0)
print(" ".join("%s=%s" % (r["metric"].get("instance"), r["value"][1])
               for r in sorted(results, key=lambda r: r["metric"].get("instance", ""))))
PY
cat > "$work/alerts.py" <<'PY'
import json, sys
try:
    alerts = json.load(sys.stdin)["data"]["alerts"]
except (ValueError, KeyError):
    sys.exit(0)
for a in alerts:
    if a["state"] == "firing":
        print(a["labels"]["alertname"], a["labels"].get("instance"), a["labels"].get("target"), "-", a["annotations"]["summary"])
PY
query() { curl -s "http://127.0.0.1:$web/api/v1/query" --data-urlencode "query=$1" | python3 "$work/query.py"; }
for _ in $(seq 120); do [ "$(query 'count(reach_target_reachable{target="internet"} == 1)')" = "None=2" ] && break; sleep 0.5; done
echo "reach_target_reachable{target=\"internet\"}: $(query 'reach_target_reachable{target="internet"}')"

say "pulling gw1's cable (ip link set va down)"
ip -n reach-demo-gw1-$$ link set va down
start=$(date +%s)
for _ in $(seq 60); do [ "$(query 'reach_target_reachable{instance="gw1",target="internet"}')" = "gw1=0" ] && break; sleep 0.5; done
echo "after $(( $(date +%s) - start )) s: reach_target_reachable{target=\"internet\"}: $(query 'reach_target_reachable{target="internet"}')"
echo "waiting for ReachTargetDown (for: 1m) ..."
alerts=
for _ in $(seq 240); do
    alerts=$(curl -s "http://127.0.0.1:$web/api/v1/alerts" | python3 "$work/alerts.py")
    [ -n "$alerts" ] && break
    sleep 1
done
if [ -z "$alerts" ]; then echo "fleet-demo: no alert fired within 4 minutes" >&2; exit 1; fi
echo "after $(( $(date +%s) - start )) s, firing:"
echo "$alerts"
echo "$alerts" | grep -q "^ReachTargetDown gw1 internet" || { echo "fleet-demo: not the expected alert" >&2; exit 1; }
echo "$alerts" | grep -q " gw2 " && { echo "fleet-demo: gw2 alerted too" >&2; exit 1; }

say "plugging it back in"
ip -n reach-demo-gw1-$$ link set va up
ip -n reach-demo-gw1-$$ route add default via 10.1.0.254 2>/dev/null || true
for _ in $(seq 60); do [ "$(query 'reach_target_reachable{instance="gw1",target="internet"}')" = "gw1=1" ] && break; sleep 0.5; done
echo "reach_target_reachable{target=\"internet\"}: $(query 'reach_target_reachable{target="internet"}')"
echo; echo "fleet-demo: done"
