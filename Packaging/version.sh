#!/bin/sh
# Prints the package's version, from its one place
# (Sources/ReachabilityCore/Version.swift), after checking that CHANGELOG.md
# has its entry ("## [VERSION] - YYYY-MM-DD"). --date prints that entry's date.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
version=$(sed -n 's/^    public static let version = "\([0-9][0-9.]*\)"$/\1/p' "$root/Sources/ReachabilityCore/Version.swift")
if [ -z "$version" ]; then
    echo "version.sh: no 'public static let version = \"X.Y.Z\"' in Sources/ReachabilityCore/Version.swift" >&2
    exit 1
fi
date=$(sed -n "s/^## \[$(printf '%s' "$version" | sed 's/\./\\./g')\] - \([0-9-]*\)\$/\1/p" "$root/CHANGELOG.md")
if [ -z "$date" ]; then
    echo "version.sh: CHANGELOG.md has no entry '## [$version] - YYYY-MM-DD' for the version in Version.swift" >&2
    exit 1
fi
case "${1:-}" in
    "") echo "$version" ;;
    --date) echo "$date" ;;
    *) echo "usage: $0 [--date]" >&2; exit 2 ;;
esac
