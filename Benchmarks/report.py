#!/usr/bin/env python3
"""Turns one `make bench` run into docs/benchmarks/: a markdown table of the
hot paths beside their limits (ratios within the same run, goals checked) and
PNG plots drawn with gnuplot.

Usage: report.py RESULTS_DIR OUT_DIR
RESULTS_DIR holds package-benchmark's `histogramPercentiles` TSV files
(Current_run.TARGET.NAME.METRIC.histogram.percentiles.tsv) and monitor.json
from the Monitor executable. Standard library only.
"""
import glob
import json
import os
import platform
import statistics
import subprocess
import sys

UNITS = {"(ns)": 1.0, "(μs)": 1e3, "(us)": 1e3, "(ms)": 1e6, "(s)": 1e9}


def percentiles(results, target, name, metric="wallClock"):
    """{percentile: value} of one benchmark metric; times in nanoseconds."""
    path = os.path.join(results, f"Current_run.{target}.{name}.{metric}.histogram.percentiles.tsv")
    with open(path, encoding="utf-8") as f:
        header = f.readline()
        scale = next((v for k, v in UNITS.items() if k in header), 1.0) if metric == "wallClock" else 1.0
        rows = [line.split("\t") for line in f if line.strip()]
    return {float(p): float(v) * scale for p, v in rows}


def fmt_ns(ns):
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.2f} µs"
    return f"{ns:.2f} ns" if ns < 10 else f"{ns:.0f} ns"


def check(ok):
    return "✅" if ok else "❌"


def main():
    results, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    rows = []

    # Classification: 512 flag sets per iteration.
    c = lambda name: percentiles(results, "Classification", name)[50.0]
    mallocs = lambda target, name: percentiles(results, target, name, "mallocCountTotal")[100.0]
    limit = c("status.c-table-limit")
    for name, what in [("status.swift-table", "flags → status (ReachabilityStatus)"),
                       ("networkStatus.swift-table", "flags → NetworkStatus (3 states, as the C table)"),
                       ("status.afnetworking-port", "AFNetworking's rule, boolean port"),
                       ("mask.swift", "flags → mask"), ("accessibility.swift", "flags → accessibility")]:
        ratio = c(name) / limit
        goal = f"≤ 1.2× {check(ratio <= 1.2)}" if name.startswith(("status.swift", "networkStatus")) else ""
        rows.append((what, fmt_ns(c(name) / 512) + " per call", f"{ratio:.2f}× the C table", goal,
                     f"{mallocs('Classification', name):.0f} {check(mallocs('Classification', name) == 0)}"))
    rows.append(("C table lookup (the limit)", fmt_ns(limit / 512) + " per call", "1.00×", "", "0"))

    # One evaluation.
    e = lambda name: percentiles(results, "Evaluation", name)[50.0]
    swift, clim, ip = e("evaluate.swift"), e("evaluate.c-netlink-limit"), e("evaluate.ip-route-get")
    rows.append(("evaluate one address (FIB + link + flags)", fmt_ns(swift), f"{swift / clim:.2f}× the C round trip",
                 f"≤ 1.5× {check(swift / clim <= 1.5)}", f"{mallocs('Evaluation', 'evaluate.swift'):.0f}"))
    rows.append(("plain C RTM_GETROUTE + RTM_GETLINK (the limit)", fmt_ns(clim), "1.00×", "", ""))
    rows.append(("`ip route get` (spawned)", fmt_ns(ip), f"we are {ip / swift:.0f}× faster",
                 f"≥ 200× {check(ip / swift >= 200)}", ""))

    # The monitor.
    monitor = json.load(open(os.path.join(results, "monitor.json"), encoding="utf-8"))
    lat = monitor["latency_ms"]["down"] + monitor["latency_ms"]["up"]
    lat_sorted = sorted(lat)
    median = statistics.median(lat)
    p99 = lat_sorted[min(len(lat_sorted) - 1, int(round(0.99 * (len(lat_sorted) - 1))))]
    rows.append((f"change latency, link flap → change ({len(lat)} changes)", f"median {median:.3f} ms",
                 f"p99 {p99:.3f} ms, max {max(lat):.3f} ms", f"median ≤ 1 ms {check(median <= 1)}", ""))
    points = monitor["routes"]
    base, top = points[0], points[-1]
    growth = (top["rss_kb"] - base["rss_kb"]) / base["rss_kb"]
    for p in points:
        rows.append((f"monitor with {p['routes']:,} routes", f"RSS {p['rss_kb']:,} kB",
                     f"first answer {p['start_ms']:.2f} ms", "", ""))
    rows.append((f"RSS from {base['routes']:,} to {top['routes']:,} routes", f"{growth * 100:+.1f} %", "",
                 f"within 10 % {check(abs(growth) <= 0.10)}", ""))
    burst = monitor["burst"]
    rows.append((f"absorb a burst of {burst['routes']:,} route changes", f"CPU {burst['cpu_ms']:.0f} ms",
                 f"wall {burst['wall_ms']:.0f} ms, {burst['events']:,} events, {burst['reevaluations']} re-evaluations, "
                 f"{burst['overflows']} overflows", "", ""))

    table = ["| measurement | value | compared | goal | mallocs |", "|---|---|---|---|---|"]
    table += ["| " + " | ".join(row) + " |" for row in rows]
    host = monitor.get("host") or platform.platform()
    text = f"""# Benchmarks

Made by `make bench` on {host}, {os.cpu_count()} CPUs. Each ratio compares
two measurements of the same run (medians). Classification times are per call
(each iteration classifies all 512 combinations of the nine flag bits).

{chr(10).join(table)}

![change latency](latency.png)

![RSS and start time against routes](routes.png)
"""
    with open(os.path.join(out, "README.md"), "w", encoding="utf-8") as f:
        f.write(text)
    with open(os.path.join(out, "table.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(table) + "\n")
    plot(monitor, out)
    print("\n".join(table))


def plot(monitor, out):
    tmp = os.path.join(out, "latency.tmp")
    bins = {}
    width = 0.05
    for kind in ("down", "up"):
        for v in monitor["latency_ms"][kind]:
            b = round(int(v / width) * width, 3)
            bins.setdefault(b, [0, 0])[0 if kind == "down" else 1] += 1
    with open(tmp, "w") as f:
        for b in sorted(bins):
            f.write(f"{b + width / 2:.3f} {bins[b][0]} {bins[b][1]}\n")
    routes = os.path.join(out, "routes.tmp")
    with open(routes, "w") as f:
        for p in monitor["routes"]:
            f.write(f"{p['routes']} {p['rss_kb'] / 1024:.2f} {p['start_ms']:.3f}\n")
    script = f"""
set terminal pngcairo size 900,480 font ",11"
set output '{out}/latency.png'
set title 'Change latency: link flap in a namespace → change delivered'
set xlabel 'latency (ms)'
set ylabel 'changes'
set style fill solid 0.6
set boxwidth {width * 0.45}
set grid ytics
plot '{tmp}' using ($1-{width / 4}):2 with boxes title 'link down', \\
     '{tmp}' using ($1+{width / 4}):3 with boxes title 'link up'
set output '{out}/routes.png'
set title 'Monitor against the size of the routing table'
set xlabel 'routes in the namespace'
set ylabel 'RSS (MiB)'
set y2label 'start to first answer (ms)'
set ytics nomirror
set y2tics
set yrange [0:*]
set y2range [0:*]
set xtics ('0' 0, '10k' 10000, '100k' 100000)
plot '{routes}' using 1:2 with linespoints lw 2 pt 7 title 'RSS', \\
     '{routes}' using 1:3 axes x1y2 with linespoints lw 2 pt 5 title 'start to first answer'
"""
    subprocess.run(["gnuplot"], input=script, text=True, check=True)
    os.remove(tmp)
    os.remove(routes)


if __name__ == "__main__":
    main()
