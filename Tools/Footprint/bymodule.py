#!/usr/bin/env python3
# Sums the sizes of the symbols that only the first binary has, by module
# (mangled prefix), to show where the bytes the library adds go.
import subprocess, sys, collections
def is_label(name):
    """LTO's temporary labels (firmware.flags keeps them) that lie inside
    functions; the private functions among them (.Lanon, .Lobjectdestroy) are not."""
    return name.startswith(".L") and not name.startswith((".Lanon", ".Lobjectdestroy"))
def syms(path):
    out = subprocess.run(["nm", "--size-sort", "-S", path], capture_output=True, text=True).stdout
    d = {}
    for line in out.splitlines():
        p = line.split()
        if len(p) < 4: continue
        if is_label(p[3]): continue
        d[p[3]] = (int(p[1], 16), p[2])
    return d
def cat(n):
    if n.startswith(("$s16ReachabilityCore", "$s17ReachabilityModel", "$s12Reachability")): return "Reachability (Swift)"
    if n.startswith("creach_"): return "CReachability (C)"
    if n.startswith("cap_") or n.startswith("_cap") or "libcap" in n: return "libcap"
    if "dispatch" in n.lower(): return "Dispatch"
    if n.startswith("$sSc") or "swift_task" in n or "swift_job" in n or "Concurrency" in n or "swift_continuation" in n or "swift_asyncLet" in n or n.startswith("$ss5Clock") or "Executor" in n or n.startswith("swift_async") or "TaskGroup" in n or "swift_defaultActor" in n: return "Concurrency"
    if n.startswith("$s15Synchronization"): return "Synchronization"
    if n.startswith("$s"): return "stdlib (Swift)"
    # Private functions (closure contexts' destroyers, anonymous helpers), named
    # only because firmware.flags keeps LTO's temporary labels: of the program's
    # own modules, the library's for the most part.
    if n.startswith(".Lanon") or n.startswith(".Lobjectdestroy"): return "private Swift helpers (LTO)"
    if n.startswith("swift_") or n.startswith("_swift") or n.startswith("_Z"): return "runtime (C, C++)"
    return "other (C/C++)"
def by_module(sizes, noun):
    """Prints the sizes (name -> bytes) summed by cat(name), largest first."""
    tot = collections.Counter(); cnt = collections.Counter()
    for n, sz in sizes.items():
        tot[cat(n)] += sz; cnt[cat(n)] += 1
    for k, v in tot.most_common(): print(f"{v/1024:9.1f} KiB  {cnt[k]:6d} {noun}  {k}")
    print(f"{sum(tot.values())/1024:9.1f} KiB total ({noun} only in the first binary)")
if __name__ == "__main__":
    a, b = syms(sys.argv[1]), syms(sys.argv[2])
    by_module({n: sz for n, (sz, t) in a.items() if n not in b}, "symbols")
