#!/usr/bin/env python3
"""The Markdown report of Benchmarks/Fleet/simulate.sh: reads the snapshots it
took before and after the window (before.txt, after.txt), Prometheus' answers
(series.json, changes.json) and the receiver's RSS samples, and prints the
per-gateway figures (median, min, max, all gateways together) and the
receiver's cost per gateway."""
import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import time

parser = argparse.ArgumentParser()
for name in ("work", "n", "duration", "mode", "flaps", "push-interval", "rss-before", "exporter", "command",
             "series-without-gateway", "sigterm"):
    parser.add_argument("--" + name, required=True)
args = parser.parse_args()
work = args.work
n = int(args.n)
TICK = os.sysconf("SC_CLK_TCK")
SAMPLE_LINE = re.compile(r"^(\w+)(\{[^}]*\})?\s+(\S+)")


def parse(path):
    """{gateway or 'receiver': {'time', 'dev', 'nft', 'proc', 'exposed', 'metrics'}}"""
    blocks, current = {}, None
    for line in open(path):
        words = line.split()
        if not words:
            continue
        if words[0] == "gateway":
            current = blocks.setdefault(words[1], {"dev": {}, "nft": {}, "metrics": {}})
        elif words[0] == "receiver":
            current = blocks.setdefault("receiver", {"dev": {}, "nft": {}, "metrics": {}})
        elif words[0] == "time":
            current["time"] = float(words[1])
        elif words[0] == "dev":
            current["dev"][words[1]] = [int(w) for w in words[2:6]]
        elif words[0] == "nft":
            current["nft"][words[1]] = [int(w) for w in words[2:4]]
        elif words[0] == "proc":
            current["proc"] = [int(words[1]), int(words[2])]
        elif words[0] == "exposed":
            current["exposed"] = int(words[1])
        elif words[0] == "m":
            match = SAMPLE_LINE.match(line[2:])
            if match:
                current["metrics"][match.group(1) + (match.group(2) or "")] = float(match.group(3))
    return blocks


def total(block, name, label=None):
    """Sum of a family's samples, those whose labels contain `label` if given."""
    return sum(v for k, v in block["metrics"].items()
               if (k == name or k.startswith(name + "{")) and (label is None or label in k))


before, after = parse(os.path.join(work, "before.txt")), parse(os.path.join(work, "after.txt"))
gateways = sorted(k for k in after if k != "receiver")
push = args.mode == "yes"

rows = {}   # quantity -> [per-gateway values]


def add(name, value):
    rows.setdefault(name, []).append(value)


dropped, retried, failed_requests, pending_end = {}, {}, {}, {}
for gw in gateways:
    a, b = before[gw], after[gw]
    seconds = b["time"] - a["time"]
    if push:
        add("samples/s pushed (`reach_remote_write_samples_sent_total`)",
            (total(b, "reach_remote_write_samples_sent_total") - total(a, "reach_remote_write_samples_sent_total")) / seconds)
        add("compressed bytes/s (`reach_remote_write_bytes_sent_total`)",
            (total(b, "reach_remote_write_bytes_sent_total") - total(a, "reach_remote_write_bytes_sent_total")) / seconds)
        requests = total(b, "reach_remote_write_requests_total") - total(a, "reach_remote_write_requests_total")
        add("requests/s", requests / seconds)
        dropped[gw] = total(b, "reach_remote_write_samples_dropped_total")
        retried[gw] = total(b, "reach_remote_write_samples_retried_total") - total(a, "reach_remote_write_samples_retried_total")
        failed_requests[gw] = requests - (total(b, "reach_remote_write_requests_total", 'result="success"')
                                          - total(a, "reach_remote_write_requests_total", 'result="success"'))
        pending_end[gw] = total(b, "reach_remote_write_samples_pending")
    label = "push" if push else "scrape"
    add(f"{label} connection up, on the wire (IP bytes/s)",
        (b["nft"]["push_out"][1] - a["nft"]["push_out"][1]) / seconds)
    add(f"{label} connection down, on the wire (IP bytes/s)",
        (b["nft"]["push_in"][1] - a["nft"]["push_in"][1]) / seconds)
    for dev in ("wan0", "lte0"):
        add(f"{dev} tx bytes/s (veth: Ethernet, everything)", (b["dev"][dev][0] - a["dev"][dev][0]) / seconds)
        add(f"{dev} rx bytes/s", (b["dev"][dev][1] - a["dev"][dev][1]) / seconds)
    add("series in /metrics (exposed)", b["exposed"])
    add("exporter CPU (millicores)", 1000 * (b["proc"][0] - a["proc"][0]) / TICK / seconds)
    add("exporter RSS (MB)", b["proc"][1] / 1024)

series = {}
for result in json.load(open(os.path.join(work, "series.json")))["data"]["result"]:
    series[result["metric"]["gateway"]] = int(result["value"][1])
rows["active series in Prometheus (`count by (gateway)`)"] = [series.get(gw, 0) for gw in gateways]
changes = {r["metric"]["gateway"]: float(r["value"][1])
           for r in json.load(open(os.path.join(work, "changes.json")))["data"]["result"]}


def fmt(value):
    if abs(value) >= 100:
        return f"{value:,.0f}"
    if abs(value) >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def machine():
    model = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "?")
    memory = next(int(line.split()[1]) for line in open("/proc/meminfo") if line.startswith("MemTotal"))
    return f"{platform.system()} {platform.release()} {platform.machine()}, {os.cpu_count()} CPUs ({model}), {memory / 1048576:.1f} GiB RAM"


def revision():
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        head = subprocess.run(["git", "-C", here, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", here, "status", "--porcelain", "--", "Exporter", "Sources"],
                               capture_output=True, text=True).stdout.strip()
        return head + (" with uncommitted changes" if dirty else "")
    except OSError:
        return "?"


prometheus_version = subprocess.run(["prometheus", "--version"], capture_output=True, text=True).stdout.split()[2]
r_a, r_b = before["receiver"], after["receiver"]
seconds = r_b["time"] - r_a["time"]
cores = (r_b["proc"][0] - r_a["proc"][0]) / TICK / seconds
rss_before = int(args.rss_before)
rss_samples = [int(x) for x in open(os.path.join(work, "receiver-rss.txt")).read().split()] + [r_b["proc"][1]]
appended = (total(r_b, "prometheus_tsdb_head_samples_appended_total") - total(r_a, "prometheus_tsdb_head_samples_appended_total")) / seconds
writes = (total(r_b, "prometheus_http_requests_total", 'handler="/api/v1/write"')
          - total(r_a, "prometheus_http_requests_total", 'handler="/api/v1/write"')) / seconds
write_errors = total(r_b, "prometheus_http_requests_total", 'code="5') + total(r_b, "prometheus_http_requests_total", 'code="4')
head_series = total(r_b, "prometheus_tsdb_head_series")

print("# A fleet, simulated on one machine")
print()
print(f"Made by `make fleet-sim` on {machine()}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())};")
print(f"reach-exporter `{args.exporter}` ({os.path.getsize(args.exporter) / 1e6:.1f} MB) at {revision()}, "
      f"Debian's Prometheus {prometheus_version}.")
print(f"Command: `{args.command}`.")
print()
if push:
    print(f"**{n} gateways push** (remote write, every {args.push_interval}, plain http inside the simulation) to one Prometheus")
    print("(`--web.enable-remote-write-receiver`), which scrapes nothing. Each gateway is a network namespace with")
else:
    print(f"**{n} gateways are scraped** (every 15 s) by one Prometheus: this exporter has no remote write (push).")
    print("Each gateway is a network namespace with")
print("two uplinks (wan0 and lte0: veths, point to point into a centre namespace) and its own reach-exporter, which")
print("watches `internet` and the centre's address and tracks both uplinks with ICMP every 5 s (its configuration is")
print(f"below). lte0 flapped (30 s down, 30 s up) in {args.flaps} gateways during the window. Steady window:")
print(f"**{float(args.duration):.0f} s**, after every gateway had {'pushed' if push else 'been scraped'} twice.")
print()
print("## Per gateway")
print()
print(f"| quantity | median | min | max | all {n} |")
print("|---|---:|---:|---:|---:|")
for name, values in rows.items():
    summed = "" if name.startswith(("series", "exporter RSS", "active series")) else fmt(sum(values))
    if name.startswith("exporter CPU"):
        summed = f"{sum(values) / 1000:.2f} cores"
    if name.startswith(("active series", "series in")):
        summed = f"{sum(values):,}"
    print(f"| {name} | {fmt(statistics.median(values))} | {fmt(min(values))} | {fmt(max(values))} | {summed} |")
print()
if push:
    bps = statistics.median(rows["compressed bytes/s (`reach_remote_write_bytes_sent_total`)"])
    sps = statistics.median(rows["samples/s pushed (`reach_remote_write_samples_sent_total`)"])
    wire = (statistics.median(rows["push connection up, on the wire (IP bytes/s)"])
            + statistics.median(rows["push connection down, on the wire (IP bytes/s)"]))
    print(f"Compressed: {bps / sps:.2f} bytes per sample. The push connection, both directions on the wire: "
          f"{wire:,.0f} bytes/s, {wire * 86400 * 30 / 1e6:,.1f} MB per 30-day month per gateway.")
    print()
print("## The receiver (one Prometheus)")
print()
print("| quantity | value | per gateway |")
print("|---|---:|---:|")
print(f"| CPU over the window (utime + stime) | {cores:.4f} cores | {1000 * cores / n:.3f} millicores |")
print(f"| RSS before any gateway | {rss_before / 1024:.0f} MB | |")
print(f"| RSS at the end | {r_b['proc'][1] / 1024:.0f} MB | |")
print(f"| RSS at the end − before | {(r_b['proc'][1] - rss_before) / 1024:.0f} MB | {(r_b['proc'][1] - rss_before) / n:.0f} kB |")
print(f"| RSS, highest sample in the window (every 5 s) | {max(rss_samples) / 1024:.0f} MB | {(max(rss_samples) - rss_before) / n:.0f} kB above before |")
print(f"| Go heap in use at the end | {total(r_b, 'go_memstats_heap_inuse_bytes') / 1e6:.0f} MB | |")
print(f"| head series (`prometheus_tsdb_head_series`) | {head_series:,.0f} | {head_series / n:.1f} |")
print(f"| samples appended/s (`prometheus_tsdb_head_samples_appended_total`) | {appended:,.1f} | {appended / n:.2f} |")
if push:
    print(f"| remote write requests/s (`/api/v1/write`) | {writes:.2f} | {writes / n:.3f} |")
print()
print("## Checks")
print()
if push:
    print(f"- samples dropped (`reach_remote_write_samples_dropped_total`, every gateway, since start): "
          f"**{sum(dropped.values()):.0f}**" + ("" if not any(dropped.values()) else
          " — " + ", ".join(f"{gw} {v:.0f}" for gw, v in dropped.items() if v)))
    print(f"- samples retried in the window: {sum(retried.values()):.0f}"
          + ("" if not any(retried.values()) else " (" + ", ".join(f"{gw} {v:.0f}" for gw, v in retried.items() if v) + ")"))
    print(f"- requests not successful in the window: {sum(failed_requests.values()):.0f}; samples pending at the end: "
          f"{sum(pending_end.values()):.0f} (median {statistics.median(pending_end.values()):.0f})")
    print(f"- receiver answers 4xx/5xx to /api/v1/write since start: {write_errors:.0f}")
print(f"- gateways in Prometheus: {len(series)} of {n}; series without a gateway label: {args.series_without_gateway}")
print(f"- exporters gone within 10 s of SIGTERM at the end (an orderly stop): {args.sigterm}")
flapped = [f"{gw} {changes.get(gw, 0):.0f}" for gw in gateways[:int(args.flaps)]]
steady = [changes.get(gw, 0) for gw in gateways[int(args.flaps):]]
print(f"- uplink score changes in the last 10 min: flapping gateways {', '.join(flapped) or '-'}; "
      f"the others {max(steady, default=0):.0f} at most")
print()
print("## A gateway's configuration")
print()
print("```yaml")
print(open(os.path.join(work, "example.yml")).read().rstrip())
print("```")
