#!/usr/bin/env python3
"""Architecture.md's map of the tree against the tree.

Usage: Tools/check-architecture.py [ROOT]   (ROOT: the repository, by default
the parent of this file's folder). Exit 0 when the map holds, 1 with one line
per problem otherwise; `make check-architecture` runs it, and `make test`
runs that first.

The map is the layout block of Sources/LinuxReachability/LinuxReachability.docc/
Architecture.md: the first fenced code block (from a line that starts with
three backticks to the next such line) after the heading whose text is
"Where the code is" (a line of one or more `#`, a space, then that text), and
before the heading that follows it.

How the drawing is read, line by line (blank lines are skipped):

* A line's column is the number of characters before its first one that is
  neither a space nor a tree-drawing character (the box-drawing characters
  U+2500 to U+257F: `│ ├ └ ─`).
* A line whose column is 16 or more continues the description of the entry
  above it (descriptions are aligned at column 26), and names nothing.
* Any other line is an entry: its first word (up to the first space) is a
  path relative to the entry it is nested in, or to the repository's root.
  An entry is nested in the nearest entry above it with a smaller column:
  `Sources/ReachabilityCore/` at column 0, then `  Monitor/` at column 2, is
  Sources/ReachabilityCore/Monitor/; so is `├── Monitor/` below it. The rest
  of the line is description.
* A path that ends in `/` names a folder, and any other a file.

The checks: every path the map names exists, as a folder or a file as it is
written (not absolute, no `..`); and every folder directly under Sources/
(but hidden ones) is an entry of its own, `Sources/NAME/`, so that a new
module cannot be added without its place in the map.
"""
import sys
from pathlib import Path

DOCUMENT = "Sources/LinuxReachability/LinuxReachability.docc/Architecture.md"
HEADING = "Where the code is"
CONTINUATION_COLUMN = 16
FENCE = "```"


def is_drawing(character):
    return character == " " or "\u2500" <= character <= "\u257f"


def layout_block(lines):
    """The layout block's lines as (line number, text), or an error message."""
    heading = None
    for index, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith("#") and stripped.lstrip("#").startswith(" ") \
                and stripped.lstrip("#").strip() == HEADING:
            heading = index
            break
    if heading is None:
        return None, f"no heading '{HEADING}'"
    start = None
    for index in range(heading + 1, len(lines)):
        stripped = lines[index].strip()
        if stripped.startswith(FENCE):
            start = index
            break
        if stripped.startswith("#"):
            break
    if start is None:
        return None, f"no fenced code block under the heading '{HEADING}' (line {heading + 1})"
    block = []
    for index in range(start + 1, len(lines)):
        if lines[index].strip().startswith(FENCE):
            return block, None
        block.append((index + 1, lines[index].rstrip()))
    return None, f"the code block under '{HEADING}' (line {start + 1}) is never closed"


def entries(block):
    """(line number, path) for every entry of the drawing, paths joined to their parents'."""
    found = []
    parents = []   # (column, path) of the entries the next one may be nested in
    for number, text in block:
        if not text.strip():
            continue
        column = 0
        while column < len(text) and is_drawing(text[column]):
            column += 1
        if column >= CONTINUATION_COLUMN:
            continue
        name = text[column:].split()[0]
        while parents and parents[-1][0] >= column:
            parents.pop()
        path = (parents[-1][1] if parents else "") + name
        found.append((number, path, name))
        parents.append((column, path))
    return found


def main():
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent
    document = root / DOCUMENT
    problems = []
    try:
        lines = document.read_text(encoding="utf-8").splitlines()
    except OSError as error:
        print(f"check-architecture: cannot read {DOCUMENT}: {error}", file=sys.stderr)
        return 1
    block, error = layout_block(lines)
    if error:
        print(f"check-architecture: {DOCUMENT}: {error}", file=sys.stderr)
        return 1

    found = entries(block)
    named = set()
    for number, path, name in found:
        where = f"{DOCUMENT}:{number}"
        if path.startswith("/") or ".." in Path(path).parts:
            problems.append(f"{where}: '{name}' is not a path inside the repository")
            continue
        target = root / path
        if path.endswith("/"):
            if not target.is_dir():
                problems.append(f"{where}: {path} is not a folder of the repository (a name in the layout block"
                                f" that does not exist; nested entries are relative to the one above them)")
        elif not target.is_file():
            problems.append(f"{where}: {path} is not a file of the repository (a name in the layout block"
                            f" that does not exist; nested entries are relative to the one above them)")
        named.add(path)

    sources = root / "Sources"
    for folder in sorted(p.name for p in sources.iterdir() if p.is_dir() and not p.name.startswith(".")):
        if f"Sources/{folder}/" not in named:
            problems.append(f"{DOCUMENT}: Sources/{folder}/ is not in the layout block under '{HEADING}'"
                            f" (every folder of Sources/ has an entry of its own there)")

    if problems:
        for problem in problems:
            print(f"check-architecture: {problem}", file=sys.stderr)
        print(f"check-architecture: {len(problems)} problem(s); the block's format is in Tools/check-architecture.py",
              file=sys.stderr)
        return 1
    print(f"check-architecture: the {len(found)} paths of Architecture.md's layout exist, "
          f"and every folder of Sources/ is among them")
    return 0


if __name__ == "__main__":
    sys.exit(main())
