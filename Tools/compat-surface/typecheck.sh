#!/usr/bin/env bash
# Type-checks Swift files as a client of the built compat modules would
# compile them: each file alone, against `swift build`'s modules, in the
# Swift language modes given (5 and 6 by default), two at a time.
#
#   Tools/compat-surface/typecheck.sh [--mode 5|6] FILE...
#
# Exit status 0 when every file type-checks in every mode asked for; else
# each failure's errors, and 1. Two markers in a file's own lines change
# what passes:
#   // typecheck: warnings are errors
#       the file is compiled to SIL (so flow diagnostics such as "case will
#       never be executed" run) with -warnings-as-errors: any warning fails it;
#   // typecheck: expect diagnostic: TEXT
#       the file is compiled to SIL and one of its errors or warnings must
#       hold TEXT (a spelling that must not compile, a warning that must
#       appear); it passes only then, whatever the exit status.
set -uo pipefail
cd "$(dirname "$0")/../.."
modes="5 6"
if [ "${1:-}" = --mode ]; then modes=$2; shift 2; fi
[ $# -gt 0 ] || { echo "usage: $0 [--mode 5|6] FILE..." >&2; exit 2; }
bin=$(swift build --show-bin-path) || exit 2
[ -d "$bin/Modules" ] || { echo "typecheck: no modules in $bin: run swift build first" >&2; exit 2; }
# The one C module the Swift modules' interfaces need (ReachabilityCore
# imports it internally); SwiftPM writes its map into the build. Not every
# map there: a clean build also has the plugin tools' copies of
# ArgumentParser's, and two maps of one module do not load together.
maps="-Xcc -fmodule-map-file=$bin/CReachability.build/module.modulemap"
[ -f "$bin/CReachability.build/module.modulemap" ] || { echo "typecheck: no CReachability module map in $bin" >&2; exit 2; }
export bin maps
one() {   # MODE FILE
    local action=(-typecheck) expected
    if grep -q '^// typecheck: warnings are errors$' "$2"; then action=(-emit-sil -o /dev/null -warnings-as-errors); fi
    expected=$(sed -n 's|^// typecheck: expect diagnostic: ||p' "$2" | head -1)
    [ -n "$expected" ] && action=(-emit-sil -o /dev/null)
    # shellcheck disable=SC2086
    # A module name of its own: by default swiftc names the module after the
    # file, and a file named after the module it imports would import itself.
    out=$(swiftc "${action[@]}" -module-name CompatSurfaceClient -swift-version "$1" -I "$bin/Modules" $maps \
            -Xcc -ICSupport/include -Xcc -ISources/CReachabilityLibcap -Xcc -ISources/CReachabilitySDBus "$2" 2>&1)
    status=$?
    if [ -n "$expected" ]; then
        echo "$out" | grep -E "(error|warning):" | grep -qF -- "$expected" && return 0
        printf 'typecheck: %s (Swift %s) has no diagnostic "%s":\n%s\n' "$2" "$1" "$expected" "$(echo "$out" | grep -E "(error|warning):" | head -20)"
        return 1
    fi
    [ $status -eq 0 ] && return 0
    printf 'typecheck: %s (Swift %s) fails:\n%s\n' "$2" "$1" "$(echo "$out" | grep -E "error:" | head -20)"
    return 1
}
export -f one
for mode in $modes; do for file in "$@"; do printf '%s\0%s\0' "$mode" "$file"; done; done |
    xargs -0 -n 2 -P 2 bash -c 'one "$0" "$1"'
status=$?
[ $status -eq 0 ] && echo "typecheck: $# file(s) in Swift $modes: no error"
[ $status -eq 0 ] || exit 1
