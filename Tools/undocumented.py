#!/usr/bin/env python3
"""Public declarations without a documentation comment.

Usage: Tools/undocumented.py DIR...   (prints FILE:LINE: declaration; exit 1 if any)

A declaration is `public` or `open` (not `public import`, not an extension:
an extension's members are checked one by one). It is documented when a
`///` line or a `/** */` block ends right above it (attributes such as
`@inlinable` may sit in between). Members that implement a standard
protocol's requirement (`description`, `rawValue`, `init(rawValue:)`,
`hash(into:)`, `==`, `makeIterator`, `next`, `errorDescription`) inherit the
protocol's documentation and are not listed. `make docs` runs this on every
module that has a DocC catalog.
"""
import re
import sys
from pathlib import Path

DECL = re.compile(r'^\s*(?:@[\w().:, "]+\s+)*(?:(?:required|override|final|convenience|nonisolated)\s+)*(?:public|open)\s+(?!import\b|extension\b)(?:[\w()]+\s+)*?'
                  r'(func|var|let|init|subscript|case|class|struct|enum|protocol|typealias|actor|static|'
                  r'convenience|final|nonisolated|mutating|override|required|indirect)\b')
INHERITED = re.compile(r'\b(var description\b|var debugDescription\b|var rawValue\b|let rawValue\b|'
                       r'init\(rawValue\b|init\?\(rawValue\b|func hash\(into\b|static func ==|func makeIterator\b|'
                       r'func next\(\)|var errorDescription\b|func makeAsyncIterator\b|var hashValue\b)')


PUBLIC_ENUM = re.compile(r'^\s*(?:@[\w().:, "]+\s+)*(?:public|open)\s+(?:indirect\s+)?enum\b')
CASE = re.compile(r'^\s*(?:indirect\s+)?case\s+\w')


def public_enum_cases(lines):
    """Line numbers of the `case` declarations of public enums, nested ones
    included (not `case` in a switch, which sits deeper than the enum's body)."""
    cases, depth, enums = set(), 0, []   # enums: the depth each open public enum's body is at
    for number, line in enumerate(lines):
        code = re.sub(r'//.*|"(?:\\.|[^"\\])*"', "", line)
        if enums and depth == enums[-1] and CASE.match(line):
            cases.add(number)
        if PUBLIC_ENUM.match(line):
            enums.append(depth + 1)
        depth += code.count("{") - code.count("}")
        while enums and depth < enums[-1]:
            enums.pop()
    return cases


def undocumented(path):
    lines = path.read_text(encoding="utf-8").splitlines()
    cases = public_enum_cases(lines)
    for number, line in enumerate(lines):
        if not (DECL.match(line) or number in cases) or INHERITED.search(line):
            continue
        above = number - 1
        while above >= 0 and (lines[above].strip().startswith("@") or lines[above].strip() == "" and False):
            above -= 1
        prev = lines[above].strip() if above >= 0 else ""
        if prev.startswith("///") or prev.endswith("*/"):
            continue
        # `case a, b` lines in an enum whose doc is on a line above an attribute group
        yield number + 1, line.strip()


def main():
    found = 0
    for root in sys.argv[1:]:
        for path in sorted(Path(root).rglob("*.swift")):
            for number, text in undocumented(path):
                print(f"{path}:{number}: {text}")
                found += 1
    print(f"undocumented: {found} public declarations", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
