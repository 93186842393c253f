#!/usr/bin/env python3
"""Scrapes URL at RATE per second for SECONDS on one keep-alive connection
(as Prometheus does) and prints a markdown table of the latencies (request
sent → whole body read) and the exporter's RSS every 5 s (PID).

Usage: scrape.py URL RATE SECONDS PID      Standard library only.
"""
import http.client
import sys
import time
import urllib.parse


def rss(pid):
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS"))


def main():
    url, rate, seconds, pid = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=5)
    latencies, failures, samples = [], 0, []
    start = time.perf_counter()
    total = int(rate * seconds)
    for i in range(total):
        due = start + i / rate
        delay = due - time.perf_counter()
        if delay > 0:
            time.sleep(delay)
        t0 = time.perf_counter()
        try:
            connection.request("GET", parts.path)
            response = connection.getresponse()
            body = response.read()
            if response.status != 200 or not body:
                failures += 1
        except (OSError, http.client.HTTPException):
            failures += 1
            connection.close()
            connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=5)
            continue
        latencies.append((time.perf_counter() - t0) * 1000)
        if i % int(rate * 5) == 0:
            samples.append(rss(pid))
    elapsed = time.perf_counter() - start
    latencies.sort()

    def pct(p):
        return latencies[min(len(latencies) - 1, max(0, int(-(-p * len(latencies) // 100)) - 1))]

    print("| scrapes | achieved rate | failures | p50 | p90 | p99 | max | p99 ≤ 5 ms |")
    print("|---|---|---|---|---|---|---|---|")
    print(f"| {len(latencies)} | {len(latencies) / elapsed:.1f}/s | {failures} | {pct(50):.2f} ms | {pct(90):.2f} ms | "
          f"{pct(99):.2f} ms | {latencies[-1]:.2f} ms | {'✅' if pct(99) <= 5 else '❌'} |")
    print()
    print("RSS every 5 s (kB): " + ", ".join(str(s) for s in samples))


if __name__ == "__main__":
    main()
