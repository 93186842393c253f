#!/usr/bin/env python3
"""Turns one `make bench` run into docs/benchmarks/: a markdown table of the
hot paths beside their limits (ratios within the same run, goals checked) and
PNG plots drawn with gnuplot.

Usage: report.py RESULTS_DIR OUT_DIR
       report.py --delivery MONITOR.json   (the delivery table of one Monitor run)
       report.py --targets MONITOR-TARGETS.json   (`Monitor targets`: issue 41's budget by target kind)
RESULTS_DIR holds package-benchmark's `histogramPercentiles` TSV files
(Current_run.TARGET.NAME.METRIC.histogram.percentiles.tsv) and monitor.json
from the Monitor executable; OUT_DIR/peers.md, when `make bench-startup`
wrote it, gives the start-up and RSS figures beside GLib's. Standard library
only.
"""
import glob
import json
import os
import platform
import re
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


def p99(values):
    """Nearest-rank 99th percentile."""
    ordered = sorted(values)
    return ordered[min(len(ordered), max(1, -(-99 * len(ordered) // 100))) - 1]


def peers(out):
    """{label: (glib, reach, unit)} from the code block of peers.md, if there."""
    path = os.path.join(out, "peers.md")
    if not os.path.exists(path):
        return {}
    found, parent = {}, ""
    for line in open(path, encoding="utf-8"):
        m = re.match(r"^(\s*)(\S.*?)\s{2,}(\d+) (us|kB)\s+(\d+) (us|kB)\s+[\d.]+x$", line.rstrip())
        if m:
            # An indented line belongs to the line above it: "parent / line".
            label = f"{parent} / {m.group(2)}" if m.group(1) else m.group(2)
            parent = parent if m.group(1) else m.group(2)
            found[label] = (int(m.group(3)), int(m.group(5)), m.group(4))
    return found


def received(monitor, section, step):
    """Where an `onChange` callback on the monitor's thread received each change
    (glib-monitor stamps GLib's in its signal handler too); the monitor's own
    stamp for a monitor.json from before the delivery figures."""
    part = (monitor.get("delivery_ms") or {}).get(section)
    if part and "monitor_thread" in part["kinds"]:
        return part["kinds"]["monitor_thread"]["delivery"].get(step, [])
    old = {"link": "latency_ms", "link_settle0": "latency_settle0_ms"}[section]
    return (monitor.get(old) or {}).get(step, [])


def beside_glib(monitor, out):
    """The issue's figures, GLib's and ours side by side, ratio reach / GLib."""
    rows = []
    p = peers(out)

    def add(what, glib, ours, fmt):
        ratio = ours / glib if glib else None
        text = "" if ratio is None else f"{ratio:.2f}×" if ratio >= 0.1 else f"{ratio:.3f}× ({1 / ratio:.0f}× less)"
        rows.append((what, fmt(glib), fmt(ours), text))

    ms = lambda us: f"{us / 1000:.2f} ms"
    mb = lambda kb: f"{kb / 1024:.1f} MB"
    start0, rss0 = "start → first answer, 0 routes", "RSS while watching, 0 routes"
    for label, what, fmt in [
        (start0, "start → first answer, 0 routes (`reach check internet`)", ms),
        (f"{start0} / reach through its argument parser", "  the same through the argument parser (any option)", ms),
        (f"{start0} / the library alone (embed-watch)", "  the library alone (Tools/Footprint)", ms),
        (f"{start0} / a static Swift hello world", "  a static Swift hello world", ms),
        (f"{start0} / hello world + swift-argument-parser", "  a hello world + swift-argument-parser", ms),
        (rss0, "RSS while watching, 0 routes (`reach watch internet`)", mb),
        (f"{rss0} / a static Swift hello world, waiting", "  a static Swift hello world", mb),
        ("start → first answer, 100000 routes", "start → first answer, 100,000 routes", ms),
        ("RSS while watching, 100000 routes", "RSS while watching, 100,000 routes", mb)]:
        if label in p:
            add(what, p[label][0], p[label][1], fmt)
    glib = monitor.get("glib_latency_ms")
    if glib:
        ours = received(monitor, "link", "down") + received(monitor, "link", "up")
        fast = received(monitor, "link_settle0", "down") + received(monitor, "link_settle0", "up")
        l = lambda v: f"{v:.3f} ms"
        first, right = glib["first"], glib["right"]
        add("link flap → first notification, median (above the kernel's message)", statistics.median(first),
            statistics.median(ours), l)
        add("  p99", p99(first), p99(ours), l)
        down = received(monitor, "link", "down")
        add("  link down alone, median (GLib: both ways)", statistics.median(first), statistics.median(down), l)
        add("  link down alone, p99 (GLib: both ways)", p99(first), p99(down), l)
        add("link flap → the right answer, median", statistics.median(right), statistics.median(ours), l)
        add("  p99", p99(right), p99(ours), l)
        if fast:
            add("  ours with settleTime 0, median", statistics.median(right), statistics.median(fast), l)
    return rows


KINDS = [("monitor_thread", "`onChange` (default: the monitor's thread)"),
         ("dispatch", "`onChange(on: .dispatch(queue))`"),
         ("stream", "`changes()` stream, a task"),
         ("reach_watch", "`reach watch --json` lines"),
         ("sc_callback", "SystemConfiguration callback on a queue"),
         ("internet_dispatch", "`onChange(on: .dispatch(queue))` of `internet` (for NWPathMonitor: va usable)"),
         ("path_update_handler", "`NWPathMonitor.pathUpdateHandler` on a queue (va usable)")]
RECEIPT_ONLY = {"sc_callback", "path_update_handler"}


def step_values(result, steps):
    """One observer's figures for `steps` (ms above the kernel's first
    message): the monitor's stamps, the receipts, and receipt − stamp."""
    stamp = [v for step in steps for v in result["evaluation"].get(step, [])]
    received = [v for step in steps for v in result["delivery"].get(step, [])]
    return stamp, received, [r - e for r, e in zip(received, stamp)]


def delivery_rows(monitor):
    """Issue 27: latency where each observer receives the change, beside the
    monitor's own stamp, both above the kernel's first message (ms)."""
    delivery = monitor.get("delivery_ms")
    if not delivery:
        return []
    rows = []
    for section, steps, what in [
            ("link", ["down"], "link down"), ("link", ["up"], "link up"),
            ("route", ["away", "back"], "default route moved"),
            ("link_churn", ["down"], "link down, steady route churn"),
            ("link_churn_following", ["down"], "link down, route churn after it")]:
        part = delivery.get(section)
        if not part:
            continue
        if "churn_interval_ms" in part:
            what += f" (settle {part['settle_ms']:g}/{part['maximum_settle_ms']:g} ms)"
        for kind, label in KINDS:
            result = part["kinds"].get(kind)
            if not result:
                continue
            stamp, received, late = step_values(result, steps)
            if not received:
                continue
            if kind in RECEIPT_ONLY:   # the compat views have no stamp of the monitor's
                rows.append((what, label, f"{len(received)}", "—", "—", f"**{statistics.median(received):.3f}**",
                             f"**{p99(received):.3f}**", "—", "—"))
                continue
            rows.append((what, label, f"{len(received)}", f"{statistics.median(stamp):.3f}", f"{p99(stamp):.3f}",
                         f"**{statistics.median(received):.3f}**", f"**{p99(received):.3f}**",
                         f"{statistics.median(late):.3f}", f"{p99(late):.3f}"))
    return rows


def delivery_table(monitor):
    rows = delivery_rows(monitor)
    table = ["| change | received by | changes | monitor's stamp, median | p99 | received, median | p99 "
             "| received − stamp, median | p99 |", "|---|---|---|---|---|---|---|---|---|"]
    return table + ["| " + " | ".join(row) + " |" for row in rows] if rows else []


# Issue 41: the received median's budget per change and step (ms); None: no budget.
TARGET_STEPS = [("link", "down", "link down", 0.150), ("link", "up", "link up", None),
                ("route", "away", "default route moved away", 0.300),
                ("route", "back", "default route moved back", 0.300)]
TARGET_KINDS = ["address", "host", "internet"]


def target_label(monitor, change, target):
    argument = ((monitor.get("target_arguments") or {}).get(change) or {}).get(target)
    if target == "internet":
        return "`internet`"
    return f"{target} (`{argument}`)" if argument else target


def targets_rows(monitor):
    """`Monitor targets`: per change and step, kind of target and delivery
    kind, the monitor's stamp and the receipt above the kernel's first
    message (ms), and whether the received median meets issue 41's budget."""
    rows, notes = [], []
    for change, step, what, budget in TARGET_STEPS:
        part = (monitor.get("targets") or {}).get(change) or {}
        for target in TARGET_KINDS:
            by_kind = part.get(target) or {}
            label = target_label(monitor, change, target)
            if change == "link" and step == "up" and target == "internet":
                label += ", default route added back"   # its clock starts at the route's message
            for kind, kind_label in KINDS:
                result = by_kind.get(kind)
                if not result:
                    continue
                stamp, received, late = step_values(result, [step])
                if not received:
                    rows.append((what, label, kind_label, "0", "—", "—", "—", "—", "—", "—"))
                    continue
                verdict = "–" if budget is None else \
                    f"≤ {budget:.3f} ms {check(statistics.median(received) <= budget)}"
                rows.append((what, label, kind_label, f"{len(received)}", f"{statistics.median(stamp):.3f}",
                             f"{p99(stamp):.3f}", f"**{statistics.median(received):.3f}**", f"**{p99(received):.3f}**",
                             f"{statistics.median(late):.3f}", verdict))
    # Extra changes and late listener stamps are per observer (both steps).
    for change in ["link", "route"]:
        part = (monitor.get("targets") or {}).get(change) or {}
        for target in TARGET_KINDS:
            for kind, _ in KINDS:
                result = (part.get(target) or {}).get(kind)
                if result and (result.get("extra_changes") or result.get("late_listener")):
                    why = ""
                    if change == "link" and target == "internet" and kind != "reach_watch":
                        # ReachabilityChange's rule: a change of the path's facts alone is a change.
                        why = (" (va back among `availableInterfaces` at its return, before the default route is: "
                               "a path change with the answer still unreachable, which `reach watch` prints no line for)")
                    notes.append(f"{change}, {target}, {kind}: {result.get('extra_changes', 0)} extra changes, "
                                 f"{result.get('late_listener', 0)} left out (listener stamped after the monitor)"
                                 + why)
    return rows, notes


def targets_table(monitor):
    rows, notes = targets_rows(monitor)
    table = ["| change | target | received by | changes | monitor's stamp, median | p99 | received, median | p99 "
             "| received − stamp, median | budget (received median) |", "|---|---|---|---|---|---|---|---|---|---|"]
    table += ["| " + " | ".join(row) + " |" for row in rows]
    if notes:
        table += ["", "Besides the awaited changes:", ""] + [f"- {note}" for note in notes]
    return table


def main():
    if sys.argv[1] == "--delivery":
        # One Monitor run alone (before/after a change): the delivery table.
        print("\n".join(delivery_table(json.load(open(sys.argv[2], encoding="utf-8")))))
        return
    if sys.argv[1] == "--targets":
        # `Monitor targets`: each kind of target against issue 41's budget.
        print("\n".join(targets_table(json.load(open(sys.argv[2], encoding="utf-8")))))
        return
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
    try:
        sc = e("evaluate.sc-getflags")
        rows.append(("`SCNetworkReachabilityGetFlags`, the same address", fmt_ns(sc), f"{sc / swift:.2f}× `evaluate`",
                     f"≤ 1.2× {check(sc / swift <= 1.2)}", f"{mallocs('Evaluation', 'evaluate.sc-getflags'):.0f}"))
    except (KeyError, TypeError, OSError):
        pass   # results from before the compat modules
    rows.append(("plain C RTM_GETROUTE + RTM_GETLINK (the limit)", fmt_ns(clim), "1.00×", "", ""))
    rows.append(("`ip route get` (spawned)", fmt_ns(ip), f"we are {ip / swift:.0f}× faster",
                 f"≥ 200× {check(ip / swift >= 200)}", ""))

    # The monitor.
    monitor = json.load(open(os.path.join(results, "monitor.json"), encoding="utf-8"))
    lat = monitor["latency_ms"]["down"] + monitor["latency_ms"]["up"]
    rows.append((f"change latency, kernel's first message → the monitor's stamp ({len(lat)} changes; "
                 "where observers receive it: below)",
                 f"median {statistics.median(lat):.3f} ms", f"p99 {p99(lat):.3f} ms, max {max(lat):.3f} ms",
                 f"median ≤ 1 ms {check(statistics.median(lat) <= 1)}", ""))
    for kind in ["down", "up"]:
        values = monitor["latency_ms"][kind]
        goal = f"median ≤ 0.1 ms {check(statistics.median(values) <= 0.1)}" if kind == "down" else ""
        rows.append((f"  link {kind} alone", f"median {statistics.median(values):.3f} ms",
                     f"p99 {p99(values):.3f} ms, max {max(values):.3f} ms", goal, ""))
    immediate = monitor.get("latency_settle0_ms")
    if immediate:
        fast = immediate["down"] + immediate["up"]
        rows.append(("  the same with settleTime 0", f"median {statistics.median(fast):.3f} ms",
                     f"p99 {p99(fast):.3f} ms, {immediate['extra_changes']} extra changes", "", ""))
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
    delivery = delivery_table(monitor)
    glib_rows = beside_glib(monitor, out)
    glib_table = ["| figure | GLib 2.74 GNetworkMonitor | reach | ratio |", "|---|---|---|---|"]
    glib_table += ["| " + " | ".join(row) + " |" for row in glib_rows]
    host = monitor.get("host") or platform.platform()
    text = f"""# Benchmarks

Made by `make bench` on {host}, {os.cpu_count()} CPUs. Each ratio compares
two measurements of the same run (medians). Classification times are per call
(each iteration classifies all 512 combinations of the nine flag bits).

{chr(10).join(table)}

## Where the observer receives the change

The same changes timed where each kind of observer gets them (its own
CLOCK_MONOTONIC stamp, taken first thing in the callback or task, or as a
`reach watch --json` line arrives on a pipe), beside the stamp the monitor
puts on the change when it finds it (`time`, `time_ns`), all in ms
above the kernel's first message. Each kind has a monitor (or a `reach`) of
its own with that one observer. A link is flapped by ioctl; the default route
is moved to another uplink and back with `ip route replace`. Route churn adds
and deletes an unrelated route every {churn_interval(monitor)} ms: steadily
(each flap lands anywhere in a burst), or in a train that starts as each flap
is done (the flap's message opens the burst).

{chr(10).join(delivery) if delivery else "(no delivery figures in monitor.json)"}

## Beside GLib's GNetworkMonitor

The peer a Linux user would pick instead (Benchmarks/Peers: glib-monitor.c on
Debian's libglib2.0-dev), measured in the same run; start-up and RSS from
`make bench-startup` (peers.md), latency from the Monitor benchmark, both
where a callback receives the change (GLib's signal handler, our default
`onChange`), above the kernel's first RTNLGRP_LINK message as a raw C
listener sees it.
GLib's first signal comes at once but often says the old thing: its right
answer comes with a later signal.

{chr(10).join(glib_table) if glib_rows else "(run `make bench-startup` and pass --glib to Monitor)"}

![beside GLib](glib.png)

![change latency](latency.png)

![RSS and start time against routes](routes.png)
"""
    with open(os.path.join(out, "README.md"), "w", encoding="utf-8") as f:
        f.write(text)
    with open(os.path.join(out, "table.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(table) + "\n")
    with open(os.path.join(out, "delivery.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(delivery) + "\n")
    with open(os.path.join(out, "glib.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(glib_table) + "\n")
    plot(monitor, out)
    plot_glib(monitor, out)
    print("\n".join(table))
    print()
    print("\n".join(delivery))
    print()
    print("\n".join(glib_table))


def churn_interval(monitor):
    part = (monitor.get("delivery_ms") or {}).get("link_churn") or {}
    return f"{part.get('churn_interval_ms', 1):g}"


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


def plot_glib(monitor, out):
    """GLib and reach side by side on a log scale: start-up, RSS, latency."""
    p = peers(out)
    glib = monitor.get("glib_latency_ms")
    bars = []
    if "start → first answer, 0 routes" in p:
        g, r, _ = p["start → first answer, 0 routes"]
        bars.append(("start, 0 routes\\n(ms)", g / 1000, r / 1000))
    if "start → first answer, 100000 routes" in p:
        g, r, _ = p["start → first answer, 100000 routes"]
        bars.append(("start, 100k routes\\n(ms)", g / 1000, r / 1000))
    for label, short in [("RSS while watching, 0 routes", "RSS, 0 routes\\n(MB)"),
                         ("RSS while watching, 100000 routes", "RSS, 100k routes\\n(MB)")]:
        if label in p:
            bars.append((short, p[label][0] / 1024, p[label][1] / 1024))
    if glib:
        ours = received(monitor, "link", "down") + received(monitor, "link", "up")
        bars.append(("flap → right\\nanswer (ms)", statistics.median(glib["right"]), statistics.median(ours)))
    if not bars:
        return
    tmp = os.path.join(out, "glib.tmp")
    with open(tmp, "w") as f:
        for label, g, r in bars:
            f.write(f'"{label}" {g:.4f} {r:.4f}\n')
    script = f"""
set terminal pngcairo size 900,480 font ",11"
set output '{out}/glib.png'
set title 'Beside GLib 2.74 GNetworkMonitor (medians, one run; log scale, lower is better)'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.7
set logscale y
set yrange [0.1:*]
set grid ytics
set xtics noenhanced font ",10"
set bmargin 4
plot '{tmp}' using 2:xtic(1) title 'GLib', '' using 3 title 'reach'
"""
    subprocess.run(["gnuplot"], input=script, text=True, check=True)
    os.remove(tmp)


if __name__ == "__main__":
    main()
