#!/usr/bin/env python3
# Where the resident memory a program adds to a reference goes (issue 14's
# RSS goal), and the firmware build's symbol ordering file. Needs valgrind.
#
#   python3 Tools/Footprint/pages.py PROGRAM REFERENCE
#   python3 Tools/Footprint/pages.py --order FILE [--events SHELL] 'COMMAND [ARG...]'...
#
# PROGRAM and REFERENCE are unstripped builds (measure.sh's embedding program
# and hello world), run with the argument `wait`. Each command must print a
# line once it has its first answer and then wait, as they do.
#
# 1. The code each runs until it has printed its first answer and its threads
#    sleep (callgrind with --dump-instr, on a copy without DWARF, which
#    valgrind 3.19 cannot read): the functions, the 4 KiB pages of the
#    program's text they lie in, and the 64 KiB windows around them (at a
#    fault the kernel maps the cached pages of such a window,
#    fault_around_bytes). The pages are what the program needs resident; the
#    windows are what RSS counts.
# 2. RSS by mapping while each waits, median of 5, read from disk (evict.sh):
#    the program's text, its other segments, the shared libraries, anonymous
#    memory.
#
# --order writes the functions the commands run, one name a line, for lld's
# --symbol-ordering-file (firmware.order: firmware-flags.sh passes it): the
# first command's, then those the second adds, and so on. Placed
# together, they fill a few pages instead of touching windows all over the
# text; `make firmware-order` writes it again (order.sh). With --events, the
# shell command SHELL runs once each command has answered (link changes, for
# the code of the event path), and the profile ends once it is idle again.
import bisect, collections, os, re, shlex, statistics, subprocess, sys, tempfile
from bymodule import by_module, is_label

PAGE, WINDOW = 4096, 65536
HERE = os.path.dirname(os.path.abspath(__file__))

def functions(path):
    """Text symbols of `path`: sorted (start, size, name)."""
    out = subprocess.run(["nm", "-S", "--defined-only", path], capture_output=True, text=True, check=True).stdout
    found = []
    for line in out.splitlines():
        p = line.split()
        if len(p) == 4 and p[2] in "tTwW" and not is_label(p[3]):
            found.append((int(p[0], 16), int(p[1], 16), p[3]))
    return sorted(found)

def idle(proc):
    """Waits for the threads of `proc` to sleep (wait-idle.sh)."""
    subprocess.run([os.path.join(HERE, "wait-idle.sh"), str(proc.pid)])

def settled(proc):
    """Waits for the first line of `proc` (its first answer: the monitor runs)
    and for its threads to sleep (what follows the answer is done too)."""
    if not proc.stdout.readline():
        sys.exit(f"pages.py: {shlex.join(proc.args)} printed nothing")
    idle(proc)

def executed(command, events=None):
    """The addresses of the instructions `command` runs in its own image
    (until its first answer, then through the shell command `events`)."""
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, os.path.basename(command[0]))
        subprocess.run(["strip", "--strip-debug", "-o", copy, command[0]], check=True)
        out = os.path.join(tmp, "callgrind.out")
        proc = subprocess.Popen(["valgrind", "--tool=callgrind", "--dump-instr=yes", f"--callgrind-out-file={out}",
                                 copy, *command[1:]], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        try:
            settled(proc)
            if events:
                subprocess.run(["sh", "-c", events], check=True)
                idle(proc)
        finally:
            proc.terminate(); proc.wait()   # valgrind writes the profile of a terminated program
        # Cost lines start with an address: absolute (0x...), relative to the
        # previous one (+n, -n) or the same (*). ob= names the image of the
        # lines that follow, cob= a callee's; both may define a name by number.
        names, image, address, found = {}, None, 0, set()
        for line in open(out):
            m = re.match(r"(c?)ob=\((\d+)\)(?: (.*))?", line)
            if m:
                if m.group(3): names[m.group(2)] = m.group(3).strip()
                if not m.group(1): image = names[m.group(2)]
                continue
            token = line.split(maxsplit=1)[0] if line.strip() else ""
            if token.startswith("0x"): address = int(token, 16)
            elif token[:1] in ("+", "-") and token[1:].isdigit(): address += int(token)
            elif token != "*": continue
            if image == copy: found.add(address)
        return found

def code(command, events=None):
    """What `command` runs: {function: size}, its text pages and its windows."""
    addresses = executed(command, events)
    symbols = functions(command[0])
    starts = [s[0] for s in symbols]
    ran = {}
    for a in addresses:
        i = bisect.bisect_right(starts, a) - 1
        if i >= 0 and a < symbols[i][0] + max(symbols[i][1], 1):
            ran[symbols[i][2]] = symbols[i][1]
    return ran, {a // PAGE for a in addresses}, {a // WINDOW for a in addresses}

def mappings(path):
    """RSS (kB) of `path wait` once settled, by kind of mapping."""
    proc = subprocess.Popen([path, "wait"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        settled(proc)
        rss, name, perms = collections.Counter(), "", ""
        for line in open(f"/proc/{proc.pid}/smaps"):
            m = re.match(r"[0-9a-f]+-[0-9a-f]+ (\S+) \S+ \S+ \S+\s*(.*)", line)
            if m:
                perms, name = m.group(1), m.group(2)
            elif line.startswith("Rss:"):
                if os.path.realpath(name) == os.path.realpath(path):
                    kind = "program text" if "x" in perms else "program data and read-only data"
                elif name.startswith("/"): kind = "shared libraries"
                else: kind = "anonymous (heap, stacks, arenas)"
                rss[kind] += int(line.split()[1])
        return rss
    finally:
        proc.kill(); proc.wait()

def report(program, reference):
    name, ref = os.path.basename(program), os.path.basename(reference)
    (p_ran, p_pages, p_windows), (r_ran, r_pages, r_windows) = code([program, "wait"]), code([reference, "wait"])
    row = lambda label, r, p, unit="": print(f"{label:46} {r:>12} {p:>12} {p - r:>+10}{unit}")
    print(f"{'code run until the first answer (callgrind)':46} {ref:>12} {name:>12} {'added':>10}")
    row("  functions", len(r_ran), len(p_ran))
    row("  their size (KiB)", sum(r_ran.values()) // 1024, sum(p_ran.values()) // 1024, " KiB")
    row("  4 KiB pages of text they lie in (KiB)", len(r_pages) * 4, len(p_pages) * 4, " KiB")
    row("  64 KiB windows around them (KiB)", len(r_windows) * 64, len(p_windows) * 64, " KiB")
    print(f"\nfunctions only {name} runs, by module:")
    by_module({f: size for f, size in p_ran.items() if f not in r_ran}, "functions")
    subprocess.run([os.path.join(HERE, "evict.sh"), program, reference], check=True)   # as measure.sh reads them
    samples = {path: [mappings(path) for _ in range(5)] for path in (program, reference)}
    p, r = ({k: statistics.median(s[k] for s in samples[path]) for k in set().union(*samples[path])}
            for path in (program, reference))
    print(f"\n{'RSS while waiting, by mapping (kB, median of 5)':46} {ref:>12} {name:>12} {'added':>10}")
    for kind in sorted(set(p) | set(r)):
        row("  " + kind, int(r.get(kind, 0)), int(p.get(kind, 0)), " kB")
    row("  total", int(sum(r.values())), int(sum(p.values())), " kB")

def order(path, commands, events=None):
    """Writes the functions of each command in turn, those of the first
    first, then those the second adds, and so on (by name within each): each
    program's functions then lie in one run at the start of the text, the
    first command's in the shortest."""
    names = []
    for command in commands:
        ran = code(shlex.split(command), events)[0]
        names += sorted(set(ran) - set(names))
    with open(path, "w") as file:
        file.write("".join(f"{name}\n" for name in names))
    print(f"pages.py: {len(names)} functions written to {path}")

if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "--order":
        if sys.argv[3] == "--events" and len(sys.argv) >= 6:
            order(sys.argv[2], sys.argv[5:], events=sys.argv[4])
        else:
            order(sys.argv[2], sys.argv[3:])
    elif len(sys.argv) == 3:
        report(sys.argv[1], sys.argv[2])
    else:
        sys.exit("usage: pages.py PROGRAM REFERENCE | pages.py --order FILE [--events SHELL] 'COMMAND [ARG...]'...")
