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
  * every public type of ours (class, struct, enum, protocol, nested ones
    too) has a row under "## Conformances", and its protocol conformances
    are the original's: the symbol graph's `conformsTo` relationships whose
    source is our type, against the row's Original column plus its Ours only
    column minus its Not provided column. Both sides are compared closed
    under refinement (the graph lists what a conformance implies, Equatable
    from Hashable, SendableMetatype from Sendable; the table names what the
    original declares, and REFINES below closes it), so a row may name the
    protocols as the original's declaration spells them. An extra
    conformance of ours passes only when the row marks it ours only, a
    missing one only when the row marks it not provided (each with why, in
    the notes), and a mark that no longer differs is a finding too;
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

# What a protocol implies, as the symbol graph lists it (transitively closed
# by `closure`). A protocol a row names that is missing here is a finding, so
# the map grows with the tables instead of silently comparing less.
REFINES = {
    "Equatable": [], "Hashable": ["Equatable"], "Comparable": ["Equatable"],
    "Sendable": ["SendableMetatype"], "SendableMetatype": [], "Error": ["Sendable"],
    "RawRepresentable": [], "CaseIterable": [], "OptionSet": ["SetAlgebra", "RawRepresentable"],
    "SetAlgebra": ["Equatable", "ExpressibleByArrayLiteral"], "ExpressibleByArrayLiteral": [],
    "CustomStringConvertible": [], "CustomDebugStringConvertible": [],
    "ExpressibleByStringLiteral": ["ExpressibleByExtendedGraphemeClusterLiteral"],
    "ExpressibleByExtendedGraphemeClusterLiteral": ["ExpressibleByUnicodeScalarLiteral"],
    "ExpressibleByUnicodeScalarLiteral": [], "ExpressibleByIntegerLiteral": [],
    "AsyncSequence": [], "AsyncIteratorProtocol": [], "AnyObject": [],
    "NSObjectProtocol": [],
    # A superclass, as `inheritsFrom`: what Linux's NSObject gives its
    # subclasses (Darwin's adds CVarArg and KVO, which corelibs has not).
    "NSObject": ["NSObjectProtocol", "Hashable", "CustomStringConvertible", "CustomDebugStringConvertible"],
    "_CFObject": ["Hashable"], "IPAddress": ["Sendable"],
}
# Every type has them; no client declares them.
IMPLICIT = {"Copyable", "Escapable", "BitwiseCopyable"}


def bin_path():
    return subprocess.run(["swift", "build", "--show-bin-path"], cwd=ROOT, check=True,
                          capture_output=True, text=True).stdout.strip()


def symbols(module, build):
    """(title, path) of every public declaration of `module` in our sources,
    and {path: set of protocols} of every public type among them (the symbol
    graph's `conformsTo` relationships, which list implied protocols too)."""
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
        found, conformances = [], {}
        for name in os.listdir(out):
            if not name.startswith(module + "."):   # extensions of other modules' types count too
                pass
            with open(os.path.join(out, name)) as file:
                graph = json.load(file)
            ours = {}
            for symbol in graph["symbols"]:
                uri = symbol.get("location", {}).get("uri", "")
                if "/Sources/Compat/" not in uri:
                    continue   # synthesised, or a protocol extension's default
                path = ".".join(symbol["pathComponents"])
                found.append((symbol["names"]["title"], path))
                if symbol["kind"]["identifier"] in ("swift.class", "swift.struct", "swift.enum", "swift.protocol"):
                    ours[symbol["identifier"]["precise"]] = path
                    conformances.setdefault(path, set())
            for relation in graph["relationships"]:
                if relation["kind"] in ("conformsTo", "inheritsFrom") and relation["source"] in ours:
                    target = relation.get("targetFallback") or relation["target"]
                    name = target.split(".")[-1]
                    if name not in IMPLICIT:
                        conformances[ours[relation["source"]]].add(name)
        return sorted(set(found)), conformances


def protocols(cell):
    """`Hashable`, `Sendable` → {"Hashable", "Sendable"}; `—` → set()."""
    return set(re.findall(r"`([^`]+)`", cell))


def closure(names):
    """The protocols `names` imply (REFINES), themselves included; unknown
    names come back in the second set."""
    done, unknown, todo = set(), set(), list(names)
    while todo:
        name = todo.pop()
        if name in done:
            continue
        done.add(name)
        if name not in REFINES:
            unknown.add(name)
        todo.extend(REFINES.get(name, []))
    return done, unknown


def parse(path):
    """The table's rows (original, ours, status, notes), the Ours only lines,
    and the Conformances rows {type: (original, ours only, not provided)}."""
    rows, ours_only, section, conformances = [], [], None, {}
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
            if section == "conformances":
                if len(cells) >= 5 and cells[0] != "Type":
                    conformances[cells[0].strip("`")] = tuple(protocols(cell) for cell in cells[1:4])
                continue
            if len(cells) < 4 or cells[0] == "Original declaration":
                continue
            rows.append(cells[:4])
    return rows, ours_only, conformances


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


def compare_conformances(module, ours_by_type, table):
    """Findings where a type's conformances differ from its Conformances row."""
    findings = []
    for path in sorted(set(table) - set(ours_by_type)):
        findings.append(f"{module}: Conformances row `{path}` names no public type of ours")
    for path, ours in sorted(ours_by_type.items()):
        if path not in table:
            findings.append(f"{module}: our public type `{path}` has no row under '## Conformances' "
                            f"(ours: {', '.join(sorted(ours)) or 'none'})")
            continue
        original, marked_ours, marked_missing = table[path]
        expected, unknown = closure(original)
        marked_ours_closed, unknown_ours = closure(marked_ours)
        unknown |= unknown_ours | closure(marked_missing)[1]
        for name in sorted(unknown):
            findings.append(f"{module}: `{path}`: protocol `{name}` is not in check.py's REFINES; add what it implies")
        ours_closed = closure(ours)[0]
        extra, missing = ours_closed - expected, expected - ours_closed
        for name in sorted(extra - marked_ours_closed):
            findings.append(f"{module}: `{path}` conforms to `{name}`, the original does not "
                            f"(remove it, or mark it ours only in the Conformances row, with why)")
        for name in sorted(missing - marked_missing):
            findings.append(f"{module}: `{path}` does not conform to `{name}`, the original does "
                            f"(add it, or mark it not provided in the Conformances row, with why)")
        for name in sorted(marked_ours - extra):
            findings.append(f"{module}: `{path}`: `{name}` is marked ours only, but the original has it or ours has not")
        for name in sorted(marked_missing - missing):
            findings.append(f"{module}: `{path}`: `{name}` is marked not provided, but ours has it or the original has not")
    return findings


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
        rows, ours_only, table_conformances = parse(table)
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
        found, conformances = symbols(module, build)
        for title, path in found:
            if not mentions(ours_text, title):
                findings.append(f"{module}: our public `{path}` ({title}) has no row (nor a line under 'Ours only')")
        findings += compare_conformances(module, conformances, table_conformances)
    for finding in findings:
        print("check: " + finding)
    if findings:
        print(f"check: {len(findings)} finding(s); the tables are docs/compat-surface/*.md")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
