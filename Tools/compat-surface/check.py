#!/usr/bin/env python3
"""The compat modules' API tables (docs/compat-surface/<Module>.md) against
the modules as built, so that the tables cannot go stale.

For each table:
  * every row has one of the three statuses (`provided`, `Linux meaning`,
    `not provided`), and a `not provided` row says why;
  * every public declaration of our module (from its symbol graph, built by
    `swift-symbolgraph-extract` from `swift build`'s modules; declarations in
    our sources only, not what a protocol's extensions add) has a row whose
    "Ours" cell names it, or a line under "## Ours only";
  * every row that says we provide a declaration names one the module has;
  * the module has a compile test, Tests/CompatSurface/<Module>.swift, and a
    visibility test, Tests/CompatSurface/Visibility/<Module>.swift (both
    type-checked by typecheck.sh in make test).
It prints each table's totals (declared / provided / Linux meaning / not
provided) and exits 1 on any finding.

    Tools/compat-surface/check.py [--totals-only] [MODULE...]
"""

import glob
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TABLES = os.path.join(ROOT, "docs", "compat-surface")
STATUSES = ("provided", "Linux meaning", "not provided")


def bin_path():
    return subprocess.run(["swift", "build", "--show-bin-path"], cwd=ROOT, check=True,
                          capture_output=True, text=True).stdout.strip()


def symbols(module, build):
    """(title, path) of every public declaration of `module` in our sources."""
    # The one C module the interfaces need (see typecheck.sh: not every map
    # in the build, two maps of one module do not load together).
    maps = ["-Xcc", "-fmodule-map-file=" + os.path.join(build, "CReachability.build", "module.modulemap")]
    with tempfile.TemporaryDirectory() as out:
        command = ["swift-symbolgraph-extract", "-module-name", module, "-I", os.path.join(build, "Modules"),
                   "-target", "x86_64-unknown-linux-gnu", "-minimum-access-level", "public", "-output-dir", out,
                   "-Xcc", "-I" + os.path.join(ROOT, "CSupport", "include"),
                   "-Xcc", "-I" + os.path.join(ROOT, "Sources", "CReachabilityLibcap"),
                   "-Xcc", "-I" + os.path.join(ROOT, "Sources", "CReachabilitySDBus")] + maps
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            sys.exit(f"check: symbol graph of {module} failed:\n{result.stderr}")
        found = []
        for name in os.listdir(out):
            if not name.startswith(module + "."):   # extensions of other modules' types count too
                pass
            with open(os.path.join(out, name)) as file:
                graph = json.load(file)
            for symbol in graph["symbols"]:
                uri = symbol.get("location", {}).get("uri", "")
                if "/Sources/Compat/" not in uri:
                    continue   # synthesised, or a protocol extension's default
                found.append((symbol["names"]["title"], ".".join(symbol["pathComponents"])))
        return sorted(set(found))


def parse(path):
    """The table's rows (original, ours, status, notes), and the Ours only lines."""
    rows, ours_only, section = [], [], None
    with open(path) as file:
        for line in file:
            line = line.rstrip("\n")
            if line.startswith("## "):
                section = line[3:].strip().lower()
                continue
            if section == "ours only" and line.strip().startswith(("-", "*")):
                ours_only.append(line)
                continue
            if not line.startswith("|") or re.match(r"^\|\s*-", line):
                continue
            cells = [cell.strip() for cell in re.split(r"(?<!\\)\|", line)[1:-1]]
            if len(cells) < 4 or cells[0] == "Original declaration":
                continue
            rows.append(cells[:4])
    return rows, ours_only


def identifiers(title):
    """`start(queue:)` → ["start", "queue"]; `currentPath` → ["currentPath"]."""
    head = title.split("(")[0].split("<")[0].strip()
    labels = re.findall(r"(\w+):", title[len(head):]) if "(" in title else []
    # An enum case's or a nested type's title is qualified (`Status.unknown`): its last name.
    return [head.split(".")[-1]] + [label for label in labels if label != "_"]


def mentions(text, title):
    names = identifiers(title)
    if not re.match(r"^[A-Za-z_]", names[0]):   # an operator: `==`
        return names[0] in text
    words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text))
    return all(word in words for word in names)


def main():
    totals_only = "--totals-only" in sys.argv
    wanted = [arg for arg in sys.argv[1:] if not arg.startswith("--")]
    tables = sorted(glob.glob(os.path.join(TABLES, "*.md")))
    if wanted:
        tables = [t for t in tables if os.path.basename(t)[:-3] in wanted]
    build = bin_path()
    findings = []
    print(f"{'module':<24} {'declared':>8} {'provided':>8} {'Linux meaning':>13} {'not provided':>12}")
    for table in tables:
        module = os.path.basename(table)[:-3]
        if module == "README":
            continue
        rows, ours_only = parse(table)
        counts = {status: 0 for status in STATUSES}
        for original, ours, status, notes in rows:
            if status not in STATUSES:
                findings.append(f"{module}: row `{original[:60]}`: status '{status}' is not one of {STATUSES}")
                continue
            counts[status] += 1
            if status == "not provided" and not notes:
                findings.append(f"{module}: `{original[:60]}` is not provided and says not why")
            if status != "not provided" and ours in ("", "—", "-"):
                findings.append(f"{module}: `{original[:60]}` is {status} but names no declaration of ours")
        print(f"{module:<24} {len(rows):>8} {counts['provided']:>8} {counts['Linux meaning']:>13} {counts['not provided']:>12}")
        if totals_only:
            continue
        for test in (f"Tests/CompatSurface/{module}.swift", f"Tests/CompatSurface/Visibility/{module}.swift"):
            if not os.path.exists(os.path.join(ROOT, test)):
                findings.append(f"{module}: no {test}")
        # A row that is not provided because ours differs still names ours.
        ours_text = "\n".join(ours for _, ours, _, _ in rows) + "\n" + "\n".join(ours_only)
        for title, path in symbols(module, build):
            if not mentions(ours_text, title):
                findings.append(f"{module}: our public `{path}` ({title}) has no row (nor a line under 'Ours only')")
    for finding in findings:
        print("check: " + finding)
    if findings:
        print(f"check: {len(findings)} finding(s); the tables are docs/compat-surface/*.md")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
